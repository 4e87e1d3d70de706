use petstore::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // PETSTORE_BASE_URL and PETSTORE_TOKEN from the environment.
    let client = Client::from_env()?;
    let pets = client.pets().list().limit(2).await?;
    for pet in &pets {
        let found = client.pets().get(pet.id).await?;
        println!("{} is a {:?}", found.name, found.species);
    }
    Ok(())
}

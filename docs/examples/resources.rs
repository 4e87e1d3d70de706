use petstore::types::{NewPet, Species};

pub async fn calls(client: &petstore::Client) -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: calls
    let pets = client.pets().list().limit(10).await?;
    let pet = client.pets().get(42).await?;
    let added = client.pets().add(NewPet::new("Rex", Species::Dog)).await?;
    // ANCHOR_END: calls
    println!("{} {} {}", pets.len(), pet.name, added.id);
    Ok(())
}

use petstore_bindings::{BridgeError, Compatibility, Tools, types};

pub async fn call() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: call
    let server = std::process::Command::new("petstore-mcp");
    let tools = Tools::stdio(server, Compatibility::Require).await?;
    // or Tools::http("http://127.0.0.1:8080/mcp", …), or Tools::in_process(registry, …)
    match tools.get_pet(&types::GetPetInput::new(5)).await {
        Ok(pet) => println!("{}", pet.name),
        Err(BridgeError::Application(error)) => eprintln!("declared error: {error:?}"),
        Err(other) => eprintln!("{other}"), // InvalidInput, UnknownTool, Runtime, ContractViolation
    }
    // ANCHOR_END: call
    Ok(())
}

use std::collections::BTreeMap;

use harness_gen_runtime::{Audience, Catalog, Handler, ToolRegistry};

pub async fn registry() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: registry
    let catalog = Catalog::from_json(petstore::CATALOG_JSON)?; // validated, located errors
    let mut handlers = BTreeMap::new();
    {
        let name = "list_pets";
        handlers.insert(
            name.to_string(),
            Handler::new(|input| async move { Ok(input) }),
        );
    }
    let registry = ToolRegistry::publish(catalog, handlers)?;
    let out = registry
        .invoke(Audience::Cli, "list_pets", serde_json::json!({"limit": 5}))
        .await;
    // ANCHOR_END: registry
    println!("{out:?}");
    Ok(())
}

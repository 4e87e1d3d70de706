//! Serves any `harn-tools/2.0` catalog over MCP stdio exactly as a generated server lists it,
//! with no API behind it: every call is checked against the full contract (arguments the
//! contract refuses are refused, as the generated server refuses them) and a valid call is
//! answered with a transport error. For looking at, and testing, what MCP clients are shown of
//! a big API without compiling its crate (`tests/` drives it with the official Python client
//! over Stripe's catalog).
//!
//! ```sh
//! harness-gen catalog spec.yaml --out catalog.json
//! cargo run -p harness-gen-runtime --features mcp --example serve_catalog -- catalog.json
//! ```

// As generated programs do.
#[global_allocator]
static ALLOCATOR: harness_gen_runtime::Allocator = harness_gen_runtime::Allocator;

use std::collections::BTreeMap;

use harness_gen_runtime::mcp::{McpServer, serve_stdio};
use harness_gen_runtime::{Catalog, Handler, RuntimeCategory, Thrown, ToolRegistry};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: serve_catalog CATALOG.json")?;
    let catalog = Catalog::from_json(&std::fs::read_to_string(path)?)?;
    let handlers: BTreeMap<String, Handler> = catalog
        .tools
        .iter()
        .map(|entry| {
            let handler =
                Handler::new(|_| async { Err(Thrown::Fault(RuntimeCategory::Transport)) });
            (entry.name.to_string(), handler)
        })
        .collect();
    let registry = ToolRegistry::publish(catalog, handlers)?;
    let server = McpServer::new(&registry, "serve-catalog", env!("CARGO_PKG_VERSION"));
    serve_stdio(server, tokio::io::stdin(), tokio::io::stdout()).await?;
    Ok(())
}

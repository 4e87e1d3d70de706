//! `harness-gen-registry`: the live tool registry a generated crate builds (with the runtime's
//! `registry` feature). One registry owns every tool's contract (schemas, audiences, CLI
//! metadata, policy, source binding) and its handler; the CLI, the MCP server, the dashboard,
//! the bridge and the agent surface are projections of it, each in its own package. Every one
//! of them calls the one invocation path, [`ToolRegistry::invoke`], and renders its one
//! classification of failures ([`render`]).
//!
//! ```
//! use harness_gen_registry::{Handler, ToolRegistry};
//! use harness_gen_contract::{Audience, catalog::Entry};
//! use serde_json::json;
//!
//! # futures::executor::block_on(async {
//! let entry: Entry = serde_json::from_value(json!({
//!     "name": "echo",
//!     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
//!     "outputSchema": {"type": "string"},
//!     "governance": {"audiences": ["cli", "mcp"]},
//!     "cli": {"command": ["echo"], "hidden": false},
//!     "deferLoading": false
//! }))?;
//! let registry = ToolRegistry::builder()
//!     .tool(entry, Handler::new(|input| async move { Ok(input["text"].clone()) }))
//!     .build()?;
//!
//! let out = registry.invoke(Audience::Mcp, "echo", json!({"text": "hi"})).await?;
//! assert_eq!(out, "hi");
//! // Outside its audiences, the tool does not exist.
//! assert!(registry.lookup(Audience::Agent, "echo").is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
#![deny(missing_docs)]

mod agent;
mod compose;
mod invoke;
#[cfg(feature = "logs")]
pub mod logs;
mod registry;
pub mod render;
#[cfg(feature = "typed")]
pub mod typed;

// The contract as data, named by path inside this package.
use harness_gen_contract::{catalog, harness, schema};
use harness_gen_wire::{BUFFERED_BYTES, RuntimeCategory};

pub use agent::Provider;
pub use compose::{
    CATALOG_REF_KEY, Composer, Listed, ListedCommand, Listing, base_urls, catalog_ref,
};
pub use invoke::{CALL, Issue, Phase, ToolError, mismatch_issue};
pub use registry::{
    ByteOutput, EventOutput, Factory, Handler, HandlerFuture, RegistryBuilder, Thrown, ToolOutput,
    ToolRegistry,
};

/// A tool's validated input as `I`; a value the schema allowed but `I` cannot take (a format
/// the schema names without asserting) is invalid input at its pointer.
pub fn typed_input<I: serde::de::DeserializeOwned>(input: serde_json::Value) -> Result<I, Thrown> {
    harness_gen_wire::error::typed_value(input).map_err(|(pointer, _)| {
        Thrown::InvalidInput(vec![Issue {
            pointer,
            keyword: "format".into(),
        }])
    })
}

/// A handler's output (or thrown error) as the value the registry checks against its schema.
pub fn output_value<O: serde::Serialize>(output: O) -> Result<serde_json::Value, Thrown> {
    serde_json::to_value(output).map_err(|_| Thrown::Fault(RuntimeCategory::Internal))
}

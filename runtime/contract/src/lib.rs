//! `harness-gen-contract`: the contract of a tool registry as data, shared by the generator
//! (which writes it) and the runtime (which serves it).
//!
//! - [`catalog`]: the `harn-tools/2.0` catalog (a tool's schemas, audiences, CLI metadata,
//!   policy and [binding](harness_gen_wire::binding)), its publish-time [`validate`]ion, its
//!   index, and a tool as an MCP server [lists](catalog::listed) it;
//! - [`schema`]: JSON Schema 2020-12 plumbing: pointers and walks, the [form
//!   check](schema::meta), standalone and strict projections, and the budgeted listing;
//! - [`cli_names`]: the command and option names a tool gets on a command line;
//! - [`harness`]: the `.harness` IR (bundles, revisions, their canonical form and resolution);
//! - `artifacts` (feature `artifacts`): the catalog format's JSON Schema and TypeScript.
//!
//! Nothing here runs a server, a client or a terminal: a `build.rs` that generates a crate
//! compiles this and the types it is made of, nothing else of the runtime.
#![deny(missing_docs)]

#[cfg(feature = "artifacts")]
pub mod artifacts;
pub mod catalog;
pub mod cli_names;
pub mod harness;
pub mod schema;
pub mod sha256;

use harness_gen_wire::{binding, error, pointer};

pub use catalog::validate;
pub use catalog::{Audience, Catalog};
pub use harness_gen_wire::{ContractError, ContractErrors, ErrorCode};

//! The runtime's specification tests, as one test binary (every extra binary links the whole
//! dependency tree again). Modules that need an optional feature are compiled with it; the
//! workspace's test command (`cargo test --workspace --all-features`) runs them all.
#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

mod common;
mod corpus;

#[cfg(feature = "artifacts")]
mod artifacts;
mod audiences;
mod catalog_format;
#[cfg(feature = "cli")]
mod cli;
mod cli_tree;
#[cfg(feature = "typed")]
mod compose;
#[cfg(feature = "typed")]
mod compose_lazy;
mod error_contract;
mod harness_fixtures;
#[cfg(feature = "client")]
mod http_client;
#[cfg(feature = "mcp")]
mod mcp;
mod meta_schema;
mod no_panic;
mod prepared;
mod standalone_corpus;

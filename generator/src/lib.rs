//! `harness-gen`: generates typed Rust SDK crates, tool registries, CLIs and MCP servers from
//! OpenAPI documents (and `.harness` programs).
//!
//! The OpenAPI ingest and the emitters are being built; today the library holds the catalog
//! artifact writer and a demonstration registry built in code.
#![deny(missing_docs)]

pub mod artifacts;
pub mod catalog;
pub mod demo;
pub mod diag;
pub mod load;
pub mod mapping;
pub mod model;
pub mod names;
pub mod schemas;
pub mod source;
pub mod xharn;

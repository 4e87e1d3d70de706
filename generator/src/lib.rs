//! `harness-gen`: generates typed Rust SDK crates, tool registries, CLIs and MCP servers from
//! OpenAPI documents (and `.harness` programs).
//!
//! The pipeline: [`load`] reads a document (JSON or YAML, local `$ref` files), [`mapping`]
//! turns it into the one intermediate [`model`] (schemas normalized by [`schemas`], `x-harn`
//! parsed by [`xharn`]), and [`catalog`] projects the model to the `harn-tools/2.0` catalog,
//! checked by the runtime's own publish-time validation. Problems are [`diag`]nostics with
//! stable codes and `file:line:column` positions.
//!
//! ```no_run
//! let mut diags = harness_gen::diag::Diagnostics::default();
//! let generated = harness_gen::catalog::generate("specs/petstore.yaml".as_ref(), None, &mut diags);
//! eprint!("{diags}");
//! if let Some((_api, catalog)) = generated.filter(|_| !diags.has_errors()) {
//!     print!("{}", catalog.to_json_pretty());
//! }
//! ```
#![deny(missing_docs)]

pub mod artifacts;
pub mod catalog;
pub mod diag;
pub mod emit;
pub mod load;
pub mod mapping;
pub mod model;
pub mod names;
pub mod schemas;
pub mod source;
pub mod xharn;

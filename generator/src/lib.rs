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
pub mod builder;
pub mod catalog;
pub mod diag;
pub mod emit;
pub mod harness;
pub mod load;
pub mod mapping;
pub mod model;
pub mod names;
pub mod output;
pub mod schemas;
pub mod source;
pub mod xharn;

/// Loads, maps and checks `spec` and generates its crate, returned with the catalog it embeds.
/// Schemas that had to become `serde_json::Value` are reported as warnings. `None` when the
/// document could not be used.
pub fn generate_crate(
    spec: &std::path::Path,
    options: &emit::krate::Options,
    diags: &mut diag::Diagnostics,
) -> Option<(emit::krate::Crate, harness_runtime::Catalog)> {
    let doc = load::Document::load(spec, diags)?;
    let name = options.crate_name.clone();
    let (api, catalog) = catalog::from_document(&doc, name.as_deref(), diags);
    let krate = emit::krate::generate(&api, &catalog, options);
    for (pointer, why) in &krate.fallbacks {
        let loc = load::Loc::main(pointer.trim_start_matches('#'));
        diags.push(doc.diag(
            diag::Code::Lossy,
            diag::Severity::Warning,
            &loc,
            format!("this schema is typed as serde_json::Value: {why}"),
        ));
    }
    Some((krate, catalog))
}

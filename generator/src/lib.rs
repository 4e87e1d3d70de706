//! `harness-gen`: generates typed Rust SDK crates, tool registries, CLIs and MCP servers from
//! OpenAPI documents (and `.harness` programs).
//!
//! From a build script, [`Builder`] is all you need (see [`builder`]):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), harness_gen::BuildError> {
//!     harness_gen::Builder::new()
//!         .openapi("specs/petstore.yaml")
//!         .name("petstore")
//!         .generate()
//! }
//! ```
//!
//! The other entry points: [`generate_crate`] (a whole crate's files, as `harness-gen openapi`
//! writes them, with [`output::write`] / [`output::plan`] to write or check them),
//! [`generate_catalog`] (the `harn-tools/2.0` catalog alone), [`harness`] (the `.harness`
//! compiler) and [`artifacts`] (the catalog format's JSON Schema and TypeScript). Problems are
//! [`diag`]nostics with stable codes and `file:line:column` positions:
//!
//! ```no_run
//! let mut diags = harness_gen::diag::Diagnostics::default();
//! let catalog = harness_gen::generate_catalog("specs/petstore.yaml".as_ref(), None, &mut diags);
//! eprint!("{diags}");
//! if let Some(catalog) = catalog.filter(|_| !diags.has_errors()) {
//!     print!("{}", catalog.to_json_pretty());
//! }
//! ```
//!
//! Inside, the pipeline is `load` (JSON or YAML, local `$ref` files) → `mapping` into the one
//! intermediate `model` (schemas normalized by `schemas`, `x-harn` parsed by `xharn`) →
//! `catalog` and the `emit`ters. Those modules are internal (public only with the
//! `internals` feature, for this crate's tests and fuzz targets; not a stable API).
#![deny(missing_docs)]

/// Declares modules that are internal: `pub(crate)`, or `pub` with the `internals` feature,
/// which exists only for this crate's own tests and fuzz targets and is not a stable API.
macro_rules! internal_modules {
    ($($name:ident;)*) => {$(
        #[cfg(feature = "internals")]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )*};
}
pub(crate) use internal_modules;

pub mod artifacts;
pub mod builder;
pub mod diag;
pub mod harness;
pub mod output;
internal_modules! {
    catalog;
    emit;
    load;
    mapping;
    model;
    names;
    schemas;
    source;
    xharn;
}

pub use builder::{BuildError, Builder};
pub use emit::krate::{Crate, Options};

/// Loads, maps and checks `spec` and returns its `harn-tools/2.0` catalog, named `name` (default:
/// the document's title in kebab-case). `None` when the document could not be read at all;
/// otherwise check `diags` for errors.
pub fn generate_catalog(
    spec: &std::path::Path,
    name: Option<&str>,
    diags: &mut diag::Diagnostics,
) -> Option<harness_gen_runtime::Catalog> {
    catalog::generate(spec, name, diags).map(|(_, catalog)| catalog)
}

/// Loads, maps and checks `spec` and generates its crate, returned with the catalog it embeds.
/// Schemas that had to become `serde_json::Value` are reported as warnings. `None` when the
/// document could not be used.
pub fn generate_crate(
    spec: &std::path::Path,
    options: &Options,
    diags: &mut diag::Diagnostics,
) -> Option<(Crate, harness_gen_runtime::Catalog)> {
    if let Some(problem) = options
        .crate_name
        .as_deref()
        .and_then(emit::krate::crate_name_problem)
    {
        diags.push(diag::Diagnostic {
            code: diag::Code::CrateName,
            severity: diag::Severity::Error,
            file: "--crate-name".into(),
            pointer: String::new(),
            position: None,
            message: format!("{problem}; choose another name with --crate-name"),
        });
        return None;
    }
    let doc = load::Document::load(spec, diags)?;
    let name = options.crate_name.clone();
    let (api, catalog) = catalog::from_document(&doc, name.as_deref(), diags);
    if options.crate_name.is_none() {
        if let Some(problem) = emit::krate::crate_name_problem(&options.name(&api)) {
            diags.push(doc.diag(
                diag::Code::CrateName,
                diag::Severity::Error,
                &load::Loc::main("/info/title"),
                format!("the crate name derived from the title cannot be used: {problem}; name the crate with --crate-name"),
            ));
            return None;
        }
    }
    let krate = emit::krate::generate(&api, &catalog, options);
    report_fallbacks(&doc, &krate.fallbacks, diags);
    Some((krate, catalog))
}

/// Reports each schema that had to become `serde_json::Value` (HG0504, a warning; an error
/// under `--strict`).
pub(crate) fn report_fallbacks(
    doc: &load::Document,
    fallbacks: &[(String, String)],
    diags: &mut diag::Diagnostics,
) {
    for (pointer, why) in fallbacks {
        let loc = load::Loc::main(pointer.trim_start_matches('#'));
        diags.push(doc.diag(
            diag::Code::Lossy,
            diag::Severity::Warning,
            &loc,
            format!("this schema is typed as serde_json::Value: {why}"),
        ));
    }
}

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
//! compiler). Problems are
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
//! Inside, `pipeline` runs `load` (JSON or YAML, local `$ref` files) → `mapping` into the one
//! intermediate `model` (schemas normalized by `schemas`, `x-harn` parsed by `xharn`) →
//! `catalog` and the `emit`ters, for every entry point. Those modules are internal (public only with the
//! `internals` feature, for this crate's tests and fuzz targets; not a stable API).
#![deny(missing_docs)]

pub mod builder;
pub mod diag;
pub mod explain;
pub mod harness;
pub mod output;
// Internal modules: `pub(crate)`, or `pub` with the `internals` feature, which exists only for
// this crate's own tests and fuzz targets and is not a stable API. Declared one by one (not by
// a macro) so that rustfmt, which does not look inside macros, formats them.
#[cfg(feature = "internals")]
pub mod catalog;
#[cfg(not(feature = "internals"))]
pub(crate) mod catalog;
#[cfg(feature = "internals")]
pub mod emit;
#[cfg(not(feature = "internals"))]
pub(crate) mod emit;
#[cfg(feature = "internals")]
pub mod load;
#[cfg(not(feature = "internals"))]
pub(crate) mod load;
#[cfg(feature = "internals")]
pub mod mapping;
#[cfg(not(feature = "internals"))]
pub(crate) mod mapping;
#[cfg(feature = "internals")]
pub mod model;
#[cfg(not(feature = "internals"))]
pub(crate) mod model;
#[cfg(feature = "internals")]
pub mod names;
#[cfg(not(feature = "internals"))]
pub(crate) mod names;
#[cfg(feature = "internals")]
pub mod pipeline;
#[cfg(not(feature = "internals"))]
pub(crate) mod pipeline;
#[cfg(feature = "internals")]
pub mod schemas;
#[cfg(not(feature = "internals"))]
pub(crate) mod schemas;
#[cfg(feature = "internals")]
pub mod source;
#[cfg(not(feature = "internals"))]
pub(crate) mod source;
#[cfg(feature = "internals")]
pub mod xharn;
#[cfg(not(feature = "internals"))]
pub(crate) mod xharn;

pub use builder::{BuildError, Builder};
pub use emit::bindings::{Bindings, Options as BindingsOptions};
pub use emit::krate::{Crate, Options};
/// What MCP listings and agent tool schemas show of a tool's schemas
/// ([`Builder::listing_budget`], `harness-gen openapi --listing-depth/--listing-bytes`).
pub use harness_gen_contract::schema::listing::Budget as ListingBudget;

/// Loads, maps and checks `spec` and returns its `harn-tools/2.0` catalog, named `name` (default:
/// the document's title in kebab-case). `None` when the document could not be read at all;
/// otherwise check `diags` for errors.
pub fn generate_catalog(
    spec: &std::path::Path,
    name: Option<&str>,
    diags: &mut diag::Diagnostics,
) -> Option<harness_gen_contract::Catalog> {
    pipeline::catalog_of(spec, name, diags).map(|(_, catalog)| catalog)
}

/// [`generate_catalog`] as the pretty JSON text `harness-gen catalog` writes, made while the
/// listing report is.
pub fn generate_catalog_text(
    spec: &std::path::Path,
    name: Option<&str>,
    diags: &mut diag::Diagnostics,
) -> Option<String> {
    pipeline::catalog_of_with(
        spec,
        name,
        diags,
        harness_gen_contract::Catalog::to_json_pretty,
    )
    .map(|(_, _, text)| text)
}

/// Loads, maps and checks `spec` and generates its crate, returned with the catalog it embeds.
/// Schemas that had to become `serde_json::Value` are reported as warnings. `None` when the
/// document could not be used.
pub fn generate_crate(
    spec: &std::path::Path,
    options: &Options,
    diags: &mut diag::Diagnostics,
) -> Option<(Crate, harness_gen_contract::Catalog)> {
    if !pipeline::given_crate_name_is_usable(options.crate_name.as_deref(), diags) {
        return None;
    }
    let doc = load::Document::load(spec, diags)?;
    let assembled = pipeline::assemble(
        &doc,
        options.crate_name.as_deref(),
        pipeline::Target::Crate,
        diags,
    )?;
    // The listing report is made beside the crate's largest files.
    let budget = options.listing_budget.unwrap_or(ListingBudget::DEFAULT);
    let clean = !diags.has_errors();
    let (krate, catalog, report) = emit::krate::generate(assembled, options, |catalog| {
        clean.then(|| catalog::listing_report(&doc, catalog, budget))
    });
    diags.append(report.unwrap_or_default());
    for (loc, broken) in &krate.unparsable {
        diags.push(unparsable_diagnostic(&doc, loc, broken));
    }
    Some((krate, catalog))
}

/// The error of generated Rust that does not parse, at the schema or operation its item was
/// made from.
pub(crate) fn unparsable_diagnostic(
    doc: &load::Document,
    loc: &load::Loc,
    broken: &emit::Unparsable,
) -> diag::Diagnostic {
    doc.diag(
        diag::Code::UnparsableRust,
        diag::Severity::Error,
        loc,
        format!(
            "harness-gen made Rust that does not parse from this part of the document, so nothing was written: {broken}. This is a defect of harness-gen: please report it with the document; renaming the schema or operation here may avoid it meanwhile"
        ),
    )
}

/// `harness-gen bindings`: the typed bindings crate of a `harn-tools/2.0` catalog's text.
/// A catalog the runtime refuses (another format version, a broken schema) is refused with the
/// runtime's own located errors.
pub fn generate_bindings(
    catalog: &str,
    options: &BindingsOptions,
) -> Result<Bindings, BindingsError> {
    bindings_name_is_usable(options)?;
    let catalog =
        harness_gen_contract::Catalog::from_json(catalog).map_err(BindingsError::Catalog)?;
    emit::bindings::generate(&catalog, None, options).map_err(BindingsError::Unparsable)
}

/// `harness-gen bindings --from-mcp`: the typed bindings crate of what a live MCP server
/// listed, read back as `catalog`, with the hash of each tool as it was `listed`
/// (`catalog::listed::listed_hash`), which the bindings compare with the server's at run time.
pub fn generate_bindings_of_listing(
    catalog: &harness_gen_contract::Catalog,
    listed: std::collections::BTreeMap<String, String>,
    options: &BindingsOptions,
) -> Result<Bindings, BindingsError> {
    bindings_name_is_usable(options)?;
    emit::bindings::generate(catalog, Some(listed), options).map_err(BindingsError::Unparsable)
}

/// The bindings crate's name, checked before anything is read or started.
pub fn bindings_name_is_usable(options: &BindingsOptions) -> Result<(), BindingsError> {
    match emit::krate::crate_name_problem(&options.crate_name) {
        Some(problem) => Err(BindingsError::CrateName(problem)),
        None => Ok(()),
    }
}

/// Why `harness-gen bindings` wrote nothing.
#[derive(Debug)]
pub enum BindingsError {
    /// The crate name is not one cargo accepts.
    CrateName(String),
    /// The catalog does not load (the runtime's errors, each with its code and location).
    Catalog(harness_gen_wire::ContractErrors),
    /// The MCP server could not be started, reached or listed (`harness-gen bindings
    /// --from-mcp`).
    Server(String),
    /// The Rust made for the catalog does not parse (a defect of the generator); nothing is
    /// written.
    Unparsable(Vec<emit::Unparsable>),
}

impl std::fmt::Display for BindingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindingsError::CrateName(problem) => write!(
                f,
                "error[{}]: {problem}; choose another name with --crate-name",
                diag::Code::CrateName.as_str()
            ),
            BindingsError::Server(why) => write!(
                f,
                "{why}\nhelp: --from-mcp takes the command that starts a server speaking stdio, or its Streamable HTTP URL"
            ),
            BindingsError::Unparsable(broken) => {
                for broken in broken {
                    writeln!(
                        f,
                        "error[{}]: harness-gen made Rust that does not parse, so nothing was written: {broken}",
                        diag::Code::UnparsableRust.as_str()
                    )?;
                }
                write!(
                    f,
                    "help: this is a defect of harness-gen: please report it with the catalog; renaming the tool or schema named above may avoid it meanwhile"
                )
            }
            BindingsError::Catalog(errors) => write!(
                f,
                "{errors}\nhelp: regenerate the catalog, its schema and the bindings together (`harness-gen catalog`, then `harness-gen bindings`)"
            ),
        }
    }
}

/// The JSON Schemas of `x-harn` in the three places it may appear, with each place's title and
/// path: made from the types that read it, for the book's reference (feature `reference`).
#[cfg(feature = "reference")]
pub fn x_harn_schemas() -> [(&'static str, &'static str, serde_json::Value); 3] {
    use xharn::{DocumentExt, OperationExt, SchemeExt};
    let schema = |schema: schemars::Schema| schema.to_value();
    [
        (
            "On an operation",
            "paths./pets.get.x-harn",
            schema(schemars::schema_for!(OperationExt)),
        ),
        (
            "At the document's root",
            "x-harn",
            schema(schemars::schema_for!(DocumentExt)),
        ),
        (
            "On a security scheme",
            "components.securitySchemes.<name>.x-harn",
            schema(schemars::schema_for!(SchemeExt)),
        ),
    ]
}

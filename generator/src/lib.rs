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

pub mod builder;
pub mod diag;
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
    catalog::generate(spec, name, diags).map(|(_, catalog)| catalog)
}

/// [`generate_catalog`] as the pretty JSON text `harness-gen catalog` writes, made while the
/// listing report is.
pub fn generate_catalog_text(
    spec: &std::path::Path,
    name: Option<&str>,
    diags: &mut diag::Diagnostics,
) -> Option<String> {
    catalog::generate_with(
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
    if !given_crate_name_is_usable(options.crate_name.as_deref(), diags) {
        return None;
    }
    let doc = load::Document::load(spec, diags)?;
    let assembled = assemble(&doc, options.crate_name.as_deref(), Target::Crate, diags)?;
    // The listing report is made beside the crate's largest files.
    let budget = options.listing_budget.unwrap_or(ListingBudget::DEFAULT);
    let clean = !diags.has_errors();
    let (krate, catalog, report) = emit::krate::generate(assembled, options, |catalog| {
        clean.then(|| catalog::listing_report(&doc, catalog, budget))
    });
    diags.append(report.unwrap_or_default());
    Some((krate, catalog))
}

/// What every way of generating shares (`harness-gen openapi` through [`generate_crate`], and
/// the `build.rs` [`Builder`]): one model of the document with its catalog, the crate name
/// settled and checked, and the Rust types, with every schema that became a JSON value
/// reported. The callers differ only in how they lay the result out.
pub(crate) struct Assembled {
    /// The model.
    pub api: model::Api,
    /// Its catalog (checked by the runtime's publish-time rules).
    pub catalog: harness_gen_contract::Catalog,
    /// The crate name: the one given, else derived from the title.
    pub name: String,
    /// The emitted types and each operation's type names.
    pub types: emit::Types,
}

/// Where generated code goes, which decides what a build of it compiles.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target<'a> {
    /// A crate of its own (`harness-gen openapi`): comparison derives behind `compare`, chrono
    /// dates behind `dates`, each operation group behind its cargo feature.
    Crate,
    /// A build-script module, part of the including crate: comparison derives always, dates
    /// as chrono types or strings, and the operations of the named groups (every operation
    /// when `None`).
    BuildScript {
        /// The groups to generate.
        groups: Option<&'a [String]>,
        /// Whether `date-time` and `date` are chrono types (the runtime's `dates` feature).
        dates: bool,
    },
}

/// Maps `doc` and emits its types (see [`Assembled`]) for `target`; `None` when the crate name
/// derived from the title cannot be used (the given name is checked by
/// [`given_crate_name_is_usable`]) or a selected group does not exist.
pub(crate) fn assemble(
    doc: &load::Document,
    crate_name: Option<&str>,
    target: Target,
    diags: &mut diag::Diagnostics,
) -> Option<Assembled> {
    let (mut api, mut catalog) = catalog::from_document(doc, crate_name, diags);
    let name = match crate_name {
        Some(name) => name.to_string(),
        None => {
            let derived = emit::krate::crate_name(&api.info.title);
            if let Some(problem) = emit::krate::crate_name_problem(&derived) {
                diags.push(doc.diag(
                    diag::Code::CrateName,
                    diag::Severity::Error,
                    &load::Loc::main("/info/title"),
                    format!("the crate name derived from the title cannot be used: {problem}; name the crate with --crate-name (Builder::name in a build script)"),
                ));
                return None;
            }
            derived
        }
    };
    use emit::types::{Extras, Optional};
    let (extras, gating) = match target {
        Target::Crate => (Extras::CRATE, emit::Gating::Features),
        Target::BuildScript { groups, dates } => {
            let extras = Extras {
                comparisons: Optional::Always,
                dates: if dates {
                    Optional::Always
                } else {
                    Optional::Never
                },
            };
            match groups {
                None => (extras, emit::Gating::All),
                Some(selected) => {
                    select_groups(&mut api, &mut catalog, selected, diags)?;
                    (extras, emit::Gating::Reached)
                }
            }
        }
    };
    let types = emit::types_file(&api, extras, gating);
    report_fallbacks(doc, &types.fallbacks, diags);
    Some(Assembled {
        api,
        catalog,
        name,
        types,
    })
}

/// Narrows the model and the catalog to the operations of the `selected` groups (and those in
/// no group); `None`, with an error naming the valid groups, when one does not exist.
fn select_groups(
    api: &mut model::Api,
    catalog: &mut harness_gen_contract::Catalog,
    selected: &[String],
    diags: &mut diag::Diagnostics,
) -> Option<()> {
    let known: Vec<&str> = api.groups.iter().map(|g| g.feature.as_str()).collect();
    let unknown: Vec<&str> = selected
        .iter()
        .map(String::as_str)
        .filter(|s| !known.contains(s))
        .collect();
    if !unknown.is_empty() {
        diags.push(diag::Diagnostic {
            code: diag::Code::Grouped,
            severity: diag::Severity::Error,
            file: "Builder::groups".into(),
            pointer: String::new(),
            position: None,
            message: format!(
                "no operation group is named {}: the groups are {}",
                unknown
                    .iter()
                    .map(|u| format!("`{}`", diag::printable(u)))
                    .collect::<Vec<_>>()
                    .join(", "),
                if known.is_empty() {
                    "none (the document has no tags or paths to group by)".to_string()
                } else {
                    known.join(", ")
                }
            ),
        });
        return None;
    }
    let groups = &api.groups;
    let keep = |op: &model::Operation| {
        op.groups.is_empty()
            || op
                .groups
                .iter()
                .any(|&g| selected.contains(&groups[g].feature))
    };
    let dropped: std::collections::BTreeSet<String> = api
        .operations
        .iter()
        .filter(|op| !keep(op))
        .map(|op| op.entry.name.as_str().to_string())
        .collect();
    api.operations.retain(keep);
    catalog.retain_tools(|entry| !dropped.contains(entry.name.as_str()));
    Some(())
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
    Ok(emit::bindings::generate(&catalog, None, options))
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
    Ok(emit::bindings::generate(catalog, Some(listed), options))
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
            BindingsError::Catalog(errors) => write!(
                f,
                "{errors}\nhelp: regenerate the catalog, its schema and the bindings together (`harness-gen catalog`, then `harness-gen bindings`)"
            ),
        }
    }
}

/// Whether a crate name given by the user is one cargo accepts and we can use (HG0701 when
/// not), checked before anything is read.
pub(crate) fn given_crate_name_is_usable(
    name: Option<&str>,
    diags: &mut diag::Diagnostics,
) -> bool {
    let Some(problem) = name.and_then(emit::krate::crate_name_problem) else {
        return true;
    };
    diags.push(diag::Diagnostic {
        code: diag::Code::CrateName,
        severity: diag::Severity::Error,
        file: "--crate-name".into(),
        pointer: String::new(),
        position: None,
        message: format!(
            "{problem}; choose another name with --crate-name (Builder::name in a build script)"
        ),
    });
    false
}

/// Reports each loss the types made (HG0504, a warning; an error under `--strict`): a schema
/// that had to become `serde_json::Value`, a required property no schema declares.
fn report_fallbacks(
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
            why.clone(),
        ));
    }
}

//! The one pipeline every entry point runs: [`load`](crate::load) reads the document (it and
//! its `source` are the only modules that read files), [`mapping`](crate::mapping) builds the model, [`catalog`] derives
//! and checks the catalog, and the emitters write the types; `harness-gen catalog`, `harness-gen
//! openapi` ([`crate::generate_crate`]) and the `build.rs` [`Builder`](crate::Builder) differ only
//! in how they lay the result out.

use std::path::Path;

use harness_gen_contract::Catalog;
use harness_gen_contract::catalog::NonBlank;
use harness_gen_contract::schema::listing::Budget;

use crate::diag::{self, Diagnostics};
use crate::model::Api;
use crate::{catalog, emit, load, model};

/// Loads, maps and checks `path`, returning the model and its catalog, with the listing
/// report. `None` when the document could not be read at all; otherwise check `diags` for
/// errors.
pub fn catalog_of(
    path: &Path,
    name: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<(Api, Catalog)> {
    catalog_of_with(path, name, diags, |_| ()).map(|(api, catalog, ())| (api, catalog))
}

/// [`catalog_of`], doing `beside` with the catalog (writing its text, say) while the listing
/// report is made on a second thread.
pub fn catalog_of_with<R>(
    path: &Path,
    name: Option<&str>,
    diags: &mut Diagnostics,
    beside: impl FnOnce(&Catalog) -> R,
) -> Option<(Api, Catalog, R)> {
    let doc = load::Document::load(path, diags)?;
    let (api, catalog) = catalog::from_document(&doc, name, diags);
    if diags.has_errors() {
        let done = beside(&catalog);
        return Some((api, catalog, done));
    }
    let (report, done) = std::thread::scope(|scope| {
        let report = scope.spawn(|| catalog::listing_report(&doc, &catalog, Budget::DEFAULT));
        let done = beside(&catalog);
        let report = report
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (report, done)
    });
    diags.append(report);
    Some((api, catalog, done))
}

/// What every way of generating shares (`harness-gen openapi` through [`crate::generate_crate`], and
/// the `build.rs` [`crate::Builder`]): one model of the document with its catalog, the crate name
/// settled and checked, and the Rust types, with every schema that became a JSON value
/// reported. The callers differ only in how they lay the result out.
pub(crate) struct Assembled {
    /// The model.
    pub api: model::Api,
    /// Its catalog (checked by the contract's publish-time rules).
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
    let mut api = crate::mapping::map(doc, diags);
    let registry = crate_name.map_or_else(|| catalog::default_name(&api), str::to_string);
    let name = match crate_name {
        Some(name) => name.to_string(),
        None => {
            let derived = emit::krate::crate_name(&api.info.title);
            if let Some(problem) = emit::krate::crate_name_problem(&derived) {
                // The catalog's diagnostics come first, as when the crate name is usable.
                catalog::checked(doc, &api, &registry, diags);
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
    let (extras, gating, selected) = match target {
        Target::Crate => (Extras::CRATE, emit::Gating::Features, None),
        Target::BuildScript { groups, dates } => {
            let extras = Extras {
                comparisons: Optional::Always,
                dates: if dates {
                    Optional::Always
                } else {
                    Optional::Never
                },
                // A build script's types are the including crate's: it derives its own.
                schemas: Optional::Never,
                sent_read: Optional::Always,
            };
            match groups {
                None => (extras, emit::Gating::All, None),
                Some(selected) => (extras, emit::Gating::Reached, Some(selected)),
            }
        }
    };
    let catalog_name = NonBlank::new(registry.as_str()).ok().map(|n| n.to_string());
    let types = |api: &model::Api| emit::types_file(api, extras, gating, catalog_name.as_deref());
    let (catalog, types) = match selected {
        Some(selected) => {
            let mut catalog = catalog::checked(doc, &api, &registry, diags);
            select_groups(&mut api, &mut catalog, selected, diags)?;
            let types = types(&api);
            (catalog, types)
        }
        // The catalog is made and checked on a second thread while the types are made (GHES:
        // 40 of the 100 ms the types take).
        None => std::thread::scope(|scope| {
            let api = &api;
            let checked = scope.spawn(|| {
                let mut found = Diagnostics::default();
                (catalog::checked(doc, api, &registry, &mut found), found)
            });
            let types = types(api);
            let (catalog, found) = checked
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            diags.append(found);
            (catalog, types)
        }),
    };
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

//! The `harn-tools/2.0` catalog of a mapped API, checked by the runtime's own publish-time
//! validation, and the one-call pipeline `harness-gen catalog` runs.

use std::path::Path;

use harness_gen_runtime::catalog::{Catalog, CliTree, Components, Info, NonBlank, SchemaDoc};

use crate::diag::{Code, Diagnostics, Severity};
use crate::load::Document;
use crate::model::Api;

/// Builds the catalog of `api`: exposed operations only, every component schema.
pub fn of(api: &Api, name: &str) -> Catalog {
    let mut catalog = Catalog::new(
        api.operations
            .iter()
            .filter(|op| op.expose)
            .map(|op| op.entry.clone())
            .collect(),
    );
    catalog.info = NonBlank::new(name).ok().map(|name| Info {
        name,
        version: NonBlank::new(api.info.version.clone()).ok(),
        description: api
            .info
            .description
            .clone()
            .and_then(|d| NonBlank::new(d).ok()),
    });
    if !api.cli_commands.is_empty() {
        catalog.cli = Some(CliTree {
            commands: api.cli_commands.clone(),
        });
    }
    if !api.components.is_empty() {
        catalog.components = Some(Components {
            schemas: api
                .components
                .iter()
                .filter_map(|(name, schema)| {
                    Some((name.clone(), SchemaDoc::new(schema.clone()).ok()?))
                })
                .collect(),
        });
    }
    catalog
}

/// The default registry name: the document's title in kebab-case.
pub fn default_name(api: &Api) -> String {
    crate::names::kebab(&api.info.title)
}

/// Loads, maps and checks `path`, returning the model and its catalog. `None` when the
/// document could not be read at all; otherwise check `diags` for errors.
pub fn generate(
    path: &Path,
    name: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<(Api, Catalog)> {
    let doc = Document::load(path, diags)?;
    Some(from_document(&doc, name, diags))
}

/// Maps and checks a loaded document.
pub fn from_document(
    doc: &Document,
    name: Option<&str>,
    diags: &mut Diagnostics,
) -> (Api, Catalog) {
    let api = crate::mapping::map(doc, diags);
    let name = name.map_or_else(|| default_name(&api), str::to_string);
    let catalog = of(&api, &name);
    if let Err(errors) = harness_gen_runtime::validate::validate_catalog(&catalog) {
        let exposed: Vec<&crate::model::Operation> =
            api.operations.iter().filter(|op| op.expose).collect();
        for error in errors.as_slice() {
            let loc = tool_index(&error.path)
                .and_then(|i| exposed.get(i))
                .map_or_else(|| crate::load::Loc::main(""), |op| op.loc.clone());
            diags.push(doc.diag(
                Code::Catalog,
                Severity::Error,
                &loc,
                format!(
                    "the catalog would be invalid at {} ({}): {}",
                    error.path, error.code, error.message
                ),
            ));
        }
    }
    unmovable_schemas(doc, &catalog, diags);
    (api, catalog)
}

/// Each component schema the standalone projection would refuse (a location-bound keyword the
/// normalizer could not rebind): every tool reaching it is listed by MCP servers and agent
/// projections in the permissive fallback form (HG0504, at the component). Checked once per
/// component, not per tool, so large connected APIs stay fast.
fn unmovable_schemas(doc: &Document, catalog: &Catalog, diags: &mut Diagnostics) {
    let Some(components) = &catalog.components else {
        return;
    };
    for (name, schema) in &components.schemas {
        if let Err(refused) =
            harness_gen_runtime::schema::standalone::check_movable(schema.as_value(), "")
        {
            // The refusal's path is `#<pointer inside the component>`.
            let loc = crate::load::Loc::main(format!(
                "/components/schemas/{}{}",
                harness_gen_runtime::schema::escape(name),
                refused.path.trim_start_matches('#')
            ));
            diags.push(doc.diag(
                Code::Lossy,
                Severity::Warning,
                &loc,
                format!(
                    "{} Tools reaching `{name}` are listed (MCP, agents) with a permissive form of their schemas; calls are still checked against the full schema",
                    refused.message
                ),
            ));
        }
    }
}

fn tool_index(path: &str) -> Option<usize> {
    path.strip_prefix("tools[")?.split(']').next()?.parse().ok()
}

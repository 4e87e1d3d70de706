//! The `harn-tools/2.0` catalog of a mapped API, checked by the contract's own publish-time
//! validation, and the report of what an MCP server will list of it.

use harness_gen_contract::catalog::{
    Audience, Catalog, CliTree, Components, Info, NonBlank, SchemaDoc,
};
use harness_gen_contract::schema::listing::Budget;
use harness_gen_contract::schema::serialized_len;

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

/// Maps and checks a loaded document.
pub fn from_document(
    doc: &Document,
    name: Option<&str>,
    diags: &mut Diagnostics,
) -> (Api, Catalog) {
    let api = crate::mapping::map(doc, diags);
    let name = name.map_or_else(|| default_name(&api), str::to_string);
    let catalog = checked(doc, &api, &name, diags);
    (api, catalog)
}

/// The catalog of the model `api` of `doc`, named `name`, with what the contract's publish-time
/// rules refuse in it reported at the operations, and the warnings about what it lists.
pub fn checked(doc: &Document, api: &Api, name: &str, diags: &mut Diagnostics) -> Catalog {
    let catalog = of(api, name);
    if let Err(errors) = harness_gen_contract::validate::validate_catalog(&catalog) {
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
    long_descriptions(doc, api, &catalog, diags);
    catalog
}

/// The longest description an MCP client or agent is shown without a warning: longer ones cost
/// every conversation that lists the tool, and some clients cut them.
pub const LONG_DESCRIPTION: usize = 1024;

/// Warns of each tool whose description, as the MCP listing or the agents' provider schemas
/// show it, is over [`LONG_DESCRIPTION`] characters (HG0511, at the operation).
fn long_descriptions(doc: &Document, api: &Api, catalog: &Catalog, diags: &mut Diagnostics) {
    let exposed = api.operations.iter().filter(|op| op.expose);
    for (op, entry) in exposed.zip(&catalog.tools) {
        for audience in [Audience::Mcp, Audience::Agent] {
            let Some(text) = entry
                .description_for(audience)
                .filter(|_| entry.allows(audience))
            else {
                continue;
            };
            let length = text.chars().count();
            if length > LONG_DESCRIPTION {
                diags.push(doc.diag(
                    Code::LongDescription,
                    Severity::Warning,
                    &op.loc,
                    format!(
                        "`{}` is described to {} in {length} characters, over {LONG_DESCRIPTION}: every conversation that lists it pays for them; give a shorter one in x-harn.descriptions.{}",
                        entry.name.as_str(),
                        if audience == Audience::Mcp { "MCP clients" } else { "agents" },
                        audience.as_str(),
                    ),
                ));
                // One warning per tool: the same text usually serves both.
                break;
            }
        }
    }
}

/// What the MCP server will list for `catalog` with `budget` (the standard profile), measured
/// as it lists it: a note with the listing's size in total, its largest tools and what
/// discovery mode lists instead, and a warning naming the tools whose listed schemas stay over
/// the budget even abbreviated (HG0510). Costs about a cold start of the server's listing.
pub fn listing_report(doc: &Document, catalog: &Catalog, budget: Budget) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let budget = budget.with_env();
    let mut sizes: Vec<(usize, usize, &str)> = Vec::new();
    harness_gen_contract::catalog::listed::each_listed(
        catalog.tools.iter(),
        catalog.components.as_ref().map(|c| &c.schemas),
        budget,
        |entry, tool, schemas| sizes.push((serialized_len(&tool), schemas, entry.name.as_str())),
    );
    if sizes.is_empty() {
        return diags;
    }
    let total: usize = sizes.iter().map(|(size, _, _)| size).sum();
    let tools = sizes.len();
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(b.2)));
    let largest: Vec<String> = sizes
        .iter()
        .take(3)
        .map(|(size, _, name)| format!("`{name}` {}", bytes(*size)))
        .collect();
    let discovery = if tools > harness_gen_contract::catalog::listed::DISCOVERY_THRESHOLD {
        format!(
            "; with more than {} tools the MCP server starts in discovery mode, listing three meta-tools (about 2 kB) unless run with --discovery off",
            harness_gen_contract::catalog::listed::DISCOVERY_THRESHOLD
        )
    } else {
        String::new()
    };
    let root = crate::load::Loc::main("");
    diags.push(doc.diag(
        Code::Listing,
        Severity::Note,
        &root,
        format!(
            "the MCP listing of {tools} tools is {} (about {} tokens at 4 bytes each); largest: {}{discovery}",
            bytes(total),
            total / 4,
            largest.join(", ")
        ),
    ));
    let mut over: Vec<&(usize, usize, &str)> = sizes
        .iter()
        .filter(|(_, schemas, _)| *schemas > budget.bytes)
        .collect();
    over.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(b.2)));
    if let Some(first) = over.first() {
        let named: Vec<String> = over
            .iter()
            .take(5)
            .map(|(_, schemas, name)| format!("`{name}` {}", bytes(*schemas)))
            .collect();
        diags.push(doc.diag(
            Code::Listing,
            Severity::Warning,
            &root,
            format!(
                "{} over the listing budget of {} bytes per tool even abbreviated ({}{}; the largest {}): their own shape is that large; raise the budget (--listing-bytes, HARNESS_LISTING_BYTES) if clients cope, or narrow the served tools (--tag, --discovery)",
                match over.len() {
                    1 => "1 tool lists schemas".to_string(),
                    n => format!("{n} tools list schemas"),
                },
                budget.bytes,
                named.join(", "),
                if over.len() > 5 { ", …" } else { "" },
                bytes(first.1),
            ),
        ));
    }
    diags
}

/// `n` bytes for people: `812 B`, `13.0 kB`, `1.96 MB`.
fn bytes(n: usize) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.2} MB", n as f64 / 1e6),
    }
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
            harness_gen_contract::schema::standalone::check_movable(schema.as_value(), "")
        {
            // The refusal's path is `#<pointer inside the component>`.
            let loc = crate::load::Loc::main(format!(
                "/components/schemas/{}{}",
                harness_gen_contract::schema::escape(name),
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

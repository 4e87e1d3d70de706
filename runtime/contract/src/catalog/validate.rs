//! Publish-time validation (tool-contract.md §3): the rules that span fields or entries and so
//! cannot be checked while one field is deserialized. Runs once, when a catalog is parsed or a
//! registry is published; every error is located and value-free.

use std::collections::BTreeMap;

use serde_json::Value;

use super::argument_names;
use crate::catalog::{CONTRACT_META_KEY, Catalog, CommandSegment, Entry};
use crate::cli_names::{self, ArgumentName};
use crate::error::{ContractError, ContractErrors, ErrorCode};
use crate::schema;
use crate::schema::standalone::check_reference;
use crate::{Audience, catalog::SchemaDoc};

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Checks every publish-time rule and reports every violation found.
pub fn validate_catalog(catalog: &Catalog) -> Result<(), ContractErrors> {
    let mut errors = Vec::new();
    let components = catalog.component_schemas();
    if let Some(components) = components {
        for (name, schema) in components {
            let at = format!("components.schemas.{name}");
            check_schema(schema.as_value(), components, &at, &mut errors);
        }
    }
    let empty = BTreeMap::new();
    let components = components.unwrap_or(&empty);
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, entry) in catalog.tools.iter().enumerate() {
        let at = format!("tools[{index}]");
        if let Some(first) = names.insert(&entry.name, index) {
            names.insert(&entry.name, first);
            errors.push(ContractError::new(
                ErrorCode::DuplicateToolName,
                format!("{at}.name"),
                format!(
                    "tool `{}` is already defined at tools[{first}]: tool names must be unique",
                    entry.name.as_str()
                ),
            ));
        }
        check_entry(entry, components, &at, &mut errors);
    }
    if let Some(tree) = &catalog.cli {
        let lists = tree
            .commands
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                (
                    format!("cli.commands[{i}].aliases"),
                    first_duplicate(&spec.aliases),
                )
            })
            .collect();
        report_duplicates(lists, &mut errors);
    }
    check_cli_tree(catalog, &mut errors);
    ContractErrors::check(errors)
}

fn check_entry(
    entry: &Entry,
    components: &BTreeMap<String, SchemaDoc>,
    at: &str,
    errors: &mut Vec<ContractError>,
) {
    check_schema(
        entry.input_schema.as_value(),
        components,
        &format!("{at}.inputSchema"),
        errors,
    );
    for (field, schema) in [
        ("outputSchema", &entry.output_schema),
        ("errorSchema", &entry.error_schema),
    ] {
        if let Some(schema) = schema {
            check_schema(
                schema.as_value(),
                components,
                &format!("{at}.{field}"),
                errors,
            );
        }
    }
    if let Some(icons) = &entry.icons {
        if icons.is_empty() {
            errors.push(ContractError::new(
                ErrorCode::InvalidField,
                format!("{at}.icons"),
                "must list at least one icon, or be omitted",
            ));
        }
        for (i, icon) in icons.iter().enumerate() {
            if icon.sizes.as_ref().is_some_and(Vec::is_empty) {
                errors.push(ContractError::new(
                    ErrorCode::InvalidField,
                    format!("{at}.icons[{i}].sizes"),
                    "must list at least one size, or be omitted",
                ));
            }
            if icons[..i].contains(icon) {
                errors.push(ContractError::new(
                    ErrorCode::DuplicateIcon,
                    format!("{at}.icons[{i}]"),
                    "this icon is listed twice: list each icon once",
                ));
            }
        }
    }
    let mut lists: Vec<(String, Option<usize>)> = vec![(
        format!("{at}.cli.aliases"),
        first_duplicate(&entry.cli.aliases),
    )];
    for (property, spec) in &entry.cli.arguments {
        let here = format!("{at}.cli.arguments.{property}");
        lists.push((format!("{here}.aliases"), first_duplicate(&spec.aliases)));
        lists.push((
            format!("{here}.completions"),
            first_duplicate(&spec.completions),
        ));
    }
    for (i, icon) in entry.icons.iter().flatten().enumerate() {
        let sizes = icon.sizes.as_deref().unwrap_or_default();
        lists.push((format!("{at}.icons[{i}].sizes"), first_duplicate(sizes)));
    }
    report_duplicates(lists, errors);
    if let Some(meta) = &entry.meta
        && meta.keys().any(|k| k.as_str() == CONTRACT_META_KEY)
    {
        errors.push(ContractError::new(
            ErrorCode::ReservedMetaKey,
            format!("{at}._meta"),
            format!(
                "`{CONTRACT_META_KEY}` is reserved for the contract projection (it is derived from \
                 errorSchema): use your own reverse-DNS prefix"
            ),
        ));
    }
    if entry.allows(Audience::Cli) {
        check_arguments(entry, at, errors);
    }
}

/// A schema must be valid 2020-12, declare no other dialect, and only reference what resolves
/// inside the catalog.
fn check_schema(
    schema: &Value,
    components: &BTreeMap<String, SchemaDoc>,
    at: &str,
    errors: &mut Vec<ContractError>,
) {
    let lookup = |name: &str| components.get(name).map(SchemaDoc::as_value);
    let mut dialect_ok = true;
    schema::visit(schema, &mut |pointer, map| {
        if let Some(dialect) = map.get("$schema")
            && dialect.as_str().map(|d| d.trim_end_matches('#')) != Some(DRAFT_2020_12)
        {
            dialect_ok = false;
            errors.push(ContractError::new(
                ErrorCode::InvalidSchema,
                format!("{at}#{pointer}/$schema"),
                format!(
                    "only JSON Schema Draft 2020-12 is accepted: remove `$schema` or set it to \"{DRAFT_2020_12}\""
                ),
            ));
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let where_ = || format!("{at}#{pointer}/$ref");
            match check_reference(reference, schema, &lookup, where_) {
                // `$id`-based resolution is the one way a non-fragment reference can stay inside
                // the document; anything else would need retrieval.
                Err(error) if error.code == ErrorCode::ExternalReference && has_id(schema) => {}
                Err(error) => errors.push(error),
                Ok(_) => {}
            }
        }
    });
    if !dialect_ok {
        return;
    }
    if let Some(violation) = crate::schema::meta::first_violation(schema) {
        errors.push(ContractError::new(
            ErrorCode::InvalidSchema,
            format!("{at}#{}", violation.pointer),
            format!(
                "not a valid JSON Schema (Draft 2020-12): the value here must be {}; see the 2020-12 meta-schema",
                violation.expected
            ),
        ));
    }
}

/// The index of the first item equal to an earlier one.
pub(crate) fn first_duplicate<T: PartialEq>(items: &[T]) -> Option<usize> {
    (1..items.len()).find(|&i| items[..i].contains(&items[i]))
}

fn report_duplicates(lists: Vec<(String, Option<usize>)>, errors: &mut Vec<ContractError>) {
    for (path, duplicate) in lists {
        if let Some(i) = duplicate {
            errors.push(ContractError::new(
                ErrorCode::InvalidField,
                format!("{path}[{i}]"),
                "repeats an earlier item: list each once",
            ));
        }
    }
}

fn has_id(schema: &Value) -> bool {
    let mut found = false;
    schema::visit(schema, &mut |_, map| found |= map.contains_key("$id"));
    found
}

/// Argument specs must name input properties and give each option a distinct, unreserved name.
fn check_arguments(entry: &Entry, at: &str, errors: &mut Vec<ContractError>) {
    let input = entry.input_schema.as_value();
    let properties = input.get("properties").and_then(Value::as_object);
    // A schema assembled from `$ref`/`allOf` has properties we cannot list without resolving;
    // the CLI resolves them when it builds the command.
    let closed_listing = properties.is_some()
        || !["$ref", "allOf", "anyOf", "oneOf"]
            .iter()
            .any(|k| input.get(*k).is_some());
    for key in entry.cli.arguments.keys() {
        let known = properties.is_some_and(|p| p.contains_key(key));
        if closed_listing && !known {
            errors.push(ContractError::new(
                ErrorCode::CliUnknownArgument,
                format!("{at}.cli.arguments.{key}"),
                format!(
                    "`{key}` is not a property of this tool's inputSchema: remove the argument spec or fix its name"
                ),
            ));
        }
    }
    let mut owners: BTreeMap<ArgumentName, String> = BTreeMap::new();
    let names = properties
        .map(|p| p.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    let mut all: Vec<&str> = names.iter().map(String::as_str).collect();
    for key in entry.cli.arguments.keys() {
        if !all.contains(&key.as_str()) {
            all.push(key);
        }
    }
    for property in all {
        let spec = entry.cli.arguments.get(property);
        for name in argument_names(property, spec) {
            let where_ = format!("{at}.cli.arguments.{property}");
            if cli_names::is_reserved(&name) {
                errors.push(ContractError::new(
                    ErrorCode::CliReservedOption,
                    where_.clone(),
                    format!(
                        "{name} is a reserved global option of every generated CLI: give `{property}` another `long` name"
                    ),
                ));
            }
            if let Some(other) = owners.insert(name.clone(), property.to_string()) {
                errors.push(ContractError::new(
                    ErrorCode::CliOptionClash,
                    where_,
                    format!(
                        "{name} is also used by property `{other}`: give one of them another name"
                    ),
                ));
            }
        }
    }
}

/// The CLI tree among CLI-audience tools: no duplicate paths, no leaf that is also a parent,
/// no alias that clashes with a sibling's name or alias.
fn check_cli_tree(catalog: &Catalog, errors: &mut Vec<ContractError>) {
    let cli_tools: Vec<(usize, &Entry)> = catalog
        .tools
        .iter()
        .enumerate()
        .filter(|(_, e)| e.allows(Audience::Cli))
        .collect();

    let mut leaves: BTreeMap<Vec<&str>, usize> = BTreeMap::new();
    for &(index, entry) in &cli_tools {
        let path: Vec<&str> = entry.cli.command.words().collect();
        if let Some(&first) = leaves.get(&path) {
            errors.push(ContractError::new(
                ErrorCode::CliDuplicatePath,
                format!("tools[{index}].cli.command"),
                format!(
                    "command `{}` is already used by tool `{}` (tools[{first}]): give one of them another cli.command",
                    entry.cli.command,
                    catalog.tools[first].name.as_str()
                ),
            ));
        } else {
            leaves.insert(path, index);
        }
    }
    for (path, &index) in &leaves {
        for len in 1..path.len() {
            if let Some(&parent) = leaves.get(&path[..len]) {
                errors.push(ContractError::new(
                    ErrorCode::CliLeafIsParent,
                    format!("tools[{parent}].cli.command"),
                    format!(
                        "command `{}` (tool `{}`) is also the parent of tool `{}`'s command: a command cannot both run a tool and hold subcommands",
                        path[..len].join(" "),
                        catalog.tools[parent].name.as_str(),
                        catalog.tools[index].name.as_str()
                    ),
                ));
            }
        }
    }

    // Names and aliases per parent: first every path segment (the commands themselves), then
    // aliases, so that the alias is what gets reported whichever order the tools come in.
    let mut siblings = Siblings::default();
    for &(index, entry) in &cli_tools {
        let segments = entry.cli.command.segments();
        for depth in 0..segments.len() {
            let owner = format!("command `{}`", join(&segments[..=depth]));
            let at = format!("tools[{index}].cli.command[{depth}]");
            siblings.claim(&segments[..depth], &segments[depth], owner, at, errors);
        }
    }
    let mut aliases = Vec::new();
    for &(index, entry) in &cli_tools {
        for (i, alias) in entry.cli.aliases.iter().enumerate() {
            aliases.push((
                &entry.cli.command,
                alias,
                format!("tools[{index}].cli.aliases[{i}]"),
            ));
        }
    }
    for (index, spec) in catalog
        .cli
        .iter()
        .flat_map(|t| t.commands.iter().enumerate())
    {
        for (i, alias) in spec.aliases.iter().enumerate() {
            aliases.push((
                &spec.command,
                alias,
                format!("cli.commands[{index}].aliases[{i}]"),
            ));
        }
    }
    for (command, alias, at) in aliases {
        let segments = command.segments();
        let owner = format!("command `{command}`");
        siblings.claim(&segments[..segments.len() - 1], alias, owner, at, errors);
    }
}

fn join(segments: &[CommandSegment]) -> String {
    segments
        .iter()
        .map(CommandSegment::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The names (and aliases) taken under each parent command, with who took them.
#[derive(Default)]
struct Siblings(BTreeMap<(String, String), String>);

impl Siblings {
    fn claim(
        &mut self,
        parent: &[CommandSegment],
        name: &str,
        owner: String,
        at: String,
        errors: &mut Vec<ContractError>,
    ) {
        match self.0.get(&(join(parent), name.to_string())) {
            None => {
                self.0.insert((join(parent), name.to_string()), owner);
            }
            Some(existing) if *existing == owner => {}
            Some(existing) => errors.push(ContractError::new(
                ErrorCode::CliAliasClash,
                at,
                format!(
                    "`{name}` is already the name or an alias of {existing} under the same parent: choose another alias"
                ),
            )),
        }
    }
}

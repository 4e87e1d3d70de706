//! A tool as an MCP server lists it: its `Tool` object made from a catalog entry, the listing
//! mode a catalog's size calls for, and the hashes of listed schemas that bindings compare with
//! a live server's. The MCP server lists these; the generator measures them for its listing
//! report, and the bridge checks a server against them.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Audience, CONTRACT_META_KEY, DESCRIPTIONS_META_KEY, Entry, SchemaDoc};
use crate::schema::listing::{Budget, Lister, Prepared, Role};

/// Above this many tools, an MCP server serves in discovery mode unless told otherwise: the
/// tool limit of OpenAI's API and GitHub Copilot (Cursor reads about 40).
pub const DISCOVERY_THRESHOLD: usize = 128;

/// The MCP `Tool` of `entry`, as JSON: its name, title, MCP description, hints, icons, `_meta`
/// (the error schema under `com.harnlang/toolContract`) and its schemas as `list(schema, at,
/// role)` shows them (`at`: `inputSchema`, `outputSchema` or `errorSchema`). The input schema's
/// root says `"type": "object"`; so does the output schema's where every valid instance is an
/// object, since legacy clients accept no other. The MCP server lists this; harness-gen
/// measures it for its listing report.
pub fn mcp_tool(entry: &Entry, list: &mut dyn FnMut(&Value, &str, Role) -> Value) -> Value {
    let mut input = list(entry.input_schema.as_value(), "inputSchema", Role::Input);
    if let Some(object) = input.as_object_mut() {
        object
            .entry("type")
            .or_insert_with(|| Value::from("object"));
    }
    let output = match &entry.output_schema {
        // Bytes are returned as binary content, not as structured content.
        Some(_) if entry.returns_bytes() => None,
        Some(schema) => {
            let mut output = list(schema.as_value(), "outputSchema", Role::Output);
            // Saying `"type": "object"` where every valid instance is an object anyway (e.g.
            // an `allOf` of object schemas) changes nothing it accepts.
            if output.get("type").is_none()
                && always_object(&output, &output, 0)
                && let Some(object) = output.as_object_mut()
            {
                object.insert("type".to_owned(), Value::from("object"));
            }
            Some(output)
        }
        None => None,
    };
    // Other audiences' descriptions are no business of MCP clients.
    let mut meta: Map<String, Value> = entry
        .meta
        .iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != DESCRIPTIONS_META_KEY)
        .map(|(key, value)| (key.as_str().to_owned(), value.clone()))
        .collect();
    if let Some(schema) = &entry.error_schema {
        let schema = list(schema.as_value(), "errorSchema", Role::Error);
        let contract = meta.entry(CONTRACT_META_KEY).or_insert_with(|| json!({}));
        if let Some(contract) = contract.as_object_mut() {
            contract.insert("errorSchema".to_owned(), schema);
        }
    }
    let mut tool = json!({ "name": entry.name, "inputSchema": input });
    let fields = [
        ("title", entry.title.as_ref().map(|t| json!(t))),
        (
            "description",
            entry.description_for(Audience::Mcp).map(|d| json!(d)),
        ),
        ("outputSchema", output.filter(Value::is_object)),
        ("annotations", entry.annotations.as_ref().map(|a| json!(a))),
        ("icons", entry.icons.as_ref().map(|i| json!(i))),
        ("_meta", (!meta.is_empty()).then(|| Value::Object(meta))),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            tool[key] = value;
        }
    }
    tool
}

/// Whether every instance `schema` accepts is a JSON object: it says `"type": "object"`, or
/// one `allOf` branch or its `$ref` (into `root`'s `$defs`) does, or every `anyOf`/`oneOf`
/// branch does.
fn always_object(root: &Value, schema: &Value, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    let branch = |s: &Value| always_object(root, s, depth + 1);
    let list = |key: &str| schema.get(key).and_then(Value::as_array);
    schema.get("type").and_then(Value::as_str) == Some("object")
        || schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| {
                root.get("$defs")?
                    .get(name.replace("~1", "/").replace("~0", "~"))
            })
            .is_some_and(branch)
        || list("allOf").is_some_and(|all| all.iter().any(branch))
        || ["anyOf", "oneOf"]
            .iter()
            .any(|key| list(key).is_some_and(|any| !any.is_empty() && any.iter().all(branch)))
}

/// The hash compatibility compares: the content hash ([`crate::harness::canonical::content_hash`]) of a
/// listed MCP tool's `inputSchema`, `outputSchema` and `errorSchema` (from
/// `_meta["com.harnlang/toolContract"]`), absent ones as null.
pub fn listed_hash(tool: &Value) -> String {
    let error = tool
        .get("_meta")
        .and_then(|meta| meta.get(CONTRACT_META_KEY))
        .and_then(|contract| contract.get("errorSchema"));
    crate::harness::canonical::content_hash(&json!({
        "inputSchema": tool.get("inputSchema"),
        "outputSchema": tool.get("outputSchema"),
        "errorSchema": error,
    }))
}

/// Each tool of `entries` in the MCP audience as an MCP server lists it over `components`
/// within `budget` (the standard profile), passed to `each` with the size of its listed
/// schemas. harness-gen's listing report measures these; [`listed_hashes`] hashes them.
pub fn each_listed<'a>(
    entries: impl Iterator<Item = &'a Entry>,
    components: Option<&'a BTreeMap<String, SchemaDoc>>,
    budget: Budget,
    mut each: impl FnMut(&'a Entry, Value, usize),
) {
    let names = components.into_iter().flat_map(|c| c.keys());
    let prepared = Prepared::new(names.map(String::as_str));
    let component = |name: &str| {
        components
            .and_then(|c| c.get(name))
            .map(|schema| schema.as_value())
    };
    let lister = Lister::new(&component, &prepared, budget);
    for entry in entries.filter(|entry| entry.allows(Audience::Mcp)) {
        let name = entry.name.as_str();
        let mut schemas = 0;
        let tool = mcp_tool(entry, &mut |schema, at, role| {
            let listed = with_dialect(lister.list(schema, &format!("{name}.{at}"), role));
            schemas += crate::schema::serialized_len(&listed);
            listed
        });
        each(entry, tool, schemas);
    }
}

/// The JSON Schema dialect of listed schemas.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A listed `schema`, naming its dialect when it carries definitions (the standard profile
/// lists it so): what `$defs` and a `$ref` beside other keywords mean differs between drafts,
/// and a client that assumes an older one (draft-07's `definitions`) misreads them; a schema
/// without references reads the same in any draft and stays as it is.
pub fn with_dialect(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut()
        && object.contains_key("$defs")
        && !object.contains_key("$schema")
    {
        object.insert("$schema".to_owned(), Value::from(DIALECT));
    }
    schema
}

/// Per tool of `entries` in the MCP audience, the [`listed_hash`] of the tool as an MCP server
/// lists it over `components` (the standard profile, the default listing budget), by tool
/// name. `harness-gen bindings` writes these into its crate's contract; the bridge compares
/// them with a transport's.
pub fn listed_hashes<'a>(
    entries: impl Iterator<Item = &'a Entry>,
    components: Option<&'a BTreeMap<String, SchemaDoc>>,
) -> BTreeMap<String, String> {
    let mut hashes = BTreeMap::new();
    each_listed(entries, components, Budget::DEFAULT, |entry, tool, _| {
        hashes.insert(entry.name.to_string(), listed_hash(&tool));
    });
    hashes
}

/// The first sentence (or line) of `text`, at most `max` characters (cut at a word, with `…`):
/// how lists show a description (command lists here, tool search results over MCP).
pub fn summary(text: &str, max: usize) -> String {
    let text = text.trim();
    let line = text.lines().next().unwrap_or_default().trim();
    let sentence = match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    };
    if sentence.chars().count() <= max {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(max.saturating_sub(1)).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':']))
}

#[cfg(test)]
mod tests {
    fn summary(text: &str) -> String {
        super::summary(text, 80)
    }

    #[test]
    fn a_group_is_summarized_by_its_first_sentence_cut_at_a_word() {
        assert_eq!(summary("Manage pets. Each pet has a name."), "Manage pets.");
        assert_eq!(summary("  Line one\nline two"), "Line one");
        let long = "Endpoints to manage the repositories, their branches, their collaborators and every setting they have";
        let cut = summary(long);
        assert!(cut.ends_with('…') && cut.chars().count() <= 80, "{cut}");
        assert!(long.starts_with(cut.trim_end_matches('…')), "{cut}");
    }
}

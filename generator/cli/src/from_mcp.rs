//! `harness-gen bindings --from-mcp`: a live MCP server's listing as a `harn-tools/2.0`
//! catalog, so bindings of it come from the same emitter as bindings of a catalog file.
//!
//! Each listed tool becomes an MCP-audience entry with its name, title, description, hints and
//! schemas, its error schema from `_meta["com.harnlang/toolContract"].errorSchema`. A listed
//! schema stands alone (its components copied under its own `$defs`); those copies are moved
//! back to the catalog's components, so a component the tools share is one Rust type, not one
//! per tool: a copy whose name is taken by a different schema gets the next free name
//! (`Pet_2`). The hashes a bindings crate checks are those of the tools as listed, not of the
//! catalog rebuilt from them.

use std::collections::BTreeMap;

use harness_gen::{Bindings, BindingsError, BindingsOptions};
use harness_gen_contract::Catalog;
use harness_gen_contract::catalog::CONTRACT_META_KEY;
use harness_gen_runtime::bridge::{Listing, Server};
use serde_json::{Map, Value, json};

/// `harness-gen bindings --from-mcp`: the typed bindings crate of what a live MCP server lists
/// (its tools and their error schemas), connected to as `server` says.
pub fn generate_bindings(
    server: Server,
    options: &BindingsOptions,
) -> Result<Bindings, BindingsError> {
    harness_gen::bindings_name_is_usable(options)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| BindingsError::Server(error.to_string()))?;
    let listing = runtime
        .block_on(harness_gen_runtime::bridge::listing(server))
        .map_err(|error| BindingsError::Server(error.to_string()))?;
    let (catalog, listed) = catalog_of(&listing).map_err(BindingsError::Catalog)?;
    harness_gen::generate_bindings_of_listing(&catalog, listed, options)
}

/// The catalog of `listing`, and the hash of each listed tool.
pub fn catalog_of(
    listing: &Listing,
) -> Result<(Catalog, BTreeMap<String, String>), harness_gen_contract::ContractErrors> {
    let mut components: Map<String, Value> = Map::new();
    let mut tools = Vec::new();
    let mut hashes = BTreeMap::new();
    for tool in &listing.tools {
        let name = tool["name"].as_str().unwrap_or_default().to_string();
        hashes.insert(
            name.clone(),
            harness_gen_contract::catalog::listed::listed_hash(tool),
        );
        let error = tool
            .get("_meta")
            .and_then(|meta| meta.get(CONTRACT_META_KEY))
            .and_then(|contract| contract.get("errorSchema"));
        let mut entry = Map::new();
        entry.insert("name".into(), json!(name));
        for key in ["title", "description", "annotations"] {
            if let Some(value) = tool.get(key).filter(|v| !v.is_null()) {
                entry.insert(key.into(), value.clone());
            }
        }
        for (key, schema) in [
            ("inputSchema", tool.get("inputSchema")),
            ("outputSchema", tool.get("outputSchema")),
            ("errorSchema", error),
        ] {
            if let Some(schema) = schema.filter(|s| !s.is_null()) {
                entry.insert(key.into(), hoisted(schema.clone(), &mut components));
            }
        }
        entry.insert("governance".into(), json!({"audiences": ["mcp"]}));
        let segment = harness_gen_contract::cli_names::kebab(&name);
        let segment = if segment.is_empty() {
            "tool".to_string()
        } else {
            segment
        };
        entry.insert("cli".into(), json!({"command": [segment], "hidden": false}));
        entry.insert("deferLoading".into(), json!(false));
        tools.push(Value::Object(entry));
    }
    let mut catalog = json!({
        "schema_version": "harn-tools/2.0",
        "info": {"name": listing.name, "description": format!("The tools the `{}` MCP server lists.", listing.name)},
        "tools": tools,
    });
    if !listing.version.is_empty() {
        catalog["info"]["version"] = json!(listing.version);
    }
    if !components.is_empty() {
        catalog["components"] = json!({"schemas": components});
    }
    Ok((Catalog::from_value(catalog)?, hashes))
}

/// `schema` with its own `$defs` moved into `components` and its references to them
/// rewritten; a definition whose name is taken by a different schema gets the next free name.
/// A listing says `"type": "object"` beside a root reference to an object schema (MCP clients
/// want it, and it changes nothing the schema accepts); it is dropped again, so the root is
/// the referenced type rather than a map. The 2020-12 `$schema` a listing names beside its
/// definitions goes too: every schema of a catalog is 2020-12.
fn hoisted(mut schema: Value, components: &mut Map<String, Value>) -> Value {
    if let Some(root) = schema.as_object_mut()
        && root.contains_key("$ref")
        && root.get("type") == Some(&json!("object"))
    {
        root.remove("type");
    }
    if let Some(root) = schema.as_object_mut()
        && root.get("$schema") == Some(&json!(harness_gen_contract::catalog::listed::DIALECT))
    {
        root.remove("$schema");
    }
    let Some(Value::Object(defs)) = schema.as_object_mut().and_then(|s| s.remove("$defs")) else {
        return schema;
    };
    // Names start as they were; a clash renames one definition and every definition is
    // rewritten again (the rewritten text decides what clashes), until nothing changes.
    let mut names: BTreeMap<String, String> = defs.keys().map(|k| (k.clone(), k.clone())).collect();
    let mut rewritten: Vec<(String, Value)>;
    loop {
        rewritten = defs
            .iter()
            .map(|(name, def)| (names[name].clone(), rewrite(def.clone(), &names)))
            .collect();
        let clash = defs.keys().zip(&rewritten).find_map(|(old, (new, def))| {
            components
                .get(new)
                .filter(|existing| *existing != def)
                .map(|_| old.clone())
        });
        let Some(old) = clash else { break };
        let taken = |candidate: &str| {
            components.contains_key(candidate) || names.values().any(|n| n == candidate)
        };
        let base = names[&old].clone();
        let next = (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|candidate| !taken(candidate))
            .unwrap_or(base);
        names.insert(old, next);
    }
    for (name, def) in rewritten {
        components.entry(name).or_insert(def);
    }
    rewrite(schema, &names)
}

/// `value` with every `$ref` to `#/$defs/<name>…` pointing at `#/components/schemas/<new
/// name>…`.
fn rewrite(mut value: Value, names: &BTreeMap<String, String>) -> Value {
    use harness_gen_contract::schema::{escape, unescape};
    match &mut value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "$ref" {
                    if let Some(rest) = child.as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
                        let (head, tail) = rest.split_once('/').unwrap_or((rest, ""));
                        if let Some(new) = names.get(&unescape(head)) {
                            let tail = if tail.is_empty() {
                                String::new()
                            } else {
                                format!("/{tail}")
                            };
                            *child = json!(format!("#/components/schemas/{}{tail}", escape(new)));
                        }
                    }
                } else {
                    let taken = std::mem::take(child);
                    *child = rewrite(taken, names);
                }
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                let taken = std::mem::take(item);
                *item = rewrite(taken, names);
            }
        }
        _ => {}
    }
    value
}

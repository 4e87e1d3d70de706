//! Pure renderings of one [`ToolError`] for each adapter: the CLI failure envelope with its exit
//! code, and the MCP error projection. Adapters call these and add nothing of their own.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::catalog::{Audience, CONTRACT_META_KEY, DESCRIPTIONS_META_KEY, Entry, SchemaDoc};
use crate::invoke::ToolError;
use crate::schema::listing::{Budget, Lister, Prepared, Role};

/// Process exit codes of a generated CLI, one per failure kind.
pub mod exit_code {
    /// The tool succeeded.
    pub const SUCCESS: i32 = 0;
    /// Usage error or invalid input (also an unknown command).
    pub const INVALID_INPUT: i32 = 2;
    /// The tool returned a declared application error.
    pub const APPLICATION: i32 = 3;
    /// A runtime error (transport, timeout, undeclared error, panic, …).
    pub const RUNTIME: i32 = 4;
    /// The tool broke its own contract.
    pub const CONTRACT_VIOLATION: i32 = 5;
}

/// The exit code for `error`.
pub fn cli_exit_code(error: &ToolError) -> i32 {
    match error {
        ToolError::UnknownTool { .. } | ToolError::InvalidInput { .. } => exit_code::INVALID_INPUT,
        ToolError::Application { .. } => exit_code::APPLICATION,
        ToolError::Runtime { .. } => exit_code::RUNTIME,
        ToolError::ContractViolation { .. } => exit_code::CONTRACT_VIOLATION,
    }
}

/// The closed CLI failure envelope: `{"ok": false, "error": {"kind": …}}`. Application errors
/// carry their declared data; every other kind carries a value-free message.
pub fn cli_failure_envelope(error: &ToolError) -> Value {
    let body = match error {
        ToolError::Application { tool, data } => json!({
            "kind": "application",
            "tool": tool,
            "data": data,
        }),
        ToolError::UnknownTool { .. } => json!({
            "kind": "invalid_input",
            "message": error.to_string(),
        }),
        ToolError::InvalidInput { tool, issues } => json!({
            "kind": "invalid_input",
            "tool": tool,
            "message": error.to_string(),
            "issues": issues,
        }),
        ToolError::Runtime { tool, category } => json!({
            "kind": "runtime",
            "tool": tool,
            "category": category,
            "message": error.to_string(),
        }),
        ToolError::ContractViolation {
            tool,
            phase,
            issues,
        } => json!({
            "kind": "contract_violation",
            "tool": tool,
            "phase": phase,
            "message": error.to_string(),
            "issues": issues,
        }),
    };
    envelope(body)
}

/// The CLI failure envelope of a command line that could not become an input (a bad
/// `--input-json`, an option value of the wrong type): `invalid_input` with the tool and the
/// reason, before any call is made.
pub fn cli_usage_envelope(tool: &str, message: &str) -> Value {
    envelope(json!({
        "kind": "invalid_input",
        "tool": tool,
        "message": message,
    }))
}

fn envelope(error: Value) -> Value {
    json!({ "ok": false, "error": error })
}

/// How an MCP server answers a failed `tools/call`.
#[derive(Clone, Debug, PartialEq)]
pub enum McpFailure {
    /// A JSON-RPC error (`-32602`, invalid params): the tool is unknown to this audience.
    InvalidParams {
        /// The error message.
        message: String,
    },
    /// A `CallToolResult` with `isError: true`.
    ToolResult(Value),
}

/// JSON-RPC's invalid-params code.
pub const JSONRPC_INVALID_PARAMS: i64 = -32602;

/// The MCP answer for `error`: an unknown (or out-of-audience) tool is a protocol error; every
/// other failure is an `isError` result with a value-free text block, and application errors
/// add their data under `_meta["com.harnlang/toolContract"].applicationError`. Never
/// `structuredContent` for an error.
pub fn mcp_failure(error: &ToolError) -> McpFailure {
    let text = error.to_string();
    match error {
        ToolError::UnknownTool { .. } => McpFailure::InvalidParams { message: text },
        ToolError::Application { tool, data } => McpFailure::ToolResult(json!({
            "content": [{ "type": "text", "text": text }],
            "isError": true,
            "_meta": { CONTRACT_META_KEY: { "applicationError": { "tool": tool, "data": data } } },
        })),
        // The other kinds, as the CLI envelope says them (value-free), so a client (the
        // bridge) can tell invalid input, a runtime failure and a contract violation apart.
        _ => {
            let mut failure = cli_failure_envelope(error)["error"].take();
            if let Some(failure) = failure.as_object_mut() {
                failure.remove("message");
            }
            McpFailure::ToolResult(json!({
                "content": [{ "type": "text", "text": text }],
                "isError": true,
                "_meta": { CONTRACT_META_KEY: { "failure": failure } },
            }))
        }
    }
}

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
            if output.get("type").is_none() && always_object(&output, &output, 0) {
                if let Some(object) = output.as_object_mut() {
                    object.insert("type".to_owned(), Value::from("object"));
                }
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
            let listed = lister.list(schema, &format!("{name}.{at}"), role);
            schemas += crate::schema::serialized_len(&listed);
            listed
        });
        each(entry, tool, schemas);
    }
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

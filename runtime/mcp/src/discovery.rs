//! Discovery mode for large APIs: instead of every tool, the listing holds three meta-tools —
//! search the tools by words, describe one tool (its listing entry: input, output and error
//! schemas, hints), call a tool by name — plus the pinned tools. Built on the registry's agent
//! projection (`ToolRegistry::search`) and the prepared listing, not on a second list; a call
//! through `call_tool` goes through the same path as a direct call and renders exactly like one.
//! Direct calls of tools the listing leaves out still work (clients that remember names).

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use super::{McpServer, SchemaProfile, refused};
use harness_gen_contract::Audience;

/// The meta-tool that searches the tools.
pub const SEARCH: &str = "search_tools";
/// The meta-tool that describes one tool.
pub const DESCRIBE: &str = "describe_tool";
/// The meta-tool that calls a tool by name.
pub const CALL: &str = "call_tool";

pub use crate::catalog::listed::DISCOVERY_THRESHOLD as AUTO_THRESHOLD;

/// The most results one search returns.
const MAX_RESULTS: u64 = 50;

/// The three meta-tools as listed in `profile`, made once.
pub(super) fn meta_tools(profile: SchemaProfile) -> &'static [Tool] {
    use std::sync::OnceLock;
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    static STRICT: OnceLock<Vec<Tool>> = OnceLock::new();
    match profile {
        SchemaProfile::Standard | SchemaProfile::Inlined => TOOLS.get_or_init(made),
        SchemaProfile::Strict => STRICT.get_or_init(|| {
            let mut tools = made();
            for tool in &mut tools {
                let input = Value::Object(tool.input_schema.as_ref().clone());
                if let Value::Object(strict) = crate::schema::strict::strict(&input) {
                    tool.input_schema = strict.into();
                }
            }
            tools
        }),
    }
}

/// The input schema of meta-tool `name` in the contract's form (`None` for another name).
pub(super) fn meta_input(name: &str) -> Option<Value> {
    meta_tools(SchemaProfile::Standard)
        .iter()
        .find(|tool| tool.name == name)
        .map(|tool| Value::Object(tool.input_schema.as_ref().clone()))
}

fn made() -> Vec<Tool> {
    let read_only = json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false});
    let tools = [
        json!({
            "name": SEARCH,
            "title": "Search the tools",
            "description": "Finds this server's tools whose name, title or description contains every word of `query`, best first. Describe one with describe_tool, then call it with call_tool.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "description": "Words to look for, e.g. `list repository issues`"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": 10, "description": "The most tools to return"}
                },
                "required": ["query"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {"tools": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "title": {"type": "string"}, "description": {"type": "string"}},
                    "required": ["name"]
                }}},
                "required": ["tools"]
            },
            "annotations": read_only,
        }),
        json!({
            "name": DESCRIBE,
            "title": "Describe a tool",
            "description": "A tool's whole definition, as a full listing would show it: its input schema (what call_tool's `arguments` must be), output schema, declared errors (`_meta`) and hints.",
            "inputSchema": {
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 1, "description": "A tool name from search_tools"}},
                "required": ["name"],
                "additionalProperties": false
            },
            "outputSchema": {"type": "object", "properties": {"name": {"type": "string"}, "inputSchema": {"type": "object"}}, "required": ["name", "inputSchema"]},
            "annotations": read_only,
        }),
        json!({
            "name": CALL,
            "title": "Call a tool",
            "description": "Calls one of this server's tools by name with its arguments (see describe_tool for what they must be); the result is the tool's own.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1, "description": "The tool's name"},
                    "arguments": {"type": "object", "description": "The tool's arguments, as its input schema says"}
                },
                "required": ["name"],
                "additionalProperties": false
            },
            "annotations": {"openWorldHint": true},
        }),
    ];
    tools
        .into_iter()
        .filter_map(|tool| serde_json::from_value(tool).ok())
        .collect()
}

/// What a call of a meta-tool does.
pub(super) enum MetaCall {
    /// Answered at once.
    Answer(CallToolResult),
    /// A call of this tool with these arguments, made like a direct one.
    Call(String, Option<Map<String, Value>>),
}

impl McpServer {
    /// The call of meta-tool `name` with `arguments`, or `None` when `name` is no meta-tool
    /// (or discovery mode is off).
    pub(super) fn meta_call(
        &self,
        name: &str,
        arguments: Option<&Map<String, Value>>,
    ) -> Option<MetaCall> {
        self.discovery.as_ref()?;
        let empty = Map::new();
        let arguments = arguments.unwrap_or(&empty);
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        Some(match name {
            SEARCH => {
                let Some(query) = text("query") else {
                    return Some(MetaCall::Answer(refused("`query` (a string) is required")));
                };
                let limit = arguments
                    .get("limit")
                    .and_then(Value::as_u64)
                    .unwrap_or(10)
                    .clamp(1, MAX_RESULTS);
                let registry = &self.inner.registry;
                let found: Vec<Value> = registry
                    .search(Audience::Mcp, query, usize::try_from(limit).unwrap_or(10))
                    .into_iter()
                    .map(|entry| {
                        let mut hit = json!({"name": self.listed_name(&entry.name)});
                        if let Some(title) = &entry.title {
                            hit["title"] = json!(title);
                        }
                        if let Some(description) = entry.description_for(Audience::Mcp) {
                            hit["description"] =
                                json!(harness_gen_contract::catalog::listed::summary(
                                    description,
                                    SUMMARY
                                ));
                        }
                        hit
                    })
                    .collect();
                MetaCall::Answer(CallToolResult::structured(json!({ "tools": found })))
            }
            DESCRIBE => {
                let Some(wanted) = text("name") else {
                    return Some(MetaCall::Answer(refused("`name` (a string) is required")));
                };
                match self.position(wanted) {
                    Some((listing, i)) => {
                        let tool = serde_json::to_value(&listing.tools[i]).unwrap_or_default();
                        MetaCall::Answer(CallToolResult::structured(tool))
                    }
                    None => MetaCall::Answer(refused(format!(
                        "no tool is named `{wanted}`: find one with {SEARCH}"
                    ))),
                }
            }
            CALL => {
                let Some(wanted) = text("name") else {
                    return Some(MetaCall::Answer(refused("`name` (a string) is required")));
                };
                let inner = match arguments.get("arguments") {
                    None | Some(Value::Null) => None,
                    Some(Value::Object(inner)) => Some(inner.clone()),
                    Some(_) => {
                        return Some(MetaCall::Answer(refused("`arguments` must be an object")));
                    }
                };
                MetaCall::Call(wanted.to_string(), inner)
            }
            _ => return None,
        })
    }
}

/// How much of a description a search result carries: its first sentence, at most 200
/// characters and the `…` of a cut (enough to choose by).
const SUMMARY: usize = 201;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_results_carry_the_first_sentence_of_a_description() {
        let summary = |text: &str| harness_gen_contract::catalog::listed::summary(text, SUMMARY);
        assert_eq!(summary("Lists pets. Paged by cursor."), "Lists pets.");
        assert_eq!(summary("\n  First line\nsecond"), "First line");
        assert_eq!(summary(&"x".repeat(300)).chars().count(), 201);
    }

    #[test]
    fn the_meta_tools_are_listable() {
        let names: Vec<String> = meta_tools(SchemaProfile::Standard)
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, [SEARCH, DESCRIBE, CALL]);
    }
}

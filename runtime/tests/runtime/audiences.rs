//! Audiences: a tool outside an audience cannot be found, listed, searched or called through
//! it, and the agent projection keeps only agent tools with their original handlers.

use crate::common::*;
use harness_gen_runtime::render::{McpFailure, cli_failure_envelope, mcp_failure};
use harness_gen_runtime::{Audience, ToolError, ToolRegistry};
use serde_json::json;

fn tool(name: &str, audiences: &[&str], description: &str, deferred: bool) -> serde_json::Value {
    entry_with(
        name,
        json!({
            "description": description,
            "governance": {"audiences": audiences},
            "deferLoading": deferred
        }),
    )
}

fn sample() -> ToolRegistry {
    registry(
        vec![
            tool(
                "list_pets",
                &["cli", "mcp", "agent"],
                "List the pets in the store.",
                false,
            ),
            tool(
                "purge_pets",
                &["cli", "dashboard"],
                "Operator-only: purge all pets.",
                false,
            ),
            tool(
                "adopt_pet",
                &["mcp", "agent"],
                "Adopt a pet from the store.",
                true,
            ),
        ],
        vec![("adopt_pet", Answer::Return(json!({"adopted": true})))],
    )
}

#[test]
fn a_tool_outside_an_audience_cannot_be_found() {
    let registry = sample();
    assert!(registry.lookup(Audience::Cli, "purge_pets").is_some());
    assert!(registry.lookup(Audience::Mcp, "purge_pets").is_none());
    assert!(registry.lookup(Audience::Agent, "purge_pets").is_none());
}

#[test]
fn a_tool_outside_an_audience_is_not_listed() {
    let registry = sample();
    let names = |a| {
        registry
            .list(a)
            .map(|e| e.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(Audience::Mcp), ["list_pets", "adopt_pet"]);
    assert_eq!(names(Audience::Cli), ["list_pets", "purge_pets"]);
    assert_eq!(names(Audience::Catalog), Vec::<String>::new());
}

#[test]
fn a_tool_outside_an_audience_is_not_searched() {
    let registry = sample();
    let found = |a, q| {
        registry
            .search(a, q, 10)
            .iter()
            .map(|e| e.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(found(Audience::Agent, "purge"), Vec::<String>::new());
    assert_eq!(found(Audience::Cli, "purge"), ["purge_pets"]);
    assert_eq!(found(Audience::Agent, "pets store"), ["list_pets"]);
    assert_eq!(found(Audience::Agent, "pet"), ["list_pets", "adopt_pet"]);
}

#[test]
fn a_forged_call_outside_the_audience_is_answered_like_an_unknown_name() {
    let registry = sample();
    let forged = block_on(registry.invoke(Audience::Mcp, "purge_pets", json!({}))).unwrap_err();
    let unknown = block_on(registry.invoke(Audience::Mcp, "no_such_tool", json!({}))).unwrap_err();
    assert!(matches!(forged, ToolError::UnknownTool { .. }));
    let scrub = |s: String| {
        s.replace("purge_pets", "NAME")
            .replace("no_such_tool", "NAME")
    };
    assert_eq!(scrub(forged.to_string()), scrub(unknown.to_string()));
    assert_eq!(
        scrub(cli_failure_envelope(&forged).to_string()),
        scrub(cli_failure_envelope(&unknown).to_string())
    );
    let (McpFailure::InvalidParams { message: a }, McpFailure::InvalidParams { message: b }) =
        (mcp_failure(&forged), mcp_failure(&unknown))
    else {
        panic!("both are JSON-RPC invalid params");
    };
    assert_eq!(scrub(a), scrub(b));
}

#[test]
fn the_agent_projection_keeps_only_agent_tools_with_their_handlers() {
    let agent = sample().project(Audience::Agent);
    let names: Vec<_> = agent.entries().map(|e| e.name.to_string()).collect();
    assert_eq!(names, ["list_pets", "adopt_pet"]);
    assert_eq!(
        block_on(agent.invoke(Audience::Agent, "adopt_pet", json!({}))),
        Ok(json!({"adopted": true}))
    );
    // Even through another audience, the projection holds nothing else.
    assert!(agent.lookup(Audience::Cli, "purge_pets").is_none());
    assert!(agent.search(Audience::Cli, "purge", 10).is_empty());
    assert!(!agent.catalog().to_json_pretty().contains("purge"));
}

#[test]
fn deferred_tools_stay_out_of_the_initial_list_but_can_be_searched() {
    let agent = sample().project(Audience::Agent);
    let initial: Vec<_> = agent
        .initial_tools(Audience::Agent)
        .map(|e| e.name.to_string())
        .collect();
    assert_eq!(initial, ["list_pets"]);
    let found: Vec<_> = agent
        .search(Audience::Agent, "adopt", 5)
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    assert_eq!(found, ["adopt_pet"]);
}

#[test]
fn provider_tool_definitions_come_from_the_projection_with_standalone_schemas() {
    let mut doc = catalog(vec![
        entry_with(
            "find_pets",
            json!({
                "description": "Find pets.",
                "inputSchema": {"type": "object", "properties": {"filter": {"$ref": "#/components/schemas/Filter"}}},
                "governance": {"audiences": ["agent"]}
            }),
        ),
        entry_with(
            "operator_only",
            json!({"governance": {"audiences": ["cli"]}}),
        ),
    ]);
    doc["components"] = json!({"schemas": {"Filter": {"type": "string"}}});
    let catalog = harness_gen_runtime::Catalog::from_value(doc).unwrap();
    let handlers = catalog
        .tools
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                harness_gen_runtime::Handler::new(|v| async { Ok(v) }),
            )
        })
        .collect();
    let agent = ToolRegistry::publish(catalog, handlers)
        .unwrap()
        .project(Audience::Agent);
    let tools = agent.provider_tools(
        harness_gen_runtime::Provider::Anthropic,
        agent.initial_tools(Audience::Agent),
    );
    assert_eq!(
        tools,
        [json!({
            "name": "find_pets",
            "description": "Find pets.",
            "input_schema": {
                "type": "object",
                "properties": {"filter": {"$ref": "#/$defs/Filter"}},
                "$defs": {"Filter": {"type": "string"}}
            }
        })]
    );
    let openai = agent.provider_tools(
        harness_gen_runtime::Provider::OpenAi,
        agent.initial_tools(Audience::Agent),
    );
    assert_eq!(openai[0]["type"], "function");
    assert_eq!(openai[0]["function"]["name"], "find_pets");
    assert_eq!(
        openai[0]["function"]["parameters"]["$defs"]["Filter"]["type"],
        "string"
    );
}

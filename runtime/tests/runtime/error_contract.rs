//! The one invocation path and its error classification, rendered by the CLI envelope and the
//! MCP result.

use crate::common::*;
use harness_gen_runtime::render::{McpFailure, cli_exit_code, cli_failure_envelope, mcp_failure};
use harness_gen_runtime::{Audience, Phase, RuntimeCategory, ToolError};
use serde_json::{Value, json};

const SECRET: &str = "tok_live_do_not_print_9f8e7d";

fn http_error_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "kind": {"const": "http_404"},
            "status": {"const": 404},
            "body": {"type": "object", "properties": {"message": {"type": "string"}}}
        },
        "required": ["kind", "status"]
    })
}

/// Every rendering of an error, as bytes.
fn rendered(error: &ToolError) -> Vec<String> {
    let mcp = match mcp_failure(error) {
        McpFailure::InvalidParams { message } => message,
        McpFailure::ToolResult(result) => result.to_string(),
    };
    vec![
        cli_failure_envelope(error).to_string(),
        mcp,
        error.to_string(),
        format!("{error:?}"),
    ]
}

#[test]
fn a_declared_application_error_round_trips_as_data() {
    let data = json!({"kind": "http_404", "status": 404, "body": {"message": "no such pet"}});
    let registry = registry(
        vec![entry_with(
            "get_pet",
            json!({"errorSchema": http_error_schema()}),
        )],
        vec![("get_pet", Answer::Throw(data.clone()))],
    );
    let error = block_on(registry.invoke(Audience::Cli, "get_pet", json!({}))).unwrap_err();
    assert_eq!(
        error,
        ToolError::Application {
            tool: "get_pet".into(),
            data: data.clone()
        }
    );
    assert_eq!(
        cli_failure_envelope(&error),
        json!({"ok": false, "error": {"kind": "application", "tool": "get_pet", "data": data}})
    );
    assert_eq!(cli_exit_code(&error), 3);
    let McpFailure::ToolResult(result) = mcp_failure(&error) else {
        panic!("an application error is a tool result");
    };
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["_meta"]["com.harnlang/toolContract"]["applicationError"],
        json!({"tool": "get_pet", "data": data})
    );
    assert!(result.get("structuredContent").is_none());
}

#[test]
fn a_thrown_value_without_an_error_schema_never_appears_in_any_rendering() {
    let registry = registry(
        vec![entry("leaky")],
        vec![(
            "leaky",
            Answer::Throw(json!({"token": SECRET, "detail": [SECRET]})),
        )],
    );
    let error = block_on(registry.invoke(Audience::Mcp, "leaky", json!({}))).unwrap_err();
    assert_eq!(
        error,
        ToolError::Runtime {
            tool: "leaky".into(),
            category: RuntimeCategory::UndeclaredError,
            hint: None,
        }
    );
    for bytes in rendered(&error) {
        assert!(!bytes.contains(SECRET), "{bytes}");
    }
    assert_eq!(cli_exit_code(&error), 4);
    assert_eq!(cli_failure_envelope(&error)["error"]["kind"], "runtime");
    let McpFailure::ToolResult(result) = mcp_failure(&error) else {
        panic!("a runtime error is a tool result");
    };
    assert_eq!(result["isError"], true);
    // Only the kind and the category: what the bridge reads to classify it.
    assert_eq!(
        result["_meta"],
        json!({"com.harnlang/toolContract": {"failure": {
            "kind": "runtime", "tool": "leaky", "category": "undeclared_error"
        }}})
    );
}

#[test]
fn a_thrown_value_violating_the_error_schema_is_a_contract_violation() {
    let registry = registry(
        vec![entry_with(
            "get_pet",
            json!({"errorSchema": http_error_schema()}),
        )],
        vec![(
            "get_pet",
            Answer::Throw(json!({"kind": "other", "secret": SECRET})),
        )],
    );
    let error = block_on(registry.invoke(Audience::Cli, "get_pet", json!({}))).unwrap_err();
    let ToolError::ContractViolation { phase, issues, .. } = &error else {
        panic!("expected a contract violation, got {error:?}");
    };
    assert_eq!(*phase, Phase::Error);
    assert!(issues.iter().any(|i| i.keyword == "required"), "{issues:?}");
    assert_eq!(cli_exit_code(&error), 5);
    for bytes in rendered(&error) {
        assert!(!bytes.contains(SECRET), "{bytes}");
    }
}

#[test]
fn an_output_violating_the_output_schema_is_a_contract_violation() {
    let registry = registry(
        vec![entry_with(
            "count",
            json!({"outputSchema": {"type": "integer"}}),
        )],
        vec![("count", Answer::Return(json!(SECRET)))],
    );
    let error = block_on(registry.invoke(Audience::Cli, "count", json!({}))).unwrap_err();
    assert!(
        matches!(&error, ToolError::ContractViolation { phase: Phase::Output, issues, .. }
            if issues[0].keyword == "type" && issues[0].pointer.is_empty()),
        "{error:?}"
    );
    for bytes in rendered(&error) {
        assert!(!bytes.contains(SECRET), "{bytes}");
    }
}

#[test]
fn a_valid_output_is_returned_as_is() {
    let registry = registry(
        vec![entry_with(
            "count",
            json!({"outputSchema": {"type": "integer"}}),
        )],
        vec![("count", Answer::Return(json!(7)))],
    );
    assert_eq!(
        block_on(registry.invoke(Audience::Cli, "count", json!({}))),
        Ok(json!(7))
    );
}

#[test]
fn invalid_input_lists_pointers_and_keywords_but_never_values() {
    let registry = registry(
        vec![entry_with(
            "find",
            json!({"inputSchema": {
                "type": "object",
                "properties": {"limit": {"type": "integer", "maximum": 10}, "q": {"type": "string"}},
                "required": ["q"],
                "additionalProperties": false
            }}),
        )],
        vec![],
    );
    let error = block_on(registry.invoke(
        Audience::Cli,
        "find",
        json!({"limit": SECRET, "extra": SECRET}),
    ))
    .unwrap_err();
    let ToolError::InvalidInput { issues, .. } = &error else {
        panic!("expected invalid input, got {error:?}");
    };
    let mut found: Vec<(String, String)> = issues
        .iter()
        .map(|i| (i.pointer.clone(), i.keyword.clone()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("".to_string(), "additionalProperties".to_string()),
            ("".to_string(), "required".to_string()),
            ("/limit".to_string(), "type".to_string())
        ]
    );
    assert_eq!(cli_exit_code(&error), 2);
    for bytes in rendered(&error) {
        assert!(!bytes.contains(SECRET), "{bytes}");
    }
}

#[test]
fn a_panicking_handler_is_a_runtime_error() {
    let registry = registry(vec![entry("boom")], vec![("boom", Answer::Panic)]);
    let error = block_on(registry.invoke(Audience::Cli, "boom", json!({}))).unwrap_err();
    assert_eq!(
        error,
        ToolError::Runtime {
            tool: "boom".into(),
            category: RuntimeCategory::Panic,
            hint: None,
        }
    );
}

#[test]
fn a_returned_result_value_is_success_data() {
    let err_shaped = json!({"Err": {"kind": "http_404", "status": 404}});
    let registry = registry(
        vec![entry_with(
            "get_pet",
            json!({"errorSchema": http_error_schema()}),
        )],
        vec![("get_pet", Answer::Return(err_shaped.clone()))],
    );
    assert_eq!(
        block_on(registry.invoke(Audience::Cli, "get_pet", json!({}))),
        Ok(err_shaped)
    );
}

#[test]
fn validators_resolve_component_references() {
    let mut doc = catalog(vec![entry_with(
        "pets",
        json!({"outputSchema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}),
    )]);
    doc["components"] = json!({"schemas": {"Pet": {"type": "object", "required": ["id"]}}});
    let catalog = harness_gen_runtime::Catalog::from_value(doc).unwrap();
    let registry = harness_gen_runtime::ToolRegistry::publish(
        catalog,
        [(
            "pets".to_string(),
            harness_gen_runtime::Handler::new(|_| async { Ok(json!([{"name": "no id"}])) }),
        )]
        .into(),
    )
    .unwrap();
    let error = block_on(registry.invoke(Audience::Cli, "pets", json!({}))).unwrap_err();
    assert!(
        matches!(&error, ToolError::ContractViolation { issues, .. } if issues[0].pointer == "/0"),
        "{error:?}"
    );
}

#[test]
fn every_tool_needs_exactly_one_handler() {
    let catalog = harness_gen_runtime::Catalog::from_value(catalog(vec![entry("a")])).unwrap();
    let errors = harness_gen_runtime::ToolRegistry::publish(
        catalog,
        [(
            "b".to_string(),
            harness_gen_runtime::Handler::new(|v| async { Ok(v) }),
        )]
        .into(),
    )
    .unwrap_err();
    assert!(
        errors.has(harness_gen_runtime::ErrorCode::MissingHandler, "tools[0]"),
        "{errors}"
    );
    assert!(
        errors.has(harness_gen_runtime::ErrorCode::MissingHandler, "handlers"),
        "{errors}"
    );
}

#[test]
fn input_formats_with_one_grammar_are_asserted_so_a_one_of_by_format_matches_one_branch() {
    // nexus's IP pool range: IPv4 or IPv6, the branches told apart by `format` alone.
    let range = |format: &str| {
        json!({"type": "object", "required": ["first"], "properties": {
            "first": {"type": "string", "format": format}
        }})
    };
    let registry = registry(
        vec![entry_with(
            "add_range",
            json!({"inputSchema": {
                "type": "object",
                "properties": {
                    "body": {"oneOf": [range("ipv4"), range("ipv6")]},
                    "site": {"type": "string", "format": "uri"}
                },
                "required": ["body"]
            }}),
        )],
        vec![("add_range", Answer::Echo)],
    );
    let call = |input: Value| block_on(registry.invoke(Audience::Cli, "add_range", input));
    assert!(call(json!({"body": {"first": "10.0.0.1"}})).is_ok());
    assert!(call(json!({"body": {"first": "fd00::1"}})).is_ok());
    let error = call(json!({"body": {"first": "not an address"}})).unwrap_err();
    assert!(matches!(error, ToolError::InvalidInput { .. }), "{error:?}");
    // Formats servers read loosely stay annotations: a relative `uri` is the server's to judge.
    assert!(call(json!({"body": {"first": "10.0.0.1"}, "site": "/relative"})).is_ok());
}

//! The MCP projection of a registry, in-process: the listing (pages, cursors, standalone
//! schemas, object roots, the error schema in `_meta`) and calls (results and failures).
//! The generated server is driven by real clients in `tests/tests/e2e/petstore_mcp.rs`.

use harness_gen_runtime::catalog::Entry;
use harness_gen_runtime::mcp::McpServer;
use harness_gen_runtime::{Handler, ToolRegistry};
use serde_json::{Value, json};

fn entry(name: &str, audiences: &[&str], output: Value) -> Entry {
    let mut value = json!({
        "name": name,
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "governance": {"audiences": audiences},
        "cli": {"command": [name], "hidden": false},
        "deferLoading": false
    });
    if !output.is_null() {
        value["outputSchema"] = output;
    }
    serde_json::from_value(value).unwrap()
}

fn server(page_size: usize) -> McpServer {
    let object = json!({"allOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}]});
    let mut with_errors = entry("fails", &["mcp"], Value::Null);
    with_errors.error_schema =
        Some(serde_json::from_value(json!({"type": "object", "required": ["code"]})).unwrap());
    let registry = ToolRegistry::builder()
        .tool(
            entry("echo", &["cli", "mcp"], json!({"type": "integer"})),
            Handler::new(|input| async move { Ok(input["n"].clone()) }),
        )
        .tool(
            entry("hidden", &["cli"], Value::Null),
            Handler::new(|_| async move { Ok(json!(null)) }),
        )
        .tool(
            entry("obj", &["mcp"], object),
            Handler::new(|input| async move { Ok(input) }),
        )
        .tool(
            with_errors,
            Handler::new(
                |_| async move { Err(harness_gen_runtime::Thrown::Value(json!({"code": 7}))) },
            ),
        )
        .build()
        .unwrap();
    McpServer::new(&registry, "t", "1.0.0").with_page_size(page_size)
}

fn names(page: &rmcp::model::ListToolsResult) -> Vec<String> {
    page.tools.iter().map(|t| t.name.to_string()).collect()
}

#[test]
fn pages_follow_registry_order_with_opaque_cursors_and_only_mcp_tools() {
    let server = server(2);
    let first = server.page(None).unwrap();
    assert_eq!(names(&first), ["echo", "obj"]);
    let cursor = first.next_cursor.clone().unwrap();
    let second = server.page(Some(&cursor)).unwrap();
    assert_eq!(names(&second), ["fails"]);
    assert_eq!(second.next_cursor, None);
    assert_eq!(first.ttl_ms, Some(harness_gen_runtime::mcp::LIST_TTL_MS));
}

#[test]
fn a_cursor_not_given_by_the_server_is_invalid_params() {
    let server = server(2);
    for cursor in ["", "x", "at:0", "at:3", "at:99", "at:-1"] {
        let error = server.page(Some(cursor)).unwrap_err();
        assert_eq!(
            error.code,
            rmcp::model::ErrorCode::INVALID_PARAMS,
            "{cursor}"
        );
    }
}

#[test]
fn input_schemas_are_object_rooted_and_outputs_of_objects_say_so() {
    let server = server(10);
    let tools = server.tools().unwrap();
    for tool in tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
    }
    let obj = tools.iter().find(|t| t.name == "obj").unwrap();
    assert_eq!(obj.output_schema.as_ref().unwrap()["type"], "object");
    let echo = tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.output_schema.as_ref().unwrap()["type"], "integer");
    let fails = tools.iter().find(|t| t.name == "fails").unwrap();
    let meta = serde_json::to_value(fails.meta.as_ref().unwrap()).unwrap();
    assert_eq!(
        meta["com.harnlang/toolContract"]["errorSchema"]["required"],
        json!(["code"])
    );
}

#[tokio::test]
async fn calls_project_values_and_failures() {
    let server = server(10);
    let ok = server
        .call("echo", Some(json!({"n": 5}).as_object().unwrap().clone()))
        .await
        .unwrap();
    assert_eq!(ok.structured_content, Some(json!(5)));
    assert_eq!(ok.is_error, Some(false));

    let invalid = server.call("echo", None).await.unwrap();
    assert_eq!(invalid.is_error, Some(true));

    let application = server
        .call("fails", Some(json!({"n": 1}).as_object().unwrap().clone()))
        .await
        .unwrap();
    assert_eq!(application.is_error, Some(true));
    let meta = serde_json::to_value(application.meta.unwrap()).unwrap();
    assert_eq!(
        meta["com.harnlang/toolContract"]["applicationError"],
        json!({"tool": "fails", "data": {"code": 7}})
    );

    for name in ["hidden", "nope"] {
        let error = server.call(name, None).await.unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(error.message, format!("unknown tool `{name}`"));
    }
}

/// A schema the standalone projection refuses (here `$recursiveRef`, which ties it to its
/// location) is listed as the documented permissive fallback, never failing the listing; calls
/// are still checked against the full contract.
#[tokio::test]
async fn a_schema_that_cannot_stand_alone_is_listed_permissively_and_still_enforced() {
    let mut odd = entry("odd", &["mcp"], Value::Null);
    odd.input_schema = serde_json::from_value(json!({
        "type": "object",
        "description": "Odd input.",
        "properties": {"n": {"type": "integer"}, "tree": {"$recursiveRef": "#"}},
        "required": ["n"]
    }))
    .unwrap();
    let registry = ToolRegistry::builder()
        .tool(
            entry("echo", &["mcp"], Value::Null),
            Handler::new(|input| async move { Ok(input["n"].clone()) }),
        )
        .tool(
            odd,
            Handler::new(|input| async move { Ok(input["n"].clone()) }),
        )
        .build()
        .unwrap();
    let server = McpServer::new(&registry, "t", "1.0.0");
    let page = server.page(None).unwrap();
    assert_eq!(names(&page), ["echo", "odd"]);
    let listed = serde_json::to_value(&page.tools[1].input_schema).unwrap();
    assert_eq!(listed["type"], "object");
    let description = listed["description"].as_str().unwrap();
    assert!(description.starts_with("Odd input."), "{description}");
    assert!(description.contains("$recursiveRef"), "{description}");
    let refused = server
        .call(
            "odd",
            Some(json!({"n": "seven"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        refused.is_error,
        Some(true),
        "the full contract still types `n`"
    );
    let text = serde_json::to_string(&refused.content).unwrap();
    assert!(
        text.contains("invalid") || text.contains("Invalid"),
        "{text}"
    );
    let ok = server
        .call("odd", Some(json!({"n": 7}).as_object().unwrap().clone()))
        .await
        .unwrap();
    assert_eq!(ok.structured_content, Some(json!(7)));
}

#[tokio::test]
async fn a_selection_serves_only_its_tools_and_a_call_outside_it_is_an_unknown_tool() {
    use harness_gen_runtime::mcp::Selection;
    let mut read_only = entry("look", &["mcp"], Value::Null);
    read_only.annotations = Some(serde_json::from_value(json!({"readOnlyHint": true})).unwrap());
    let registry = ToolRegistry::builder()
        .tool(read_only, Handler::new(|_| async move { Ok(json!(null)) }))
        .tool(
            entry("change", &["mcp"], Value::Null),
            Handler::new(|_| async move { Ok(json!(null)) }),
        )
        .tool(
            entry("cli_only", &["cli"], Value::Null),
            Handler::new(|_| async move { Ok(json!(null)) }),
        )
        .build()
        .unwrap();
    let served = |selection: Selection| -> Vec<String> {
        let registry = selection.apply(&registry).unwrap();
        let server = McpServer::new(&registry, "t", "1.0.0");
        server
            .tools()
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect()
    };
    assert_eq!(served(Selection::default()), ["look", "change"]);
    let only = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let by_name = Selection {
        tools: only(&["change"]),
        ..Selection::default()
    };
    assert_eq!(served(by_name.clone()), ["change"]);
    let excluded = Selection {
        exclude: only(&["change"]),
        ..Selection::default()
    };
    assert_eq!(served(excluded), ["look"]);
    let read_only = Selection {
        read_only: true,
        ..Selection::default()
    };
    assert_eq!(served(read_only), ["look"]);
    // A name that is not an MCP tool (a typo, or a CLI-only tool) fails the start, saying which.
    let typo = Selection {
        tools: only(&["lok"]),
        ..Selection::default()
    };
    let why = typo.apply(&registry).unwrap_err();
    assert!(
        why.contains("`lok`") && why.contains("look, change"),
        "{why}"
    );
    let cli_only = Selection {
        exclude: only(&["cli_only"]),
        ..Selection::default()
    };
    assert!(cli_only.apply(&registry).is_err());
    // A call to a tool left out is answered exactly like a call to one that does not exist.
    let server = McpServer::new(&by_name.apply(&registry).unwrap(), "t", "1.0.0");
    let args = json!({"n": 1}).as_object().cloned();
    let outside = server.call("look", args.clone()).await.unwrap_err();
    let unknown = server.call("nope", args).await.unwrap_err();
    assert_eq!(outside.code, unknown.code);
    assert_eq!(
        outside.message.replace("look", "nope"),
        unknown.message.to_string()
    );
}

#[test]
fn an_audience_description_is_what_that_audience_is_told() {
    use harness_gen_runtime::Provider;
    let mut tool = entry("pets", &["cli", "mcp", "agent"], Value::Null);
    tool.description = Some(serde_json::from_value(json!("The whole reference text.")).unwrap());
    tool.meta = serde_json::from_value(json!({
        "com.harnlang/descriptions": {"mcp": "Lists pets.", "agent": "Lists pets; paged."}
    }))
    .unwrap();
    let registry = ToolRegistry::builder()
        .tool(tool, Handler::new(|_| async move { Ok(json!(null)) }))
        .build()
        .unwrap();
    let server = McpServer::new(&registry, "t", "0");
    let listed = &server.tools().unwrap()[0];
    assert_eq!(listed.description.as_deref(), Some("Lists pets."));
    // The other audiences' texts stay out of the listing.
    assert!(listed.meta.is_none(), "{:?}", listed.meta);
    let entries: Vec<_> = registry.entries().collect();
    let provided = registry.provider_tools(Provider::OpenAi, entries.iter().copied());
    assert_eq!(provided[0]["function"]["description"], "Lists pets; paged.");
    assert_eq!(
        entries[0].description_for(harness_gen_runtime::Audience::Cli),
        Some("The whole reference text.")
    );
}

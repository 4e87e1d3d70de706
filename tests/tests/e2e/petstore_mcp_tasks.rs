//! The generated MCP server over Streamable HTTP, driven by rmcp's own client in the
//! 2026-07-28 era: a tool whose `execution.taskSupport` allows it runs as a task for a client
//! that declares the tasks extension, and the completed task carries the very same
//! `CallToolResult` an inline call returns.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::time::Duration;

use harness_e2e::{serve, start_mcp_http};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, ProtocolVersion, TaskPayload,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

pub(crate) async fn connect(url: &str, tasks: bool) -> RunningService<RoleClient, ClientConfig> {
    let capabilities = if tasks {
        ClientCapabilities::builder().enable_tasks().build()
    } else {
        ClientCapabilities::default()
    };
    let config = ClientConfig::new(capabilities, Implementation::new("e2e", "1.0.0"));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    config
        .serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle)
        .await
        .unwrap()
}

fn create(name: &str) -> CallToolRequestParams {
    let arguments = json!({"body": {"name": name, "species": "cat"}});
    CallToolRequestParams::new("pets.create").with_arguments(arguments.as_object().unwrap().clone())
}

/// The result as JSON without the envelope field that differs by reply kind.
fn projection(mut value: Value) -> Value {
    value.as_object_mut().unwrap().remove("resultType");
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_capable_client_gets_a_task_whose_result_is_the_inline_projection() {
    let base = serve().await;
    let (server, url) = start_mcp_http(&base, &[]);

    let inline_client = connect(&url, false).await;
    let inline = match inline_client
        .peer()
        .call_tool_once(create("Kit"))
        .await
        .unwrap()
    {
        CallToolResponse::Complete(result) => serde_json::to_value(result).unwrap(),
        other => panic!("a client without the tasks extension gets an inline result: {other:?}"),
    };
    assert_eq!(inline["structuredContent"]["id"], 42);

    let client = connect(&url, true).await;
    let info = client.peer().peer_info().unwrap();
    assert!(info.capabilities.supports_tasks());
    let task = match client.peer().call_tool_once(create("Kit")).await.unwrap() {
        CallToolResponse::Task(created) => created.task,
        other => panic!("expected a task: {other:?}"),
    };
    let mut completed = None;
    for _ in 0..100 {
        let state = client
            .peer()
            .get_task(GetTaskParams::new(task.task_id.clone()))
            .await
            .unwrap();
        if let TaskPayload::Completed { result } = state.task.payload {
            completed = Some(Value::Object(result));
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let completed = completed.expect("the task completes");
    assert_eq!(projection(completed), projection(inline));

    // A tool without task support stays inline even for a task-capable client.
    let name = CallToolRequestParams::new("get_pet_name")
        .with_arguments(json!({"pet_id": 1}).as_object().unwrap().clone());
    match client.peer().call_tool_once(name).await.unwrap() {
        CallToolResponse::Complete(result) => {
            assert_eq!(result.structured_content, Some(json!("Rex")))
        }
        other => panic!("expected an inline result: {other:?}"),
    }
    let unknown = client
        .peer()
        .get_task(GetTaskParams::new("task-nope"))
        .await;
    assert!(unknown.is_err());
    drop(server);
}

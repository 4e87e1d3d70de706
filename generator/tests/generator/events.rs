//! Operations that stream server-sent events: the binding's `events` record, the stream-flag
//! rule and its note, and `x-harn.events` checked against the operation.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use crate::common::*;
use harness_gen::diag::Code;
use serde_json::{Value, json};

fn events(out: &Out) -> &Value {
    &out.tool(0)["source"]["binding"]["events"]
}

/// A `POST /chat` with a JSON body of `body_properties`, answering JSON and `stream_content`
/// (YAML lines of the response's content, indented by the helper), with `x_harn` lines.
fn chat(body_properties: &str, stream_content: &str, x_harn: &str) -> String {
    op(
        "post",
        "/chat",
        &format!(
            "operationId: chat\n{x_harn}requestBody:\n  content:\n    application/json:\n      schema: {{type: object, properties: {body_properties}}}\nresponses:\n  '200':\n    description: ok\n    content:\n      application/json:\n        schema: {{type: object}}\n{stream_content}"
        ),
    )
}

const STREAM: &str = "      text/event-stream:\n        schema: {type: object, properties: {delta: {type: string}}}\n";

#[test]
fn a_boolean_stream_property_is_set_by_the_streaming_call_and_said_by_a_note() {
    let out = check(&chat(
        "{stream: {type: boolean}, model: {type: string}}",
        STREAM,
        "",
    ));
    assert_eq!(
        *events(&out),
        json!({"flag": "stream", "sentinel": "[DONE]"})
    );
    assert!(
        out.has_note(Code::Streamed, "/paths/~1chat/post"),
        "{}",
        out.diags
    );
}

#[test]
fn without_a_boolean_stream_in_the_body_the_call_sets_nothing_and_the_tool_asks_by_accept() {
    let out = check(&chat("{stream: {type: string}}", STREAM, ""));
    assert_eq!(
        *events(&out),
        json!({"select": "stream", "sentinel": "[DONE]"})
    );
    assert!(out.diags.contains("takes `stream: true`"), "{}", out.diags);
}

#[test]
fn x_harn_events_names_another_flag_or_none_and_another_sentinel() {
    let out = check(&chat(
        "{stream: {type: boolean}, live: {type: boolean}}",
        STREAM,
        "x-harn: {events: {flag: live, sentinel: END}}\n",
    ));
    assert_eq!(*events(&out), json!({"flag": "live", "sentinel": "END"}));
    assert!(!out.diags.contains("HG0509"), "{}", out.diags);
    let out = check(&chat(
        "{stream: {type: boolean}}",
        STREAM,
        "x-harn: {events: {flag: '', sentinel: ''}}\n",
    ));
    // No flag: the server goes by `Accept`, and the tool's `stream` asks for the events.
    assert_eq!(*events(&out), json!({"select": "stream"}));
}

#[test]
fn a_declared_flag_that_is_not_a_boolean_body_property_is_a_located_error() {
    let out = check(&chat(
        "{stream: {type: boolean}}",
        STREAM,
        "x-harn: {events: {flag: streaming}}\n",
    ));
    assert!(
        out.has_error(Code::XHarnInvalid, "/paths/~1chat/post/x-harn/events/flag"),
        "{}",
        out.diags
    );
}

#[test]
fn x_harn_events_without_an_event_stream_is_a_located_error() {
    let out = check(&chat(
        "{stream: {type: boolean}}",
        "",
        "x-harn: {events: {flag: stream}}\n",
    ));
    assert!(
        out.has_error(Code::XHarnInvalid, "/paths/~1chat/post/x-harn/events"),
        "{}",
        out.diags
    );
    assert!(out.tool(0)["source"]["binding"].get("events").is_none());
}

#[test]
fn the_event_type_comes_from_item_schema_before_schema() {
    let stream = "      text/event-stream:\n        itemSchema: {type: object, title: Chunk, properties: {delta: {type: string}}}\n        schema: {type: string}\n";
    let text = chat("{stream: {type: boolean}}", stream, "");
    let types = types_of_document("item-schema.yaml", &text);
    let file = types
        .file()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        file.contains("pub struct ChatEvent { /// `delta`. pub delta: Option<String>,"),
        "{file}"
    );
}

/// A `GET /ticks` answering only with events.
const TICKS: &str = "operationId: ticks\nresponses:\n  '200':\n    description: ok\n    content:\n      text/event-stream:\n        schema: {type: object, properties: {seq: {type: integer}}}\n";

#[test]
fn an_operation_answering_only_with_events_is_a_tool_returning_the_array_of_them() {
    let out = check(&op("get", "/ticks", TICKS));
    assert_eq!(
        out.tool(0)["outputSchema"],
        json!({"type": "array", "items": {"type": "object", "properties": {"seq": {"type": "integer"}}}})
    );
    let files = crate_files("ticks.yaml", &op("get", "/ticks", TICKS));
    let flat = |file: &str| files[file].split_whitespace().collect::<Vec<_>>().join(" ");
    // Its only call is the stream: a buffered one would wait for the stream's end.
    assert!(
        flat("src/client.rs").contains("pub async fn ticks_events("),
        "{}",
        files["src/client.rs"]
    );
    assert!(
        !flat("src/client.rs").contains("fn ticks(")
            && !flat("src/client.rs").contains("fn ticks<"),
        "{}",
        files["src/client.rs"]
    );
    assert!(
        flat("src/registry.rs").contains("events_handler("),
        "{}",
        files["src/registry.rs"]
    );
}

#[test]
fn an_operation_offering_json_or_events_by_a_body_flag_is_a_tool_returning_either() {
    let text = chat("{stream: {type: boolean}}", STREAM, "");
    let out = check(&text);
    assert_eq!(
        out.tool(0)["outputSchema"],
        json!({"anyOf": [
            {"type": "object"},
            {"type": "array", "items": {"type": "object", "properties": {"delta": {"type": "string"}}}},
        ]})
    );
    let files = crate_files("chat.yaml", &text);
    let flat = |file: &str| files[file].split_whitespace().collect::<Vec<_>>().join(" ");
    let client = flat("src/client.rs");
    assert!(client.contains("pub fn chat(") && client.contains("pub async fn chat_events("));
    // The flag's place in the input chooses the call: the operation's one reply, or its events.
    let registry = tight(&files["src/registry.rs"]);
    assert!(
        registry.contains(r#"json_or_events::<operations::Chat>(client,"/body/stream")"#),
        "{registry}"
    );
    assert!(
        registry
            .contains("http::json_or_events_handler(flag,call::<Op>(client),events::<Op>(client))"),
        "{registry}"
    );
}

/// Generated Rust without its whitespace (and the trailing commas a broken line leaves).
fn tight(rust: &str) -> String {
    rust.split_whitespace()
        .collect::<String>()
        .replace(",>", ">")
        .replace(",)", ")")
}

#[test]
fn an_operation_offering_json_and_events_without_a_flag_takes_stream_to_ask_by_accept() {
    let text = chat("{model: {type: string}}", STREAM, "");
    let out = check(&text);
    let tool = out.tool(0);
    assert_eq!(tool["outputSchema"]["anyOf"][0], json!({"type": "object"}));
    assert_eq!(tool["outputSchema"]["anyOf"][1]["type"], "array");
    assert_eq!(
        tool["inputSchema"]["properties"]["stream"]["type"],
        "boolean"
    );
    assert_eq!(
        tool["cli"]["arguments"]["stream"]["boolean_style"], "set_true",
        "`--stream` is a flag"
    );
    let files = crate_files("chat.yaml", &text);
    let flat = |file: &str| files[file].split_whitespace().collect::<Vec<_>>().join(" ");
    let client = flat("src/client.rs");
    assert!(client.contains("pub fn chat(") && client.contains("pub async fn chat_events("));
    let registry = tight(&files["src/registry.rs"]);
    assert!(
        registry.contains(r#"json_or_events::<operations::Chat>(client,"/stream")"#),
        "{registry}"
    );
}

#[test]
fn an_input_already_called_stream_keeps_the_json_tool_and_says_so() {
    let text = op(
        "get",
        "/feed",
        &format!(
            "operationId: feed\nparameters:\n  - {{name: stream, in: query, schema: {{type: string}}}}\nresponses:\n  '200':\n    description: ok\n    content:\n      application/json:\n        schema: {{type: object}}\n{STREAM}"
        ),
    );
    let out = check(&text);
    assert_eq!(*events(&out), json!({"sentinel": "[DONE]"}));
    assert!(
        out.diags.contains("already called `stream`"),
        "{}",
        out.diags
    );
}

#[test]
fn an_operation_answering_with_bytes_is_a_tool_returning_them_as_they_arrive() {
    let text = op(
        "get",
        "/blob",
        "operationId: blob\nresponses:\n  '200':\n    description: ok\n    content:\n      image/png:\n        schema: {type: string, format: binary}\n",
    );
    let files = crate_files("blob.yaml", &text);
    let registry = tight(&files["src/registry.rs"]);
    assert!(
        registry.contains(r#"add("blob",download::<operations::Blob>)"#),
        "{registry}"
    );
    assert!(
        registry.contains("http::download_handler(")
            && registry.contains("Op::download(&c,&input).await"),
        "{registry}"
    );
}

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
fn without_a_stream_property_the_call_sets_nothing() {
    let out = check(&chat("{stream: {type: string}}", STREAM, ""));
    assert_eq!(*events(&out), json!({"sentinel": "[DONE]"}));
    assert!(!out.diags.contains("HG0509"), "{}", out.diags);
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
    assert_eq!(*events(&out), json!({}));
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
    let file = types.file.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(file.contains("pub struct ChatEvent { #[serde(skip_serializing_if = \"Option::is_none\")] pub delta: Option<String>, }"), "{file}");
}

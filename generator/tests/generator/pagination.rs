//! Which operations list in pages: `x-harn.pagination` checked against the operation, and the
//! shapes recognised without it, each said by a note naming its rule.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use crate::common::*;
use harness_gen::diag::Code;
use serde_json::{Value, json};

fn pagination(out: &Out) -> &Value {
    &out.tool(0)["source"]["binding"]["pagination"]
}

/// A `GET /things` with these query parameters and this 200 response (YAML, one line each).
fn listing(params: &[&str], response: &str) -> String {
    let params: String = params
        .iter()
        .map(|p| format!("        - {{name: {p}, in: query, schema: {{type: string}}}}\n"))
        .collect();
    paths(&format!(
        "  /things:\n    get:\n      operationId: listThings\n      parameters:\n{params}      responses:\n        '200':\n{response}"
    ))
}

fn json_reply(schema: &str) -> String {
    format!(
        "          description: ok\n          content:\n            application/json:\n              schema: {schema}\n"
    )
}

#[test]
fn a_declared_link_header_pages_by_it() {
    let reply = format!(
        "{}          headers:\n            Link: {{schema: {{type: string}}}}\n",
        json_reply("{type: array, items: {type: string}}")
    );
    let out = check(&listing(&["page"], &reply));
    assert_eq!(*pagination(&out), json!({"kind": "link", "items": ""}));
    assert!(out.has_note(Code::Paginated, "/paths"), "{}", out.diags);
    assert!(out.diags.contains("`link-header`"), "{}", out.diags);
}

#[test]
fn has_more_with_last_id_pages_by_the_reply_cursor_as_openai_does() {
    let out = check(&listing(
        &["after", "limit"],
        &json_reply(
            "{type: object, properties: {data: {type: array, items: {type: object}}, last_id: {type: string}, has_more: {type: boolean}}}",
        ),
    ));
    assert_eq!(
        *pagination(&out),
        json!({"kind": "cursor", "param": "after", "items": "/data", "next": "/last_id", "hasMore": "/has_more"})
    );
    assert!(out.diags.contains("`has-more-last-id`"), "{}", out.diags);
}

#[test]
fn an_iterator_with_a_done_flag_pages_by_the_reply_iterator_as_svix_does() {
    let out = check(&listing(
        &["limit", "iterator"],
        &json_reply(
            "{type: object, required: [data, done, iterator], properties: {data: {type: array, items: {type: object}}, iterator: {type: string, nullable: true}, prevIterator: {type: string}, done: {type: boolean}}}",
        ),
    ));
    assert_eq!(
        *pagination(&out),
        json!({"kind": "cursor", "param": "iterator", "items": "/data", "next": "/iterator", "done": "/done"})
    );
    assert!(out.diags.contains("`done-iterator`"), "{}", out.diags);
}

#[test]
fn has_more_with_starting_after_pages_by_the_last_items_id_as_stripe_does() {
    let out = check(&listing(
        &["starting_after", "limit"],
        &json_reply(
            "{type: object, properties: {object: {type: string}, data: {type: array, items: {type: object}}, has_more: {type: boolean}, url: {type: string}}}",
        ),
    ));
    assert_eq!(
        *pagination(&out),
        json!({"kind": "cursor", "param": "starting_after", "items": "/data", "lastItem": "/id", "hasMore": "/has_more"})
    );
    assert!(out.diags.contains("`has-more-last-item`"), "{}", out.diags);
}

#[test]
fn a_page_token_pages_by_the_next_token_as_google_does() {
    let out = check(&listing(
        &["pageToken", "maxResults"],
        &json_reply(
            "{type: object, properties: {items: {type: array, items: {type: object}}, nextPageToken: {type: string}}}",
        ),
    ));
    assert_eq!(
        *pagination(&out),
        json!({"kind": "cursor", "param": "page_token", "items": "/items", "next": "/nextPageToken"})
    );
}

#[test]
fn a_next_url_in_the_reply_is_followed_by_its_query() {
    let out = check(&listing(
        &["offset"],
        &json_reply(
            "{type: object, properties: {count: {type: integer}, next: {type: [string, 'null']}, results: {type: array, items: {type: object}}}}",
        ),
    ));
    assert_eq!(
        *pagination(&out),
        json!({"kind": "link", "items": "/results", "next": "/next"})
    );
}

#[test]
fn a_shape_whose_items_are_ambiguous_is_not_paginated_and_a_note_says_why() {
    let out = check(&listing(
        &["after"],
        &json_reply(
            "{type: object, properties: {users: {type: array}, groups: {type: array}, last_id: {type: string}, has_more: {type: boolean}}}",
        ),
    ));
    assert_eq!(*pagination(&out), Value::Null);
    assert!(
        out.has_note(Code::Paginated, "/paths/~1things/get"),
        "{}",
        out.diags
    );
    assert!(out.diags.contains("`users`, `groups`"), "{}", out.diags);
}

#[test]
fn only_reads_are_recognised_and_plain_lists_are_not_pages() {
    let post = op(
        "post",
        "/things",
        "operationId: search\nparameters: [{name: after, in: query, schema: {type: string}}]\nresponses:\n  '200':\n    description: ok\n    content: {application/json: {schema: {type: object, properties: {data: {type: array}, has_more: {type: boolean}}}}}",
    );
    assert_eq!(*pagination(&check(&post)), Value::Null);
    let plain = check(&listing(
        &["q"],
        &json_reply("{type: array, items: {type: string}}"),
    ));
    assert_eq!(*pagination(&plain), Value::Null);
    assert!(!plain.diags.contains("HG0508"), "{}", plain.diags);
}

fn declared(pagination: &str) -> Out {
    let reply = json_reply(
        "{type: object, properties: {entries: {type: array, items: {type: object, properties: {key: {type: string}}}}, more: {type: boolean}, cursor: {type: string}}}",
    );
    check(&paths(&format!(
        "  /things:\n    get:\n      operationId: listThings\n      x-harn:\n        pagination: {pagination}\n      parameters:\n        - {{name: from, in: query, schema: {{type: string}}}}\n        - {{name: skip, in: query, schema: {{type: integer}}}}\n      responses:\n        '200':\n{reply}"
    )))
}

#[test]
fn a_declared_pagination_is_used_as_written_with_its_parameter_by_property() {
    let out = declared("{kind: cursor, param: from, next: /cursor, has_more: /more}");
    assert!(!out.has_any_error(), "{}", out.diags);
    assert_eq!(
        *pagination(&out),
        json!({"kind": "cursor", "param": "from", "items": "/entries", "next": "/cursor", "hasMore": "/more"})
    );
    assert!(
        !out.diags.contains("HG0508"),
        "declared, so no note: {}",
        out.diags
    );
    let by_last = declared("{kind: cursor, param: from, items: /entries, last_item: /key}");
    assert!(!by_last.has_any_error(), "{}", by_last.diags);
    let offset = declared("{kind: offset, param: skip}");
    assert_eq!(pagination(&offset)["kind"], "offset");
}

#[test]
fn a_declared_pagination_that_contradicts_the_operation_is_a_located_error() {
    let at = "/paths/~1things/get/x-harn/pagination";
    for (written, field, says) in [
        ("{kind: cursor, next: /cursor}", "param", "needs `param`"),
        (
            "{kind: cursor, param: nope, next: /cursor}",
            "param",
            "`from`, `skip`",
        ),
        ("{kind: cursor, param: from}", "next", "needs `next`"),
        (
            "{kind: cursor, param: from, next: /nowhere}",
            "next",
            "does not lead anywhere",
        ),
        (
            "{kind: page, param: skip, has_more: /gone}",
            "has_more",
            "does not lead anywhere",
        ),
        (
            "{kind: offset, param: skip, items: /more}",
            "items",
            "does not lead to a list",
        ),
        (
            "{kind: cursor, param: from, last_item: /missing}",
            "last_item",
            "an item's schema",
        ),
        ("{kind: link, param: from}", "param", "takes no `param`"),
        (
            "{kind: offset, param: skip, next: /cursor}",
            "next",
            "takes no `next`",
        ),
    ] {
        let out = declared(written);
        assert!(
            out.has_error(Code::XHarnInvalid, &format!("{at}/{field}")),
            "{written}: {}",
            out.diags
        );
        assert!(out.diags.contains(says), "{written}: {}", out.diags);
    }
    let unknown = declared("{kind: cursor, param: from, next: /cursor, size: limit}");
    assert!(unknown.has_any_error(), "{}", unknown.diags);
    assert!(unknown.diags.contains("size"), "{}", unknown.diags);
}

#[test]
fn kind_none_switches_recognition_off() {
    let doc = listing(
        &["after"],
        &json_reply("{type: object, properties: {data: {type: array}, last_id: {type: string}, has_more: {type: boolean}}}"),
    )
    .replace("operationId: listThings\n", "operationId: listThings\n      x-harn: {pagination: {kind: none}}\n");
    let out = check(&doc);
    assert!(!out.has_any_error(), "{}", out.diags);
    assert_eq!(*pagination(&out), Value::Null);
    assert!(!out.diags.contains("HG0508"), "{}", out.diags);
}

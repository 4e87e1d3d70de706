//! The closed `x-harn` extension (openapi.md §2): each field and each rule.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use crate::common::*;
use harness_gen::diag::Code;
use serde_json::json;

fn with_ext(method: &str, ext: &str) -> Out {
    check(&op(
        method,
        "/a",
        &format!("operationId: a\nx-harn: {ext}\nresponses: {{}}"),
    ))
}

#[test]
fn an_unknown_key_is_an_error_naming_key_operation_and_location() {
    let out = with_ext("get", "{nmae: x}");
    assert!(
        out.has_error(Code::XHarnUnknownKey, "/paths/~1a/get/x-harn/nmae"),
        "{}",
        out.diags
    );
    assert!(
        out.diags.contains("`nmae`") && out.diags.contains("operation `a`"),
        "{}",
        out.diags
    );
    assert!(out.diags.contains("test.yaml:"), "{}", out.diags);
}

#[test]
fn unknown_keys_are_refused_at_every_depth() {
    for (ext, pointer) in [
        ("{cli: {commnd: x}}", "/paths/~1a/get/x-harn/cli/commnd"),
        (
            "{cli: {arguments: {q: {lng: x}}}}",
            "/paths/~1a/get/x-harn/cli/arguments/q/lng",
        ),
        (
            "{governance: {audience: [cli]}}",
            "/paths/~1a/get/x-harn/governance/audience",
        ),
        (
            "{annotations: {readonly: true}}",
            "/paths/~1a/get/x-harn/annotations/readonly",
        ),
        (
            "{execution: {tasks: optional}}",
            "/paths/~1a/get/x-harn/execution/tasks",
        ),
        (
            "{icons: [{src: a, size: x}]}",
            "/paths/~1a/get/x-harn/icons/0/size",
        ),
        (
            "{descriptions: {web: x}}",
            "/paths/~1a/get/x-harn/descriptions/web",
        ),
    ] {
        let out = with_ext("get", ext);
        assert!(
            out.has_error(Code::XHarnUnknownKey, pointer),
            "{ext}: {}",
            out.diags
        );
    }
}

#[test]
fn a_document_level_unknown_key_is_an_error() {
    let out = check(&format!(
        "{HEADER}x-harn: {{annotationDefault: {{}}}}\npaths: {{}}\n"
    ));
    assert!(
        out.has_error(Code::XHarnUnknownKey, "/x-harn/annotationDefault"),
        "{}",
        out.diags
    );
}

#[test]
fn bad_values_are_errors() {
    for ext in [
        "{expose: maybe}",
        "{title: '  '}",
        "{governance: {audiences: [robots]}}",
        "{execution: {taskSupport: sometimes}}",
        "{meta: {'bad key': 1}}",
        "{cli: {arguments: {q: {boolean_style: toggle}}}}",
    ] {
        let out = with_ext("get", ext);
        assert!(out.has_any_error(), "{ext}: accepted");
        assert!(out.diags.contains("HG0402"), "{ext}: {}", out.diags);
    }
}

#[test]
fn a_bad_tool_name_is_an_error() {
    let out = with_ext("get", "{name: 'has space'}");
    assert!(
        out.has_error(Code::XHarnInvalid, "/paths/~1a/get/x-harn/name"),
        "{}",
        out.diags
    );
}

#[test]
fn name_title_and_namespace_are_used() {
    let out = with_ext("get", "{name: pets.get, title: Get it, namespace: pets}");
    assert_eq!(out.tool(0)["name"], "pets.get");
    assert_eq!(out.tool(0)["title"], "Get it");
    assert_eq!(out.tool(0)["namespace"], "pets");
}

#[test]
fn expose_false_publishes_no_tool() {
    let out = with_ext("get", "{expose: false}");
    assert_eq!(out.catalog["tools"], json!([]));
}

#[test]
fn defer_loading_is_recorded() {
    assert_eq!(
        with_ext("get", "{defer_loading: true}").tool(0)["deferLoading"],
        true
    );
    assert_eq!(with_ext("get", "{}").tool(0)["deferLoading"], false);
}

#[test]
fn governance_audiences_are_put_in_canonical_order() {
    let out = with_ext("get", "{governance: {audiences: [agent, cli]}}");
    assert_eq!(
        out.tool(0)["governance"]["audiences"],
        json!(["cli", "agent"])
    );
    assert_eq!(
        with_ext("get", "{}").tool(0)["governance"]["audiences"],
        json!(["cli", "mcp", "catalog", "dashboard", "agent"])
    );
}

#[test]
fn repeated_audiences_are_an_error() {
    let out = with_ext("get", "{governance: {audiences: [cli, cli]}}");
    assert!(
        out.has_error(
            Code::XHarnInvalid,
            "/paths/~1a/get/x-harn/governance/audiences"
        ),
        "{}",
        out.diags
    );
}

#[test]
fn the_cli_command_may_be_words_or_a_list() {
    assert_eq!(
        with_ext("get", "{cli: {command: 'pets get'}}").tool(0)["cli"]["command"],
        json!(["pets", "get"])
    );
    assert_eq!(
        with_ext("get", "{cli: {command: [pets, get]}}").tool(0)["cli"]["command"],
        json!(["pets", "get"])
    );
    let out = with_ext("get", "{cli: {command: '-bad'}}");
    assert!(
        out.has_error(Code::XHarnInvalid, "/paths/~1a/get/x-harn/cli/command"),
        "{}",
        out.diags
    );
}

#[test]
fn cli_aliases_and_hidden_are_recorded() {
    let out = with_ext("get", "{cli: {aliases: [g], hidden: true}}");
    assert_eq!(out.tool(0)["cli"]["aliases"], json!(["g"]));
    assert_eq!(out.tool(0)["cli"]["hidden"], true);
}

#[test]
fn cli_arguments_are_keyed_by_wire_name_and_land_on_the_property() {
    let out = check(&op(
        "post",
        "/a",
        "operationId: a\nparameters: [{name: X-Page-Size, in: header, schema: {type: integer}}]\nrequestBody: {content: {application/json: {schema: {type: object}}}}\nx-harn: {cli: {arguments: {X-Page-Size: {short: n, value_name: N}, body: {position: 0}}}}\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["cli"]["arguments"],
        json!({"body": {"position": 0}, "x_page_size": {"short": "n", "value_name": "N"}})
    );
}

#[test]
fn a_cli_argument_for_no_parameter_is_an_error() {
    let out = with_ext("get", "{cli: {arguments: {nope: {short: n}}}}");
    assert!(
        out.has_error(
            Code::XHarnInvalid,
            "/paths/~1a/get/x-harn/cli/arguments/nope"
        ),
        "{}",
        out.diags
    );
}

#[test]
fn annotations_refine_the_method() {
    let out = with_ext(
        "post",
        "{annotations: {title: Search, readOnlyHint: true, idempotentHint: true, openWorldHint: false}}",
    );
    assert_eq!(
        out.tool(0)["annotations"],
        json!({"title": "Search", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
}

#[test]
fn annotations_contradicting_the_method_are_errors() {
    for (method, ext, field) in [
        (
            "get",
            "{annotations: {readOnlyHint: false}}",
            "readOnlyHint",
        ),
        (
            "get",
            "{annotations: {destructiveHint: true}}",
            "destructiveHint",
        ),
        (
            "put",
            "{annotations: {idempotentHint: false}}",
            "idempotentHint",
        ),
        (
            "delete",
            "{annotations: {destructiveHint: false}}",
            "destructiveHint",
        ),
    ] {
        let out = with_ext(method, ext);
        let pointer = format!("/paths/~1a/{method}/x-harn/annotations/{field}");
        assert!(
            out.has_error(Code::XHarnContradicts, &pointer),
            "{method} {ext}: {}",
            out.diags
        );
    }
}

#[test]
fn icons_execution_and_meta_are_carried_over() {
    let out = with_ext(
        "get",
        "{icons: [{src: 'https://x/i.svg', mimeType: image/svg+xml, theme: dark}], execution: {taskSupport: required}, meta: {com.example/team: a}}",
    );
    assert_eq!(
        out.tool(0)["icons"],
        json!([{"src": "https://x/i.svg", "mimeType": "image/svg+xml", "theme": "dark"}])
    );
    assert_eq!(out.tool(0)["execution"], json!({"taskSupport": "required"}));
    assert_eq!(out.tool(0)["_meta"], json!({"com.example/team": "a"}));
}

#[test]
fn annotation_defaults_set_the_open_world_hint() {
    let out = check(&format!(
        "{HEADER}x-harn: {{annotationDefaults: {{openWorldHint: false}}}}\npaths:\n  /a:\n    get: {{operationId: a, responses: {{}}}}\n"
    ));
    assert_eq!(out.tool(0)["annotations"]["openWorldHint"], false);
}

#[test]
fn document_cli_commands_describe_parent_commands() {
    let out = check(&format!(
        "{HEADER}x-harn: {{cli: {{commands: [{{command: [pets], title: Pets, aliases: [p]}}]}}}}\npaths:\n  /a:\n    get: {{operationId: list, tags: [pets], responses: {{}}}}\n"
    ));
    assert_eq!(
        out.catalog["cli"]["commands"],
        json!([{"command": ["pets"], "title": "Pets", "aliases": ["p"], "hidden": false}])
    );
}

#[test]
fn deep_object_arrays_choose_how_deep_object_arrays_are_written() {
    let doc = |choice: &str| {
        format!(
            "{HEADER}x-harn: {{deepObjectArrays: {choice}}}\npaths:\n  /a:\n    get:\n      operationId: a\n      parameters:\n        - {{name: f, in: query, style: deepObject, explode: true, schema: {{type: object}}}}\n      responses: {{}}\n"
        )
    };
    let binding = |out: &Out| out.catalog["tools"][0]["source"]["binding"].clone();
    let brackets = check(&doc("brackets"));
    assert_eq!(
        binding(&brackets)["deepObjectArrays"],
        "brackets",
        "{}",
        brackets.diags
    );
    // The default, indexed, is left out of the binding.
    let indexed = check(&doc("indexed"));
    assert!(
        binding(&indexed).get("deepObjectArrays").is_none(),
        "{}",
        indexed.diags
    );
    let bad = check(&doc("commas"));
    assert!(bad.diags.contains("HG0402"), "{}", bad.diags);
}

#[test]
fn form_body_encodings_are_recorded_in_the_binding() {
    let out = check(&op(
        "post",
        "/a",
        "operationId: a\nrequestBody:\n  content:\n    application/x-www-form-urlencoded:\n      schema: {type: object, properties: {address: {type: object}, tags: {type: array, items: {type: string}}, plain: {type: string}}}\n      encoding:\n        address: {style: deepObject, explode: true}\n        tags: {explode: false, allowReserved: true}\nresponses: {}",
    ));
    assert_eq!(
        out.catalog["tools"][0]["source"]["binding"]["body"]["parts"],
        json!([
            {"property": "address", "style": "deepObject", "explode": true},
            {"property": "tags", "explode": false, "allowReserved": true}
        ]),
        "{}",
        out.diags
    );
}

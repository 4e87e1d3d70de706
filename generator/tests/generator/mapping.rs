//! Operation → tool mapping rules (openapi.md §3), one behaviour per test, each on a small
//! inline document.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use crate::common::*;
use harness_gen::diag::Code;
use serde_json::json;

#[test]
fn the_name_is_the_operation_id_in_snake_case() {
    let out = check(&op(
        "get",
        "/pets",
        "operationId: listAllPets\nresponses: {}",
    ));
    assert_eq!(out.tool(0)["name"], "list_all_pets");
}

#[test]
fn without_an_operation_id_the_name_is_method_and_path() {
    let out = check(&op(
        "get",
        "/pets/{petId}/toys",
        "parameters: [{name: petId, in: path, required: true, schema: {type: string}}]\nresponses: {}",
    ));
    assert_eq!(out.tool(0)["name"], "get_pets_pet_id_toys");
}

#[test]
fn an_explicit_name_wins() {
    let out = check(&op(
        "get",
        "/pets",
        "operationId: listPets\nx-harn: {name: pets.list}\nresponses: {}",
    ));
    assert_eq!(out.tool(0)["name"], "pets.list");
}

#[test]
fn a_rust_keyword_name_gets_a_suffix() {
    let out = check(&op("get", "/t", "operationId: type\nresponses: {}"));
    assert_eq!(out.tool(0)["name"], "type_");
}

#[test]
fn colliding_names_are_numbered_and_reported() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: getThing, responses: {}}\n  /b:\n    get: {operationId: get_thing, responses: {}}\n",
    ));
    assert_eq!(out.tool(0)["name"], "get_thing");
    assert_eq!(out.tool(1)["name"], "get_thing_2");
    assert!(out.has(Code::Renamed, "/paths/~1b/get"), "{}", out.diags);
}

#[test]
fn long_names_are_shortened_to_64_characters() {
    let id = "x".repeat(100);
    let out = check(&op(
        "get",
        "/long",
        &format!("operationId: {id}\nresponses: {{}}"),
    ));
    let name = out.tool(0)["name"].as_str().unwrap().to_string();
    assert_eq!(name.len(), 64);
    assert!(
        name.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    );
}

#[test]
fn clashing_explicit_names_are_an_error_naming_both() {
    let out = check(&paths(
        "  /a:\n    get: {x-harn: {name: same}, responses: {}}\n  /b:\n    get: {x-harn: {name: same}, responses: {}}\n",
    ));
    assert!(
        out.has_error(Code::Conflict, "/paths/~1b/get/x-harn/name"),
        "{}",
        out.diags
    );
    assert!(out.diags.contains("/a"), "{}", out.diags);
}

#[test]
fn title_prefers_x_harn_then_summary_then_name() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: a, summary: Sum A, x-harn: {title: Title A}, responses: {}}\n  /b:\n    get: {operationId: b, summary: Sum B, responses: {}}\n  /c:\n    get: {operationId: c, responses: {}}\n",
    ));
    assert_eq!(out.tool(0)["title"], "Title A");
    assert_eq!(out.tool(1)["title"], "Sum B");
    assert_eq!(out.tool(2)["title"], "c");
}

#[test]
fn description_prefers_description_then_summary() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: a, summary: S, description: D, responses: {}}\n  /b:\n    get: {operationId: b, summary: S, responses: {}}\n",
    ));
    assert_eq!(out.tool(0)["description"], "D");
    assert_eq!(out.tool(1)["description"], "S");
}

/// MCP clients and model providers require a description: an operation that has neither a
/// summary nor a description is described by its method, path and tags.
#[test]
fn an_operation_the_document_does_not_describe_is_described_by_what_it_is() {
    let out = check(&paths(
        "  /pets/{id}:\n    delete: {operationId: a, tags: [pets], parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {}}\n  /ping:\n    get: {operationId: b, responses: {}}\n",
    ));
    assert_eq!(
        out.tool(0)["description"],
        "Sends `DELETE /pets/{id}` to the API (pets)."
    );
    assert_eq!(out.tool(1)["description"], "Sends `GET /ping` to the API.");
}

/// OpenAI writes paragraphs in `summary`: the title is its first sentence, the whole of it
/// heads the description.
#[test]
fn a_summary_of_paragraphs_titles_by_its_first_sentence_and_stays_whole_in_the_description() {
    let long =
        "Creates a model response. Provide text or image inputs.\n\nLearn more in the guides.";
    let out = check(&paths(&format!(
        "  /a:\n    post: {{operationId: a, summary: {long:?}, responses: {{}}}}\n  /b:\n    post: {{operationId: b, summary: {long:?}, description: Details., responses: {{}}}}\n  /c:\n    get: {{operationId: c, summary: Lists pets. Paged., responses: {{}}}}\n",
    )));
    assert_eq!(out.tool(0)["title"], "Creates a model response.");
    assert_eq!(out.tool(0)["description"], long);
    assert_eq!(out.tool(1)["title"], "Creates a model response.");
    assert_eq!(out.tool(1)["description"], format!("{long}\n\nDetails."));
    // A summary of one short line is the title as it is.
    assert_eq!(out.tool(2)["title"], "Lists pets. Paged.");
}

#[test]
fn audience_descriptions_go_to_the_entry_meta_beside_the_tags() {
    let out = check(&op(
        "get",
        "/pets",
        "operationId: a\ntags: [pets]\ndescription: The long text.\nx-harn: {descriptions: {mcp: Lists pets., agent: Lists pets by page.}}\nresponses: {}",
    ));
    let tool = out.tool(0);
    assert_eq!(tool["description"], "The long text.");
    assert_eq!(
        tool["_meta"],
        json!({
            "com.harnlang/descriptions": {"mcp": "Lists pets.", "agent": "Lists pets by page."},
            "com.harnlang/tags": ["pets"]
        })
    );
}

#[test]
fn a_description_over_1024_characters_is_a_warning_at_the_operation() {
    let long = "Lists pets. ".repeat(90);
    let out = check(&op(
        "get",
        "/pets",
        &format!("operationId: a\ndescription: {long}\nresponses: {{}}"),
    ));
    assert!(
        out.has(Code::LongDescription, "/paths/~1pets/get"),
        "{}",
        out.diags
    );
    assert!(
        out.diags.contains("x-harn.descriptions.mcp"),
        "{}",
        out.diags
    );
    // A short description for MCP clients and agents settles it.
    let out = check(&op(
        "get",
        "/pets",
        &format!(
            "operationId: a\ndescription: {long}\nx-harn: {{descriptions: {{mcp: Lists pets., agent: Lists pets.}}}}\nresponses: {{}}"
        ),
    ));
    assert!(
        !out.has(Code::LongDescription, "/paths/~1pets/get"),
        "{}",
        out.diags
    );
}

#[test]
fn the_listing_report_gives_its_size_and_names_tools_over_the_budget() {
    use harness_gen::diag::{Diagnostics, Severity};
    let text = paths(
        "  /a:\n    get: {operationId: small, responses: {}}\n  /b:\n    post:\n      operationId: big\n      requestBody: {content: {application/json: {schema: {type: object, properties: {one: {type: string, description: A long enough description of the first field.}, two: {type: string, description: A long enough description of the second field.}}}}}}\n      responses: {}\n",
    );
    let mut diags = Diagnostics::default();
    let doc =
        harness_gen::load::Document::from_text(std::path::Path::new("test.yaml"), text, &mut diags)
            .unwrap();
    let (_, catalog) = harness_gen::catalog::from_document(&doc, None, &mut diags);
    let budget = harness_gen::ListingBudget {
        depth: 2,
        bytes: 400,
    };
    diags.append(harness_gen::catalog::listing_report(&doc, &catalog, budget));
    let report: Vec<_> = diags
        .items()
        .iter()
        .filter(|d| d.code == Code::Listing)
        .collect();
    assert_eq!(report.len(), 2, "{diags}");
    assert_eq!(report[0].severity, Severity::Note);
    assert!(
        report[0].message.contains("the MCP listing of 2 tools is"),
        "{diags}"
    );
    assert!(report[0].message.contains("largest: `big`"), "{diags}");
    assert_eq!(report[1].severity, Severity::Warning);
    assert!(
        report[1]
            .message
            .starts_with("1 tool lists schemas over the listing budget of 400 bytes"),
        "{diags}"
    );
}

#[test]
fn parameters_become_one_closed_input_object() {
    let out = check(&paths(
        "  /pets/{petId}:\n    parameters:\n      - {name: petId, in: path, required: true, schema: {type: integer}}\n      - {name: verbose, in: query, schema: {type: boolean}}\n    get:\n      operationId: getPet\n      parameters:\n        - {name: verbose, in: query, required: true, schema: {type: string}}\n        - {name: X-Trace-Id, in: header, schema: {type: string}}\n        - {name: session, in: cookie, schema: {type: string}}\n      responses: {}\n",
    ));
    let input = &out.tool(0)["inputSchema"];
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(input["properties"]["pet_id"]["type"], "integer");
    // The operation's parameter wins over the path item's.
    assert_eq!(input["properties"]["verbose"]["type"], "string");
    assert!(input["properties"]["x_trace_id"].is_object());
    assert!(input["properties"]["session"].is_object());
    assert_eq!(input["required"], json!(["pet_id", "verbose"]));
}

#[test]
fn accept_content_type_and_authorization_headers_are_ignored() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nparameters: [{name: Accept, in: header, schema: {type: string}}, {name: Authorization, in: header, schema: {type: string}}]\nresponses: {}",
    ));
    assert_eq!(out.tool(0)["inputSchema"]["properties"], json!({}));
}

#[test]
fn an_optional_path_parameter_is_required_and_reported() {
    let out = check(&op(
        "get",
        "/a/{id}",
        "operationId: a\nparameters: [{name: id, in: path, schema: {type: string}}]\nresponses: {}",
    ));
    assert_eq!(out.tool(0)["inputSchema"]["required"], json!(["id"]));
    assert!(
        out.has(Code::PathParameter, "/paths/~1a~1{id}/get/parameters/0"),
        "{}",
        out.diags
    );
}

#[test]
fn colliding_properties_get_reported_names() {
    let out = check(&op(
        "post",
        "/a/{id}",
        "operationId: a\nparameters:\n  - {name: id, in: path, required: true, schema: {type: string}}\n  - {name: id, in: query, schema: {type: string}}\n  - {name: body, in: query, schema: {type: string}}\nrequestBody: {content: {application/json: {schema: {type: object}}}}\nresponses: {}",
    ));
    let properties = &out.tool(0)["inputSchema"]["properties"];
    let names: Vec<&String> = properties.as_object().unwrap().keys().collect();
    assert_eq!(names, ["id", "id_query", "body_query", "body"]);
    assert!(
        out.has(Code::Renamed, "/paths/~1a~1{id}/post/parameters/1"),
        "{}",
        out.diags
    );
    let binding = &out.tool(0)["source"]["binding"]["parameters"];
    assert_eq!(
        binding[1],
        json!({"property": "id_query", "in": "query", "name": "id", "style": "form", "explode": true, "required": false})
    );
}

#[test]
fn the_body_is_required_only_when_the_request_body_is() {
    let out = check(&paths(
        "  /a:\n    post: {operationId: a, requestBody: {required: true, content: {application/json: {schema: {type: object}}}}, responses: {}}\n  /b:\n    post: {operationId: b, requestBody: {content: {application/json: {schema: {type: object}}}}, responses: {}}\n",
    ));
    assert_eq!(out.tool(0)["inputSchema"]["required"], json!(["body"]));
    assert!(out.tool(1)["inputSchema"].get("required").is_none());
}

#[test]
fn the_binding_records_where_each_property_goes() {
    let out = check(&op(
        "put",
        "/a/{id}",
        "operationId: a\nparameters:\n  - {name: id, in: path, required: true, schema: {type: string}}\n  - {name: tags, in: query, style: pipeDelimited, explode: false, schema: {type: array, items: {type: string}}}\nrequestBody: {required: true, content: {application/xml: {schema: {type: object}}, application/json: {schema: {type: object}}}}\nresponses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}",
    ));
    assert_eq!(
        out.tool(0)["source"],
        json!({
            "kind": "openapi",
            "id": "a",
            "binding": {
                "method": "PUT",
                "path": "/a/{id}",
                "parameters": [
                    {"property": "id", "in": "path", "name": "id", "style": "simple", "explode": false, "required": true},
                    {"property": "tags", "in": "query", "name": "tags", "style": "pipeDelimited", "explode": false, "required": false}
                ],
                "body": {"property": "body", "contentType": "application/json", "encoding": "json", "required": true, "alternatives": ["application/xml"]},
                "response": {"status": "200", "contentType": "application/json", "encoding": "json"},
                "security": []
            }
        })
    );
}

#[test]
fn multipart_parts_take_the_media_types_their_encoding_or_schema_declares() {
    let out = check(&paths(concat!(
        "  /upload:\n    post:\n      operationId: upload\n      requestBody:\n        content:\n",
        "          multipart/form-data:\n",
        "            schema: {$ref: '#/components/schemas/Form'}\n",
        "            encoding: {meta: {contentType: 'application/json'}, photo: {contentType: 'image/png, image/jpeg'}}\n",
        "      responses: {}\n",
        "components:\n  schemas:\n    Form:\n      type: object\n      properties:\n",
        "        meta: {type: object}\n        photo: {type: string, format: binary}\n",
        "        clip: {type: string, contentMediaType: audio/mpeg}\n        note: {type: string}\n",
    )));
    let body = &out.tool(0)["source"]["binding"]["body"];
    assert_eq!(body["encoding"], "multipart");
    // The first of several listed types; properties that declare nothing are not listed.
    assert_eq!(
        body["parts"],
        json!([
            {"property": "meta", "contentType": "application/json"},
            {"property": "photo", "contentType": "image/png"},
            {"property": "clip", "contentType": "audio/mpeg"}
        ])
    );
    // A tool's JSON input carries a file as base64, and its schema says so.
    assert_eq!(
        out.catalog["components"]["schemas"]["Form"]["properties"]["photo"],
        json!({"type": "string", "format": "binary", "contentEncoding": "base64"})
    );
}

#[test]
fn non_json_bodies_are_form_multipart_bytes_or_text() {
    let out = check(&paths(
        "  /form:\n    post: {operationId: form, requestBody: {content: {application/x-www-form-urlencoded: {schema: {type: object, properties: {a: {type: string}}}}}}, responses: {}}\n  /bytes:\n    post: {operationId: bytes, requestBody: {content: {application/octet-stream: {}}}, responses: {}}\n  /text:\n    post: {operationId: text, requestBody: {content: {text/plain: {}}}, responses: {}}\n",
    ));
    assert_eq!(out.tool(0)["source"]["binding"]["body"]["encoding"], "form");
    assert_eq!(
        out.tool(0)["inputSchema"]["properties"]["body"]["type"],
        "object"
    );
    assert_eq!(
        out.tool(1)["source"]["binding"]["body"]["encoding"],
        "bytes"
    );
    // Binary (an `Upload` in the SDK), base64 in a tool's JSON input.
    assert_eq!(
        out.tool(1)["inputSchema"]["properties"]["body"],
        json!({"type": "string", "format": "binary", "contentEncoding": "base64"})
    );
    assert_eq!(
        out.tool(2)["inputSchema"]["properties"]["body"],
        json!({"type": "string"})
    );
}

#[test]
fn the_output_is_the_lowest_2xx_with_content() {
    let out = check(&op(
        "post",
        "/a",
        "operationId: a\nresponses:\n  '204': {description: none}\n  '202': {description: b, content: {application/json: {schema: {const: 202}}}}\n  '201': {description: a, content: {application/json: {schema: {const: 201}}}}\n  2XX: {description: r, content: {application/json: {schema: {const: 2}}}}",
    ));
    assert_eq!(out.tool(0)["outputSchema"], json!({"const": 201}));
}

#[test]
fn a_2xx_range_is_the_output_when_no_exact_code_has_content() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses:\n  '200': {description: none}\n  2XX: {description: r, content: {application/json: {schema: {const: 2}}}}",
    ));
    assert_eq!(out.tool(0)["outputSchema"], json!({"const": 2}));
}

#[test]
fn no_success_content_means_no_output_schema() {
    let out = check(&op(
        "delete",
        "/a",
        "operationId: a\nresponses: {'204': {description: gone}}",
    ));
    assert!(out.tool(0).get("outputSchema").is_none());
}

#[test]
fn a_text_only_success_is_a_string_output() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses: {'200': {description: t, content: {text/csv: {schema: {type: string}}}}}",
    ));
    assert_eq!(out.tool(0)["outputSchema"], json!({"type": "string"}));
    assert_eq!(
        out.tool(0)["source"]["binding"]["response"]["encoding"],
        "text"
    );
}

#[test]
fn declared_error_responses_become_variants_with_an_upstream_fallback() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses:\n  default: {description: d, content: {application/json: {schema: {const: d}}}}\n  4XX: {description: r, content: {application/json: {schema: {const: r}}}}\n  '404': {description: n, content: {application/json: {schema: {const: n}}}}\n  '500': {description: text only, content: {text/plain: {}}}",
    ));
    let variants = out.tool(0)["errorSchema"]["oneOf"]
        .as_array()
        .unwrap()
        .clone();
    let kinds: Vec<&str> = variants
        .iter()
        .map(|v| v["properties"]["kind"]["const"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["http_404", "http_4XX", "http_default", "upstream_error"]
    );
    assert_eq!(variants[0]["properties"]["status"], json!({"const": 404}));
    assert_eq!(
        variants[1]["properties"]["status"],
        json!({"type": "integer", "minimum": 400, "maximum": 499})
    );
    assert_eq!(variants[0]["properties"]["body"], json!({"const": "n"}));
    let upstream = &variants[3];
    assert_eq!(upstream["required"], json!(["kind", "status", "reason"]));
    assert!(upstream["properties"].get("body").is_none());
}

#[test]
fn hints_follow_the_method() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: g, responses: {}}\n    put: {operationId: u, responses: {}}\n    delete: {operationId: d, responses: {}}\n    post: {operationId: p, responses: {}}\n",
    ));
    let hints = |i: usize| {
        let a = &out.tool(i)["annotations"];
        (
            a["readOnlyHint"].clone(),
            a["destructiveHint"].clone(),
            a["idempotentHint"].clone(),
            a["openWorldHint"].clone(),
        )
    };
    assert_eq!(
        hints(0),
        (json!(true), json!(false), json!(true), json!(true))
    );
    assert_eq!(
        hints(1),
        (json!(false), json!(false), json!(true), json!(true))
    );
    // Operations are taken in the order get, put, post, delete, …
    assert_eq!(
        hints(2),
        (json!(false), json!(false), json!(false), json!(true))
    );
    assert_eq!(
        hints(3),
        (json!(false), json!(true), json!(true), json!(true))
    );
}

#[test]
fn the_policy_is_fetch_for_safe_methods_and_execute_otherwise() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: g, responses: {}}\n    post: {operationId: p, responses: {}}\n",
    ));
    assert_eq!(
        out.tool(0)["policy"],
        json!({"kind": "fetch", "side_effect_level": "network"})
    );
    assert_eq!(
        out.tool(1)["policy"],
        json!({"kind": "execute", "side_effect_level": "network"})
    );
}

#[test]
fn the_command_is_the_first_tag_and_the_name_in_kebab_case() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: listChewToys, tags: [Pet Toys, other], responses: {}}\n  /b:\n    get: {operationId: ping, responses: {}}\n",
    ));
    assert_eq!(
        out.tool(0)["cli"]["command"],
        json!(["pet-toys", "list-chew-toys"])
    );
    assert_eq!(out.tool(1)["cli"]["command"], json!(["ping"]));
    assert_eq!(
        out.catalog["cli"]["commands"][0]["command"],
        json!(["pet-toys"])
    );
    assert_eq!(out.catalog["cli"]["commands"][0]["title"], "Pet Toys");
}

#[test]
fn a_derived_command_clash_is_renamed_and_reported() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: pets, responses: {}}\n  /b:\n    get: {operationId: list, tags: [pets], responses: {}}\n",
    ));
    assert_eq!(out.tool(0)["cli"]["command"], json!(["pets"]));
    assert_eq!(out.tool(1)["cli"]["command"], json!(["pets-list-2"]));
    assert!(out.has(Code::Renamed, "/paths/~1b/get"), "{}", out.diags);
    harness_gen_runtime::Catalog::from_value(out.catalog.clone()).unwrap();
}

#[test]
fn an_explicit_command_clash_is_an_error_naming_the_other_operation() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: a, x-harn: {cli: {command: pets list}}, responses: {}}\n  /b:\n    get: {operationId: b, x-harn: {cli: {command: [pets, list]}}, responses: {}}\n",
    ));
    assert!(
        out.has_error(Code::Conflict, "/paths/~1b/get/x-harn/cli/command"),
        "{}",
        out.diags
    );
    assert!(out.diags.contains("/paths/~1a/get"), "{}", out.diags);
}

#[test]
fn a_property_named_like_a_reserved_option_gets_another_long_name() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nparameters: [{name: base_url, in: query, schema: {type: string}}]\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["cli"]["arguments"]["base_url"],
        json!({"long": "base-url-value"})
    );
    harness_gen_runtime::Catalog::from_value(out.catalog.clone()).unwrap();
}

#[test]
fn operation_security_overrides_the_document_and_an_empty_list_is_anonymous() {
    let doc = format!(
        "{}security: [{{token: []}}]\ncomponents:\n  securitySchemes:\n    token: {{type: http, scheme: bearer}}\n    key: {{type: apiKey, in: query, name: k}}\npaths:\n  /a:\n    get: {{operationId: a, responses: {{}}}}\n  /b:\n    get: {{operationId: b, security: [], responses: {{}}}}\n  /c:\n    get: {{operationId: c, security: [{{key: [], token: []}}, {{}}], responses: {{}}}}\n",
        HEADER
    );
    let out = check(&doc);
    assert_eq!(
        out.tool(0)["source"]["binding"]["security"],
        json!([["token"]])
    );
    assert_eq!(out.tool(1)["source"]["binding"]["security"], json!([]));
    assert_eq!(
        out.tool(2)["source"]["binding"]["security"],
        json!([["key", "token"], []])
    );
}

#[test]
fn nullable_and_boolean_exclusive_bounds_are_normalized_in_3_0() {
    let doc = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n      parameters: [{name: n, in: query, schema: {type: integer, nullable: true, minimum: 1, exclusiveMinimum: true}}]\n      responses: {}\n";
    let out = check(doc);
    assert_eq!(
        out.tool(0)["inputSchema"]["properties"]["n"],
        json!({"type": ["integer", "null"], "exclusiveMinimum": 1})
    );
}

#[test]
fn references_outside_component_schemas_are_inlined() {
    let doc = format!(
        "{}paths:\n  /a:\n    get:\n      operationId: a\n      parameters: [{{$ref: '#/components/parameters/Limit'}}]\n      responses: {{'200': {{$ref: '#/components/responses/Ok'}}}}\ncomponents:\n  parameters:\n    Limit: {{name: limit, in: query, schema: {{$ref: '#/components/schemas/Limit'}}}}\n  responses:\n    Ok: {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/Item/properties/id'}}}}}}}}\n  schemas:\n    Limit: {{type: integer}}\n    Item: {{type: object, properties: {{id: {{type: string}}}}}}\n",
        HEADER
    );
    let out = check(&doc);
    assert_eq!(
        out.tool(0)["inputSchema"]["properties"]["limit"],
        json!({"$ref": "#/components/schemas/Limit"})
    );
    assert_eq!(
        out.tool(0)["outputSchema"],
        json!({"$ref": "#/components/schemas/Item/properties/id"})
    );
    assert!(out.diags.is_empty(), "{}", out.diags);
}

#[test]
fn a_dangling_reference_is_a_located_error() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses: {'200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Nope'}}}}}",
    ));
    assert!(
        out.has_error(
            Code::UnresolvedRef,
            "/paths/~1a/get/responses/200/content/application~1json/schema/$ref"
        ),
        "{}",
        out.diags
    );
}

#[test]
fn a_remote_reference_is_refused_without_touching_the_network() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses: {'200': {description: x, content: {application/json: {schema: {$ref: 'https://example.com/s.json'}}}}}",
    ));
    assert!(
        out.has_error(
            Code::RemoteRef,
            "/paths/~1a/get/responses/200/content/application~1json/schema/$ref"
        ),
        "{}",
        out.diags
    );
}

#[test]
fn webhooks_are_not_tools() {
    let doc = format!(
        "{}webhooks:\n  newPet:\n    post: {{operationId: newPet, responses: {{}}}}\n",
        HEADER
    );
    let out = check(&doc);
    assert_eq!(out.catalog["tools"], json!([]));
}

#[test]
fn a_bad_status_code_is_ignored_with_a_warning() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses: {'200': {description: ok}, '600': {description: what}}",
    ));
    assert!(
        out.has(Code::InvalidField, "/paths/~1a/get/responses/600"),
        "{}",
        out.diags
    );
    assert!(!out.has_any_error());
}

/// `$recursiveRef: "#"` inside a component means that component (OpenAI's `CompoundFilter`):
/// it is rewritten to a `$ref` with a warning, and the tool's schema can then stand alone.
#[test]
fn a_recursive_ref_inside_a_component_becomes_a_reference_to_it() {
    let out = check(&format!(
        "{HEADER}paths:\n  /f:\n    post:\n      operationId: f\n      requestBody: {{content: {{application/json: {{schema: {{$ref: '#/components/schemas/CompoundFilter'}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  schemas:\n    CompoundFilter:\n      $recursiveAnchor: true\n      type: object\n      properties:\n        filters:\n          type: array\n          items:\n            oneOf:\n              - {{type: string}}\n              - $recursiveRef: '#'\n"
    ));
    let at = "/components/schemas/CompoundFilter/properties/filters/items/oneOf/1/$recursiveRef";
    assert!(out.has(Code::Rebound, at), "{}", out.diags);
    assert!(!out.has_any_error(), "{}", out.diags);
    let components = out.catalog["components"]["schemas"].clone();
    let compound = &components["CompoundFilter"];
    assert_eq!(
        compound.pointer("/properties/filters/items/oneOf/1"),
        Some(&json!({"$ref": "#/components/schemas/CompoundFilter"}))
    );
    assert!(compound.get("$recursiveAnchor").is_none(), "{compound}");
    let lookup = |name: &str| components.get(name);
    let input = &out.tool(0)["inputSchema"];
    harness_gen_runtime::schema::standalone::project(input, &lookup, "f")
        .expect("the tool's schema stands alone");
}

/// A location-bound reference whose meaning is not clear is left alone (the projection says why).
#[test]
fn a_dynamic_ref_without_a_matching_anchor_is_not_rewritten() {
    let out = check(&format!(
        "{HEADER}paths: {{}}\ncomponents:\n  schemas:\n    Tree:\n      type: object\n      properties:\n        kids: {{type: array, items: {{$dynamicRef: '#node'}}}}\n"
    ));
    assert!(!out.diags.contains("HG0506"), "{}", out.diags);
}

/// A location-bound keyword the normalizer cannot rebind is reported where it is: the tools
/// reaching that component will be listed with a permissive schema.
#[test]
fn a_component_that_cannot_stand_alone_is_reported_at_its_keyword() {
    let out = check(&format!(
        "{HEADER}paths:\n  /t:\n    get:\n      operationId: t\n      responses: {{'200': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/Tree'}}}}}}}}}}\ncomponents:\n  schemas:\n    Tree:\n      type: object\n      properties:\n        kids: {{type: array, items: {{$dynamicRef: '#node'}}}}\n"
    ));
    assert!(
        out.has(
            Code::Lossy,
            "/components/schemas/Tree/properties/kids/items"
        ),
        "{}",
        out.diags
    );
    assert!(out.diags.contains("permissive"), "{}", out.diags);
    assert!(!out.has_any_error(), "{}", out.diags);
}

#[test]
fn a_declared_idempotency_key_header_is_the_bindings_idempotency_key() {
    let out = check(&op(
        "post",
        "/charges",
        "operationId: charge\nparameters:\n  - {name: idempotency-key, in: header, schema: {type: string}}\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["source"]["binding"]["idempotencyKey"],
        "idempotency-key"
    );
}

#[test]
fn the_documents_idempotency_key_applies_to_methods_that_are_not_idempotent() {
    let out = check(&format!(
        "{HEADER}x-harn: {{idempotencyKey: Idempotency-Key}}\npaths:\n  /a:\n    post: {{operationId: make, responses: {{}}}}\n    get: {{operationId: read, responses: {{}}}}\n    put: {{operationId: put_it, x-harn: {{idempotency_key: X-Key}}, responses: {{}}}}\n"
    ));
    let key = |name: &str| {
        let tools = out.catalog["tools"].as_array().unwrap();
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        tool["source"]["binding"]["idempotencyKey"].clone()
    };
    assert_eq!(key("make"), "Idempotency-Key");
    assert_eq!(
        key("read"),
        serde_json::Value::Null,
        "GET is safe to repeat anyway"
    );
    assert_eq!(key("put_it"), "X-Key", "the operation's own key wins");
}

#[test]
fn an_idempotency_key_that_is_not_a_header_name_is_an_error() {
    let out = check(&op(
        "post",
        "/a",
        "operationId: a\nx-harn: {idempotency_key: \"bad key\"}\nresponses: {}",
    ));
    assert!(
        out.has_error(Code::XHarnInvalid, "/paths/~1a/post/x-harn/idempotency_key"),
        "{}",
        out.diags
    );
}

#[test]
fn a_header_parameter_openapi_ignores_is_left_out_with_a_note_saying_what_sets_it() {
    let out = check(&paths(
        "  /a:\n    get:\n      operationId: ping\n      parameters:\n        - {name: Authorization, in: header, required: true, schema: {type: string}}\n        - {name: Accept, in: header, schema: {type: string}}\n      responses: {}\n",
    ));
    assert!(
        out.tool(0)["inputSchema"]["properties"]
            .get("Authorization")
            .is_none()
    );
    assert!(
        out.diags
            .contains("header parameter `Authorization` is ignored"),
        "{}",
        out.diags
    );
    assert!(
        out.diags
            .contains("declare one (components.securitySchemes)"),
        "{}",
        out.diags
    );
    assert!(
        out.diags.contains("header parameter `Accept` is ignored"),
        "{}",
        out.diags
    );
}

#[test]
fn multipart_part_headers_that_are_not_sent_are_reported() {
    let out = check(&paths(
        "  /a:\n    post:\n      operationId: upload\n      requestBody:\n        content:\n          multipart/form-data:\n            schema: {type: object, properties: {file: {type: string, format: binary}}}\n            encoding:\n              file:\n                contentType: image/png\n                headers:\n                  X-Rate-Limit-Limit: {schema: {type: integer}}\n      responses: {}\n",
    ));
    assert!(
        out.diags
            .contains("the headers of multipart part `file` are not sent"),
        "{}",
        out.diags
    );
}

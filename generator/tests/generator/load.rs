//! Loading documents (openapi.md §1): versions, formats, references and positions.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;

use crate::common::*;
use harness_gen::diag::{Code, Diagnostics};
use harness_gen::load::Document;
use serde_json::json;

fn load_error(name: &str, text: &str) -> Diagnostics {
    let mut diags = Diagnostics::default();
    assert!(Document::from_text(Path::new(name), text.to_string(), &mut diags).is_none());
    diags
}

#[test]
fn swagger_2_is_refused_with_a_way_forward() {
    let diags = load_error(
        "old.yaml",
        "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n",
    );
    let d = &diags.items()[0];
    assert_eq!(d.code, Code::Swagger2);
    assert!(d.message.contains("convert"), "{d}");
}

#[test]
fn unknown_versions_and_non_openapi_documents_are_refused() {
    assert_eq!(
        load_error("a.yaml", "openapi: 4.0.0\n").items()[0].code,
        Code::UnsupportedVersion
    );
    assert_eq!(
        load_error("a.yaml", "hello: world\n").items()[0].code,
        Code::NotOpenApi
    );
    assert_eq!(
        load_error("a.json", "[1, 2]").items()[0].code,
        Code::NotOpenApi
    );
}

#[test]
fn syntax_errors_are_located() {
    let diags = load_error("a.json", "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {,}\n}");
    let d = &diags.items()[0];
    assert_eq!(d.code, Code::Syntax);
    assert_eq!(d.position, Some((3, 12)));
    let diags = load_error("a.yaml", "openapi: 3.1.0\ninfo: {title: t\npaths: {}\n");
    assert_eq!(diags.items()[0].code, Code::Syntax);
    assert!(diags.items()[0].position.is_some());
}

#[test]
fn yaml_dates_stay_strings() {
    let out = check("openapi: 3.1.0\ninfo: {title: t, version: 2024-01-01}\npaths: {}\n");
    assert_eq!(out.catalog["info"]["version"], "2024-01-01");
}

#[test]
fn openapi_3_2_documents_are_read() {
    let out = check(
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: {operationId: a, responses: {}}\n",
    );
    assert_eq!(out.tool(0)["name"], "a");
}

#[test]
fn json_documents_are_read_with_positions() {
    let out = check_named(
        "a.json",
        r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
  "paths": {"/a": {"get": {"operationId": "a", "x-harn": {"bogus": 1}, "responses": {}}}}}"#,
    );
    assert!(out.diags.contains("a.json:2:"), "{}", out.diags);
}

#[test]
fn local_file_references_are_resolved_next_to_the_document() {
    let dir = std::env::temp_dir().join(format!("harness-gen-refs-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::write(
        dir.join("schemas/pet.yaml"),
        "type: object\nproperties:\n  name: {type: string}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("api.yaml"),
        format!("{HEADER}paths:\n  /a:\n    get:\n      operationId: a\n      responses: {{'200': {{description: ok, content: {{application/json: {{schema: {{$ref: 'schemas/pet.yaml'}}}}}}}}}}\n"),
    )
    .unwrap();
    let mut diags = Diagnostics::default();
    let (_, catalog) =
        harness_gen::pipeline::catalog_of(&dir.join("api.yaml"), None, &mut diags).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    crate::common::assert_only_the_listing_report(&diags);
    assert_eq!(
        serde_json::to_value(&catalog.tools[0].output_schema).unwrap(),
        json!({"type": "object", "properties": {"name": {"type": "string"}}})
    );
}

#[test]
fn a_reference_cycle_outside_components_is_cut_with_a_warning() {
    let doc = format!(
        "{HEADER}paths:\n  /a:\n    get:\n      operationId: a\n      responses: {{'200': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/x-defs/Node'}}}}}}}}}}\nx-defs:\n  Node: {{type: object, properties: {{next: {{$ref: '#/x-defs/Node'}}}}}}\n"
    );
    let out = check(&doc);
    assert!(
        out.has(Code::RefCycle, "/x-defs/Node/properties/next/$ref"),
        "{}",
        out.diags
    );
    assert!(!out.has_any_error(), "{}", out.diags);
}

#[test]
fn a_cycle_of_path_item_references_is_an_error() {
    let doc =
        format!("{HEADER}paths:\n  /a: {{$ref: '#/paths/~1b'}}\n  /b: {{$ref: '#/paths/~1a'}}\n");
    let out = check(&doc);
    assert!(out.has_any_error(), "{}", out.diags);
    assert!(out.diags.contains("HG0203"), "{}", out.diags);
}

#[test]
fn invalid_schema_keywords_are_dropped_with_a_warning() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nparameters: [{name: q, in: query, schema: {type: string, minLength: -1, required: true}}]\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["inputSchema"]["properties"]["q"],
        json!({"type": "string"})
    );
    assert!(
        out.has(
            Code::InvalidSchema,
            "/paths/~1a/get/parameters/0/schema/minLength"
        ),
        "{}",
        out.diags
    );
    assert!(!out.has_any_error(), "{}", out.diags);
}

#[test]
fn a_foreign_dialect_is_read_as_2020_12_with_a_warning() {
    let doc = format!(
        "{HEADER}components:\n  schemas:\n    A: {{$schema: 'http://json-schema.org/draft-07/schema#', type: string}}\n    B: {{$schema: 'https://spec.openapis.org/oas/3.1/dialect/base', type: string}}\n"
    );
    let out = check(&doc);
    assert!(
        out.has(Code::Lossy, "/components/schemas/A/$schema"),
        "{}",
        out.diags
    );
    assert!(
        !out.has(Code::Lossy, "/components/schemas/B/$schema"),
        "{}",
        out.diags
    );
    assert_eq!(
        out.catalog["components"]["schemas"]["A"],
        json!({"type": "string"})
    );
}

#[test]
fn examples_written_as_a_list_are_a_warning_not_an_error() {
    let out = check(&op(
        "get",
        "/a",
        "operationId: a\nresponses: {'200': {description: ok, content: {application/json: {schema: {type: object}, examples: [{value: 1}]}}}}",
    ));
    assert!(
        out.has(
            Code::InvalidField,
            "/paths/~1a/get/responses/200/content/application~1json/examples"
        ),
        "{}",
        out.diags
    );
    assert!(!out.has_any_error());
    assert_eq!(out.tool(0)["outputSchema"], json!({"type": "object"}));
}

#[test]
fn the_model_keeps_servers_info_and_security_schemes_for_the_emitters() {
    let doc = "openapi: 3.1.0\ninfo: {title: T, version: 2024-01-01, summary: S, license: {name: Apache 2.0, identifier: Apache-2.0}}\nservers:\n  - url: 'https://{region}.example.com/{v}'\n    variables: {region: {default: eu}, v: {default: v2}}\n  - url: /relative\ncomponents:\n  securitySchemes:\n    b: {type: http, scheme: bearer}\n    u: {type: http, scheme: basic}\n    k: {type: apiKey, in: cookie, name: sid}\n    o: {type: oauth2, flows: {}}\n    m: {type: mutualTLS}\npaths: {}\n";
    let mut diags = Diagnostics::default();
    let doc = Document::from_text(Path::new("t.yaml"), doc.to_string(), &mut diags).unwrap();
    let api = harness_gen::mapping::map(&doc, &mut diags);
    assert_eq!(api.servers, ["https://eu.example.com/v2", "/relative"]);
    assert_eq!(api.info.version, "2024-01-01");
    assert_eq!(api.info.description.as_deref(), Some("S"));
    assert_eq!(api.info.license.as_deref(), Some("Apache-2.0"));
    use harness_gen::model::SecurityScheme as S;
    assert_eq!(api.security_schemes["b"], S::Bearer);
    assert_eq!(api.security_schemes["u"], S::Basic);
    assert_eq!(
        api.security_schemes["k"],
        S::ApiKey {
            location: harness_gen_runtime::binding::ParamIn::Cookie,
            name: "sid".into()
        }
    );
    assert_eq!(api.security_schemes["o"], S::Bearer);
    assert_eq!(
        api.security_schemes["m"],
        S::Unsupported("mutualTLS".into())
    );
}

#[test]
fn yaml_integers_beyond_64_bits_load_exact_where_they_fit_and_as_numbers_beyond() {
    // OpenAI's YAML description bounds `seed` by -9223372036854776000, below i64::MIN.
    let out = check(&op(
        "post",
        "/chat",
        "operationId: chat\nparameters:\n  - {name: seed, in: query, schema: {type: integer, minimum: -9223372036854776000, maximum: 18446744073709551615}}\n  - {name: huge, in: query, schema: {type: integer, maximum: 123456789012345678901234567890}}\nresponses: {}",
    ));
    assert!(!out.has_any_error(), "{}", out.diags);
    let properties = &out.tool(0)["inputSchema"]["properties"];
    assert_eq!(properties["seed"]["minimum"], json!(-9.223372036854776e18));
    assert_eq!(
        properties["seed"]["maximum"],
        json!(u64::MAX),
        "exact where it fits"
    );
    assert_eq!(properties["huge"]["maximum"], json!(1.2345678901234568e29));
}

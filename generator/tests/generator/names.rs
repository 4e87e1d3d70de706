//! Every name a document gives, through every path that makes a Rust name of it: a generated
//! crate always parses. Random schema, property, enum value, union member, tag, operation and
//! parameter names (keywords of every kind in every case, leading digits, Unicode, empty, and
//! names that collide once converted) are put in one document, and every Rust file of the crate
//! generated from it is parsed.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::PathBuf;

use harness_gen::diag::{Code, Diagnostics};
use harness_gen::emit::krate::Options;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Names a document may give: keywords (strict, reserved, weak) as written and in other cases,
/// escapes and their look-alikes, leading digits, Unicode, nothing, and names equal once
/// converted to snake_case or CamelCase.
fn a_name() -> impl Strategy<Value = String> {
    let listed = prop::sample::select(vec![
        "self",
        "Self",
        "SELF",
        "super",
        "crate",
        "type",
        "Type",
        "fn",
        "async",
        "await",
        "gen",
        "try",
        "dyn",
        "union",
        "macro_rules",
        "raw",
        "safe",
        "static",
        "r#",
        "r#type",
        "_",
        "__",
        "",
        "0",
        "1st",
        "-",
        "a-b",
        "a_b",
        "aB",
        "A B",
        "ab",
        "Ünïcode",
        "日本",
        "self_",
        "Self_",
        "type_",
        "Result",
        "Option",
        "Request",
        "Call",
        "Error",
        "Client",
        "Value",
        "client",
        "builder",
        "with",
        "default",
        "main",
        "items",
        "pages",
        "events",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        3 => listed,
        1 => "[a-zA-Z0-9_ -]{0,8}",
        1 => "\\PC{0,4}",
    ]
}

/// A document whose every name is drawn from [`a_name`]: component schemas (objects with
/// named properties and inline nesting, string enums, unions of the other components), and
/// operations with operation ids, tags and parameters.
fn a_document() -> impl Strategy<Value = Value> {
    let schemas = prop::collection::vec(
        (a_name(), prop::collection::vec(a_name(), 1..5), 0..3usize),
        1..5,
    );
    let operations = prop::collection::vec((a_name(), a_name(), a_name()), 1..5);
    (schemas, operations).prop_map(|(schemas, operations)| {
        let mut components = serde_json::Map::new();
        let names: Vec<String> = schemas.iter().map(|(name, _, _)| name.clone()).collect();
        for (i, (name, words, shape)) in schemas.iter().enumerate() {
            let reference = |n: &String| json!({"$ref": format!("#/components/schemas/{}", escape(n))});
            let schema = match shape {
                0 => {
                    let mut properties = serde_json::Map::new();
                    for (j, word) in words.iter().enumerate() {
                        let property = match j % 3 {
                            0 => json!({"type": "string", "enum": words}),
                            1 => json!({"type": "array", "items": {"type": "object", "properties": {word.clone(): {"type": "string", "enum": [word]}}}}),
                            _ => json!({"type": "object", "properties": {word.clone(): {"type": "integer"}}}),
                        };
                        properties.insert(word.clone(), property);
                    }
                    json!({"type": "object", "properties": properties, "required": [words[0]]})
                }
                1 => json!({"type": "string", "enum": words}),
                _ => {
                    // A union of the other components, each member pinning a property to a
                    // word: members named by tag, component, or pinned value.
                    let members: Vec<Value> = names
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .map(|(_, n)| reference(n))
                        .chain(words.iter().map(|w| {
                            json!({"type": "object", "properties": {"rel": {"type": "string", "enum": [w]}}})
                        }))
                        .collect();
                    json!({"anyOf": members})
                }
            };
            components.insert(name.clone(), schema);
        }
        let mut paths = serde_json::Map::new();
        for (i, (id, tag, parameter)) in operations.iter().enumerate() {
            let reply = names[i % names.len()].clone();
            paths.insert(
                format!("/p{i}/{{id}}"),
                json!({"post": {
                    "operationId": id,
                    "tags": [tag],
                    "parameters": [
                        {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                        {"name": parameter, "in": "query", "schema": {"type": "string"}},
                    ],
                    "requestBody": {"content": {"application/json": {"schema": {
                        "type": "object",
                        "properties": {parameter.clone(): {"type": "string"}, tag.clone(): {"type": "boolean"}},
                    }}}},
                    "responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"$ref": format!("#/components/schemas/{}", escape(&reply))},
                    }}}},
                }}),
            );
        }
        json!({
            "openapi": "3.1.0",
            "info": {"title": "Names", "version": "1"},
            "paths": paths,
            "components": {"schemas": components},
        })
    })
}

/// A name as one segment of a JSON pointer.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn generated(document: &Value, case: u32) -> (Diagnostics, Option<harness_gen::Crate>) {
    let dir = std::env::temp_dir().join(format!("hg-names-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec: PathBuf = dir.join("names.json");
    std::fs::write(&spec, serde_json::to_string_pretty(document).unwrap()).unwrap();
    let options = Options {
        crate_name: Some("names".into()),
        runtime_path: None,
        command: "harness-gen openapi names.json".into(),
        harness: None,
        listing_budget: None,
    };
    let mut diags = Diagnostics::default();
    let krate = harness_gen::generate_crate(&spec, &options, &mut diags).map(|(k, _)| k);
    let _ = std::fs::remove_dir_all(&dir);
    (diags, krate)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_names_make_a_crate_whose_every_file_parses(document in a_document()) {
        let (diags, krate) = generated(&document, 0);
        prop_assert!(!diags.has(Code::UnparsableRust), "{diags}\n{document:#}");
        let krate = krate.unwrap();
        for (path, text) in krate.files.iter().filter(|(p, _)| p.ends_with(".rs")) {
            prop_assert!(syn::parse_file(text).is_ok(), "{path} does not parse:\n{text}\n{document:#}");
        }
    }
}

/// The shapes of the Rebilly 2.1 description that once made `types.rs` unparsable (a union of
/// link objects whose `rel` pins `self`, inside a discriminated `allOf` hierarchy), and a
/// union whose members are named by their components without the union's name (`LinksSelf`
/// in `Links`: `Self`): the crate generates without error.
#[test]
fn members_named_self_by_tag_or_component_are_escaped() {
    let document = json!({
        "openapi": "3.0.3",
        "info": {"title": "Links", "version": "1"},
        "paths": {"/r": {"get": {"operationId": "get", "responses": {"200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Customer"}}},
        }}}}},
        "components": {"schemas": {
            "Resource": {
                "type": "object",
                "required": ["kind"],
                "discriminator": {"propertyName": "kind"},
                "properties": {
                    "kind": {"type": "string"},
                    "_links": {"type": "array", "items": {"anyOf": [
                        {"$ref": "#/components/schemas/SelfLink"},
                        {"$ref": "#/components/schemas/NextLink"},
                    ]}},
                    "links": {"$ref": "#/components/schemas/Links"},
                },
            },
            "Customer": {"allOf": [
                {"$ref": "#/components/schemas/Resource"},
                {"type": "object", "properties": {"name": {"type": "string"}}},
            ]},
            "SelfLink": {"type": "object", "properties": {"rel": {"type": "string", "enum": ["self"]}, "href": {"type": "string"}}},
            "NextLink": {"type": "object", "properties": {"rel": {"type": "string", "enum": ["next"]}, "href": {"type": "string"}}},
            "Links": {"anyOf": [
                {"$ref": "#/components/schemas/LinksSelf"},
                {"$ref": "#/components/schemas/LinksSuper"},
            ]},
            "LinksSelf": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
            "LinksSuper": {"type": "object", "required": ["b"], "properties": {"b": {"type": "string"}}},
        }},
    });
    let (diags, krate) = generated(&document, 1);
    assert!(!diags.has_errors(), "{diags}");
    let types = &krate.unwrap().files["src/types.rs"];
    for expected in ["Self_(SelfLink)", "Self_(LinksSelf)", "Super(LinksSuper)"] {
        assert!(types.contains(expected), "{expected} in:\n{types}");
    }
    assert!(
        !types.contains("Self_L") && !types.contains("Self_S"),
        "an escape inside a name:\n{types}"
    );
}

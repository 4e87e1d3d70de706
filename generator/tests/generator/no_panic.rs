//! Property tests: no input makes loading or mapping panic.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;

use harness_gen::diag::Diagnostics;
use harness_gen::load::Document;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn run(name: &str, text: String) {
    let mut diags = Diagnostics::default();
    if let Some(doc) = Document::from_text(Path::new(name), text, &mut diags) {
        let _ = harness_gen::catalog::from_document(&doc, None, &mut diags);
    }
    // Rendering positions walks the text again.
    let _ = diags.to_string();
}

/// Arbitrary JSON, biased towards schema and x-harn vocabulary.
fn loose_json() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "type",
        "properties",
        "items",
        "$ref",
        "allOf",
        "oneOf",
        "anyOf",
        "enum",
        "nullable",
        "required",
        "additionalProperties",
        "minimum",
        "exclusiveMinimum",
        "$schema",
        "name",
        "cli",
        "command",
        "arguments",
        "annotations",
        "readOnlyHint",
        "governance",
        "audiences",
        "x",
        "a b",
        "body",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        prop::sample::select(vec![
            "#/components/schemas/A",
            "#/components/schemas/B",
            "#/paths/~1b",
            "#/components/schemas/A/properties/x",
            "#/components/parameters/P",
            "string",
            "object",
            "array",
            "integer",
            "null",
            "x.yaml",
            "http://x",
            "#",
            "cli",
            "-bad",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..5).prop_map(|kv| Value::Object(
                kv.into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect::<Map<_, _>>()
            )),
        ]
    })
}

fn parameter() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["id", "q", "body", "X-Trace", "Accept", "a b"]),
        prop::sample::select(vec!["path", "query", "header", "cookie", "body"]),
        any::<bool>(),
        loose_json(),
    )
        .prop_map(|(name, location, required, schema)| json!({"name": name, "in": location, "required": required, "schema": schema}))
}

fn operation() -> impl Strategy<Value = Value> {
    (
        prop::option::of(prop::sample::select(vec!["getA", "get_a", "type", "x"])),
        prop::collection::vec(prop_oneof![parameter(), Just(json!({"$ref": "#/components/parameters/P"}))], 0..4),
        prop::option::of((prop::sample::select(vec!["application/json", "text/plain", "multipart/form-data", "application/octet-stream"]), loose_json())),
        prop::collection::vec((prop::sample::select(vec!["200", "201", "2XX", "404", "4XX", "default", "600"]), prop::option::of(loose_json())), 0..4),
        prop::option::of(loose_json()),
        prop::option::of(prop::sample::select(vec!["pets", "Pet Store", ""])),
    )
        .prop_map(|(id, params, body, responses, ext, tag)| {
            let mut op = json!({"parameters": params, "responses": {}});
            if let Some(id) = id {
                op["operationId"] = id.into();
            }
            if let Some((media, schema)) = body {
                op["requestBody"] = json!({"content": {media: {"schema": schema}}});
            }
            for (status, schema) in responses {
                op["responses"][status] = match schema {
                    Some(schema) => json!({"description": "r", "content": {"application/json": {"schema": schema}}}),
                    None => json!({"description": "r"}),
                };
            }
            if let Some(ext) = ext {
                op["x-harn"] = ext;
            }
            if let Some(tag) = tag {
                op["tags"] = json!([tag]);
            }
            op
        })
}

/// Documents shaped like OpenAPI, so that generation reaches deep into the mapper.
fn openapi_json() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(
            (
                prop::sample::select(vec!["/a", "/a/{id}", "/b/{id}/{q}", "/c"]),
                prop::collection::vec((prop::sample::select(vec!["get", "post", "put", "delete"]), operation()), 0..3),
            ),
            0..4,
        ),
        loose_json(),
        loose_json(),
        parameter(),
    )
        .prop_map(|(paths, a, b, p)| {
            let mut doc = json!({"paths": {}, "components": {"schemas": {"A": a, "B": b}, "parameters": {"P": p}}});
            for (path, ops) in paths {
                let mut item = json!({});
                for (method, op) in ops {
                    item[method] = op;
                }
                doc["paths"][path] = item;
            }
            doc
        })
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        run("a.yaml", text.clone());
        run("a.json", text);
    }

    #[test]
    fn arbitrary_openapi_shaped_documents_never_panic(body in openapi_json(), version in prop::sample::select(vec!["3.0.3", "3.1.0", "3.2.0"])) {
        let mut doc = json!({"openapi": version, "info": {"title": "t", "version": "1"}});
        if let (Value::Object(doc), Value::Object(body)) = (&mut doc, body) {
            doc.extend(body);
        }
        run("a.json", serde_json::to_string_pretty(&doc).unwrap());
        run("a.yaml", serde_json::to_string(&doc).unwrap());
    }
}

/// Found by the `openapi_map` fuzz target: YAML complex keys nested in complex keys (`? ? ? …`)
/// were turned into JSON keys by stringifying them, doubling the text with each level of
/// quoting until memory ran out. Such keys are refused instead.
#[test]
fn nested_complex_yaml_keys_are_refused_not_expanded() {
    let text = "? ".repeat(60) + "x";
    let file = std::env::temp_dir().join(format!("complex-keys-{}.yaml", std::process::id()));
    std::fs::write(&file, &text).unwrap();
    let mut diags = Diagnostics::default();
    assert!(Document::load(&file, &mut diags).is_none());
    let _ = std::fs::remove_file(&file);
    assert_eq!(diags.items()[0].code.as_str(), "HG0102", "{diags}");
    assert!(diags.to_string().contains("complex key"), "{diags}");
}

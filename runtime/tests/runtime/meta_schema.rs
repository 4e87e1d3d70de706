//! `schema::meta` (the generator's and the catalog check's test of a schema's form) answers
//! what jsonschema's 2020-12 meta-schema validator answers: on every schema of the shared
//! corpus (the 3.0 documents' schemas break the 2020-12 meta-schema in the ways real documents
//! do) and on schemas generated from every keyword with values of every form.

use crate::corpus;

use harness_gen_runtime::schema::meta::first_violation;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Our answer agrees with jsonschema's: both accept, or both refuse and ours points at one of
/// the places jsonschema reports.
fn agree(schema: &Value) -> Result<(), String> {
    let theirs: Vec<String> = jsonschema::draft202012::meta::validator()
        .iter_errors(schema)
        .map(|error| error.instance_path().to_string())
        .collect();
    match first_violation(schema) {
        None if theirs.is_empty() => Ok(()),
        Some(ours) if theirs.contains(&ours.pointer) => Ok(()),
        ours => Err(format!(
            "ours: {ours:?}, jsonschema's: {theirs:?}, schema: {}",
            serde_json::to_string(schema).unwrap()
        )),
    }
}

/// Every schema of a document: the values of `schema` keys and of `schemas` maps.
fn schemas<'a>(value: &'a Value, out: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("schema", _) => out.push(child),
                    ("schemas", Value::Object(named)) => out.extend(named.values()),
                    _ => {}
                }
                schemas(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| schemas(item, out)),
        _ => {}
    }
}

#[test]
fn the_form_check_agrees_with_the_meta_schema_on_every_corpus_schema() {
    let (mut checked, mut refused, mut disagreements) = (0, 0, Vec::new());
    for listed in corpus::listed() {
        let doc = corpus::load(&listed.path);
        let mut found = Vec::new();
        schemas(&doc, &mut found);
        for schema in found {
            checked += 1;
            refused += usize::from(first_violation(schema).is_some());
            if let Err(why) = agree(schema) {
                disagreements.push(format!("{}: {why}", listed.path));
            }
        }
    }
    assert!(checked > 10_000, "only {checked} schemas found");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(
        refused > 40,
        "only {refused} invalid schemas: the check lost its teeth"
    );
}

#[test]
fn the_form_check_agrees_on_the_edges_of_each_rule() {
    for schema in [
        json!({"minLength": 2.0}),
        json!({"minLength": 2.5}),
        json!({"minLength": -1}),
        json!({"multipleOf": 0}),
        json!({"type": ["string", "string"]}),
        json!({"type": []}),
        json!({"type": "text"}),
        json!({"required": ["a", "a"]}),
        json!({"required": ["a", 1]}),
        json!({"enum": [1, 1.0]}),
        json!({"$id": "a#"}),
        json!({"$id": "a#b"}),
        json!({"$id": "a##"}),
        json!({"$anchor": "-a"}),
        json!({"$anchor": "a-b.c_d"}),
        json!({"$vocabulary": {"x": 1}}),
        json!({"dependencies": {"a": ["b"], "c": {"minimum": 1}, "d": 5}}),
        json!({"dependentRequired": {"a": ["b", "b"]}}),
        json!({"properties": {"a/b": {"maxItems": "2"}}}),
        json!({"allOf": []}),
        json!({"items": [{}]}),
        json!({"pattern": "("}),
        json!({"$schema": "not a uri"}),
        json!({"format": 5}),
        json!({"nullable": true, "x-anything": {"minLength": -1}}),
        json!(true),
        json!(5),
    ] {
        agree(&schema).unwrap();
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        (-3i64..4).prop_map(Value::from),
        prop_oneof![Just(1.5), Just(2.0), Just(-0.5), Just(0.0)].prop_map(Value::from),
        prop_oneof![Just("string"), Just("a#"), Just("_x"), Just("9"), Just("")]
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((keyword(), inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

fn keyword() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "type",
        "items",
        "properties",
        "required",
        "allOf",
        "anyOf",
        "prefixItems",
        "minLength",
        "maxItems",
        "multipleOf",
        "minimum",
        "enum",
        "examples",
        "$id",
        "$anchor",
        "$ref",
        "dependencies",
        "dependentRequired",
        "$vocabulary",
        "uniqueItems",
        "not",
        "string",
        "a",
    ])
    .prop_map(str::to_string)
}

proptest! {
    #[test]
    fn the_form_check_agrees_on_generated_schemas(
        pairs in prop::collection::vec((keyword(), any_value()), 0..5)
    ) {
        let schema = Value::Object(pairs.into_iter().collect());
        prop_assert!(agree(&schema).is_ok(), "{}", agree(&schema).unwrap_err());
    }
}

//! Property tests: no input makes catalog parsing or the standalone projection panic.

use harness_gen_runtime::Catalog;
use harness_gen_runtime::schema::standalone;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Arbitrary JSON, biased towards the catalog's and JSON Schema's vocabulary.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "schema_version",
        "tools",
        "name",
        "inputSchema",
        "cli",
        "command",
        "hidden",
        "governance",
        "audiences",
        "deferLoading",
        "type",
        "$ref",
        "$defs",
        "properties",
        "items",
        "allOf",
        "components",
        "schemas",
        "arguments",
        "_meta",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec![
            "harn-tools/2.0",
            "object",
            "cli",
            "mcp",
            "#",
            "#/components/schemas/A",
            "#/$defs/A",
            "#/properties/x",
            "",
            " ",
            "a b",
            "-x",
            "http://x/y",
        ])
        .prop_map(Value::from),
        ".*".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_the_catalog_parser(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Catalog::from_json(&text);
    }

    #[test]
    fn arbitrary_json_never_panics_the_catalog_parser(value in json_value()) {
        let _ = Catalog::from_value(value.clone());
        let _ = Catalog::from_value(json!({"schema_version": "harn-tools/2.0", "tools": [value]}));
    }

    #[test]
    fn arbitrary_schemas_never_panic_the_standalone_projection(schema in json_value(), a in json_value()) {
        let components = json!({"A": a});
        let lookup = |name: &str| components.get(name);
        let _ = standalone::project(&schema, &lookup, "prop");
    }
}

//! A big, interconnected API's MCP listing as a real client sees it: Stripe's catalog (468
//! tools whose components nearly all reach each other) served over stdio exactly as generated
//! servers list it (`runtime/examples/serve_catalog.rs`, no API behind it), driven by the
//! official Python client in both protocol eras.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_e2e::{root, runtime_example};
use serde_json::{Value, json};

use crate::petstore_mcp::{drive, listed, python, steps};

/// Stripe's catalog, generated once into the target directory.
fn stripe_catalog() -> std::path::PathBuf {
    let spec = root().join("../shared/corpus/large/spec3.2023-09-12.yaml");
    let mut diags = harness_gen::diag::Diagnostics::default();
    let catalog = harness_gen::generate_catalog(&spec, None, &mut diags).unwrap();
    assert!(!diags.has_errors(), "{diags}");
    let path = root().join("target/harness-typecheck/stripe-catalog.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, catalog.to_json_pretty()).unwrap();
    path
}

/// Arguments the listing accepts, since `shipping.address` is nested too deep for
/// `post_issuing_cards`' share of the budget and is listed as a stub, but the full contract
/// refuses: an address needs `line1`, `city`, `country` and `postal_code` as strings.
fn wrong_only_where_abbreviated() -> Value {
    json!({"body": {"currency": "usd", "type": "virtual",
        "shipping": {"name": "Ada", "address": {"city": 5}}}})
}

#[test]
fn stripe_lists_every_tool_with_valid_bounded_schemas_and_calls_keep_full_validation() {
    let Some(python) = python() else { return };
    let catalog = stripe_catalog();
    let server = runtime_example("serve_catalog");
    let script = json!([
        {"list": true},
        {"call": "post_issuing_cards", "arguments": wrong_only_where_abbreviated()},
    ]);
    let target = ["--", server.to_str().unwrap(), catalog.to_str().unwrap()];
    for mode in ["modern", "legacy"] {
        let seen = drive(&python, mode, &script, &target, &[]);
        let steps = steps(&seen);
        // Without a page size, the whole listing is one page (clients that read only the first
        // page see every tool).
        assert_eq!(steps[0]["list"].as_array().unwrap().len(), 1, "{mode}");
        let tools = listed(&steps[0]["list"], usize::MAX);
        assert_eq!(tools.len(), 468, "{mode}: every tool is listed");
        let mut total = 0;
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            let size = tool.to_string().len();
            total += size;
            assert!(size <= 64 * 1024, "{mode}: {name} lists {size} bytes");
            let mut schemas = vec![("inputSchema", &tool["inputSchema"])];
            if let Some(output) = tool.get("outputSchema") {
                schemas.push(("outputSchema", output));
            }
            let meta = &tool["_meta"]["com.harnlang/toolContract"]["errorSchema"];
            if !meta.is_null() {
                schemas.push(("errorSchema", meta));
            }
            for (part, schema) in schemas {
                jsonschema::draft202012::meta::validate(schema)
                    .unwrap_or_else(|e| panic!("{mode}: {name}.{part} is not 2020-12: {e}"));
                jsonschema::draft202012::new(schema)
                    .unwrap_or_else(|e| panic!("{mode}: {name}.{part} does not compile: {e}"));
                harness_gen_runtime::schema::visit(schema, &mut |at, map| {
                    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                        assert!(
                            reference.starts_with("#/$defs/") || reference == "#",
                            "{mode}: {name}.{part}#{at} reaches outside itself: {reference}"
                        );
                    }
                });
            }
        }
        assert!(total <= 2_000_000, "{mode}: the listing is {total} bytes");

        let cards = tools
            .iter()
            .find(|t| t["name"] == "post_issuing_cards")
            .unwrap();
        let listed_input = jsonschema::draft202012::new(&cards["inputSchema"]).unwrap();
        assert!(
            listed_input.is_valid(&wrong_only_where_abbreviated()),
            "{mode}: the listing shows the address abbreviated, so it accepts these arguments"
        );
        let call = &steps[1]["result"];
        assert_eq!(call["isError"], true, "{mode}: {call}");
        let message = call["content"][0]["text"].as_str().unwrap();
        assert!(
            message.contains("/body/shipping/address"),
            "{mode}: the full contract refuses them, saying where: {message}"
        );
    }
}

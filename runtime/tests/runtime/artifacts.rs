//! The catalog format's published artifacts: generated from the Rust types, checked in, fresh,
//! and in agreement with what the runtime accepts and produces.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use harness_gen_runtime::Catalog;
use harness_gen_runtime::artifacts::{JSON_SCHEMA_FILE, TYPESCRIPT_FILE, json_schema, typescript};
use serde_json::{Value, json};

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema")
}

fn checked_in(name: &str) -> String {
    std::fs::read_to_string(schema_dir().join(name)).unwrap_or_default()
}

fn checked_in_validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(&checked_in(JSON_SCHEMA_FILE)).expect("schema is JSON");
    jsonschema::draft202012::new(&schema).expect("schema compiles")
}

#[test]
fn artifacts_are_fresh() {
    for (name, generated) in [
        (JSON_SCHEMA_FILE, json_schema()),
        (TYPESCRIPT_FILE, typescript()),
    ] {
        assert!(
            checked_in(name) == generated,
            "runtime/schema/{name} is stale: run `cargo run -p harness-gen-cli -- artifacts` and commit it"
        );
    }
}

#[test]
fn the_json_schema_is_a_valid_2020_12_schema() {
    let schema: Value = serde_json::from_str(&json_schema()).unwrap();
    jsonschema::draft202012::meta::validate(&schema)
        .expect("valid against the 2020-12 meta-schema");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

/// Catalogs the runtime produces, for the schema and the TypeScript to accept.
fn produced_catalogs() -> Vec<Value> {
    let full = json!({
        "schema_version": "harn-tools/2.0",
        "info": {"name": "pets", "version": "1.0.0", "description": "Pet store."},
        "cli": {"commands": [{"command": ["pets"], "title": "Pets", "aliases": ["p"], "display_order": 1}]},
        "tools": [{
            "name": "list_pets", "title": "List pets", "description": "Lists pets.",
            "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer"}, "verbose": {"type": "boolean"}}},
            "outputSchema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
            "errorSchema": false,
            "annotations": {"title": "List", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
            "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}],
            "execution": {"taskSupport": "required"},
            "governance": {"audiences": ["cli", "agent"]},
            "cli": {"command": ["pets", "list"], "aliases": ["ls"], "hidden": true, "arguments": {
                "limit": {"long": "max", "short": "n", "aliases": ["count"], "position": 0, "value_name": "N",
                          "help": "How many.", "value_hint": "url", "boolean_style": "set_false", "repeatable": true,
                          "hidden": true, "completions": ["10"], "display_order": 2, "help_group": "Paging"}
            }},
            "namespace": "pets", "deferLoading": true,
            "source": {"kind": "openapi", "id": "listPets", "binding": {
                "method": "GET", "path": "/pets/{kind}",
                "parameters": [
                    {"property": "kind", "in": "path", "name": "kind", "style": "label", "explode": false, "required": true},
                    {"property": "limit", "in": "query", "name": "max", "style": "form", "explode": true, "required": false,
                     "allowReserved": true, "contentType": "application/json"}
                ],
                "body": {"property": "body", "contentType": "application/json", "encoding": "json", "required": false,
                         "alternatives": ["text/plain"]},
                "response": {"status": "2XX", "contentType": "application/json", "encoding": "json"},
                "errors": [{"status": "404", "contentType": "application/problem+json"}, {"status": "default", "contentType": "application/json"}],
                "security": [["token"], []]
            }},
            "policy": {"kind": "fetch", "side_effect_level": "desktop_control"},
            "_meta": {"com.example/owner": "team-a", "plain": null}
        }],
        "components": {"schemas": {"Pet": {"type": "object"}, "Any": true}}
    });
    let minimal = catalog(vec![entry("a")]);
    [full, minimal]
        .into_iter()
        .map(|doc| {
            let parsed = Catalog::from_value(doc).expect("valid");
            serde_json::to_value(parsed).unwrap()
        })
        .collect()
}

#[test]
fn catalogs_the_runtime_produces_validate_against_the_checked_in_schema() {
    let validator = checked_in_validator();
    for produced in produced_catalogs() {
        let errors: Vec<String> = validator
            .iter_errors(&produced)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

#[test]
fn the_schema_refuses_what_the_runtime_refuses() {
    let validator = checked_in_validator();
    let base = produced_catalogs().remove(0);
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "v1",
            Box::new(|d| d["schema_version"] = json!("harn-tools/1.0")),
        ),
        (
            "unknown top-level field",
            Box::new(|d| d["extra"] = json!(1)),
        ),
        (
            "unknown entry field",
            Box::new(|d| d["tools"][0]["extra"] = json!(1)),
        ),
        (
            "unknown argument field",
            Box::new(|d| d["tools"][0]["cli"]["arguments"]["limit"]["extra"] = json!(1)),
        ),
        (
            "blank name",
            Box::new(|d| d["tools"][0]["name"] = json!("  ")),
        ),
        (
            "empty name",
            Box::new(|d| d["tools"][0]["name"] = json!("")),
        ),
        (
            "null title",
            Box::new(|d| d["tools"][0]["title"] = Value::Null),
        ),
        (
            "duplicate audiences",
            Box::new(|d| d["tools"][0]["governance"]["audiences"] = json!(["cli", "cli"])),
        ),
        (
            "no audiences",
            Box::new(|d| d["tools"][0]["governance"]["audiences"] = json!([])),
        ),
        (
            "unknown audience",
            Box::new(|d| d["tools"][0]["governance"]["audiences"] = json!(["web"])),
        ),
        (
            "bad segment",
            Box::new(|d| d["tools"][0]["cli"]["command"] = json!(["-x"])),
        ),
        (
            "empty command",
            Box::new(|d| d["tools"][0]["cli"]["command"] = json!([])),
        ),
        (
            "input not object",
            Box::new(|d| d["tools"][0]["inputSchema"] = json!({"type": "array"})),
        ),
        (
            "schema not schema",
            Box::new(|d| d["tools"][0]["outputSchema"] = json!(3)),
        ),
        (
            "bad meta key",
            Box::new(|d| d["tools"][0]["_meta"] = json!({"-bad": 1})),
        ),
        (
            "empty icons",
            Box::new(|d| d["tools"][0]["icons"] = json!([])),
        ),
        (
            "bad theme",
            Box::new(|d| d["tools"][0]["icons"][0]["theme"] = json!("blue")),
        ),
        (
            "bad task support",
            Box::new(|d| d["tools"][0]["execution"]["taskSupport"] = json!("maybe")),
        ),
        (
            "bad policy kind",
            Box::new(|d| d["tools"][0]["policy"]["kind"] = json!("write")),
        ),
        (
            "bad value hint",
            Box::new(|d| d["tools"][0]["cli"]["arguments"]["limit"]["value_hint"] = json!("x")),
        ),
        (
            "bad long",
            Box::new(|d| d["tools"][0]["cli"]["arguments"]["limit"]["long"] = json!("--max")),
        ),
        (
            "missing deferLoading",
            Box::new(|d| {
                d["tools"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("deferLoading");
            }),
        ),
        (
            "missing cli.hidden",
            Box::new(|d| {
                d["tools"][0]["cli"]
                    .as_object_mut()
                    .unwrap()
                    .remove("hidden");
            }),
        ),
    ];
    for (what, mutate) in cases {
        let mut doc = base.clone();
        mutate(&mut doc);
        assert!(!validator.is_valid(&doc), "the schema accepts: {what}");
        assert!(
            Catalog::from_value(doc).is_err(),
            "the runtime accepts: {what}"
        );
    }
}

/// The TypeScript compiler installed by `.ci/run` (see `tools/ts/package.json`).
#[path = "../../../tests/src/tools.rs"]
#[allow(
    dead_code,
    reason = "this crate drives npm tools only, not the system ones"
)]
mod tools;

#[test]
fn the_typescript_declaration_type_checks_produced_catalogs_in_strict_mode() {
    let Some(tsc) = tools::tool(
        "the TypeScript artifact check",
        "tools/ts/node_modules/.bin/tsc",
    ) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("harn-ts-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        schema_dir().join(TYPESCRIPT_FILE),
        dir.join(TYPESCRIPT_FILE),
    )
    .unwrap();
    let mut program = String::from("import type { Catalog } from \"./harn-tools-v2\";\n");
    for (i, produced) in produced_catalogs().iter().enumerate() {
        program.push_str(&format!("export const c{i}: Catalog = {produced};\n"));
    }
    // A wrong field must not type-check: this line carries an expected error.
    program.push_str(
        "// @ts-expect-error deferLoading is a boolean\nexport const bad: Catalog = {schema_version: \"harn-tools/2.0\", tools: [{name: \"a\", inputSchema: {type: \"object\"}, governance: {audiences: [\"cli\"]}, cli: {command: [\"a\"], hidden: false}, deferLoading: \"no\"}]};\n",
    );
    std::fs::write(dir.join("check.ts"), program).unwrap();
    let output = Command::new(&tsc)
        .args([
            "--strict",
            "--noEmit",
            "--exactOptionalPropertyTypes",
            "--target",
            "es2020",
        ])
        .arg(dir.join("check.ts"))
        .output()
        .expect("tsc runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "tsc: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

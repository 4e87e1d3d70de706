//! The harn-tools/2.0 catalog format: closed records validated while deserializing, with
//! located errors.

use crate::common::*;
use harness_gen_runtime::{Catalog, ErrorCode};
use serde_json::{Value, json};

/// A catalog that uses every record of the format.
fn full_catalog() -> Value {
    json!({
        "schema_version": "harn-tools/2.0",
        "info": {"name": "pets", "version": "1.0.0", "description": "Pet store."},
        "cli": {"commands": [{
            "command": ["pets"], "title": "Pets", "description": "Manage pets.",
            "aliases": ["p"], "hidden": false, "display_order": 1
        }]},
        "tools": [{
            "name": "list_pets",
            "title": "List pets",
            "description": "Lists pets.",
            "inputSchema": {"type": "object", "properties": {
                "limit": {"type": "integer"}, "verbose": {"type": "boolean"}
            }},
            "outputSchema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
            "errorSchema": {"type": "object"},
            "annotations": {"title": "List", "readOnlyHint": true, "destructiveHint": false,
                            "idempotentHint": true, "openWorldHint": true},
            "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png",
                       "sizes": ["48x48"], "theme": "light"}],
            "execution": {"taskSupport": "optional"},
            "governance": {"audiences": ["cli", "mcp", "catalog", "dashboard", "agent"]},
            "cli": {"command": ["pets", "list"], "aliases": ["ls"], "hidden": false, "arguments": {
                "limit": {"long": "max", "short": "n", "aliases": ["count"], "value_name": "N",
                          "help": "How many.", "value_hint": "other", "repeatable": true,
                          "hidden": true, "completions": ["10"], "display_order": 2,
                          "help_group": "Paging"},
                "verbose": {"boolean_style": "set_true"}
            }},
            "namespace": "pets",
            "deferLoading": false,
            "source": {"kind": "openapi", "id": "listPets", "binding": {"method": "GET", "path": "/pets", "security": [[]]}},
            "policy": {"kind": "fetch", "side_effect_level": "network"},
            "_meta": {"com.example/owner": "team-a"}
        }],
        "components": {"schemas": {"Pet": {"type": "object"}}}
    })
}

#[test]
fn a_full_catalog_round_trips_unchanged() {
    let doc = full_catalog();
    let catalog = Catalog::from_value(doc.clone()).expect("valid");
    assert_eq!(serde_json::to_value(&catalog).unwrap(), doc);
    let again = Catalog::from_json(&catalog.to_json_pretty()).expect("reparses");
    assert_eq!(again, catalog);
}

#[test]
fn absent_optional_fields_are_omitted() {
    let catalog = Catalog::from_value(catalog(vec![entry("a")])).unwrap();
    let text = serde_json::to_string(&catalog).unwrap();
    assert_eq!(
        text,
        r#"{"schema_version":"harn-tools/2.0","tools":[{"name":"a","inputSchema":{"type":"object"},"governance":{"audiences":["cli","mcp","catalog","dashboard","agent"]},"cli":{"command":["a"],"hidden":false},"deferLoading":false}]}"#
    );
}

#[test]
fn a_v1_catalog_is_refused_with_a_message_to_regenerate() {
    let mut doc = catalog(vec![entry("a")]);
    doc["schema_version"] = json!("harn-tools/1.0");
    let errors = refused(doc);
    let error = &errors.as_slice()[0];
    assert_eq!(error.code, ErrorCode::UnsupportedVersion);
    assert_eq!(error.path, "schema_version");
    assert!(error.message.contains("regenerate"), "{}", error.message);
}

#[test]
fn any_other_schema_version_is_refused() {
    for version in [json!("harn-tools/3.0"), json!(2), json!(null)] {
        let mut doc = catalog(vec![]);
        doc["schema_version"] = version;
        assert_refused(doc, ErrorCode::UnsupportedVersion, "schema_version");
    }
}

/// Every object of the format (not the open ones: schemas, `binding`, `_meta` values), with
/// the path serde reports for a field inside it.
fn closed_records() -> Vec<(&'static str, &'static str)> {
    vec![
        ("", ""),
        ("/info", "info."),
        ("/cli", "cli."),
        ("/cli/commands/0", "cli.commands[0]."),
        ("/tools/0", "tools[0]."),
        ("/tools/0/annotations", "tools[0].annotations."),
        ("/tools/0/icons/0", "tools[0].icons[0]."),
        ("/tools/0/execution", "tools[0].execution."),
        ("/tools/0/governance", "tools[0].governance."),
        ("/tools/0/cli", "tools[0].cli."),
        (
            "/tools/0/cli/arguments/limit",
            "tools[0].cli.arguments.limit.",
        ),
        ("/tools/0/source", "tools[0].source."),
        ("/tools/0/policy", "tools[0].policy."),
        ("/components", "components."),
    ]
}

#[test]
fn an_unknown_field_is_refused_at_every_depth() {
    for (pointer, path) in closed_records() {
        let mut doc = full_catalog();
        doc.pointer_mut(pointer)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("{pointer} is an object"))
            .insert("surprise".into(), json!(1));
        let errors = refused(doc);
        let error = &errors.as_slice()[0];
        assert_eq!(error.code, ErrorCode::InvalidField, "{pointer}");
        assert_eq!(error.path, format!("{path}surprise"), "{pointer}");
        assert!(
            error.message.contains("unknown field `surprise`"),
            "{}",
            error.message
        );
    }
}

#[test]
fn an_openapi_binding_is_checked_where_it_is_wrong() {
    for (pointer, bad, says) in [
        ("/method", json!("FETCH"), "unknown variant `FETCH`"),
        ("/path", json!(7), "invalid type"),
        ("/security", json!("token"), "invalid type"),
        (
            "/response",
            json!({"status": "2xx", "contentType": "a/b", "encoding": "json"}),
            "`2xx` is not a status key",
        ),
        ("/surprise", json!(1), "unknown field `surprise`"),
    ] {
        let mut doc = full_catalog();
        let binding = doc["tools"][0]["source"]["binding"]
            .as_object_mut()
            .unwrap();
        binding.insert(pointer[1..].to_string(), bad);
        let errors = refused(doc);
        let error = &errors.as_slice()[0];
        assert_eq!(error.path, "tools[0].source", "{pointer}");
        assert!(error.message.contains(says), "{pointer}: {}", error.message);
        assert!(
            error.message.contains("openapi binding"),
            "{}",
            error.message
        );
    }
}

#[test]
fn the_binding_of_another_kind_of_source_stays_open() {
    let mut doc = full_catalog();
    doc["tools"][0]["source"] =
        json!({"kind": "grpc", "binding": {"service": "Pets", "anything": {"nested": [1]}}});
    let catalog = Catalog::from_value(doc).expect("another kind's binding is open");
    let source = catalog.tools[0].source.as_ref().unwrap();
    assert!(source.openapi_binding().is_none());
}

#[test]
fn open_records_accept_any_field() {
    let mut doc = full_catalog();
    doc["tools"][0]["_meta"]["com.example/more"] = json!(null);
    doc["tools"][0]["inputSchema"]["x-vendor"] = json!(true);
    Catalog::from_value(doc).expect("open records stay open");
}

#[test]
fn blank_strings_are_refused_with_their_path() {
    for (pointer, path) in [
        ("/info/name", "info.name"),
        ("/info/version", "info.version"),
        ("/cli/commands/0/title", "cli.commands[0].title"),
        ("/tools/0/name", "tools[0].name"),
        ("/tools/0/title", "tools[0].title"),
        ("/tools/0/description", "tools[0].description"),
        ("/tools/0/namespace", "tools[0].namespace"),
        ("/tools/0/annotations/title", "tools[0].annotations.title"),
        ("/tools/0/icons/0/src", "tools[0].icons[0].src"),
        ("/tools/0/icons/0/sizes/0", "tools[0].icons[0].sizes[0]"),
        ("/tools/0/source/kind", "tools[0].source.kind"),
        (
            "/tools/0/cli/arguments/limit/help",
            "tools[0].cli.arguments.limit.help",
        ),
    ] {
        for blank in ["", "   ", "\t\n"] {
            let mut doc = full_catalog();
            *doc.pointer_mut(pointer).unwrap() = json!(blank);
            let errors = refused(doc);
            assert!(
                errors.has(ErrorCode::InvalidField, path),
                "{path}: {errors}"
            );
            assert!(errors.to_string().contains("blank"), "{errors}");
        }
    }
}

#[test]
fn null_is_refused_where_a_field_is_optional() {
    let mut doc = full_catalog();
    doc["tools"][0]["title"] = Value::Null;
    assert_refused(doc, ErrorCode::InvalidField, "tools[0].title");
}

#[test]
fn duplicate_audiences_are_refused() {
    let doc = catalog(vec![entry_with(
        "a",
        json!({"governance": {"audiences": ["cli", "cli"]}}),
    )]);
    assert_refused(
        doc,
        ErrorCode::InvalidField,
        "tools[0].governance.audiences",
    );
}

#[test]
fn audiences_must_be_non_empty_known_and_in_canonical_order() {
    for audiences in [json!([]), json!(["robots"]), json!(["agent", "cli"])] {
        let doc = catalog(vec![entry_with(
            "a",
            json!({"governance": {"audiences": audiences}}),
        )]);
        let errors = refused(doc);
        assert!(
            errors.as_slice()[0]
                .path
                .starts_with("tools[0].governance.audiences"),
            "{errors}"
        );
    }
}

#[test]
fn duplicate_tool_names_are_refused_at_the_second() {
    let mut second = entry("a");
    second["cli"]["command"] = json!(["other"]);
    let errors = refused(catalog(vec![entry("a"), entry("b"), second]));
    assert!(
        errors.has(ErrorCode::DuplicateToolName, "tools[2].name"),
        "{errors}"
    );
    assert!(errors.to_string().contains("tools[0]"), "{errors}");
}

#[test]
fn bad_command_segments_are_refused_with_their_index() {
    for bad in ["-flag", "a b", "", "a/b", "ünï"] {
        let doc = catalog(vec![entry_with(
            "a",
            json!({"cli": {"command": ["ok", bad], "hidden": false}}),
        )]);
        assert_refused(doc, ErrorCode::InvalidField, "tools[0].cli.command[1]");
    }
    let doc = catalog(vec![entry_with(
        "a",
        json!({"cli": {"command": [], "hidden": false}}),
    )]);
    assert_refused(doc, ErrorCode::InvalidField, "tools[0].cli.command");
}

#[test]
fn input_schema_must_have_an_object_type_at_its_root() {
    for schema in [
        json!({}),
        json!(true),
        json!({"type": "string"}),
        json!({"type": ["object"]}),
    ] {
        let doc = catalog(vec![entry_with("a", json!({"inputSchema": schema}))]);
        assert_refused(doc, ErrorCode::InvalidField, "tools[0].inputSchema");
    }
}

#[test]
fn meta_keys_must_follow_the_mcp_grammar() {
    let doc = catalog(vec![entry_with("a", json!({"_meta": {"bad key": 1}}))]);
    let errors = refused(doc);
    assert!(
        errors.as_slice()[0].path.starts_with("tools[0]._meta"),
        "{errors}"
    );
}

#[test]
fn the_contract_meta_key_is_reserved() {
    let doc = catalog(vec![entry_with(
        "a",
        json!({"_meta": {"com.harnlang/toolContract": {}}}),
    )]);
    assert_refused(doc, ErrorCode::ReservedMetaKey, "tools[0]._meta");
}

#[test]
fn icons_must_be_non_empty_and_unique() {
    let icon = json!({"src": "https://example.com/a.png"});
    assert_refused(
        catalog(vec![entry_with("a", json!({"icons": [icon, icon]}))]),
        ErrorCode::DuplicateIcon,
        "tools[0].icons[1]",
    );
    assert_refused(
        catalog(vec![entry_with("a", json!({"icons": []}))]),
        ErrorCode::InvalidField,
        "tools[0].icons",
    );
}

#[test]
fn schemas_must_be_valid_draft_2020_12() {
    let doc = catalog(vec![entry_with(
        "a",
        json!({"outputSchema": {"type": "strin"}}),
    )]);
    let errors = refused(doc);
    assert_eq!(
        errors.as_slice()[0].code,
        ErrorCode::InvalidSchema,
        "{errors}"
    );
    assert!(
        errors.as_slice()[0]
            .path
            .starts_with("tools[0].outputSchema#"),
        "{errors}"
    );
}

#[test]
fn a_foreign_schema_dialect_is_refused() {
    let doc = catalog(vec![entry_with(
        "a",
        json!({"outputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"}}),
    )]);
    assert_refused(
        doc,
        ErrorCode::InvalidSchema,
        "tools[0].outputSchema#/$schema",
    );
    let ok = catalog(vec![entry_with(
        "a",
        json!({"outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}),
    )]);
    Catalog::from_value(ok).expect("2020-12 is accepted");
}

#[test]
fn references_must_resolve_inside_the_catalog() {
    let doc = catalog(vec![entry_with(
        "a",
        json!({"outputSchema": {"$ref": "#/components/schemas/Missing"}}),
    )]);
    assert_refused(
        doc,
        ErrorCode::UnresolvedReference,
        "tools[0].outputSchema#/$ref",
    );

    let doc = catalog(vec![entry_with(
        "a",
        json!({"outputSchema": {"items": {"$ref": "https://example.com/pet.json"}}}),
    )]);
    assert_refused(
        doc,
        ErrorCode::ExternalReference,
        "tools[0].outputSchema#/items/$ref",
    );

    let mut doc = catalog(vec![]);
    doc["components"] =
        json!({"schemas": {"A": {"$ref": "#/components/schemas/B/properties/x"}, "B": {}}});
    assert_refused(
        doc,
        ErrorCode::UnresolvedReference,
        "components.schemas.A#/$ref",
    );
}

#[test]
fn errors_do_not_repeat_offending_values() {
    let secret = "hunter2-secret-value";
    let mut doc = full_catalog();
    doc["tools"][0]["deferLoading"] = json!(secret);
    doc["tools"][0]["title"] = json!(" ");
    let errors = refused(doc.clone());
    assert!(!errors.to_string().contains(secret), "{errors}");
    doc["tools"][0]["deferLoading"] = json!(false);
    doc["tools"][0]["governance"]["audiences"] = json!([secret]);
    assert!(!refused(doc).to_string().contains(secret));
}

#[test]
fn malformed_json_is_reported_with_line_and_column() {
    let errors =
        Catalog::from_json("{\n  \"schema_version\": \"harn-tools/2.0\",\n  \"tools\": [,]\n}")
            .unwrap_err();
    let error = &errors.as_slice()[0];
    assert_eq!(error.code, ErrorCode::Syntax, "{errors}");
    assert_eq!(error.path, "line 3 column 13");
}

//! Publish-time rules for the CLI tree, among CLI-audience tools only.

use crate::common::*;
use harness_gen_runtime::{Catalog, ErrorCode};
use serde_json::{Value, json};

fn at(name: &str, command: &[&str]) -> Value {
    entry_with(name, json!({"cli": {"command": command, "hidden": false}}))
}

fn only(mut tool: Value, audiences: &[&str]) -> Value {
    tool["governance"]["audiences"] = json!(audiences);
    tool
}

#[test]
fn two_cli_tools_cannot_share_a_path() {
    let errors = refused(catalog(vec![
        at("a", &["pets", "list"]),
        at("b", &["pets", "list"]),
    ]));
    assert!(
        errors.has(ErrorCode::CliDuplicatePath, "tools[1].cli.command"),
        "{errors}"
    );
    assert!(errors.to_string().contains("tool `a`"), "{errors}");
}

#[test]
fn a_leaf_cannot_also_be_a_parent() {
    let errors = refused(catalog(vec![
        at("a", &["pets", "list", "all"]),
        at("b", &["pets", "list"]),
    ]));
    assert!(
        errors.has(ErrorCode::CliLeafIsParent, "tools[1].cli.command"),
        "{errors}"
    );
    let errors = refused(catalog(vec![
        at("b", &["pets"]),
        at("a", &["pets", "list"]),
    ]));
    assert!(
        errors.has(ErrorCode::CliLeafIsParent, "tools[0].cli.command"),
        "{errors}"
    );
}

#[test]
fn an_alias_cannot_clash_with_a_sibling_name() {
    let mut a = at("a", &["pets", "list"]);
    a["cli"]["aliases"] = json!(["get"]);
    let errors = refused(catalog(vec![a, at("b", &["pets", "get"])]));
    assert!(
        errors.has(ErrorCode::CliAliasClash, "tools[0].cli.aliases[0]"),
        "{errors}"
    );
}

#[test]
fn an_alias_cannot_clash_with_a_sibling_alias() {
    let mut a = at("a", &["pets", "list"]);
    a["cli"]["aliases"] = json!(["l"]);
    let mut b = at("b", &["pets", "lookup"]);
    b["cli"]["aliases"] = json!(["l"]);
    let errors = refused(catalog(vec![a, b]));
    assert!(
        errors.has(ErrorCode::CliAliasClash, "tools[1].cli.aliases[0]"),
        "{errors}"
    );
}

#[test]
fn a_parent_command_alias_cannot_clash_with_a_sibling() {
    let mut doc = catalog(vec![
        at("a", &["pets", "list"]),
        at("b", &["stores", "list"]),
    ]);
    doc["cli"] = json!({"commands": [{"command": ["pets"], "aliases": ["stores"]}]});
    let errors = refused(doc);
    assert!(
        errors.has(ErrorCode::CliAliasClash, "cli.commands[0].aliases[0]"),
        "{errors}"
    );
}

#[test]
fn aliases_in_different_parents_do_not_clash() {
    let mut a = at("a", &["pets", "list"]);
    a["cli"]["aliases"] = json!(["ls"]);
    let mut b = at("b", &["stores", "list"]);
    b["cli"]["aliases"] = json!(["ls"]);
    Catalog::from_value(catalog(vec![a, b])).expect("valid");
}

#[test]
fn an_mcp_only_tool_may_reuse_a_path() {
    let doc = catalog(vec![
        at("a", &["pets", "list"]),
        only(at("b", &["pets", "list"]), &["mcp"]),
        only(at("c", &["pets", "list", "deep"]), &["mcp", "agent"]),
    ]);
    Catalog::from_value(doc).expect("non-CLI tools do not take part in the tree");
}

#[test]
fn an_argument_cannot_use_a_reserved_global_option() {
    let tool = entry_with(
        "a",
        json!({"inputSchema": {"type": "object", "properties": {"base_url": {"type": "string"}}}}),
    );
    let errors = refused(catalog(vec![tool]));
    assert!(
        errors.has(
            ErrorCode::CliReservedOption,
            "tools[0].cli.arguments.base_url"
        ),
        "{errors}"
    );

    let tool = entry_with(
        "a",
        json!({
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            "cli": {"command": ["a"], "hidden": false, "arguments": {"q": {"short": "h"}}}
        }),
    );
    assert_refused(
        catalog(vec![tool]),
        ErrorCode::CliReservedOption,
        "tools[0].cli.arguments.q",
    );
}

#[test]
fn a_renamed_property_may_use_a_reserved_name_no_more() {
    let tool = entry_with(
        "a",
        json!({
            "inputSchema": {"type": "object", "properties": {"base_url": {"type": "string"}}},
            "cli": {"command": ["a"], "hidden": false, "arguments": {"base_url": {"long": "base-url-value"}}}
        }),
    );
    Catalog::from_value(catalog(vec![tool])).expect("the recorded long name avoids the clash");
}

#[test]
fn two_arguments_cannot_share_an_option_name() {
    let tool = entry_with(
        "a",
        json!({
            "inputSchema": {"type": "object", "properties": {"pet_id": {}, "petId": {}}},
        }),
    );
    let errors = refused(catalog(vec![tool]));
    assert_eq!(
        errors.as_slice()[0].code,
        ErrorCode::CliOptionClash,
        "{errors}"
    );

    let tool = entry_with(
        "a",
        json!({
            "inputSchema": {"type": "object", "properties": {"a": {}, "b": {}}},
            "cli": {"command": ["a"], "hidden": false, "arguments": {
                "a": {"position": 0}, "b": {"position": 0}
            }}
        }),
    );
    assert_refused(
        catalog(vec![tool]),
        ErrorCode::CliOptionClash,
        "tools[0].cli.arguments.b",
    );
}

#[test]
fn an_argument_spec_must_name_an_input_property() {
    let tool = entry_with(
        "a",
        json!({
            "inputSchema": {"type": "object", "properties": {"a": {}}},
            "cli": {"command": ["a"], "hidden": false, "arguments": {"nope": {"short": "n"}}}
        }),
    );
    assert_refused(
        catalog(vec![tool]),
        ErrorCode::CliUnknownArgument,
        "tools[0].cli.arguments.nope",
    );
}

#[test]
fn cli_rules_do_not_apply_to_tools_outside_the_cli() {
    let tool = only(
        entry_with(
            "a",
            json!({"inputSchema": {"type": "object", "properties": {"help": {}}}}),
        ),
        &["mcp"],
    );
    Catalog::from_value(catalog(vec![tool])).expect("an MCP-only tool may have a `help` property");
}

#[test]
fn repeated_aliases_are_refused() {
    let mut a = at("a", &["a"]);
    a["cli"]["aliases"] = json!(["x", "y", "x"]);
    assert_refused(
        catalog(vec![a]),
        ErrorCode::InvalidField,
        "tools[0].cli.aliases[2]",
    );
}

#[test]
fn retaining_some_tools_keeps_the_parent_commands_that_still_hold_one() {
    let mut doc = catalog(vec![
        at("list", &["pets", "list"]),
        at("inventory", &["store", "inventory"]),
        at("ping", &["ping"]),
    ]);
    doc["cli"] = json!({"commands": [
        {"command": ["pets"], "title": "Pets"},
        {"command": ["store"], "title": "Store", "aliases": ["shop"]},
    ]});
    let mut kept = Catalog::from_value(doc).unwrap();
    kept.retain_tools(|entry| entry.name.as_str() != "inventory");
    let names: Vec<&str> = kept.tools.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["list", "ping"]);
    let parents: Vec<String> = kept
        .cli
        .iter()
        .flat_map(|t| &t.commands)
        .map(|c| c.command.to_string())
        .collect();
    assert_eq!(parents, ["pets"], "no `store` parent without its tools");
    Catalog::from_value(serde_json::to_value(&kept).unwrap()).unwrap();
}

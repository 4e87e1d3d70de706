//! The command-line program, run in-process over a registry built in code: the tree, help,
//! value types, JSON input merging, output formats, the failure envelope and exit codes,
//! completions, and audiences.

use crate::common::*;
use harness_gen_runtime::ToolRegistry;
use serde_json::{Value, json};

fn sample() -> ToolRegistry {
    let mut doc = catalog(vec![
        entry_with(
            "list_pets",
            json!({
                "title": "List pets",
                "description": "Lists the pets in the store.",
                "inputSchema": {"type": "object", "properties": {
                    "limit": {"type": "integer", "description": "How many.", "default": 20},
                    "species": {"type": "array", "items": {"type": "string", "enum": ["dog", "cat"]}},
                    "verbose": {"type": "boolean"},
                    "filter": {"type": "object"},
                    "kind": {"$ref": "#/components/schemas/Kind"}
                }, "additionalProperties": false},
                "cli": {"command": ["pets", "list"], "aliases": ["ls"], "hidden": false, "arguments": {
                    "limit": {"short": "n", "value_name": "N"},
                    "species": {"repeatable": true},
                    "verbose": {"boolean_style": "set_true"}
                }}
            }),
        ),
        entry_with(
            "get_pet",
            json!({
                "inputSchema": {"type": "object", "properties": {"pet_id": {"type": "integer"}}, "required": ["pet_id"]},
                "errorSchema": {"type": "object", "properties": {"kind": {"const": "http_404"}}, "required": ["kind"]},
                "cli": {"command": ["pets", "get"], "hidden": false, "arguments": {"pet_id": {"position": 0}}}
            }),
        ),
        entry_with(
            "boom",
            json!({"cli": {"command": ["boom"], "hidden": false}}),
        ),
        // Properties named like the CLI's own options, renamed as the generator renames them.
        entry_with(
            "create_filter",
            json!({
                "inputSchema": {"type": "object", "properties": {
                    "include": {"type": "string"},
                    "output": {"type": "string"},
                    "paginate": {"type": "boolean"}
                }},
                "cli": {"command": ["filters", "create"], "hidden": false, "arguments": {
                    "include": {"long": "include-value"},
                    "output": {"long": "output-value"},
                    "paginate": {"long": "paginate-value"}
                }}
            }),
        ),
        entry_with(
            "secret_op",
            json!({"governance": {"audiences": ["mcp"]}, "cli": {"command": ["secret"], "hidden": false}}),
        ),
    ]);
    doc["cli"] = json!({"commands": [{"command": ["pets"], "title": "Pets", "description": "Manage pets."}]});
    doc["components"] =
        json!({"schemas": {"Kind": {"type": "string", "enum": ["small", "large"]}}});
    let catalog = harness_gen_runtime::Catalog::from_value(doc).unwrap();
    let handlers = [
        ("list_pets", Answer::Echo),
        ("get_pet", Answer::Throw(json!({"kind": "http_404"}))),
        ("boom", Answer::Throw(json!({"token": "tok_cli_secret_77"}))),
        ("create_filter", Answer::Echo),
        ("secret_op", Answer::Echo),
    ]
    .into_iter()
    .map(|(name, answer)| (name.to_string(), answer.into_handler()))
    .collect();
    ToolRegistry::publish(catalog, handlers).unwrap()
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn cli(args: &[&str]) -> Run {
    let registry = sample();
    let factory = move |_: Option<String>, _: &dyn Fn(&str) -> bool| Ok(registry.clone());
    let program = harness_gen_runtime::cli::Program {
        name: "pets-cli",
        version: "1.2.3",
        index: None,
        registry: &factory,
    };
    let mut argv = vec!["pets-cli".into()];
    argv.extend(args.iter().map(|a| (*a).into()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = harness_gen_runtime::cli::run(&program, argv, &mut out, &mut err, false);
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
    }
}

fn json_out(run: &Run) -> Value {
    serde_json::from_str(run.out.trim()).unwrap_or_else(|_| panic!("not JSON: {}", run.out))
}

#[test]
fn help_works_at_every_level() {
    let root = cli(&["--help"]);
    assert_eq!(root.code, 0);
    // A group is listed with its description, not its name again.
    assert!(
        root.out
            .lines()
            .any(|l| l.trim_start().starts_with("pets") && l.contains("Manage pets.")),
        "{}",
        root.out
    );
    assert!(
        root.out.contains("pets")
            && root.out.contains("--input-json")
            && root.out.contains("--base-url"),
        "{}",
        root.out
    );
    let parent = cli(&["pets", "--help"]);
    assert!(
        parent.out.contains("Manage pets.")
            && parent.out.contains("list")
            && parent.out.contains("alias: ls"),
        "{}",
        parent.out
    );
    let leaf = cli(&["pets", "list", "--help"]);
    assert!(
        leaf.out.contains("Lists the pets in the store."),
        "{}",
        leaf.out
    );
    assert!(
        leaf.out.contains("-n, --limit <N>") && leaf.out.contains("[default: 20]"),
        "{}",
        leaf.out
    );
    assert!(
        leaf.out.contains("[possible values: small, large]"),
        "{}",
        leaf.out
    );
}

#[test]
fn values_are_parsed_by_schema_type() {
    let run = cli(&[
        "pets",
        "ls",
        "-n",
        "5",
        "--species",
        "dog",
        "--species",
        "cat",
        "--verbose",
        "--filter",
        "{\"a\":1}",
        "--kind",
        "small",
    ]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(
        json_out(&run),
        json!({"limit": 5, "species": ["dog", "cat"], "verbose": true, "filter": {"a": 1}, "kind": "small"})
    );
}

#[test]
fn a_property_named_like_a_cli_option_reads_its_own_value() {
    let run = cli(&[
        "filters",
        "create",
        "--include-value",
        "body",
        "--output-value",
        "x",
        "--paginate-value",
        "true",
    ]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(
        json_out(&run),
        json!({"include": "body", "output": "x", "paginate": true})
    );
    // The CLI's own options keep their meaning beside them.
    let run = cli(&["filters", "create", "--input-json", "{}", "--include"]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(json_out(&run), json!({}));
    let help = cli(&["filters", "create", "--help"]);
    assert!(
        help.out.contains("--include-value <include>"),
        "{}",
        help.out
    );
}

#[test]
fn a_bad_value_is_a_usage_error() {
    let run = cli(&["pets", "list", "--limit", "many"]);
    assert_eq!(run.code, 2);
    assert!(
        run.err.contains("--limit: expected an integer"),
        "{}",
        run.err
    );
    let run = cli(&["pets", "list", "--kind", "huge"]);
    assert_eq!(run.code, 2);
}

#[test]
fn json_input_is_merged_under_the_options() {
    let run = cli(&[
        "pets",
        "list",
        "--input-json",
        "{\"limit\": 1, \"verbose\": false}",
        "--limit",
        "3",
    ]);
    assert_eq!(json_out(&run), json!({"limit": 3, "verbose": false}));
    let dir = std::env::temp_dir().join(format!("harness-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("input.json");
    std::fs::write(&file, "{\"limit\": 9}").unwrap();
    let run = cli(&[
        "pets",
        "list",
        "--input-json",
        &format!("@{}", file.display()),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(json_out(&run), json!({"limit": 9}));
}

#[test]
fn invalid_input_is_refused_before_the_call_with_the_envelope() {
    let run = cli(&["pets", "list", "--input-json", "{\"unknown\": true}"]);
    assert_eq!(run.code, 2);
    let envelope = json_out(&run);
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["error"]["kind"], "invalid_input");
}

#[test]
fn output_formats() {
    let pretty = cli(&["pets", "list", "--limit", "1", "--output-format", "pretty"]);
    assert_eq!(pretty.out, "{\n  \"limit\": 1\n}\n");
    let text = cli(&["pets", "list", "--limit", "1", "--output-format", "text"]);
    assert_eq!(text.out, "limit: 1\n");
}

#[test]
fn an_application_error_prints_the_envelope_and_exits_3() {
    let run = cli(&["pets", "get", "4"]);
    assert_eq!(run.code, 3);
    assert_eq!(
        json_out(&run),
        json!({"ok": false, "error": {"kind": "application", "tool": "get_pet", "data": {"kind": "http_404"}}})
    );
}

#[test]
fn an_undeclared_thrown_value_is_a_runtime_error_and_never_printed() {
    let run = cli(&["boom"]);
    assert_eq!(run.code, 4);
    assert_eq!(json_out(&run)["error"]["kind"], "runtime");
    assert!(!run.out.contains("tok_cli_secret_77") && !run.err.contains("tok_cli_secret_77"));
}

#[test]
fn a_tool_outside_the_cli_audience_is_unreachable() {
    let run = cli(&["secret"]);
    assert_eq!(run.code, 2);
    assert!(!cli(&["--help"]).out.contains("secret"));
}

#[test]
fn completions_for_four_shells() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let run = cli(&["--completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.err);
        assert!(run.out.contains("pets-cli"), "{shell}");
        assert!(run.out.contains("list"), "{shell}");
    }
}

#[test]
fn version_prints_the_version() {
    let run = cli(&["--version"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.out, "pets-cli 1.2.3\n");
}

#[test]
fn a_branch_is_complete_when_it_is_the_only_one_built() {
    // `pets …` builds only the `pets` branch; its help and errors are unchanged.
    let help = cli(&["pets", "--help"]);
    assert!(
        help.out.contains("list") && help.out.contains("get"),
        "{}",
        help.out
    );
    let typo = cli(&["pets", "lst"]);
    assert_eq!(typo.code, 2);
    assert!(typo.err.contains("lst"), "{}", typo.err);
    // An unknown first word still gets the whole tree (and a suggestion).
    let root_typo = cli(&["pest"]);
    assert_eq!(root_typo.code, 2);
    assert!(root_typo.err.contains("pets"), "{}", root_typo.err);
}

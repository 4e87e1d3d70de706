//! The TextMate grammar in `editors/vscode/`: the fixtures tokenized by VS Code's own engine
//! (`vscode-textmate` with Oniguruma, installed by the README's test command into
//! `tools/textmate`) give the expected scopes, and the extension manifest points at the
//! grammar, its language configuration and the language server.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "../../../tests/src/tools.rs"]
#[allow(
    dead_code,
    reason = "this crate drives npm tools only, not the system ones"
)]
mod tools;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Each line's tokens as (text, innermost scope), or `None` without the engine installed.
fn tokenize(file: &Path) -> Option<Vec<Vec<(String, String)>>> {
    tools::tool(
        "the TextMate grammar check",
        "tools/textmate/node_modules/vscode-textmate/package.json",
    )?;
    let out = Command::new("node")
        .arg(root().join("tools/textmate/tokenize.js"))
        .arg(root().join("editors/vscode/syntaxes/harness.tmLanguage.json"))
        .arg(file)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Vec<Value>> = serde_json::from_slice(&out.stdout).unwrap();
    Some(
        lines
            .into_iter()
            .map(|tokens| {
                tokens
                    .into_iter()
                    .map(|t| {
                        let scopes = t["scopes"].as_array().unwrap();
                        let last = scopes.last().unwrap().as_str().unwrap();
                        (t["text"].as_str().unwrap().to_string(), last.to_string())
                    })
                    .collect()
            })
            .collect(),
    )
}

/// The scope of the first token on `line` (1-based) whose text, trimmed, is `text`.
fn scope<'a>(lines: &'a [Vec<(String, String)>], line: usize, text: &str) -> &'a str {
    lines[line - 1]
        .iter()
        .find(|(t, _)| t.trim() == text)
        .map(|(_, s)| s.as_str())
        .unwrap_or_else(|| panic!("no token `{text}` on line {line}: {:?}", lines[line - 1]))
}

fn fixture(name: &str) -> PathBuf {
    root().join("../shared/fixtures/harness").join(name)
}

#[test]
fn the_grammar_scopes_the_fixtures_as_an_editor_shows_them() {
    let file = fixture("standard-coding.harness");
    let Some(lines) = tokenize(&file) else {
        return;
    };
    // The tokens cover every line exactly.
    let text = std::fs::read_to_string(&file).unwrap();
    for (tokens, line) in lines.iter().zip(text.split('\n')) {
        let joined: String = tokens.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(joined, line);
    }
    let expect = [
        (
            1,
            "// Example assembly: one coding loop with author/verifier roles, capability",
            "comment.line.double-slash.harness",
        ),
        (5, "skill", "keyword.other.declaration.harness"),
        (5, "impact-analysis", "entity.name.type.harness"),
        (6, "description", "keyword.other.harness"),
        (
            6,
            "Before editing, map the blast radius of the change and list affected modules.",
            "string.quoted.double.harness",
        ),
        (8, "workspace", "constant.language.harness"),
        (21, "->", "keyword.operator.arrow.harness"),
        (22, "on", "keyword.control.harness"),
        (23, "stop", "keyword.control.harness"),
        (30, "use skill", "keyword.other.harness"),
        (30, "impact-analysis", "variable.other.capability.harness"),
        (31, "workspace.read", "variable.other.capability.harness"),
        (37, "preferred", "keyword.other.harness"),
        (37, "enforced", "constant.language.strength.harness"),
        (45, "60s", "constant.numeric.duration.harness"),
        (46, "80", "constant.numeric.integer.harness"),
        (53, "binding", "keyword.other.declaration.harness"),
        (53, "for", "keyword.other.harness"),
        (71, "target", "keyword.other.declaration.harness"),
        (71, "uses", "keyword.other.harness"),
    ];
    for (line, text, expected) in expect {
        assert_eq!(scope(&lines, line, text), expected, "line {line}: `{text}`");
    }
}

#[test]
fn a_block_comment_spans_lines_and_escapes_are_marked_in_strings() {
    let dir = std::env::temp_dir().join(format!("harness-grammar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("escapes.harness");
    std::fs::write(
        &file,
        "/* one\n   two */\nskill s {\n  description \"a\\tb\"\n}\n",
    )
    .unwrap();
    let lines = tokenize(&file);
    let _ = std::fs::remove_dir_all(&dir);
    let Some(lines) = lines else {
        return;
    };
    assert_eq!(scope(&lines, 2, "two"), "comment.block.harness");
    assert_eq!(scope(&lines, 2, "*/"), "comment.block.harness");
    assert_eq!(
        scope(&lines, 3, "skill"),
        "keyword.other.declaration.harness"
    );
    assert_eq!(scope(&lines, 4, "\\t"), "constant.character.escape.harness");
}

#[test]
fn the_extension_manifest_contributes_the_grammar_and_runs_the_language_server() {
    let dir = root().join("editors/vscode");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    let grammar = &manifest["contributes"]["grammars"][0];
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(grammar["path"].as_str().unwrap())).unwrap(),
    )
    .unwrap();
    assert_eq!(grammar["scopeName"], file["scopeName"]);
    let language = &manifest["contributes"]["languages"][0];
    assert_eq!(language["extensions"], serde_json::json!([".harness"]));
    assert!(
        dir.join(language["configuration"].as_str().unwrap())
            .exists()
    );
    let main = std::fs::read_to_string(dir.join(manifest["main"].as_str().unwrap())).unwrap();
    assert!(main.contains(r#"args: ["harness", "lsp"]"#), "{main}");
}

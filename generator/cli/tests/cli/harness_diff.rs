//! `harness-gen harness diff`: what changed per harness and agent (text and JSON), the
//! resolved revisions with `--harness`, the compare manifest, and the exit statuses CI gates
//! on (0 equal, 1 different, 2 a side that does not compile or resolve).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};

use harness_gen_cli::commands::{self, DiffArgs, DiffFormat};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/harness/standard-coding.harness")
}

/// A scratch directory holding `files` (name, text).
fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("harness-diff-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

/// The fixture with: a stricter minimum for the verifier's skill, one more tool for it, a new
/// workflow edge, a longer timeout and a weaker binding.
fn changed() -> String {
    std::fs::read_to_string(fixture())
        .unwrap()
        .replace("minimum advisory", "minimum unsupported")
        .replace(
            "    require tool process.exec",
            "    require tool process.exec\n    require tool workspace.read",
        )
        .replace(
            "  stop when verifier.passed",
            "  stop when verifier.passed\n  verifier -> author",
        )
        .replace("shell.timeout = 60s", "shell.timeout = 90s")
        .replace(
            "mechanism qoder.system-instruction\n  strength advisory",
            "mechanism qoder.system-instruction\n  strength unsupported",
        )
}

fn args(old: &Path, new: &Path) -> DiffArgs {
    DiffArgs {
        old: old.to_path_buf(),
        new: new.to_path_buf(),
        ..DiffArgs::default()
    }
}

#[test]
fn a_program_compared_with_itself_is_equal_and_exits_zero() {
    let outcome = commands::diff(&args(&fixture(), &fixture()));
    assert_eq!((outcome.status, outcome.stdout.as_str()), (0, ""));
}

#[test]
fn changes_are_named_per_harness_and_agent_with_what_differs() {
    let dir = scratch("text", &[("new.harness", &changed())]);
    let outcome = commands::diff(&args(&fixture(), &dir.join("new.harness")));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(outcome.status, 1, "{}", outcome.stderr);
    assert_eq!(
        outcome.stdout,
        "\
workflow coding-loop
  + edge verifier -> author
harness standard-coding
  agent verifier
    ~ use skill verification-before-complete: minimum advisory → unsupported
    + require tool workspace.read
  ~ shell.timeout: 60s → 90s
~ binding verification-before-complete for qoder: strength advisory → unsupported
"
    );
}

#[test]
fn json_lists_the_same_changes_with_both_sides_ir() {
    let dir = scratch("json", &[("new.harness", &changed())]);
    let outcome = commands::diff(&DiffArgs {
        format: DiffFormat::Json,
        ..args(&fixture(), &dir.join("new.harness"))
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(outcome.status, 1);
    let report: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
    assert_eq!(report["equal"], false);
    let changes = report["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 5);
    let tool = changes
        .iter()
        .find(|c| c["item"] == "require tool workspace.read")
        .unwrap();
    assert_eq!(tool["what"], "added");
    assert_eq!(
        tool["path"],
        serde_json::json!(["harness standard-coding", "agent verifier"])
    );
    assert_eq!(tool["new"]["minimum"], "advisory");
    assert!(tool.get("old").is_none());
}

#[test]
fn with_a_harness_the_revisions_are_compared_and_the_manifest_names_both() {
    let dir = scratch("revision", &[("new.harness", &changed())]);
    let manifest = dir.join("compare.json");
    let outcome = commands::diff(&DiffArgs {
        harness: Some("standard-coding".into()),
        runtime: Some("pi".into()),
        manifest: Some(manifest.clone()),
        ..args(&fixture(), &dir.join("new.harness"))
    });
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(outcome.status, 1, "{}", outcome.stderr);
    let revision = outcome
        .stdout
        .split_once("revision of standard-coding on pi\n")
        .unwrap()
        .1;
    assert!(revision.starts_with("  ~ revision id: hr_"), "{revision}");
    assert!(
        revision.contains(
            "  agent verifier\n    ~ use skill verification-before-complete: requestedMinimum advisory → unsupported\n    + require tool workspace.read\n"
        ),
        "{revision}"
    );
    assert_eq!(written["kind"], "harness-compare");
    assert_eq!(
        written["old"]["harnessIds"],
        serde_json::json!(["standard-coding"])
    );
    let (old, new) = (
        &written["old"]["revision"]["revisionId"],
        &written["new"]["revision"]["revisionId"],
    );
    assert!(old.as_str().unwrap().starts_with("hr_") && old != new);
    assert_eq!(written["new"]["revision"]["runtime"], "pi");
}

#[test]
fn a_compiled_bundle_compares_equal_to_its_source() {
    let compiled = commands::compile(&commands::Common {
        files: vec![fixture()],
        ..commands::Common::default()
    });
    let dir = scratch("bundle", &[("bundle.json", &compiled.stdout)]);
    let outcome = commands::diff(&args(&dir.join("bundle.json"), &fixture()));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        (outcome.status, outcome.stdout.as_str()),
        (0, ""),
        "{}",
        outcome.stderr
    );
}

#[test]
fn sides_that_do_not_compile_print_their_diagnostics_and_exit_two() {
    let dir = scratch(
        "broken",
        &[
            ("old.harness", "skill s {\n  description\n}\n"),
            ("new.harness", "harness h {\n  workflow missing\n}\n"),
        ],
    );
    let outcome = commands::diff(&args(&dir.join("old.harness"), &dir.join("new.harness")));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(outcome.status, 2);
    assert!(outcome.stdout.is_empty());
    assert!(outcome.stderr.contains("old.harness"), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("new.harness"), "{}", outcome.stderr);
}

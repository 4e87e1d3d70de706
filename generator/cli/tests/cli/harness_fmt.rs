//! `harness-gen harness fmt`: one canonical layout, idempotent, comments kept, meaning kept,
//! and a file that does not parse refused with its diagnostics and left as it was.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};

use harness_gen::harness::diag::Sources;
use harness_gen_cli::commands;

fn format(text: &str) -> String {
    let sources = Sources {
        files: vec![("program.harness".into(), text.into())],
    };
    harness_gen::harness::format::format(&sources, 0).unwrap()
}

/// The bundle `text` compiles to, as canonical JSON.
fn bundle(text: &str) -> String {
    let sources = Sources {
        files: vec![("program.harness".into(), text.into())],
    };
    let bundle = harness_gen::harness::compile_sources(&sources).unwrap();
    harness_gen_contract::harness::canonical::canonical_json(&bundle)
}

fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixtures = root.join("../shared/fixtures/harness");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "harness"))
        .collect();
    programs.sort();
    programs.push(root.join("specs/petstore.harness"));
    programs
}

const CRAMMED: &str = r#"// header comment
skill   impact-analysis{description "Map the blast radius.\tTabbed" permissions{workspace read network deny}}
workflow coding-loop { author->verifier on verifier.failed->author stop when verifier.passed }



harness standard-coding { workflow coding-loop agent author { use skill impact-analysis require tool workspace.read } // trailing
  agent verifier { use skill impact-analysis { preferred enforced minimum advisory on-degrade report } }
  configure { shell.timeout = 60s tool-call-budget = 80 flag = true }
}
/* block
   comment */
binding impact-analysis for [pi,qoder] { mechanism prompt-preamble strength advisory }
target pi uses adapter.pi
target qoder uses adapter.qoder
"#;

#[test]
fn the_fixtures_and_held_in_programs_are_in_the_canonical_layout() {
    for path in programs() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(format(&text), text, "{}", path.display());
    }
}

#[test]
fn a_crammed_program_is_laid_out_canonically_with_its_comments_and_meaning_kept() {
    let formatted = format(CRAMMED);
    insta::assert_snapshot!("harness_fmt_crammed", formatted);
    assert_eq!(format(&formatted), formatted, "formatting is idempotent");
    assert_eq!(
        bundle(&formatted),
        bundle(CRAMMED),
        "the program means the same"
    );
}

#[test]
fn a_file_that_does_not_parse_is_refused_with_its_diagnostics_and_left_as_it_was() {
    let dir = std::env::temp_dir().join(format!("harness-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.harness");
    let text = "skill s {\n  description\n}\n";
    std::fs::write(&broken, text).unwrap();
    let outcome = commands::fmt(std::slice::from_ref(&broken), false);
    let after = std::fs::read_to_string(&broken).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(outcome.status, 2, "{outcome:?}");
    assert!(outcome.stderr.contains("error[HL"), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("does not parse"),
        "{}",
        outcome.stderr
    );
    assert_eq!(after, text);
}

#[test]
fn check_lists_the_files_not_in_the_layout_writes_nothing_and_exits_one() {
    let dir = std::env::temp_dir().join(format!("harness-fmt-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let crammed = dir.join("crammed.harness");
    let tidy = dir.join("tidy.harness");
    std::fs::write(&crammed, CRAMMED).unwrap();
    std::fs::write(&tidy, format(CRAMMED)).unwrap();
    let files = [crammed.clone(), tidy.clone()];
    let checked = commands::fmt(&files, true);
    let unchanged = std::fs::read_to_string(&crammed).unwrap();
    let written = commands::fmt(&files, false);
    let rewritten = std::fs::read_to_string(&crammed).unwrap();
    let again = commands::fmt(&files, true);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(checked.status, 1);
    assert_eq!(
        checked.stdout,
        format!("would reformat: {}\n", crammed.display())
    );
    assert_eq!(unchanged, CRAMMED);
    assert_eq!(written.status, 0);
    assert_eq!(
        written.stdout,
        format!("formatted: {}\n", crammed.display())
    );
    assert_eq!(rewritten, format(CRAMMED));
    assert_eq!((again.status, again.stdout.as_str()), (0, ""));
}

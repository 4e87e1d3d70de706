//! The bad-input corpus (`tests/bad-inputs/`): each document gets the diagnostics its line in
//! `EXPECTED` names, every diagnostic is located, and nothing panics.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;

use harness_gen::diag::Diagnostics;

#[test]
fn every_bad_input_gets_its_expected_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-inputs");
    let manifest = std::fs::read_to_string(dir.join("EXPECTED")).unwrap();
    let mut checked = 0;
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut words = line.split_whitespace();
        let file = words.next().unwrap();
        let expected: Vec<&str> = words.collect();
        let mut diags = Diagnostics::default();
        let _ = harness_gen::pipeline::catalog_of(&dir.join(file), None, &mut diags);
        let codes: Vec<&str> = diags.items().iter().map(|d| d.code.as_str()).collect();
        for code in &expected {
            assert!(
                codes.contains(code),
                "{file}: expected {code}, got:\n{diags}"
            );
        }
        for d in diags.items() {
            assert!(d.position.is_some(), "{file}: unlocated: {d}");
        }
        checked += 1;
    }
    let files = std::fs::read_dir(&dir).unwrap().count() - 1;
    assert_eq!(
        checked, files,
        "every file in tests/bad-inputs has a line in EXPECTED"
    );
}

#[test]
fn rendered_diagnostics_carry_no_control_characters_or_bidi_overrides() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-inputs");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let mut diags = Diagnostics::default();
        let _ = harness_gen::pipeline::catalog_of(&path, None, &mut diags);
        let rendered = diags.to_string();
        let hostile = rendered
            .chars()
            .find(|&c| c != '\n' && harness_gen::diag::is_unprintable(c));
        assert_eq!(hostile, None, "{}: {rendered}", path.display());
    }
}

#[test]
fn a_header_name_that_is_not_an_http_token_is_ignored_with_a_warning() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-inputs");
    let text = std::fs::read_to_string(dir.join("hostile-strings.yaml")).unwrap();
    // Only the operations whose strings are repairable: the catalog is produced.
    let start = text.find("  /b:").unwrap();
    let end = text.find("  /c:").unwrap();
    let header = text.find("  /d:").unwrap();
    let kept = format!(
        "{}{}{}",
        &text[..text.find("  /a:").unwrap()],
        &text[start..end],
        &text[header..]
    );
    let file = std::env::temp_dir().join(format!("hostile-{}.yaml", std::process::id()));
    std::fs::write(&file, kept).unwrap();
    let mut diags = Diagnostics::default();
    let (_, catalog) = harness_gen::pipeline::catalog_of(&file, None, &mut diags).unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(
        diags.items().iter().any(|d| d.code.as_str() == "HG0302"),
        "{diags}"
    );
    let header = catalog
        .tools
        .iter()
        .find(|t| t.name.as_str() == "header")
        .unwrap();
    assert_eq!(
        header.input_schema.as_value().get("properties"),
        Some(&serde_json::json!({}))
    );
    let bidi = catalog
        .tools
        .iter()
        .find(|t| t.name.as_str() != "header")
        .unwrap();
    assert_eq!(
        bidi.name.as_str(),
        "list_pets",
        "the bidi override is dropped from the name"
    );
}

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
        let _ = harness_gen::catalog::generate(&dir.join(file), None, &mut diags);
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

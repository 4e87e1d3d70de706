//! `harness-gen explain`: every diagnostic code the generator, the `.harness` language or the
//! runtime can report has an explanation, found by reading the codes from the source.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;
use std::process::Command;

/// Every code the source can print: the `=> "HG0101"` arms of the three code enums.
fn codes_in_source() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut codes = Vec::new();
    for file in [
        "generator/src/diag.rs",
        "generator/lang/src/diag.rs",
        "runtime/wire/src/error.rs",
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for arm in text.split("=> \"").skip(1) {
            let code = &arm[..arm.find('"').unwrap()];
            if code.len() == 6 && code.starts_with('H') {
                codes.push(code.to_string());
            }
        }
    }
    codes
}

fn explain(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_harness-gen"))
        .arg("explain")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

#[test]
fn every_code_in_the_source_is_explained_with_an_example_and_a_remedy() {
    let codes = codes_in_source();
    assert!(codes.len() > 70, "{codes:?}");
    let listed = explain(&[]).0;
    for code in &codes {
        let (text, errors, status) = explain(&[code]);
        assert_eq!(status, 0, "{code}: {errors}");
        assert!(text.starts_with(&format!("{code}: ")), "{text}");
        assert!(text.contains("```"), "{code} shows no example: {text}");
        assert!(listed.contains(code.as_str()), "{code} is not listed");
    }
    // Nothing is explained that the source cannot print.
    for line in listed.lines() {
        let code = line.split_whitespace().next().unwrap();
        assert!(
            codes.iter().any(|c| c == code),
            "{code} is explained but never printed"
        );
    }
}

#[test]
fn an_unknown_code_is_refused_saying_what_codes_look_like() {
    let (text, errors, status) = explain(&["HG9999"]);
    assert_eq!(status, 2);
    assert!(text.is_empty());
    assert!(errors.contains("codes look like HG0504"), "{errors}");
}

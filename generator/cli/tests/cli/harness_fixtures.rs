//! The reference implementation's programs in `../shared/fixtures/harness/`: `harness-gen
//! harness compile|resolve|preamble` reproduce every bundle, revision and preamble there byte
//! for byte (and so in canonical JSON). Every fixture file present is checked, so new fixtures
//! are picked up without editing this test. Also the commands' exit codes and outputs as a
//! process.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/harness")
}

fn harness_gen(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_harness-gen"))
        .arg("harness")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn canonical(text: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    harness_gen_contract::harness::canonical::canonical_json(&value)
}

#[test]
fn every_fixture_program_reproduces_its_bundle_revisions_and_preambles() {
    let mut checked = 0;
    let mut names: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("the shared fixtures are missing: expected ../shared/fixtures/harness")
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in &names {
        let file = path.file_name().unwrap().to_str().unwrap();
        let Some(program) = file.strip_suffix(".harness") else {
            continue;
        };
        let source = path.to_str().unwrap();
        let (stdout, stderr, status) = harness_gen(&["compile", source]);
        assert_eq!(status, 0, "{file}: {stderr}");
        let expected = read(&fixtures().join(format!("{program}.bundle.json")));
        assert_eq!(stdout, expected, "{file}: bundle");
        checked += 1;

        for output in &names {
            let name = output.file_name().unwrap().to_str().unwrap();
            let Some(rest) = name.strip_prefix(&format!("{program}.")) else {
                continue;
            };
            let (kind, rest) = if let Some(r) = rest.strip_suffix(".revision.json") {
                ("resolve", r)
            } else if let Some(r) = rest.strip_suffix(".preamble.json") {
                ("preamble", r)
            } else {
                continue;
            };
            let (harness, runtime) = rest.rsplit_once('.').unwrap();
            let mut args = vec![kind, source, "--harness", harness];
            if runtime != "auto" {
                args.extend(["--runtime", runtime]);
            }
            let (stdout, stderr, status) = harness_gen(&args);
            assert_eq!(status, 0, "{name}: {stderr}");
            let expected = read(output);
            assert_eq!(stdout, expected, "{name}");
            let mut canonical_args = args.clone();
            canonical_args.push("--canonical");
            let (stdout, _, _) = harness_gen(&canonical_args);
            assert_eq!(stdout.trim_end(), canonical(&expected), "{name}: canonical");
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} fixture outputs were found");
}

fn write_program(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("harness-gen-dsl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.harness"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn compile_of_a_rejected_program_exits_1_with_located_diagnostics() {
    let path = write_program(
        "bad",
        "skill s {\n  description \"d\"\n}\nskill s { source \"x\" }\n",
    );
    let file = path.to_str().unwrap();
    let (stdout, stderr, status) = harness_gen(&["compile", file]);
    assert_eq!((status, stdout.as_str()), (1, ""));
    assert!(stderr.contains("error[HL0302]"), "{stderr}");
    assert!(stderr.contains(&format!("{file}:4:7")), "{stderr}");
    assert!(
        stderr.contains("4 | skill s { source \"x\" }\n  |       ^"),
        "{stderr}"
    );

    let (stdout, _, status) = harness_gen(&["compile", file, "--format", "json"]);
    assert_eq!(status, 1);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["diagnostics"][0]["line"], 4);
    assert_eq!(value["diagnostics"][0]["code"], "HL0302");
}

#[test]
fn resolve_that_fails_prints_the_report_and_exits_1() {
    let program = "skill s { description \"d\" }\nworkflow w { stop when a.done }\n\
        harness h {\n  workflow w\n  agent a { use skill s { minimum enforced } }\n}\ntarget pi\n";
    let path = write_program("fails", program);
    let (stdout, stderr, status) =
        harness_gen(&["resolve", path.to_str().unwrap(), "--harness", "h"]);
    assert_eq!(status, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["status"], "failed");
    assert!(
        stderr.contains("error: agent 'a' needs 's' at least 'enforced'"),
        "{stderr}"
    );
}

#[test]
fn materialize_pi_writes_a_package_into_an_empty_directory_only() {
    let fixture = fixtures().join("standard-coding.harness");
    let source = fixture.to_str().unwrap();
    let out = std::env::temp_dir().join(format!("harness-gen-pi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let target = out.to_str().unwrap();
    let args = [
        "materialize-pi",
        source,
        "--harness",
        "standard-coding",
        "--runtime",
        "pi",
        "--out",
        target,
    ];
    let (stdout, stderr, status) = harness_gen(&args);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    let skill = read(&out.join("skills/impact-analysis/SKILL.md"));
    assert!(
        skill.contains("hr_aaca82918b64e35d73e9519063cdfe97"),
        "{skill}"
    );
    assert!(
        out.join("skills/verification-before-complete/SKILL.md")
            .is_file()
    );

    let (_, stderr, status) = harness_gen(&args);
    assert_eq!(status, 1);
    assert!(stderr.contains("is not empty"), "{stderr}");

    let other = out.join("qoder");
    let (_, stderr, status) = harness_gen(&[
        "materialize-pi",
        source,
        "--harness",
        "standard-coding",
        "--runtime",
        "qoder",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(status, 1);
    assert!(stderr.contains("targets runtime 'qoder'"), "{stderr}");
    assert!(!other.exists());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn several_files_compile_into_one_bundle_in_the_order_given() {
    let a = write_program("part-a", "skill one { description \"1\" }\n");
    let b = write_program("part-b", "skill two { description \"2\" }\n");
    let (stdout, stderr, status) = harness_gen(&[
        "compile",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--canonical",
    ]);
    assert_eq!(status, 0, "{stderr}");
    let bundle: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(bundle["skills"][0]["id"], "one");
    assert_eq!(bundle["skills"][1]["id"], "two");
}

#[test]
fn openapi_with_a_harness_checks_the_fields_of_linked_tools() {
    let program = write_program(
        "link",
        "tool get_pet {\n  input { pet_id petid }\n  output { id nam }\n}\n\
         tool pets.list_pets { input { limit } }\n\
         tool host.shell { input { anything } }\n",
    );
    let out = program.parent().unwrap().join("crate");
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/petstore.yaml");
    let output = Command::new(env!("CARGO_BIN_EXE_harness-gen"))
        .args([
            "openapi",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--harness", program.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let file = program.to_str().unwrap();
    // Exactly the two unknown fields; the namespaced link and the unlinked host tool pass.
    assert_eq!(stderr.matches("error[HL0501]").count(), 2, "{stderr}");
    assert!(stderr.contains(&format!("{file}:2:18")), "{stderr}");
    assert!(
        stderr.contains("no property 'petid' (it has: pet_id)"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("{file}:3:15")), "{stderr}");
    assert!(
        stderr.contains("no property 'nam' (it has: born, id, name, species, tag)"),
        "{stderr}"
    );
    assert!(!out.exists());
}

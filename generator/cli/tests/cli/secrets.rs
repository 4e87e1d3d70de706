//! The secrets sweep of `harness-gen` itself: with credentials in the environment, every command
//! runs on the samples (the pet-store document and its `.harness` file, the fixture programs,
//! the bad-input corpus), succeeding and failing, and neither what it prints nor any file it
//! writes contains one of them. The generated programs' sweep is `tests/tests/e2e/secrets.rs`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../../tests/src/sweep.rs"]
#[allow(dead_code)]
mod sweep;

use sweep::Sweep;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn harness_gen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_harness-gen"))
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("harness-gen-secrets-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `harness-gen args` under the sweep and checks its exit code.
fn expect(sweep: &mut Sweep, args: &[&str], code: i32) -> String {
    let label = format!("harness-gen {}", args.join(" "));
    let out = sweep.run(&label, harness_gen().args(args));
    assert_eq!(
        out.status.code(),
        Some(code),
        "{label}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn no_generator_command_prints_or_writes_a_credential_from_the_environment() {
    let mut sweep = Sweep::default();
    let root = workspace();
    let spec = root.join("specs/petstore.yaml");
    let program = root.join("specs/petstore.harness");
    let (spec, program) = (spec.to_str().unwrap(), program.to_str().unwrap());
    generation(&mut sweep, spec, program);
    bad_inputs(&mut sweep, &root);
    mismatched_harness(&mut sweep, spec, program);
    harness_commands(&mut sweep, &root, program);
    artifacts_and_help(&mut sweep, spec);
    sweep.assert_clean();
}

/// Generation, with and without the harness, then checked against itself; the catalog.
fn generation(sweep: &mut Sweep, spec: &str, program: &str) {
    let out = scratch("crate");
    let out_dir = out.to_str().unwrap();
    expect(
        sweep,
        &["openapi", spec, "--harness", program, "--out", out_dir],
        0,
    );
    expect(
        sweep,
        &[
            "openapi",
            spec,
            "--harness",
            program,
            "--out",
            out_dir,
            "--check",
        ],
        0,
    );
    expect(sweep, &["openapi", spec, "--out", out_dir, "--check"], 1);
    sweep.tree("generated crate", &out);
    expect(sweep, &["catalog", spec], 0);
    let catalog = scratch("catalog").join("catalog.json");
    expect(
        sweep,
        &["catalog", spec, "--out", catalog.to_str().unwrap()],
        0,
    );
    sweep.record("catalog file", std::fs::read(&catalog).unwrap());
}

/// Every bad input, as a catalog and as a strict crate: failures with diagnostics.
fn bad_inputs(sweep: &mut Sweep, root: &Path) {
    let mut bad = 0;
    for entry in std::fs::read_dir(root.join("generator/tests/bad-inputs")).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "json")
        ) {
            continue;
        }
        let path = path.to_str().unwrap();
        let label = format!("harness-gen catalog --strict {path}");
        let out = sweep.run(&label, harness_gen().args(["catalog", "--strict", path]));
        assert_ne!(out.status.code(), Some(0), "{label} fails");
        let target = scratch("bad");
        let label = format!("harness-gen openapi --strict {path}");
        let out = sweep.run(
            &label,
            harness_gen()
                .args(["openapi", "--strict", path, "--out"])
                .arg(&target),
        );
        assert_ne!(out.status.code(), Some(0), "{label} fails");
        sweep.tree(&label, &target);
        bad += 1;
    }
    assert!(bad >= 10, "the bad-input corpus is swept ({bad} files)");
}

/// A harness that does not match the document: the link check fails.
fn mismatched_harness(sweep: &mut Sweep, spec: &str, program: &str) {
    let mismatched = scratch("mismatch").join("wrong.harness");
    std::fs::write(
        &mismatched,
        std::fs::read_to_string(program)
            .unwrap()
            .replace("pet_id", "pet_identifier"),
    )
    .unwrap();
    let label = "harness-gen openapi --harness (mismatched)";
    let out = sweep.run(
        label,
        harness_gen()
            .args(["openapi", spec, "--out"])
            .arg(scratch("mismatch-out"))
            .arg("--harness")
            .arg(&mismatched),
    );
    assert_eq!(out.status.code(), Some(1), "{label}");
}

/// The harness commands over every fixture program and the sample's, then a broken one.
fn harness_commands(sweep: &mut Sweep, root: &Path, program: &str) {
    let fixtures = root.join("../shared/fixtures/harness");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "harness"))
        .collect();
    programs.push(PathBuf::from(program));
    for program in &programs {
        let program = program.to_str().unwrap();
        let bundle = expect(sweep, &["harness", "compile", program], 0);
        expect(sweep, &["harness", "compile", "--canonical", program], 0);
        let bundle: serde_json::Value = serde_json::from_str(&bundle).unwrap();
        for harness in bundle["harnesses"].as_array().unwrap() {
            let id = harness["id"].as_str().unwrap();
            let resolved = sweep.run(
                format!("harness-gen harness resolve --harness {id} {program}"),
                harness_gen().args(["harness", "resolve", "--harness", id, program]),
            );
            let code = resolved.status.code();
            assert!(matches!(code, Some(0 | 1)), "resolve {id}: {code:?}");
            let preamble = sweep.run(
                format!("harness-gen harness preamble --harness {id} {program}"),
                harness_gen().args(["harness", "preamble", "--harness", id, program]),
            );
            assert_eq!(preamble.status.code(), code, "preamble {id}");
            let pi = scratch("pi");
            let label = format!("harness-gen harness materialize-pi --harness {id} {program}");
            let out = sweep.run(
                &label,
                harness_gen()
                    .args(["harness", "materialize-pi", "--harness", id, "--out"])
                    .arg(&pi)
                    .arg(program),
            );
            assert!(matches!(out.status.code(), Some(0 | 1)), "{label}");
            sweep.tree(&label, &pi);
        }
    }
    let broken = scratch("broken").join("broken.harness");
    std::fs::write(
        &broken,
        "skill s {\n  description \"unclosed\n}\nharness h {",
    )
    .unwrap();
    let broken = broken.to_str().unwrap();
    for format in ["human", "json"] {
        expect(
            sweep,
            &["harness", "compile", "--format", format, broken],
            1,
        );
        expect(
            sweep,
            &[
                "harness",
                "resolve",
                "--format",
                format,
                "--harness",
                "h",
                broken,
            ],
            1,
        );
    }
    expect(
        sweep,
        &["harness", "compile", "/nonexistent/missing.harness"],
        1,
    );
}

/// The catalog format's artifacts, help, version and a mistyped command.
fn artifacts_and_help(sweep: &mut Sweep, spec: &str) {
    let artifacts = scratch("artifacts");
    let dir = artifacts.to_str().unwrap();
    // The book's pages too, into the scratch folder (by default they go to the working
    // directory's `docs/src/reference`, which for a test is the package's own folder).
    let docs = artifacts.join("reference");
    let docs = docs.to_str().unwrap();
    expect(sweep, &["artifacts", "--dir", dir, "--docs", docs], 0);
    expect(
        sweep,
        &["artifacts", "--dir", dir, "--docs", docs, "--check"],
        0,
    );
    sweep.tree("artifacts", &artifacts);
    expect(sweep, &["--help"], 0);
    expect(sweep, &["--version"], 0);
    expect(sweep, &["openapi", "--help"], 0);
    expect(sweep, &["harness", "--help"], 0);
    expect(sweep, &["opanapi", spec], 2);
}

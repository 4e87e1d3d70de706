//! Generated crates compile without warnings. The representative set runs in CI; every valid
//! corpus document is an ignored test:
//! `cargo test -p harness-gen --test types_compile -- --ignored`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness_gen::diag::Diagnostics;
use harness_gen::emit::krate::Options;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Generates a crate per spec into one scratch workspace and `cargo check`s it all with
/// warnings denied (dependencies shared, nothing resolved afresh).
fn check_compiles(set: &str, specs: &[PathBuf]) {
    let dir = root().join("target/harness-typecheck").join(set);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut members = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let name = format!("c{i}");
        let options = Options {
            crate_name: Some(name.clone()),
            runtime_path: Some(root().join("runtime").display().to_string()),
            command: format!("harness-gen openapi {}", spec.display()),
            harness: None,
        };
        let mut diags = Diagnostics::default();
        let (krate, _) = harness_gen::generate_crate(spec, &options, &mut diags).unwrap();
        assert!(!diags.has_errors(), "{}: {diags}", spec.display());
        harness_gen::output::write(&dir.join(&name), &krate.files).unwrap();
        members.push(format!("\"{name}\""));
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["check", "--workspace", "--quiet", "--offline"])
        .current_dir(&dir)
        .env(
            "CARGO_TARGET_DIR",
            root().join("target/harness-typecheck/target"),
        )
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated crates do not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn corpus(path: &str) -> PathBuf {
    root().join("../shared/corpus").join(path)
}

#[test]
fn representative_documents_generate_crates_that_compile() {
    check_compiles(
        "representative",
        &[
            root().join("specs/petstore.yaml"),
            root().join("specs/hostile.yaml"),
            corpus("examples/train-travel.openapi.yaml"),
            corpus("examples/swagger-petstore3.openapi.yaml"),
            corpus("codegen-tests/openapi-python-client_baseline_openapi_3.1.yaml"),
            corpus("codegen-tests/openapi-python-client_openapi_3.1_enums.yaml"),
            corpus("examples/readme-oas-examples_3.1_schema-types.json"),
            corpus("apisguru/xkcd.com_1.0.0.openapi.yaml"),
            corpus("progenitor/keeper.json"),
            corpus("progenitor/param-collision.json"),
        ],
    );
}

#[test]
#[ignore = "compiles a crate for every valid corpus document (minutes); run before releases"]
fn every_valid_corpus_document_generates_a_crate_that_compiles() {
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus("index.json")).unwrap()).unwrap();
    let specs: Vec<PathBuf> = index["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["expect"] == "valid")
        .map(|d| corpus(d["path"].as_str().unwrap()))
        .collect();
    check_compiles("corpus", &specs);
}

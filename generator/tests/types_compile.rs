//! Generated types compile without warnings. The representative set runs in CI; the whole
//! corpus is an ignored test (`cargo test -p harness-gen --test types_compile -- --ignored`).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness_gen::diag::Diagnostics;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Generates `types.rs` for each spec into one crate (a module per spec) and `cargo check`s it
/// with warnings denied.
fn check_compiles(crate_name: &str, specs: &[PathBuf]) {
    let dir = root().join("target/harness-typecheck").join(crate_name);
    let _ = std::fs::remove_dir_all(dir.join("src"));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut lib = String::from("#![deny(warnings)]\n");
    for (i, spec) in specs.iter().enumerate() {
        let mut diags = Diagnostics::default();
        let (api, _) = harness_gen::catalog::generate(spec, None, &mut diags).unwrap();
        let types = harness_gen::emit::types_file(&api).file;
        std::fs::write(dir.join(format!("src/m{i}.rs")), types).unwrap();
        lib.push_str(&format!(
            "/// {}\n#[path = \"m{i}.rs\"]\npub mod m{i};\n",
            spec.display()
        ));
    }
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{crate_name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n"
        ),
    )
    .unwrap();
    // Share the workspace's lock file so no dependency is resolved afresh.
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--offline"])
        .current_dir(&dir)
        .env(
            "CARGO_TARGET_DIR",
            root().join("target/harness-typecheck/target"),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated types do not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn corpus(path: &str) -> PathBuf {
    root().join("../shared/corpus").join(path)
}

#[test]
fn representative_documents_generate_types_that_compile() {
    check_compiles(
        "typecheck_representative",
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
        ],
    );
}

#[test]
#[ignore = "compiles types for every valid corpus document (minutes); run before releases"]
fn every_valid_corpus_document_generates_types_that_compile() {
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus("index.json")).unwrap()).unwrap();
    let specs: Vec<PathBuf> = index["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["expect"] == "valid")
        .map(|d| corpus(d["path"].as_str().unwrap()))
        .collect();
    check_compiles("typecheck_corpus", &specs);
}

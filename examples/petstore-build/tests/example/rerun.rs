//! The build script in action, from outside: a crate whose `build.rs` uses the builder is built
//! by cargo; editing its document makes cargo rerun the script and regenerate; an invalid
//! document fails the build with a located diagnostic. Builds a scratch crate with its own
//! target directory (about 30 s the first time).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn build(dir: &Path) -> Output {
    Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", root().join("target/harness-rerun"))
        .output()
        .unwrap()
}

/// The generated file of the scratch crate's latest build script run.
fn generated() -> String {
    let build_dir = root().join("target/harness-rerun/debug/build");
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(build_dir).unwrap().flatten() {
        let file = entry.path().join("out/api.rs");
        if let Ok(meta) = std::fs::metadata(&file) {
            let modified = meta.modified().unwrap();
            if newest.as_ref().is_none_or(|(t, _)| modified > *t) {
                newest = Some((modified, file));
            }
        }
    }
    std::fs::read_to_string(newest.unwrap().1).unwrap()
}

#[test]
fn editing_the_document_reruns_the_build_script_and_errors_are_located() {
    let dir = root().join("target/harness-rerun-crate");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"rerun-check\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[build-dependencies]\nharness-gen = {{ path = {:?} }}\n\n[workspace]\n",
            root().join("generator").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        dir.join("build.rs"),
        "fn main() -> Result<(), harness_gen::builder::BuildError> {\n    harness_gen::builder::Builder::new().openapi(\"api.yaml\").name(\"api\").generate()\n}\n",
    )
    .unwrap();
    let spec = |op: &str| {
        format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths:\n  /a:\n    get: {{operationId: {op}, responses: {{}}}}\n"
        )
    };
    std::fs::write(dir.join("api.yaml"), spec("firstOperation")).unwrap();
    let out = build(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(generated().contains("fn first_operation"));

    std::fs::write(dir.join("api.yaml"), spec("secondOperation")).unwrap();
    let out = build(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        generated().contains("fn second_operation"),
        "cargo reran the build script"
    );

    std::fs::write(dir.join("api.yaml"), "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      x-harn: {bogus: 1}\n      responses: {}\n").unwrap();
    let out = build(&dir);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[HG0401]") && stderr.contains("api.yaml:6:"),
        "{stderr}"
    );
}

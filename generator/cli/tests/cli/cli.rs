//! The `harness-gen catalog` command, run as a real process.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn harness_gen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness-gen"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("harness-gen-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn catalog_prints_the_catalog_and_exits_zero() {
    let out = harness_gen(&["catalog", "specs/petstore.yaml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog =
        harness_gen_contract::Catalog::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(catalog.tools.len(), 7);
    // Only the listing report: six tools reach MCP clients.
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("note[HG0510]: the MCP listing of 6 tools is ")
            && stderr.lines().count() == 2,
        "{stderr}"
    );
}

#[test]
fn catalog_writes_to_out() {
    let dir = scratch("out");
    let file = dir.join("catalog.json");
    let out = harness_gen(&[
        "catalog",
        "specs/petstore.yaml",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(written.starts_with("{\n  \"schema_version\": \"harn-tools/2.0\""));
}

#[test]
fn errors_exit_one_with_located_diagnostics() {
    let dir = scratch("err");
    let spec = dir.join("bad.yaml");
    std::fs::write(&spec, "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      x-harn: {nmae: x}\n      responses: {}\n").unwrap();
    let out = harness_gen(&["catalog", spec.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("error[HG0401]"), "{stderr}");
    assert!(stderr.contains("bad.yaml:6:"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn warnings_do_not_fail_unless_strict() {
    let spec = "../shared/corpus/oai-tests/fail/servers.yaml";
    let out = harness_gen(&["catalog", spec]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning["));
    let out = harness_gen(&["catalog", spec, "--strict"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn openapi_writes_a_crate_and_check_reports_drift() {
    let dir = scratch("crate");
    let out_dir = dir.join("petstore");
    let out = out_dir.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "openapi",
            "specs/petstore.yaml",
            "--out",
            out,
            "--crate-name",
            "petstore",
        ];
        args.extend_from_slice(extra);
        harness_gen(&args)
    };
    let first = run(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    for file in [
        "Cargo.toml",
        "README.md",
        "catalog.json",
        "src/lib.rs",
        "src/types.rs",
        "src/client.rs",
        "src/registry.rs",
        ".harness-gen",
    ] {
        assert!(out_dir.join(file).exists(), "{file}");
    }
    assert!(
        run(&["--check"]).status.success(),
        "fresh output passes --check"
    );
    std::fs::write(out_dir.join("src/types.rs"), "// edited by hand\n").unwrap();
    let stale = run(&["--check"]);
    assert_eq!(stale.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&stale.stdout).contains("changed: src/types.rs"));
    assert_eq!(
        std::fs::read_to_string(out_dir.join("src/types.rs")).unwrap(),
        "// edited by hand\n",
        "--check writes nothing"
    );
    assert!(run(&[]).status.success());
    assert!(run(&["--check"]).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run from this checkout, a crate depends on the checkout's runtime by a path from the crate
/// (it builds before anything is published); `--runtime-path` names another;
/// `--published-runtime` asks for the version alone.
#[test]
fn a_crate_generated_from_the_checkout_depends_on_its_runtime_unless_told_otherwise() {
    let dir = scratch("runtime-dependency");
    let dependency = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["openapi", "specs/petstore.yaml", "--out"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        let run = harness_gen(&args);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
        let line = manifest
            .lines()
            .find(|l| l.starts_with("harness-gen-runtime = "))
            .unwrap()
            .to_string();
        (line, String::from_utf8_lossy(&run.stderr).into_owned())
    };
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../runtime")
        .canonicalize()
        .unwrap();
    let (line, said) = dependency("found", &[]);
    let path = line
        .split("path = \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(!Path::new(path).is_absolute(), "{line}");
    assert_eq!(
        dir.join("found").join(path).canonicalize().unwrap(),
        runtime,
        "{line}"
    );
    assert!(said.contains("next: cd "), "what to run next: {said}");
    let (line, _) = dependency("given", &["--runtime-path", "/elsewhere/runtime"]);
    assert!(line.contains(r#"path = "/elsewhere/runtime""#), "{line}");
    let (line, _) = dependency("published", &["--published-runtime"]);
    assert_eq!(
        line,
        r#"harness-gen-runtime = { version = "0.1.0", features = ["client"] }"#
    );
}

#[test]
fn a_listing_budget_given_at_generation_is_set_on_the_registry() {
    let dir = scratch("budget");
    let out_dir = dir.join("petstore");
    let run = |extra: &[&str]| {
        let mut args = vec!["openapi", "specs/petstore.yaml", "--out"];
        args.push(out_dir.to_str().unwrap());
        args.extend_from_slice(extra);
        let out = harness_gen(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(out_dir.join("src/registry.rs")).unwrap()
    };
    let registry = run(&["--listing-bytes", "4096"]);
    assert!(
        registry.contains("with_listing_budget")
            && registry.contains("depth: 2usize")
            && registry.contains("bytes: 4096usize"),
        "the given bytes, the default depth:\n{registry}"
    );
    let readme = std::fs::read_to_string(out_dir.join("README.md")).unwrap();
    assert!(
        readme.contains("--listing-bytes 4096"),
        "the command regenerates it"
    );
    let registry = run(&[]);
    assert!(
        !registry.contains("with_listing_budget"),
        "without one, the runtime's default (one owner)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn openapi_refuses_a_crate_name_cargo_would_refuse_or_that_is_taken_before_writing() {
    for (name, why) in [
        ("1password", "does not start with a letter"),
        ("my crate", "holds ' '"),
        ("petstore\u{202e}", "holds '\\u{202e}'"),
        ("fn", "Rust keyword"),
        ("harness-gen-runtime", "`harness-gen-runtime`"),
        ("harness_gen_runtime", "`harness-gen-runtime`"),
        ("serde_json", "`serde-json`"),
        ("Serde", "`serde`"),
        (&"a".repeat(65), "at most 64"),
    ] {
        let dir = scratch("crate-name");
        let out_dir = dir.join("out");
        let out = harness_gen(&[
            "openapi",
            "specs/petstore.yaml",
            "--out",
            out_dir.to_str().unwrap(),
            "--crate-name",
            name,
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains("error[HG0701]"), "{name}: {stderr}");
        assert!(stderr.contains("--> --crate-name"), "{name}: {stderr}");
        assert!(stderr.contains(why), "{name}: expected {why:?} in {stderr}");
        assert!(stderr.contains("choose another name"), "{stderr}");
        assert!(!out_dir.exists(), "{name}: something was written");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Rust the generator made that does not parse is never written: the run fails with `HG0702`
/// at the schema the broken item was made from. No document makes it happen, so the test
/// injects the fault: the type `NewPet` is printed as `Self`.
#[test]
fn generated_rust_that_does_not_parse_fails_the_run_located_and_writes_nothing() {
    let dir = scratch("unparsable");
    let out_dir = dir.join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_harness-gen"))
        .args(["openapi", "specs/petstore.yaml", "--out"])
        .arg(&out_dir)
        .env("HARNESS_GEN_FAULT_UNPARSABLE_TYPE", "NewPet")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let error = stderr
        .lines()
        .position(|l| l.starts_with("error[HG0702]"))
        .unwrap_or_else(|| panic!("no HG0702 in {stderr}"));
    let (message, location) = (
        stderr.lines().nth(error).unwrap(),
        stderr.lines().nth(error + 1).unwrap(),
    );
    assert!(
        message.contains("src/types.rs (item `") && message.contains("Self`)"),
        "{message}"
    );
    assert!(message.contains("does not parse"), "{message}");
    assert!(
        location.contains("specs/petstore.yaml:239:")
            && location.ends_with("(#/components/schemas/NewPet)"),
        "located at the schema: {location}"
    );
    assert!(!out_dir.exists(), "something was written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn openapi_refuses_a_directory_it_did_not_create() {
    let dir = scratch("foreign");
    std::fs::write(dir.join("precious.txt"), "keep me").unwrap();
    let out = harness_gen(&[
        "openapi",
        "specs/petstore.yaml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not created by harness-gen"));
    assert_eq!(
        std::fs::read_to_string(dir.join("precious.txt")).unwrap(),
        "keep me"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_token_in_the_environment_appears_in_no_generated_file_or_output() {
    let secret = "tok_env_secret_0b1c2d";
    let dir = scratch("secret");
    let out = Command::new(env!("CARGO_BIN_EXE_harness-gen"))
        .args([
            "openapi",
            "specs/petstore.yaml",
            "--crate-name",
            "petstore",
            "--out",
        ])
        .arg(dir.join("petstore"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("PETSTORE_TOKEN", secret)
        .env("PETSTORE_API_KEY", secret)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(secret));
    let mut stack = vec![dir.clone()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else {
            assert!(
                !std::fs::read_to_string(&path).unwrap().contains(secret),
                "{}",
                path.display()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bindings_refuse_a_catalog_of_another_format_version_with_the_runtimes_error() {
    let dir = scratch("bindings-v1");
    let catalog = dir.join("catalog.json");
    std::fs::write(
        &catalog,
        r#"{"schema_version": "harn-tools/1.0", "tools": []}"#,
    )
    .unwrap();
    let out = harness_gen(&[
        "bindings",
        catalog.to_str().unwrap(),
        "--out",
        dir.join("crate").to_str().unwrap(),
        "--crate-name",
        "old-bindings",
    ]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let wrote = dir.join("crate").exists();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("HR0101"), "{stderr}");
    assert!(
        stderr.contains("regenerate the catalog, its schema and the bindings together"),
        "{stderr}"
    );
    assert!(!wrote, "nothing is written for a refused catalog");
}

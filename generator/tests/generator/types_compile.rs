//! Generated crates compile without warnings, clippy's default lints included (generated code
//! carries no blanket `allow`, only targeted ones). The representative set runs in CI; every valid
//! corpus document is an ignored test:
//! `cargo test -p harness-gen --test types_compile -- --ignored`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;
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

/// Generates a crate per spec into one scratch workspace and `cargo clippy`s it all with
/// warnings denied (dependencies shared, nothing resolved afresh): the SDK alone (default
/// features, every operation), with the tool registry and the comparison derives (both sides
/// of every feature-gated item), and narrowed to single operation groups (each crate's
/// smallest, then its largest, with the registry), so what a group's items need is compiled
/// with it.
fn check_compiles(set: &str, specs: &[PathBuf]) {
    let members: Vec<(String, PathBuf)> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| (format!("c{i}"), spec.clone()))
        .collect();
    let dir = scratch_workspace(set, &members, Some(runtime_path()), "", |_| {});
    let per_crate = |extra: &dyn Fn(&str) -> Vec<String>| -> String {
        members
            .iter()
            .flat_map(|(name, _)| {
                extra(name)
                    .into_iter()
                    .map(move |feature| format!("{name}/{feature}"))
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let groups: BTreeMap<String, Vec<(String, usize)>> = members
        .iter()
        .map(|(name, _)| {
            let manifest = std::fs::read_to_string(dir.join(name).join("Cargo.toml")).unwrap();
            (name.clone(), operation_groups(&manifest))
        })
        .collect();
    // Each crate's smallest (`largest: false`) or largest operation group, with the registry.
    let one_group = |largest: bool| {
        per_crate(&|name| {
            let mut sizes = groups[name].clone();
            sizes.sort_by_key(|(group, n)| (*n, group.clone()));
            let pick = if largest { sizes.last() } else { sizes.first() };
            let mut features = vec!["registry".to_string()];
            features.extend(pick.map(|(group, _)| group.clone()));
            features
        })
    };
    let passes = [
        (String::new(), true),
        (
            per_crate(&|_| vec!["registry".into(), "compare".into()]),
            true,
        ),
        (one_group(false), false),
        (one_group(true), false),
    ];
    for (features, defaults) in passes {
        let out = cargo_check(&dir, &features, defaults);
        assert!(
            out.status.success(),
            "generated crates do not compile (features: {features:?}, default features: {defaults}):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The operation groups a generated `Cargo.toml` lists (`# N operations: …` above
/// `group = []`), with their operation counts.
fn operation_groups(manifest: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut count = None;
    for line in manifest.lines() {
        if let Some(rest) = line.strip_prefix("# ")
            && let Some((n, _)) = rest.split_once(" operation")
            && let Ok(n) = n.parse::<usize>()
        {
            count = Some(n);
        } else if let (Some(n), Some(group)) = (count.take(), line.strip_suffix(" = []")) {
            out.push((group.to_string(), n));
        }
    }
    out
}

/// `cargo clippy --workspace` of the scratch workspace `dir` with warnings denied, offline, in the
/// target directory all these checks share; `default_features: false` turns every member's off.
fn cargo_check(dir: &Path, features: &str, default_features: bool) -> std::process::Output {
    let mut command = Command::new(env!("CARGO"));
    command.args(["clippy", "--workspace", "--quiet", "--offline"]);
    if !default_features {
        command.arg("--no-default-features");
    }
    if !features.is_empty() {
        command.args(["--features", features]);
    }
    command
        .current_dir(dir)
        .env(
            "CARGO_TARGET_DIR",
            root().join("target/harness-typecheck/target"),
        )
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .unwrap()
}

fn runtime_path() -> String {
    root().join("runtime").display().to_string()
}

/// Generates `members` (crate name, document) into the scratch workspace `set`, each crate's
/// files passed through `edit` first, with `runtime_path` as its runtime path and `extra`
/// appended to the workspace manifest; copies this workspace's lock file so nothing is
/// resolved afresh. Returns the workspace directory.
fn scratch_workspace(
    set: &str,
    members: &[(String, PathBuf)],
    runtime_path: Option<String>,
    extra: &str,
    mut edit: impl FnMut(&mut BTreeMap<String, String>),
) -> PathBuf {
    let dir = empty_workspace(set);
    for (name, spec) in members {
        let options = Options {
            crate_name: Some(name.clone()),
            runtime_path: runtime_path.clone(),
            command: format!("harness-gen openapi {}", spec.display()),
            harness: None,
            listing_budget: None,
        };
        let mut diags = Diagnostics::default();
        let (mut krate, _) = harness_gen::generate_crate(spec, &options, &mut diags).unwrap();
        assert!(!diags.has_errors(), "{}: {diags}", spec.display());
        edit(&mut krate.files);
        harness_gen::output::write(&dir.join(name), &krate.files).unwrap();
    }
    let names = members.iter().map(|(name, _)| name.as_str());
    write_workspace(&dir, names, extra);
    dir
}

/// The scratch workspace directory `set`, emptied.
fn empty_workspace(set: &str) -> PathBuf {
    let dir = root().join("target/harness-typecheck").join(set);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The workspace manifest of `members` (with `extra` appended) and this workspace's lock file,
/// so nothing is resolved afresh.
fn write_workspace<'a>(dir: &Path, members: impl Iterator<Item = &'a str>, extra: &str) {
    let names: Vec<String> = members.map(|name| format!("{name:?}")).collect();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n{extra}",
            names.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// Generates the catalog of each spec, then the bindings of that catalog (`harness-gen
/// bindings`), into one scratch workspace, and `cargo check`s them with warnings denied, with
/// and without the comparison derives.
fn check_bindings_compile(set: &str, specs: &[PathBuf]) {
    let dir = empty_workspace(set);
    let mut names = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let name = format!("b{i}");
        let mut diags = Diagnostics::default();
        let catalog = harness_gen::generate_catalog_text(spec, None, &mut diags).unwrap();
        assert!(!diags.has_errors(), "{}: {diags}", spec.display());
        let bindings = harness_gen::generate_bindings(
            &catalog,
            &harness_gen::BindingsOptions {
                crate_name: name.clone(),
                runtime_path: Some(runtime_path()),
                command: format!("harness-gen bindings (catalog of {})", spec.display()),
            },
        )
        .unwrap();
        harness_gen::output::write(&dir.join(&name), &bindings.files).unwrap();
        names.push(name);
    }
    write_workspace(&dir, names.iter().map(String::as_str), "");
    let compare = (0..specs.len())
        .map(|i| format!("b{i}/compare"))
        .collect::<Vec<_>>()
        .join(",");
    for features in [String::new(), compare] {
        let out = cargo_check(&dir, &features, true);
        assert!(
            out.status.success(),
            "generated bindings do not compile (features: {features:?}):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn petstore() -> Vec<(String, PathBuf)> {
    vec![("petstore".into(), root().join("specs/petstore.yaml"))]
}

#[test]
fn code_generated_for_another_runtime_api_fails_to_compile_saying_what_to_do() {
    let dir = scratch_workspace("skew", &petstore(), Some(runtime_path()), "", |files| {
        let lib = files.get_mut("src/lib.rs").unwrap();
        let current = format!(
            "require_api!(api = {}, generator = \"{}\")",
            harness_gen_runtime::API_VERSION,
            env!("CARGO_PKG_VERSION")
        );
        assert!(
            lib.contains(&current),
            "lib.rs names the runtime API: {lib}"
        );
        *lib = lib.replace(&current, "require_api!(api = 99, generator = \"9.0.0\")");
    });
    let out = cargo_check(&dir, "", true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a crate for runtime API 99 compiled");
    let implements = format!(
        "implements runtime API {}",
        harness_gen_runtime::API_VERSION
    );
    for expected in [
        "generated by harness-gen 9.0.0 for runtime API 99",
        implements.as_str(),
        "regenerate the crate with harness-gen",
        "harness-gen-runtime = \"=9.0.0\"",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn a_generated_crate_depends_on_our_runtime_by_name_and_resolves_nothing_we_do_not_own() {
    // As published: no path, the runtime by version only. Before the runtime is on the
    // registry, the documented `[patch]` points it at a checkout.
    let runtime = runtime_path();
    let dir = scratch_workspace(
        "published",
        &petstore(),
        None,
        &format!("\n[patch.crates-io]\nharness-gen-runtime = {{ path = {runtime:?} }}\n"),
        |_| {},
    );
    let manifest = std::fs::read_to_string(dir.join("petstore/Cargo.toml")).unwrap();
    let dependencies = &manifest[manifest.find("[dependencies]").unwrap()..];
    let names: Vec<&str> = dependencies
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(" = ").map(|(name, _)| name))
        .collect();
    assert_eq!(names, ["harness-gen-runtime", "serde", "serde_json"]);
    assert!(
        dependencies.contains(&format!(
            "harness-gen-runtime = {{ version = \"{}\", features = [\"client\"] }}",
            env!("CARGO_PKG_VERSION")
        )),
        "{dependencies}"
    );
    // Every package of the host's graph, all features on (cargo tree resolves offline from the
    // copied lock file; a package from a registry prints as `name vX`, a path one with its path).
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "--all-features", "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let runtime_line = tree
        .lines()
        .find(|l| l.starts_with("harness-gen-runtime v"))
        .unwrap();
    assert!(
        runtime_line.contains(&format!("({runtime})")),
        "the runtime resolves to the patched checkout: {runtime_line}"
    );
    for line in tree.lines() {
        assert!(
            !line.starts_with("harness-runtime "),
            "an unrelated crate was resolved: {line}"
        );
        if line.starts_with("harness") {
            assert!(line.contains("(/"), "{line} came from a registry");
        }
    }
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
    check_compiles("corpus", &valid_corpus_documents());
}

/// The corpus documents its index expects to be valid.
fn valid_corpus_documents() -> Vec<PathBuf> {
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus("index.json")).unwrap()).unwrap();
    index["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["expect"] == "valid")
        .map(|d| corpus(d["path"].as_str().unwrap()))
        .collect()
}

#[test]
fn bindings_of_representative_catalogs_compile() {
    check_bindings_compile(
        "bindings-representative",
        &[
            root().join("specs/directions.yaml"),
            root().join("specs/hostile.yaml"),
            root().join("specs/keywords.yaml"),
            root().join("specs/streams.yaml"),
            corpus("examples/train-travel.openapi.yaml"),
            corpus("codegen-tests/openapi-python-client_openapi_3.1_enums.yaml"),
        ],
    );
}

#[test]
#[ignore = "compiles the bindings of every valid corpus document's catalog (minutes); run before releases"]
fn bindings_of_every_catalog_the_corpus_produces_compile() {
    check_bindings_compile("bindings-corpus", &valid_corpus_documents());
}

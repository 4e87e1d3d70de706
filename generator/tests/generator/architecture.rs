//! ARCHITECTURE.md's code map stays true: every path it names exists, and every package of the
//! runtime and the generator is named in a section heading (a package that is renamed, moved
//! or added without updating the map fails here).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The backticked items of `text`.
fn ticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whether `item` reads as a path of this repository: it starts at one of its top-level
/// folders and has no placeholder in it.
fn names_a_path(item: &str) -> bool {
    const TOP: &[&str] = &[
        "runtime/",
        "generator/",
        "generated/",
        "tests/",
        "scripts/",
        "specs/",
        "examples/",
        "tools/",
        "editors/",
        "fuzz/",
    ];
    TOP.iter().any(|top| item.starts_with(top))
        && !item.contains(['<', '>', '*', '…', ' ', '$', '{'])
        && looks_like_a_file_or_folder(item)
}

/// Ends in `/` or its last segment has an extension (`tools/list`, an MCP method, does not).
fn looks_like_a_file_or_folder(item: &str) -> bool {
    item.ends_with('/')
        || item
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.'))
}

#[test]
fn every_path_the_code_map_names_exists() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    let mut section: Option<PathBuf> = None;
    for line in map.lines() {
        if line.starts_with("## ") {
            section = None;
        }
        if let Some(heading) = line.strip_prefix("### ") {
            // A section of one folder: its table's paths are relative to it (or its `src/`).
            section = ticked(heading)
                .first()
                .filter(|first| first.ends_with('/'))
                .map(|first| root().join(first));
        }
        for item in ticked(line).into_iter().filter(|item| names_a_path(item)) {
            if !root().join(item).exists() {
                missing.push(item.to_string());
            }
        }
        let (Some(folder), Some(cell)) = (&section, line.strip_prefix("| `")) else {
            continue;
        };
        let first_cell = cell.split(" |").next().unwrap_or_default();
        let first_cell = format!("`{first_cell}");
        for item in ticked(&first_cell)
            .into_iter()
            .filter(|item| looks_like_a_file_or_folder(item))
        {
            if !folder.join(item).exists() && !folder.join("src").join(item).exists() {
                let folder = folder.strip_prefix(root()).unwrap_or(folder);
                missing.push(folder.join(item).display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

/// The name of every package under `runtime/` and `generator/` (the folder and its children).
fn packages() -> Vec<String> {
    let mut manifests = Vec::new();
    for folder in ["runtime", "generator"] {
        manifests.push(root().join(folder).join("Cargo.toml"));
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            manifests.push(entry.unwrap().path().join("Cargo.toml"));
        }
    }
    manifests
        .iter()
        .filter_map(|manifest| std::fs::read_to_string(manifest).ok())
        .filter_map(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|rest| rest.strip_suffix('"'))
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn every_package_of_the_runtime_and_the_generator_has_its_place_in_the_code_map() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let headings: String = map.lines().filter(|l| l.starts_with("### ")).collect();
    let packages = packages();
    assert!(packages.len() >= 7, "found only {packages:?}");
    let unnamed: Vec<&String> = packages
        .iter()
        .filter(|name| !headings.contains(&format!("`{name}`")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "packages missing from ARCHITECTURE.md's headings: {unnamed:?}"
    );
    let unknown: Vec<&str> = ticked(&headings)
        .into_iter()
        .filter(|named| named.starts_with("harness-gen") && !packages.iter().any(|p| p == named))
        .collect();
    assert!(
        unknown.is_empty(),
        "ARCHITECTURE.md's headings name no package: {unknown:?}"
    );
}

/// The workspace's packages by layer, lowest first. A package depends (normal and build
/// dependencies) only on packages of lower layers, so there is no circle, and no projection
/// (the CLI, the MCP server, the dashboard, the bridge: one layer) depends on another.
const LAYERS: &[&[&str]] = &[
    &["harness-gen-wire", "harness-gen-macros"],
    &["harness-gen-types", "harness-gen-contract"],
    &["harness-gen-registry", "harness-gen-lang"],
    &["harness-gen-client", "harness-gen"],
    &["harness-gen-serve"],
    &[
        "harness-gen-command",
        "harness-gen-mcp",
        "harness-gen-dashboard",
        "harness-gen-bridge",
    ],
    &["harness-gen-runtime"],
    &["harness-gen-cli"],
];

fn layer(package: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&package))
}

/// The packages of ours `manifest` depends on (normal and build dependencies).
fn our_dependencies(manifest: &str) -> Vec<String> {
    let mut section = "";
    let mut found = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or_default().trim();
        if matches!(section, "[dependencies]" | "[build-dependencies]")
            && key.starts_with("harness-gen")
        {
            found.push(key.to_string());
        }
    }
    found
}

#[test]
fn packages_depend_only_downwards_and_no_projection_on_another() {
    let mut wrong = Vec::new();
    for folder in ["runtime", "generator"] {
        let mut manifests = vec![root().join(folder).join("Cargo.toml")];
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            manifests.push(entry.unwrap().path().join("Cargo.toml"));
        }
        for manifest in manifests {
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|rest| rest.strip_suffix('"'))
                .unwrap();
            let Some(own) = layer(name) else {
                wrong.push(format!("{name} has no layer in this test's LAYERS"));
                continue;
            };
            for dependency in our_dependencies(&text) {
                match layer(&dependency) {
                    Some(theirs) if theirs < own => {}
                    _ => wrong.push(format!("{name} depends on {dependency}")),
                }
            }
        }
    }
    assert!(wrong.is_empty(), "packages out of their layers: {wrong:?}");
}

#[test]
fn a_dependency_on_a_package_of_the_same_layer_is_found() {
    let manifest = "[package]\nname = \"harness-gen-mcp\"\n[dependencies]\nharness-gen-command.workspace = true\nharness-gen-registry = { workspace = true }\n[dev-dependencies]\nharness-gen-runtime.workspace = true\n";
    assert_eq!(
        our_dependencies(manifest),
        ["harness-gen-command", "harness-gen-registry"]
    );
    assert_eq!(layer("harness-gen-command"), layer("harness-gen-mcp"));
}

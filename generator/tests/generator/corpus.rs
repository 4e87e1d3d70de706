//! The whole shared corpus through `harness-gen catalog`: every valid document yields a catalog
//! the runtime accepts, every broken one is diagnosed with a location, nothing panics.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};

use harness_gen::diag::{Diagnostics, Severity};
use harness_gen_runtime::Catalog;
use serde_json::Value;

fn corpus() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    assert!(
        dir.join("index.json").exists(),
        "the shared corpus is missing at {}",
        dir.display()
    );
    dir
}

fn listed() -> Vec<(String, String)> {
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(corpus().join("index.json")).unwrap())
            .unwrap();
    index["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["expect"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn run(path: &str) -> (Option<Catalog>, Diagnostics) {
    let mut diags = Diagnostics::default();
    let generated = harness_gen::pipeline::catalog_of(&corpus().join(path), None, &mut diags);
    diags.finish();
    (generated.map(|(_, catalog)| catalog), diags)
}

fn errors(diags: &Diagnostics) -> Vec<String> {
    diags
        .items()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(ToString::to_string)
        .collect()
}

#[test]
fn every_valid_document_yields_a_catalog_the_runtime_accepts() {
    let mut checked = 0;
    for (path, expect) in listed() {
        if expect != "valid" {
            continue;
        }
        let (catalog, diags) = run(&path);
        let errors = errors(&diags);
        assert!(errors.is_empty(), "{path}:\n{}", errors.join("\n"));
        let catalog = catalog.unwrap_or_else(|| panic!("{path}: no catalog"));
        let reparsed = Catalog::from_json(&catalog.to_json_pretty())
            .unwrap_or_else(|e| panic!("{path}: the runtime refuses the catalog:\n{e}"));
        assert_eq!(reparsed, catalog, "{path}");
        checked += 1;
    }
    assert!(checked >= 90, "only {checked} valid documents checked");
}

#[test]
fn every_diagnose_document_gets_a_located_diagnostic_and_fails_under_strict() {
    for (path, expect) in listed() {
        if expect != "diagnose" {
            continue;
        }
        let (_, mut diags) = run(&path);
        assert!(!diags.items().is_empty(), "{path}: no diagnostic");
        for d in diags.items() {
            assert!(d.position.is_some(), "{path}: unlocated: {d}");
        }
        diags.make_strict();
        assert!(diags.has_errors(), "{path}");
    }
}

#[test]
fn every_either_document_is_generated_or_refused_with_a_location() {
    for (path, expect) in listed() {
        if expect != "either" {
            continue;
        }
        let (catalog, diags) = run(&path);
        if diags.has_errors() {
            for d in diags
                .items()
                .iter()
                .filter(|d| d.severity == Severity::Error)
            {
                assert!(d.position.is_some(), "{path}: unlocated: {d}");
            }
        } else {
            let catalog = catalog.unwrap();
            Catalog::from_json(&catalog.to_json_pretty()).unwrap();
        }
    }
}

/// Every document the corpus expects to generate (valid ones, and the `either` ones that
/// generate) makes a crate whose every Rust file parses: the generator refuses its own Rust
/// that does not (HG0702), so the crate is there and no such error is.
#[test]
fn every_document_that_generates_makes_rust_that_parses() {
    let mut generated = 0;
    for (path, expect) in listed() {
        if expect == "diagnose" {
            continue;
        }
        let options = harness_gen::emit::krate::Options {
            crate_name: Some("swept".into()),
            runtime_path: None,
            command: format!("harness-gen openapi {path}"),
            harness: None,
            listing_budget: None,
        };
        let mut diags = Diagnostics::default();
        let krate = harness_gen::generate_crate(&corpus().join(&path), &options, &mut diags);
        assert!(
            !diags.has(harness_gen::diag::Code::UnparsableRust),
            "{path}:\n{diags}"
        );
        if expect == "valid" {
            let (krate, _) = krate.unwrap_or_else(|| panic!("{path}: no crate:\n{diags}"));
            assert!(krate.files.contains_key("src/types.rs"), "{path}");
        }
        generated += 1;
    }
    assert!(generated >= 90, "only {generated} documents generated");
}

#[test]
fn generation_is_deterministic() {
    for path in [
        "examples/train-travel.openapi.yaml",
        "progenitor/nexus.json",
    ] {
        let (a, _) = run(path);
        let (b, _) = run(path);
        assert_eq!(
            a.unwrap().to_json_pretty(),
            b.unwrap().to_json_pretty(),
            "{path}"
        );
    }
}

/// The guard on what a user of a big API compiles: the Rust generated for GitHub Enterprise
/// 3.6 (809 operations), in bytes per operation, stays under the budget measured when it was
/// set (the book's performance page, "Compile cost of generated crates", has the check times
/// that go with it).
/// A change that adds to every operation shows here, as a figure, before anyone times a build.
#[test]
fn generated_rust_per_operation_of_ghes_stays_under_its_budget() {
    const BUDGET: usize = 6_750;
    let options = harness_gen::emit::krate::Options {
        crate_name: Some("ghes".into()),
        runtime_path: None,
        command: "harness-gen openapi ghes".into(),
        harness: None,
        listing_budget: None,
    };
    let mut diags = Diagnostics::default();
    let spec = corpus().join("large/ghes-3.6.descriptions-next.2023-03-08.json");
    let (krate, catalog) = harness_gen::generate_crate(&spec, &options, &mut diags)
        .unwrap_or_else(|| panic!("GHES did not generate:\n{diags}"));
    let rust: usize = krate
        .files
        .iter()
        .filter(|(path, _)| path.starts_with("src/") && path.ends_with(".rs"))
        .map(|(_, text)| text.len())
        .sum();
    let per_operation = rust / catalog.tools.len();
    assert_eq!(catalog.tools.len(), 809);
    assert!(
        per_operation <= BUDGET,
        "GHES: {per_operation} bytes of Rust per operation, over the budget of {BUDGET}"
    );
    eprintln!("GHES: {per_operation} bytes of Rust per operation (budget {BUDGET})");
}

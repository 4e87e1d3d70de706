//! The one helper the generator's rule tests go through: map an inline document and look at
//! its catalog and diagnostics.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;

use harness_gen::diag::{Code, Diagnostics, Severity};
use harness_gen::load::Document;
use serde_json::Value;

/// The start of a minimal 3.1 document.
pub const HEADER: &str = "openapi: 3.1.0\ninfo: {title: Test API, version: 1.0.0}\n";

/// A document with these `paths:` lines (indented by two).
pub fn paths(lines: &str) -> String {
    format!("{HEADER}paths:\n{lines}")
}

/// A document with one operation; `body` is the operation's YAML (indented by the helper).
pub fn op(method: &str, path: &str, body: &str) -> String {
    let indented: String = body.lines().map(|l| format!("      {l}\n")).collect();
    paths(&format!("  {path}:\n    {method}:\n{indented}"))
}

/// What mapping a document gave.
pub struct Out {
    /// The catalog as JSON (even when there are errors).
    pub catalog: Value,
    /// Rendered diagnostics, one per line.
    pub diags: String,
    /// The operation groups (cargo features of a generated crate): feature → the names of the
    /// operations' tools, in document order.
    pub groups: BTreeMap<String, Vec<String>>,
    items: Vec<(Code, Severity, String)>,
}

impl Out {
    /// The i-th tool of the catalog.
    pub fn tool(&self, i: usize) -> &Value {
        &self.catalog["tools"][i]
    }

    /// Whether a diagnostic with `code` is at `pointer`.
    pub fn has(&self, code: Code, pointer: &str) -> bool {
        self.items
            .iter()
            .any(|(c, _, p)| *c == code && p == pointer)
    }

    /// Whether a note with `code` is at `pointer`.
    pub fn has_note(&self, code: Code, pointer: &str) -> bool {
        self.items
            .iter()
            .any(|(c, s, p)| *c == code && *s == Severity::Note && p == pointer)
    }

    /// Whether an error with `code` is at `pointer`.
    pub fn has_error(&self, code: Code, pointer: &str) -> bool {
        self.items
            .iter()
            .any(|(c, s, p)| *c == code && *s == Severity::Error && p == pointer)
    }

    /// Whether any diagnostic is an error.
    pub fn has_any_error(&self) -> bool {
        self.items.iter().any(|(_, s, _)| *s == Severity::Error)
    }
}

/// Asserts that `diags` holds nothing but the listing report (note HG0510), which every
/// generation with MCP tools gives.
pub fn assert_only_the_listing_report(diags: &Diagnostics) {
    assert!(
        diags
            .items()
            .iter()
            .all(|d| d.code == Code::Listing && d.severity == Severity::Note),
        "{diags}"
    );
}

/// Maps `yaml` (as if read from `test.yaml`).
pub fn check(yaml: &str) -> Out {
    check_named("test.yaml", yaml)
}

/// Maps `text` as if read from `name`.
pub fn check_named(name: &str, text: &str) -> Out {
    let mut diags = Diagnostics::default();
    let doc = Document::from_text(Path::new(name), text.to_string(), &mut diags)
        .unwrap_or_else(|| panic!("the document did not load:\n{diags}"));
    let (api, catalog) = harness_gen::catalog::from_document(&doc, None, &mut diags);
    diags.finish();
    let mut groups: BTreeMap<String, Vec<String>> = api
        .groups
        .iter()
        .map(|g| (g.feature.clone(), Vec::new()))
        .collect();
    for op in &api.operations {
        for &g in &op.groups {
            groups
                .get_mut(&api.groups[g].feature)
                .unwrap()
                .push(op.entry.name.as_str().to_string());
        }
    }
    Out {
        catalog: serde_json::to_value(&catalog).unwrap(),
        diags: diags.to_string(),
        groups,
        items: diags
            .items()
            .iter()
            .map(|d| (d.code, d.severity, d.pointer.clone()))
            .collect(),
    }
}

/// `types.rs` of the document at `spec`.
pub fn types_from(spec: &Path) -> harness_gen::emit::Types {
    let mut diags = Diagnostics::default();
    let (api, _) = harness_gen::pipeline::catalog_of(spec, None, &mut diags).unwrap();
    harness_gen::emit::types_file(
        &api,
        harness_gen::emit::types::Extras::CRATE,
        harness_gen::emit::Gating::Features,
        None,
    )
}

/// `types.rs` of the document `text`, written as `name` in a scratch folder.
pub fn types_of_document(name: &str, text: &str) -> harness_gen::emit::Types {
    let dir = std::env::temp_dir().join(format!("hg-sample-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join(name);
    std::fs::write(&spec, text).unwrap();
    let generated = types_from(&spec);
    let _ = std::fs::remove_dir_all(&dir);
    generated
}

/// The generated crate's files for the document `text` (written in a scratch folder).
pub fn crate_files(name: &str, text: &str) -> BTreeMap<String, String> {
    let dir = std::env::temp_dir().join(format!("hg-files-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join(name);
    std::fs::write(&spec, text).unwrap();
    let options = harness_gen::emit::krate::Options {
        crate_name: Some("sample".into()),
        runtime_path: None,
        command: "harness-gen openapi".into(),
        harness: None,
        listing_budget: None,
    };
    let mut diags = harness_gen::diag::Diagnostics::default();
    let (krate, _) = harness_gen::generate_crate(&spec, &options, &mut diags).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    krate.files
}

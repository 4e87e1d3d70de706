//! The reference implementation's bundles in `../shared/fixtures/harness/` resolve to its
//! revisions and preambles byte for byte (pretty) and in canonical JSON.

use std::path::{Path, PathBuf};

use harness_gen_runtime::harness::{self, Bundle, canonical::canonical_json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/harness")
}

fn read(name: &str) -> String {
    let path = fixtures().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check(program: &str, harness_id: &str, runtime: &str, explicit: bool) {
    let bundle: Bundle = serde_json::from_str(&read(&format!("{program}.bundle.json"))).unwrap();
    // The bundle's own types reproduce its file.
    assert_eq!(
        harness::to_pretty_json(&bundle),
        read(&format!("{program}.bundle.json"))
    );
    let revision = harness::resolve(&bundle, harness_id, explicit.then_some(runtime)).unwrap();
    let suffix = if explicit { runtime } else { "auto" };
    let expected = read(&format!("{program}.{harness_id}.{suffix}.revision.json"));
    assert_eq!(harness::to_pretty_json(&revision), expected);
    let expected_value: serde_json::Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(canonical_json(&revision), canonical_json(&expected_value));
    assert_eq!(revision.revision_id, harness::revision_id_of(&revision));

    let preamble = harness::preamble(&bundle, &revision);
    assert_eq!(
        harness::to_pretty_json(&preamble),
        read(&format!("{program}.{harness_id}.{suffix}.preamble.json"))
    );
}

#[test]
fn minimal_resolves_its_single_target_to_the_reference_revision() {
    check("minimal", "my-agent", "qoder", false);
}

#[test]
fn standard_coding_resolves_on_pi_to_the_reference_revision() {
    check("standard-coding", "standard-coding", "pi", true);
}

#[test]
fn standard_coding_resolves_on_qoder_to_the_reference_revision() {
    check("standard-coding", "standard-coding", "qoder", true);
}

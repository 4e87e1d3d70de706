//! The x-harn sample API in `specs/`: its catalog is reviewed as a snapshot.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;

use harness_gen::diag::Diagnostics;

#[test]
fn the_sample_catalog_matches_its_snapshot() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/petstore.yaml");
    let mut diags = Diagnostics::default();
    let (_, catalog) = harness_gen::catalog::generate(&spec, None, &mut diags).unwrap();
    assert!(diags.items().is_empty(), "{diags}");
    insta::assert_snapshot!("petstore_catalog", catalog.to_json_pretty());
}

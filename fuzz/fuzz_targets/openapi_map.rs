//! Any bytes as an OpenAPI document (YAML, which includes JSON): loading and mapping to the
//! catalog never panic, and rendering the diagnostics (positions included) never does either.
#![no_main]

use std::path::Path;

use harness_gen::diag::Diagnostics;
use harness_gen::load::Document;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let mut diags = Diagnostics::default();
    if let Some(doc) = Document::from_text(Path::new("fuzz.yaml"), text, &mut diags) {
        let _ = harness_gen::catalog::from_document(&doc, None, &mut diags);
    }
    let _ = diags.to_string();
});

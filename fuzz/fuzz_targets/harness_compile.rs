//! Any bytes as a `.harness` file: the compiler never panics, and whatever it accepts resolves
//! against every runtime, renders a preamble and a Pi package without panicking.
#![no_main]

use harness_gen::harness::{compile_sources, diag::Sources};
use harness_gen_runtime::harness;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let sources = Sources {
        files: vec![("fuzz.harness".to_owned(), text)],
    };
    match compile_sources(&sources) {
        Ok(bundle) => {
            for (_, _, outcome) in harness::resolve_all(&bundle) {
                if let Ok(revision) = outcome {
                    let _ = harness::preamble(&bundle, &revision);
                    let _ = harness::pi_package(&bundle, &revision);
                }
            }
        }
        Err(diags) => {
            let _ = sources.render(&diags);
        }
    }
});

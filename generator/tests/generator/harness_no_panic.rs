//! Property tests: arbitrary bytes and arbitrary token soups never panic the `.harness`
//! compiler, and whatever it accepts resolves, renders a preamble and packages without
//! panicking. Every diagnostic points inside its file.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_gen::harness::compile_sources;
use harness_gen::harness::diag::Sources;
use harness_gen::harness::lexer::KEYWORDS;
use harness_gen_runtime::harness;
use proptest::prelude::*;

fn run(files: Vec<String>) {
    let sources = Sources {
        files: files
            .into_iter()
            .enumerate()
            .map(|(i, text)| (format!("f{i}.harness"), text))
            .collect(),
    };
    // What parses formats, to a layout that formats to itself and compiles to the same bundle.
    let mut formatted = sources.clone();
    for (file, (_, text)) in formatted.files.iter_mut().enumerate() {
        if let Ok(layout) = harness_gen::harness::format::format(&sources, file) {
            let again = Sources {
                files: vec![("again.harness".into(), layout.clone())],
            };
            assert_eq!(
                harness_gen::harness::format::format(&again, 0)
                    .ok()
                    .as_ref(),
                Some(&layout),
                "not idempotent on {text:?}"
            );
            *text = layout;
        }
    }
    let compiled = compile_sources(&sources);
    if let Ok(bundle) = &compiled {
        let canonical = harness::canonical::canonical_json;
        assert_eq!(
            compile_sources(&formatted).ok().map(|b| canonical(&b)),
            Some(canonical(bundle)),
            "formatting changed the meaning of {:?}",
            sources.files
        );
    }
    match compiled {
        Ok(bundle) => {
            for (_, _, outcome) in harness::resolve_all(&bundle) {
                if let Ok(revision) = outcome {
                    let _ = harness::preamble(&bundle, &revision);
                    let _ = harness::pi_package(&bundle, &revision);
                }
            }
            let _ = harness::to_pretty_json(&bundle);
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in &diags {
                let (_, text) = sources
                    .files
                    .iter()
                    .find(|(name, _)| *name == d.file)
                    .unwrap();
                let lines = text.split('\n').count() as u32;
                assert!(
                    d.line >= 1 && d.line <= lines,
                    "{d:?} outside {lines} lines"
                );
                assert!(d.column >= 1);
            }
            let _ = sources.render(&diags);
        }
    }
}

fn token() -> impl Strategy<Value = String> {
    let mut words: Vec<String> = KEYWORDS.iter().map(|k| (*k).to_owned()).collect();
    words.extend(
        [
            "{",
            "}",
            "[",
            "]",
            ",",
            ".",
            "=",
            "->",
            "a",
            "b",
            "pi",
            "qoder",
            "s",
            "t",
            "w",
            "h",
            "x.y",
            "\"text\"",
            "\"a\\tb\\q\"",
            "\"",
            "10m",
            "250ms",
            "42",
            "9007199254740993",
            "plugin",
            "composition",
            "/*",
            "*/",
            "//",
            "\n",
            "a->b",
            "é",
            ";",
        ]
        .iter()
        .map(|s| (*s).to_owned()),
    );
    prop::sample::select(words)
}

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..80).prop_map(|tokens| tokens.join(" "))
}

/// A valid program exercising every declaration.
const PROGRAM: &str = "skill s { description \"d\" permissions { workspace read } }\n\
    tool t.x { input { a } output { b } }\n\
    mcp m { transport stdio command \"c\" }\n\
    workflow w { a -> b on b.failed -> a stop when b.done }\n\
    runtime r { adapter \"x\" execution programmatic.py { k v } }\n\
    harness h { workflow w agent a { use skill s { preferred enforced } } agent b { require tool t.x connect mcp m } configure { k = 1 d = 5s } }\n\
    binding s for [pi, r] { mechanism pi.ext strength wired notes \"n\" }\n\
    target pi uses adapter.pi\n";

#[test]
fn the_near_valid_base_program_compiles() {
    let sources = Sources {
        files: vec![("p.harness".to_owned(), PROGRAM.to_owned())],
    };
    assert!(compile_sources(&sources).is_ok());
}

/// Small programs that are mostly valid, with one token dropped or repeated.
fn near_valid() -> impl Strategy<Value = String> {
    let tokens: Vec<&'static str> = PROGRAM.split(' ').collect();
    let len = tokens.len();
    (0..len, 0..3usize).prop_map(move |(at, edit)| {
        let mut edited: Vec<&str> = tokens.clone();
        match edit {
            0 => {
                edited.remove(at);
            }
            1 => edited.insert(at, tokens[at]),
            _ => edited.swap(at, (at + 1) % len),
        }
        edited.join(" ")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        run(vec![String::from_utf8_lossy(&bytes).into_owned()]);
    }

    #[test]
    fn token_soups_never_panic(a in soup(), b in soup()) {
        run(vec![a, b]);
    }

    #[test]
    fn near_valid_programs_never_panic(program in near_valid()) {
        run(vec![program]);
    }
}

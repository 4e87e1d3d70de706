//! `harness-gen-lang`: the `.harness` language, shared by the generator (which embeds compiled
//! programs in crates) and its command line (compile, format, diff, the language server).
//!
//! The compiler (spec: `shared/brief/harness-dsl.md`): [`lexer`] → [`parser`]
//! (located syntax tree, error recovery) → [`lower`] (every rejection of §6, then the IR
//! 0.2.0 [`Bundle`]). Resolution, revisions, preambles and the Pi package live in
//! `harness_gen_contract::harness`, which generated crates use at run time. [`format`] prints a
//! program in the one canonical layout; [`diff`] compares two bundles or revisions by meaning.
#![deny(missing_docs)]

pub mod diag;
pub mod diff;
pub mod format;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod syntax;

use std::path::Path;

use harness_gen_contract::harness::Bundle;

use diag::{Code, Diagnostic, Sources, Span};

/// A compiled program: the bundle and the located syntax it came from.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The IR bundle.
    pub bundle: Bundle,
    /// Each file's declarations, with positions (for checks against other inputs).
    pub parsed: Vec<syntax::Parsed>,
}

/// Compiles in-memory files `(name, text)` into one bundle, in the order given.
pub fn compile_sources(sources: &Sources) -> Result<Bundle, Vec<Diagnostic>> {
    compile_located(sources).map(|compiled| compiled.bundle)
}

/// Like [`compile_sources`], keeping the syntax tree.
pub fn compile_located(sources: &Sources) -> Result<Compiled, Vec<Diagnostic>> {
    let (parsed, bundle) = compile_parts(sources);
    Ok(Compiled {
        bundle: bundle?,
        parsed,
    })
}

/// Each file's syntax tree (what parsed of it, whatever else failed) and the bundle or every
/// diagnostic: what [`compile_located`] and the language server both need.
pub fn compile_parts(sources: &Sources) -> (Vec<syntax::Parsed>, Result<Bundle, Vec<Diagnostic>>) {
    let mut diags = Vec::new();
    let parsed: Vec<syntax::Parsed> = (0..sources.files.len())
        .map(|file| {
            let lexed = lexer::lex(sources, file, &mut diags);
            parser::parse(&lexed, sources, &mut diags)
        })
        .collect();
    let bundle = lower::lower(sources, &parsed, diags);
    (parsed, bundle)
}

/// Reads and compiles `paths`. The sources come back too, to render diagnostics.
pub fn compile_files(paths: &[impl AsRef<Path>]) -> (Sources, Result<Compiled, Vec<Diagnostic>>) {
    let mut sources = Sources::default();
    let mut unreadable = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let name = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => sources.files.push((name, text)),
            Err(error) => {
                sources.files.push((name, String::new()));
                let span = Span {
                    file: sources.files.len() - 1,
                    line: 1,
                    column: 1,
                };
                unreadable.push(sources.diagnostic(
                    Code::Unreadable,
                    span,
                    format!("cannot read this file ({error}); check the path and permissions"),
                ));
            }
        }
    }
    if !unreadable.is_empty() {
        return (sources, Err(unreadable));
    }
    let result = compile_located(&sources);
    (sources, result)
}

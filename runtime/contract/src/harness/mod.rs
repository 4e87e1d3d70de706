//! The `.harness` resource model at run time: the IR 0.2.0 a compiled program becomes
//! ([`ir`]), canonical JSON and content hashes ([`canonical`]), resolution of one harness
//! against one runtime into an immutable revision ([`resolve()`]), and what an executor is
//! handed for a revision ([`preamble()`], [`pi_package`]).
//!
//! `harness-gen` compiles `.harness` files into a [`Bundle`]; generated crates embed it and
//! resolve at run time.

pub mod canonical;
mod embedded;
pub mod ir;
mod resolve;
mod run;

pub use embedded::{Embedded, parse as parse_embedded};
pub use ir::{Bundle, ResolutionReport, Revision};
pub use resolve::{
    PROMPT_PREAMBLE, Resolution, merge_permissions, resolve, resolve_all, revision_id_of,
};
pub use run::{PI_HOST, PackageFile, Preamble, guidance, pi_package, preamble};

/// Pretty JSON as the reference implementation writes it (two-space indent, fields in its
/// order) with a final newline.
pub fn to_pretty_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

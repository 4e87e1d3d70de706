//! The Rust programs of the README and the book, compiled by the end-to-end tests (the pages
//! include them, or repeat them verbatim: `tests/tests/e2e/docs.rs` checks which).
#![allow(dead_code)]

mod bindings;
mod build_rs;
mod resources;
mod runtime;
mod sdk;

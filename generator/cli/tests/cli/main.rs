//! The command line's integration tests, one binary: the `harness-gen` commands as processes
//! (generation, the `.harness` commands against the reference fixtures, the language server,
//! interruption, secrets kept out of output) and the `.harness` commands in process.

mod cli;
mod explain;
mod harness_diff;
mod harness_fixtures;
mod harness_fmt;
mod harness_lsp;
mod interrupted;
mod secrets;

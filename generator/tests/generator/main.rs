//! The generator's integration tests, one binary: each module is one area (rules of the mapping,
//! the commands as processes, the `.harness` compiler, compile checks of generated crates).

mod bad_inputs;
mod builder;
mod cli;
mod cli_names;
mod common;
mod corpus;
mod events;
mod groups;
mod harness_diagnostics;
mod harness_diff;
mod harness_fixtures;
mod harness_fmt;
mod harness_grammar;
mod harness_lsp;
mod harness_no_panic;
mod harness_resolve;
mod interrupted;
mod load;
mod mapping;
mod no_panic;
mod pagination;
mod sample;
mod secrets;
mod types;
mod types_compile;
mod xharn;

//! The generator library's integration tests, one binary: each module is one area (rules of the
//! mapping, the `.harness` compiler, compile checks of generated crates). The command line's
//! tests (its commands as processes) are `harness-gen-cli`'s.

mod architecture;
mod bad_inputs;
mod builder;
mod cli_names;
mod common;
mod corpus;
mod credentials;
mod events;
mod groups;
mod harness_diagnostics;
mod harness_grammar;
mod harness_no_panic;
mod harness_resolve;
mod load;
mod mapping;
mod names;
mod no_panic;
mod pagination;
mod sample;
mod types;
mod types_compile;
mod xharn;

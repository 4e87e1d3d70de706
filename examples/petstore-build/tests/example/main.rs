//! The example's tests, one binary: the generated client against a loopback server, and
//! the build script's rebuild rules.

mod client;
mod rerun;

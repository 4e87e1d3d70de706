//! `harness-gen-cli`: the `harness-gen` command on top of the `harness-gen` library, with what
//! only a command line needs: `bindings --from-mcp` (a live server's listing read through the
//! runtime's MCP client), the `.harness` commands and language server, the catalog format's
//! artifacts and the book's reference pages. `src/main.rs` parses the arguments and calls these.
#![deny(missing_docs)]

pub mod artifacts;
pub mod commands;
pub mod from_mcp;
pub mod lsp;
pub mod reference;

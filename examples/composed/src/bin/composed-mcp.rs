//! The `composed-mcp` MCP server: every MCP tool of both APIs and the tools written in Rust,
//! over stdio or Streamable HTTP.
#[global_allocator]
static ALLOCATOR: harness_gen_runtime::Allocator = harness_gen_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_gen_runtime::mcp::main(&harness_gen_runtime::mcp::Program {
        name: env!("CARGO_BIN_NAME"),
        version: env!("CARGO_PKG_VERSION"),
        registry: &composed::registry,
        harness: Some(composed::HARNESS_JSON),
    })
}

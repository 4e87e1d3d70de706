//! The `composed` command-line program: the pet store's commands under `petstore`, the train
//! travel API's under `travel`, and the tools written in Rust beside them.
#[global_allocator]
static ALLOCATOR: harness_gen_runtime::Allocator = harness_gen_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_gen_runtime::cli::main(&harness_gen_runtime::cli::Program {
        name: env!("CARGO_BIN_NAME"),
        version: env!("CARGO_PKG_VERSION"),
        // A composed registry has no generated index: every entry is read at start.
        index: None,
        registry: &composed::registry,
    })
}

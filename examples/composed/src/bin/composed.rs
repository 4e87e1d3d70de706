//! The `composed` command-line program: the pet store's commands under `petstore`, the train
//! travel API's under `travel`, and the tools written in Rust beside them.
#[global_allocator]
static ALLOCATOR: harness_gen_runtime::Allocator = harness_gen_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_gen_runtime::cli::main_composed(&harness_gen_runtime::cli::Composed {
        name: env!("CARGO_BIN_NAME"),
        version: env!("CARGO_PKG_VERSION"),
        composer: &composed::composer,
    })
}

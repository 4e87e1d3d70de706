//! The end-to-end tests, one binary: generated crates, their CLI and MCP programs and the SDK,
//! run against real servers on loopback (the axum pet store of `src/`, Prism) and real clients.

mod big_listing;
mod body_options;
mod bridge;
mod comparison;
mod composed;
mod conformance;
mod crash_sweep;
mod dashboard;
mod directions;
mod docs;
mod file_projections;
mod openai;
mod operated;
mod pages;
mod petstore;
mod petstore_bin;
mod petstore_cli;
mod petstore_harness;
mod petstore_mcp;
mod petstore_mcp_stress;
mod petstore_mcp_tasks;
mod prism;
mod readme;
mod secrets;
mod security;
mod streams;
mod tutorial;
mod types;
mod uploads;
mod wire;

/// Runs a generated crate's command-line program in process, as its `src/bin` program does
/// (on a thread of its own: the program starts its own runtime), with the registry `factory`
/// makes; `tty` says whether standard output is a terminal. The exit code, standard output and
/// standard error.
pub(crate) fn run_cli<F>(
    (name, version): (&str, &str),
    index: &'static harness_gen_runtime::catalog::index::CatalogIndex,
    factory: F,
    args: &[&str],
    tty: bool,
) -> (i32, Vec<u8>, String)
where
    F: Fn(
            Option<String>,
            &dyn Fn(&str) -> bool,
        ) -> Result<harness_gen_runtime::ToolRegistry, String>
        + Sync,
{
    let mut argv = vec![name.into()];
    argv.extend(args.iter().map(|a| (*a).into()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = std::thread::scope(|s| {
        s.spawn(|| {
            let program = harness_gen_runtime::cli::Program {
                name,
                version,
                index: Some(index),
                registry: &factory,
            };
            harness_gen_runtime::cli::run(&program, argv, &mut out, &mut err, tty)
        })
        .join()
        .expect("the program ran")
    });
    (
        code,
        out,
        String::from_utf8(err).expect("standard error is text"),
    )
}

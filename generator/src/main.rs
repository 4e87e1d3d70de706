//! The `harness-gen` command.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "harness-gen",
    version,
    about = "OpenAPI in, typed Rust tool registries out"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the harn-tools/2.0 catalog of an OpenAPI document.
    Catalog {
        /// The OpenAPI document (JSON or YAML).
        spec: PathBuf,
        /// Where to write the catalog (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The registry name recorded in the catalog (default: the title in kebab-case).
        #[arg(long)]
        name: Option<String>,
        /// Treat warnings as errors.
        #[arg(long)]
        strict: bool,
    },

    /// Regenerate the catalog format's JSON Schema and TypeScript declaration.
    Artifacts {
        /// Where the artifacts live.
        #[arg(long, default_value = "runtime/schema")]
        dir: PathBuf,
        /// Write nothing; exit 1 listing the files that would change.
        #[arg(long)]
        check: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Catalog {
            spec,
            out,
            name,
            strict,
        } => {
            let mut diags = harness_gen::diag::Diagnostics::default();
            let generated = harness_gen::catalog::generate(&spec, name.as_deref(), &mut diags);
            if strict {
                diags.make_strict();
            }
            diags.finish();
            eprint!("{diags}");
            let Some((_, catalog)) = generated.filter(|_| !diags.has_errors()) else {
                return Ok(ExitCode::FAILURE);
            };
            let text = catalog.to_json_pretty();
            match out {
                Some(path) => harness_gen::artifacts::write_atomically(&path, &text)?,
                None => print!("{text}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Artifacts { dir, check: true } => {
            let stale = harness_gen::artifacts::stale(&dir);
            for path in &stale {
                println!("stale: {}", path.display());
            }
            Ok(if stale.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Artifacts { dir, check: false } => {
            for path in harness_gen::artifacts::write(&dir)? {
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

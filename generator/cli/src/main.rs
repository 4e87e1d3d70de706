//! The `harness-gen` command.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use harness_gen_cli::commands::{Common, DiffArgs, Selection};

// Generation allocates millions of small values (the document, the model, tokens and syntax
// trees); mimalloc makes GHES 3.6 about 30 % faster than the system allocator (README,
// "Benchmarks").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

    /// Generate a Rust crate (types, client, tool registry, catalog) from an OpenAPI document.
    Openapi(Openapi),
    /// Generate typed Rust bindings (a crate) of a harn-tools/2.0 catalog: one typed method per
    /// tool, called in process or over MCP (stdio or Streamable HTTP).
    Bindings(Bindings),
    /// Compile and resolve `.harness` programs.
    #[command(subcommand)]
    Harness(HarnessCommand),
    /// Explain a diagnostic code (`harness-gen explain HG0504`): what it means, an example that
    /// triggers it and what to do. Without a code, list every code.
    Explain {
        /// The code, such as HG0504, HL0202 or HR0301.
        code: Option<String>,
    },
    /// Regenerate the catalog format's JSON Schema and TypeScript declaration, and the book's
    /// reference pages (diagnostics, x-harn, these commands), from the code they describe.
    Artifacts {
        /// Where the catalog format's artifacts live.
        #[arg(long, default_value = "runtime/schema")]
        dir: PathBuf,
        /// Where the book's generated reference pages live.
        #[arg(long, default_value = "docs/src/reference")]
        docs: PathBuf,
        /// Write nothing; exit 1 listing the files that would change.
        #[arg(long)]
        check: bool,
    },
}

#[derive(Subcommand)]
enum HarnessCommand {
    /// Print the IR bundle of the files (exit 0), or their diagnostics (exit 1).
    Compile {
        #[command(flatten)]
        common: Common,
    },
    /// Print the revision of one harness on one runtime (exit 0), or the failed report (exit 1).
    Resolve {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        selection: Selection,
    },
    /// Print the run preamble of the resolved revision.
    Preamble {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        selection: Selection,
    },
    /// Serve the language server protocol over standard input and output (for editors).
    Lsp,
    /// Compare two programs (or compiled bundles), and with `--harness` their resolved
    /// revisions: per harness and agent, what was added, removed or changed. Exit 0 when
    /// equal, 1 when different, 2 when either side does not compile or resolve.
    Diff {
        #[command(flatten)]
        args: DiffArgs,
    },
    /// Lay the files out in the canonical format, in place (`--check`: only list those that
    /// are not; exit 1 if any). A file that does not parse is left as it is (exit 2).
    Fmt {
        /// The `.harness` files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write nothing; list the files that are not formatted.
        #[arg(long)]
        check: bool,
    },
    /// Write the Pi package of the resolved revision into an empty directory.
    MaterializePi {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        selection: Selection,
        /// The directory (created if missing; refused unless empty).
        #[arg(long)]
        out: PathBuf,
    },
}

/// `harness-gen openapi`'s arguments.
#[derive(clap::Args)]
struct Openapi {
    /// The OpenAPI document (JSON or YAML).
    spec: PathBuf,
    /// The crate's directory (created if missing; must be empty or generated before).
    #[arg(long)]
    out: PathBuf,
    /// The crate name (default: the document's title in kebab-case).
    #[arg(long)]
    crate_name: Option<String>,
    #[command(flatten)]
    runtime: RuntimeDependency,
    /// Write nothing; exit 1 listing the files that would change.
    #[arg(long)]
    check: bool,
    /// Treat warnings as errors.
    #[arg(long)]
    strict: bool,
    /// `.harness` files to compile and embed (`harness` module); repeat for several.
    #[arg(long = "harness")]
    harness: Vec<PathBuf>,
    /// MCP listings copy components up to this many references away from a tool's
    /// schemas (runtime default 2; HARNESS_LISTING_DEPTH overrides at run time).
    #[arg(long)]
    listing_depth: Option<usize>,
    /// MCP listings aim to keep each tool's schemas under this many bytes (runtime default
    /// 8192; HARNESS_LISTING_BYTES overrides at run time).
    #[arg(long)]
    listing_bytes: Option<usize>,
}

/// `harness-gen bindings`'s arguments.
#[derive(clap::Args)]
struct Bindings {
    /// The catalog (`catalog.json` of a generated crate, or any harn-tools/2.0 catalog).
    #[arg(required_unless_present = "from_mcp", conflicts_with = "from_mcp")]
    catalog: Option<PathBuf>,
    /// Read the tools from a live MCP server instead: its Streamable HTTP URL, or the
    /// command line that starts it speaking stdio (split at spaces).
    #[arg(long, value_name = "URL|COMMAND")]
    from_mcp: Option<String>,
    /// The crate's directory (created if missing; must be empty or generated before).
    #[arg(long)]
    out: PathBuf,
    /// The crate name.
    #[arg(long)]
    crate_name: String,
    #[command(flatten)]
    runtime: RuntimeDependency,
    /// Write nothing; exit 1 listing the files that would change.
    #[arg(long)]
    check: bool,
}

/// Where a generated crate finds `harness-gen-runtime`.
#[derive(clap::Args)]
struct RuntimeDependency {
    /// Depend on harness-gen-runtime at this path too (default: when this program runs from a
    /// harness-gen checkout, that checkout's `runtime/`, so the crate builds before anything
    /// is published).
    #[arg(long, conflicts_with = "published_runtime")]
    runtime_path: Option<String>,
    /// Depend on the published harness-gen-runtime alone, even from a harness-gen checkout.
    #[arg(long)]
    published_runtime: bool,
}

impl RuntimeDependency {
    /// The runtime path the crate in `out` depends on, if any, and whether it was given.
    fn resolve(&self, out: &std::path::Path) -> (Option<String>, bool) {
        match (&self.runtime_path, self.published_runtime) {
            (Some(path), _) => (Some(path.clone()), true),
            (None, true) => (None, false),
            (None, false) => (checkout_runtime(out), false),
        }
    }
}

/// The `runtime/` of the harness-gen checkout this program was built from, as a path from
/// `out`, when the program runs from one (an installed release finds none).
fn checkout_runtime(out: &std::path::Path) -> Option<String> {
    let runtime = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime");
    let manifest = std::fs::read_to_string(runtime.join("Cargo.toml")).ok()?;
    if !manifest
        .lines()
        .any(|line| line.trim() == "name = \"harness-gen-runtime\"")
    {
        return None;
    }
    let runtime = runtime.canonicalize().ok()?;
    let out = std::path::absolute(out).ok()?;
    Some(relative(&out, &runtime).display().to_string())
}

/// `to` as a path from the directory `from` (both absolute; `from` need not exist yet).
fn relative(from: &std::path::Path, to: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    // `from` may hold `.` or `..` (it is not canonical until it exists).
    let mut base = std::path::PathBuf::new();
    for part in from.components() {
        match part {
            Component::ParentDir => {
                base.pop();
            }
            Component::CurDir => {}
            other => base.push(other),
        }
    }
    let base = base.canonicalize().unwrap_or(base);
    let shared = base
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut path = std::path::PathBuf::new();
    for _ in base.components().skip(shared) {
        path.push("..");
    }
    path.extend(to.components().skip(shared));
    path
}

fn harness(command: HarnessCommand) -> ExitCode {
    use harness_gen_cli::commands;
    let outcome = match command {
        HarnessCommand::Compile { common } => commands::compile(&common),
        HarnessCommand::Resolve { common, selection } => commands::resolve(&common, &selection),
        HarnessCommand::Preamble { common, selection } => commands::preamble(&common, &selection),
        HarnessCommand::Fmt { files, check } => commands::fmt(&files, check),
        HarnessCommand::Diff { args } => commands::diff(&args),
        HarnessCommand::Lsp => {
            harness_gen_cli::lsp::run();
            return ExitCode::SUCCESS;
        }
        HarnessCommand::MaterializePi {
            common,
            selection,
            out,
        } => commands::materialize_pi(&common, &selection, &out),
    };
    print!("{}", outcome.stdout);
    eprint!("{}", outcome.stderr);
    ExitCode::from(outcome.status)
}

/// The exit status of a run ended by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
const INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    // An interrupt waits for a write in progress to roll back or finish (see `output`), so the
    // output directory is never left half written.
    let _ = ctrlc::set_handler(|| {
        harness_gen::output::interrupt();
        eprintln!("interrupted");
        std::process::exit(INTERRUPTED.into());
    });
    // Only in builds for this crate's tests (feature `test-hooks`).
    #[cfg(feature = "test-hooks")]
    if let Some(ms) = std::env::var("HARNESS_GEN_TEST_STEP_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        harness_gen::output::set_step_delay_for_tests(ms);
    }
    let result = run(Cli::parse());
    if harness_gen::output::interrupted() {
        // The handler is finishing the process; whatever the write did is whole.
        return ExitCode::from(INTERRUPTED);
    }
    match result {
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
            let generated = harness_gen::generate_catalog_text(&spec, name.as_deref(), &mut diags);
            if strict {
                diags.make_strict();
            }
            diags.finish();
            eprint!("{diags}");
            let Some(text) = generated.filter(|_| !diags.has_errors()) else {
                return Ok(ExitCode::FAILURE);
            };
            match out {
                Some(path) => harness_gen::output::write_atomically(&path, &text)?,
                None => print!("{text}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi(args) => openapi(args),
        Command::Bindings(args) => bindings(args),
        Command::Harness(command) => Ok(harness(command)),
        Command::Explain { code: None } => {
            for entry in harness_gen::explain::all() {
                println!("{}  {}", entry.code, entry.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { code: Some(code) } => match harness_gen::explain::explain(&code) {
            Some(entry) => {
                print!("{entry}");
                Ok(ExitCode::SUCCESS)
            }
            None => {
                eprintln!(
                    "error: no diagnostic code `{}`: codes look like HG0504 (generator), HL0202 (.harness) or HR0301 (runtime); `harness-gen explain` lists them",
                    harness_gen::diag::printable(&code)
                );
                Ok(ExitCode::from(2))
            }
        },
        Command::Artifacts {
            dir,
            docs,
            check: true,
        } => {
            let files = harness_gen_cli::artifacts::files(&dir, &docs, &Cli::command());
            let stale = harness_gen_cli::artifacts::stale(files);
            for path in &stale {
                println!("stale: {}", path.display());
            }
            Ok(if stale.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Artifacts {
            dir,
            docs,
            check: false,
        } => {
            let files = harness_gen_cli::artifacts::files(&dir, &docs, &Cli::command());
            for path in harness_gen_cli::artifacts::write(files)? {
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `harness-gen openapi`: the crate of a document, with its `.harness` programs.
fn openapi(args: Openapi) -> anyhow::Result<ExitCode> {
    let Openapi {
        spec,
        out,
        crate_name,
        runtime,
        check,
        strict,
        harness,
        listing_depth,
        listing_bytes,
    } = args;
    let mut command = format!(
        "harness-gen openapi {} --out {}",
        spec.display(),
        out.display()
    );
    if let Some(name) = &crate_name {
        command.push_str(&format!(" --crate-name {name}"));
    }
    let (runtime_path, given) = runtime.resolve(&out);
    if let Some(path) = runtime_path.as_ref().filter(|_| given) {
        command.push_str(&format!(" --runtime-path {path}"));
    }
    if runtime.published_runtime {
        command.push_str(" --published-runtime");
    }
    for path in &harness {
        command.push_str(&format!(" --harness {}", path.display()));
    }
    if let Some(depth) = listing_depth {
        command.push_str(&format!(" --listing-depth {depth}"));
    }
    if let Some(bytes) = listing_bytes {
        command.push_str(&format!(" --listing-bytes {bytes}"));
    }
    let default = harness_gen_contract::schema::listing::Budget::DEFAULT;
    let listing_budget = (listing_depth.is_some() || listing_bytes.is_some()).then(|| {
        harness_gen_contract::schema::listing::Budget {
            depth: listing_depth.unwrap_or(default.depth),
            bytes: listing_bytes.unwrap_or(default.bytes),
        }
    });
    let program = if harness.is_empty() {
        None
    } else {
        let (sources, result) = harness_gen::harness::compile_files(&harness);
        match result {
            Ok(compiled) => Some((sources, compiled)),
            Err(diags) => {
                eprint!("{}", sources.render(&diags));
                return Ok(ExitCode::FAILURE);
            }
        }
    };
    let options = harness_gen::Options {
        crate_name,
        runtime_path,
        command,
        harness: program.as_ref().map(|(_, c)| c.bundle.clone()),
        listing_budget,
    };
    let mut diags = harness_gen::diag::Diagnostics::default();
    let generated = harness_gen::generate_crate(&spec, &options, &mut diags);
    if strict {
        diags.make_strict();
    }
    diags.finish();
    eprint!("{diags}");
    let Some((krate, catalog)) = generated.filter(|_| !diags.has_errors()) else {
        return Ok(ExitCode::FAILURE);
    };
    if let Some((sources, compiled)) = &program {
        let mismatches = harness_gen::harness::link::check(sources, compiled, &catalog);
        if !mismatches.is_empty() {
            eprint!("{}", sources.render(&mismatches));
            return Ok(ExitCode::FAILURE);
        }
    }
    let code = write_out(&out, &krate.files, check, &options.command)?;
    if !check && code == ExitCode::SUCCESS {
        next_steps(&out, &krate.files);
    }
    Ok(code)
}

/// What to run once a crate is written: its programs, from where it was written.
fn next_steps(out: &std::path::Path, files: &std::collections::BTreeMap<String, String>) {
    let Some(bin) = files.keys().find_map(|path| {
        path.strip_prefix("src/bin/")?
            .strip_suffix(".rs")
            .filter(|bin| !bin.ends_with("-mcp"))
    }) else {
        return;
    };
    let dir = out.display().to_string();
    let plain = dir
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c));
    let dir = match plain {
        true => dir,
        false => format!("'{}'", dir.replace('\'', r"'\''")),
    };
    eprintln!(
        "next: cd {dir} && cargo run --features cli -- --help    # the command-line program\n      \
         (and `cargo run --features mcp --bin {bin}-mcp` for the MCP server on stdio; `cargo doc --open` for the SDK)"
    );
}

/// `harness-gen bindings`: the typed bindings of a catalog file or a live server.
fn bindings(args: Bindings) -> anyhow::Result<ExitCode> {
    let Bindings {
        catalog,
        from_mcp,
        out,
        crate_name,
        runtime,
        check,
    } = args;
    let (runtime_path, given) = runtime.resolve(&out);
    let source = match (&catalog, &from_mcp) {
        (Some(catalog), _) => catalog.display().to_string(),
        (None, from_mcp) => format!("--from-mcp {:?}", from_mcp.as_deref().unwrap_or("")),
    };
    let mut command = format!(
        "harness-gen bindings {source} --out {} --crate-name {crate_name}",
        out.display()
    );
    if let Some(path) = runtime_path.as_ref().filter(|_| given) {
        command.push_str(&format!(" --runtime-path {path}"));
    }
    if runtime.published_runtime {
        command.push_str(" --published-runtime");
    }
    let options = harness_gen::BindingsOptions {
        crate_name,
        runtime_path,
        command,
    };
    let generated = match (catalog, from_mcp) {
        (Some(catalog), _) => match std::fs::read_to_string(&catalog) {
            Ok(text) => harness_gen::generate_bindings(&text, &options),
            Err(error) => {
                eprintln!(
                    "error[HG0101]: {}: cannot be read: {error}",
                    harness_gen::diag::printable(&catalog.display().to_string())
                );
                return Ok(ExitCode::FAILURE);
            }
        },
        (None, from_mcp) => {
            let server = live_server(&from_mcp.unwrap_or_default());
            harness_gen_cli::from_mcp::generate_bindings(server, &options)
        }
    };
    let bindings = match generated {
        Ok(bindings) => bindings,
        Err(error) => {
            eprintln!("{error}");
            return Ok(ExitCode::FAILURE);
        }
    };
    for (pointer, why) in &bindings.fallbacks {
        eprintln!(
            "warning[HG0504]: {}: typed as serde_json::Value: {}",
            harness_gen::diag::printable(pointer),
            harness_gen::diag::printable(why)
        );
    }
    write_out(&out, &bindings.files, check, &options.command)
}

/// Writes generated `files` into `out` (or, with `check`, lists what would change and fails
/// when anything would): the end of `openapi` and `bindings`.
fn write_out(
    out: &std::path::Path,
    files: &std::collections::BTreeMap<String, String>,
    check: bool,
    command: &str,
) -> anyhow::Result<ExitCode> {
    if check {
        let changes = harness_gen::output::plan(out, files)?;
        for change in &changes {
            println!("{change}");
        }
        if !changes.is_empty() {
            eprintln!(
                "error: {} is stale: run `{command}` and commit the result",
                out.display()
            );
            return Ok(ExitCode::FAILURE);
        }
        return Ok(ExitCode::SUCCESS);
    }
    for change in harness_gen::output::write(out, files)? {
        println!("{change}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The live MCP server `--from-mcp` names: a Streamable HTTP URL (with the bearer token in
/// `HARNESS_MCP_TOKEN` when set: never a command-line value, which others can see), else a
/// command line that starts one speaking stdio.
fn live_server(given: &str) -> harness_gen_runtime::bridge::Server {
    use harness_gen_runtime::bridge::Server;
    if given.starts_with("http://") || given.starts_with("https://") {
        let token = std::env::var("HARNESS_MCP_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty());
        return match token {
            Some(token) => Server::Authenticated {
                url: given.to_string(),
                token,
            },
            None => Server::Url(given.to_string()),
        };
    }
    let mut words = given.split_whitespace();
    let mut command = std::process::Command::new(words.next().unwrap_or(""));
    command.args(words);
    Server::Command(command)
}

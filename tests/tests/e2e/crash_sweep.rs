//! The crash sweep: every command of a document's CLI with `--help` and with a minimal valid
//! input, and every tool of its MCP server (listed, then called with the same input), run over
//! a registry of the document's catalog whose handlers send with the runtime's HTTP client (to a
//! closed loopback port: the call fails as transport, the parsing, validation, encoding and
//! rendering around it all run). Nothing may panic: a panic anywhere fails the sweep with the
//! document, the command or tool, and the panic's message; so does an exit code outside the
//! CLI's documented ones.
//!
//! In CI: the small documents of the corpus. The whole corpus, the large documents included,
//! runs in the heavy checks (`scripts/crash-sweep.sh`, an ignored test here).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use harness_gen_runtime::mcp::McpServer;
use harness_gen_runtime::{Audience, ToolRegistry};
use serde_json::{Map, Value};

use super::wire::{Sampler, component_values, sending_registry};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The CLI's exit codes (README, "The generated CLI"): success, usage or invalid input,
/// application error, runtime error, contract violation.
const EXIT_CODES: [i32; 5] = [0, 2, 3, 4, 5];

/// What one document's sweep found: runs made, and each panic or undocumented exit.
#[derive(Debug, Default)]
struct Swept {
    runs: usize,
    faults: Vec<String>,
}

/// Runs the CLI of `registry` (as a program named `sweep`) with `args`: its exit code, and what
/// it wrote to standard output and standard error.
pub(super) fn run_cli(
    registry: &ToolRegistry,
    args: impl IntoIterator<Item = OsString>,
) -> (i32, Vec<u8>, Vec<u8>) {
    let factory = {
        let registry = registry.clone();
        move |_: Option<String>, _: &dyn Fn(&str) -> bool| Ok(registry.clone())
    };
    let program = harness_gen_runtime::cli::Program {
        name: "sweep",
        version: "0.0.0",
        index: None,
        registry: &factory,
    };
    let argv = std::iter::once(OsString::from("sweep"))
        .chain(args)
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = harness_gen_runtime::cli::run(&program, argv, &mut out, &mut err, false);
    (code, out, err)
}

/// The words of a tool's CLI command (`["pets", "get"]`).
pub(super) fn command_words(entry: &harness_gen_runtime::catalog::Entry) -> Vec<String> {
    let segments = entry.cli.command.segments();
    segments.iter().map(|w| w.to_string()).collect()
}

fn message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// The registry of `spec`'s catalog, with the components its schemas reference; `None` when the
/// document does not generate (refused with diagnostics, which other tests check).
pub(super) fn load(spec: &Path) -> Option<(ToolRegistry, Map<String, Value>)> {
    let mut diags = harness_gen::diag::Diagnostics::default();
    let catalog = harness_gen::generate_catalog(spec, None, &mut diags)?;
    if diags.has_errors() {
        return None;
    }
    let components = component_values(catalog.components.as_ref().map(|c| &c.schemas));
    // Port 9 (discard) on loopback: nothing listens, so every call fails fast as transport.
    let registry = sending_registry(catalog, "http://127.0.0.1:9", &Arc::new(components.clone()));
    Some((registry, components))
}

fn sweep(spec: &Path) -> Swept {
    let mut swept = Swept::default();
    let Some((registry, components)) = load(spec) else {
        return swept;
    };
    let sampler = Sampler {
        components: &components,
        examples: false,
        every_property: false,
    };
    let samples: BTreeMap<String, Value> = registry
        .list(Audience::Catalog)
        .map(|entry| {
            let input = sampler.sample(entry.input_schema.as_value(), 0);
            (entry.name.to_string(), input)
        })
        .collect();
    // The CLI, command by command.
    let cli_tools: Vec<_> = registry.list(Audience::Cli).cloned().collect();
    for entry in &cli_tools {
        let words = command_words(entry);
        let input = samples
            .get(entry.name.as_str())
            .cloned()
            .unwrap_or_default();
        for extra in [
            vec!["--help".to_string()],
            vec!["--input-json".to_string(), input.to_string()],
        ] {
            let args = words.iter().chain(&extra).map(OsString::from);
            let shown = format!("`{} {}`", words.join(" "), extra[0]);
            swept.runs += 1;
            match catch_unwind(AssertUnwindSafe(|| run_cli(&registry, args).0)) {
                Err(panic) => swept
                    .faults
                    .push(format!("{shown} panicked: {}", message(panic))),
                Ok(code) if !EXIT_CODES.contains(&code) => {
                    swept.faults.push(format!("{shown} exited {code}"))
                }
                Ok(_) => {}
            }
        }
    }
    // The MCP server: the listing, then every tool.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = match catch_unwind(AssertUnwindSafe(|| {
        let server = McpServer::new(&registry, "sweep", "0.0.0");
        let listed = server.tools().map(<[_]>::len);
        (server, listed)
    })) {
        Ok((server, Ok(_))) => server,
        Ok((_, Err(error))) => {
            swept
                .faults
                .push(format!("the MCP listing failed: {error:?}"));
            return swept;
        }
        Err(panic) => {
            swept
                .faults
                .push(format!("the MCP listing panicked: {}", message(panic)));
            return swept;
        }
    };
    let mcp_tools: Vec<String> = registry
        .list(Audience::Mcp)
        .map(|e| e.name.to_string())
        .collect();
    for name in mcp_tools {
        let arguments = samples.get(&name).and_then(Value::as_object).cloned();
        swept.runs += 1;
        let called = catch_unwind(AssertUnwindSafe(|| {
            runtime.block_on(server.call(&name, arguments))
        }));
        if let Err(panic) = called {
            swept
                .faults
                .push(format!("MCP tool `{name}` panicked: {}", message(panic)));
        }
    }
    swept
}

/// The documents under `dirs` of the corpus whose size is at most `max_bytes`.
pub(super) fn corpus(dirs: &[&str], max_bytes: u64) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(read) = std::fs::read_dir(root().join("../shared/corpus").join(dir)) else {
            continue;
        };
        for file in read.flatten() {
            let path = file.path();
            if file.metadata().is_ok_and(|m| m.len() <= max_bytes) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn assert_no_faults(documents: Vec<PathBuf>) {
    let mut faults = Vec::new();
    let mut runs = 0;
    for spec in documents {
        let swept = sweep(&spec);
        runs += swept.runs;
        println!(
            "{}: {} runs, {} faults",
            spec.display(),
            swept.runs,
            swept.faults.len()
        );
        faults.extend(
            swept
                .faults
                .into_iter()
                .map(|f| format!("{}: {f}", spec.display())),
        );
    }
    assert!(runs > 0, "nothing was swept");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn no_command_or_tool_of_the_small_corpus_documents_panics() {
    assert_no_faults(corpus(&["examples", "codegen-tests"], 100_000));
}

#[test]
#[ignore = "heavy: every document of the corpus; run by scripts/crash-sweep.sh"]
fn no_command_or_tool_of_any_corpus_document_panics() {
    assert_no_faults(corpus(
        &[
            "examples",
            "codegen-tests",
            "apisguru",
            "large",
            "progenitor",
            "oai-tests/pass",
            "oai-tests/fail",
        ],
        u64::MAX,
    ));
}

/// A loopback server that answers one request with `200 {}` and hands back its request line.
fn one_request() -> (String, std::thread::JoinHandle<String>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let served = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap() > 2 {
            line.clear();
        }
        let mut stream = stream;
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            .unwrap();
        first.trim_end().to_string()
    });
    (base, served)
}

#[test]
fn stackexchange_filters_create_sends_its_include_parameter() {
    // Its `include` query parameter is the CLI option `--include-value` (the CLI's own
    // `--include` prints the reply's head); it used to panic clap on every call.
    let spec = root().join("../shared/corpus/apisguru/stackexchange.com_2.0.openapi.yaml");
    let mut diags = harness_gen::diag::Diagnostics::default();
    let catalog = harness_gen::generate_catalog(&spec, None, &mut diags).unwrap();
    let entry = catalog
        .tools
        .iter()
        .find(|e| {
            e.source
                .as_ref()
                .and_then(|s| s.openapi_binding())
                .is_some_and(|b| b.path == "/filters/create")
        })
        .expect("the filters/create operation");
    let words = command_words(entry);
    let (base, served) = one_request();
    let registry = sending_registry(catalog, &base, &Arc::default());
    let factory = move |_: Option<String>, _: &dyn Fn(&str) -> bool| Ok(registry.clone());
    let program = harness_gen_runtime::cli::Program {
        name: "stackexchange",
        version: "0.0.0",
        index: None,
        registry: &factory,
    };
    let mut argv: Vec<OsString> = vec!["stackexchange".into()];
    argv.extend(words.iter().map(OsString::from));
    argv.extend(["--include-value", "body", "--include"].map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = harness_gen_runtime::cli::run(&program, argv, &mut out, &mut err, false);
    let err = String::from_utf8_lossy(&err);
    assert_eq!(code, 0, "{err}");
    let request = served.join().unwrap();
    assert!(request.starts_with("GET /filters/create?"), "{request}");
    assert!(request.contains("include=body"), "{request}");
    // `--include` kept its own meaning: the reply's status on standard error.
    assert!(err.contains("200"), "{err}");
}

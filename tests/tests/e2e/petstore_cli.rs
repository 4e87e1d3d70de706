//! The generated petstore command-line program (`src/bin/petstore.rs` does exactly this: the
//! runtime's CLI over the crate's registry) against the axum server on loopback.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_e2e::{TOKEN, serve};
use serde_json::{Value, json};

struct Run {
    code: i32,
    out: String,
    err: String,
    /// The tools whose entries the run read.
    read: Vec<&'static str>,
}

/// Runs the program with `args`, as `src/bin/petstore.rs` does (the crate's index, the
/// registry of the tools a run keeps), with a token a user would set in `PETSTORE_TOKEN`.
fn petstore(base: &str, args: &[&str]) -> Run {
    let base = base.to_string();
    let read = std::sync::Mutex::new(Vec::new());
    let factory = |base_url: Option<String>, keep: &dyn Fn(&str) -> bool| {
        read.lock().unwrap().extend(
            petstore::CATALOG_INDEX
                .tools
                .iter()
                .map(|tool| tool.name)
                .filter(|name| keep(name)),
        );
        let builder = petstore::Client::builder()
            .base_url(base_url.unwrap_or_else(|| base.clone()))
            .credential(
                "bearerAuth",
                harness_gen_runtime::http::Credential::Token(
                    harness_gen_runtime::http::Secret::new(TOKEN),
                ),
            );
        let client = petstore::Client::from_builder(builder).map_err(|e| e.to_string())?;
        petstore::registry_of(client, keep).map_err(|e| e.to_string())
    };
    let mut argv = vec!["petstore".into()];
    argv.extend(args.iter().map(|a| (*a).into()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = std::thread::scope(|s| {
        s.spawn(|| {
            // What `src/bin/petstore.rs` hands the runtime.
            let program = harness_gen_runtime::cli::Program {
                name: "petstore",
                version: "1.2.0",
                index: Some(&petstore::CATALOG_INDEX),
                registry: &factory,
            };
            harness_gen_runtime::cli::run(&program, argv, &mut out, &mut err, false)
        })
        .join()
        .unwrap()
    });
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
        read: read.into_inner().unwrap(),
    }
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(run.out.trim())
        .unwrap_or_else(|_| panic!("not JSON: {} / {}", run.out, run.err))
}

#[tokio::test(flavor = "multi_thread")]
async fn list_prints_the_pets_as_json_and_as_a_table() {
    let base = serve().await;
    let run = petstore(&base, &["pets", "list", "--limit", "2"]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(json_of(&run)[0]["name"], "Rex");
    let run = petstore(
        &base,
        &[
            "pets",
            "ls",
            "-l",
            "3",
            "--species",
            "cat",
            "--output-format",
            "text",
        ],
    );
    assert_eq!(
        run.out, "NAME  SPECIES  ID\nTom   cat      2\n",
        "{}",
        run.err
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declared_error_is_the_application_envelope_with_exit_code_3() {
    let base = serve().await;
    let run = petstore(&base, &["pets", "get", "5"]);
    assert_eq!(run.code, 3);
    assert_eq!(
        json_of(&run),
        json!({"ok": false, "error": {"kind": "application", "tool": "get_pet", "data": {"kind": "http_404", "status": 404, "body": {"title": "no such pet", "detail": "5"}}}})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_input_from_a_file_sends_the_body() {
    let base = serve().await;
    let dir = std::env::temp_dir().join(format!("harness-e2e-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pet.json");
    std::fs::write(&file, r#"{"body": {"name": "Kit", "species": "cat"}}"#).unwrap();
    let run = petstore(
        &base,
        &[
            "pets",
            "add",
            "--input-json",
            &format!("@{}", file.display()),
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(json_of(&run)["id"], 42);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runtime_error_exits_4_and_prints_no_token() {
    // Nothing listens on the base URL given on the command line.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let base = serve().await;
    let run = petstore(&base, &["--base-url", &dead, "pets", "list"]);
    assert_eq!(run.code, 4, "{} {}", run.out, run.err);
    assert_eq!(json_of(&run)["error"]["category"], "transport");
    assert!(!run.out.contains(TOKEN) && !run.err.contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_input_exits_2_and_a_hidden_mcp_only_tool_is_absent() {
    let base = serve().await;
    let run = petstore(&base, &["pets", "list", "--limit", "0"]);
    assert_eq!(run.code, 2);
    assert_eq!(json_of(&run)["error"]["kind"], "invalid_input");
    // storeReport is not exposed at all.
    assert_eq!(petstore(&base, &["store", "store-report"]).code, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_reads_only_the_entry_of_the_command_it_runs() {
    let base = serve().await;
    // A call, an alias of its command, its help: that tool's entry alone.
    let run = petstore(&base, &["pets", "get", "1"]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(run.read, ["get_pet"]);
    let run = petstore(
        &base,
        &["--output-format", "json", "pets", "ls", "--limit", "1"],
    );
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(run.read, ["list_pets"]);
    // A parent command's alias (`shop` for `store`) names its tools too.
    let run = petstore(&base, &["shop", "get-inventory", "--help"]);
    assert_eq!(
        (run.code, run.read.as_slice()),
        (0, ["get_inventory"].as_slice())
    );
    assert!(
        run.out.contains("Inventory counts by status"),
        "{}",
        run.out
    );
    let run = petstore(&base, &["pets", "get", "--help"]);
    assert!(run.out.contains("[pet_id]"), "{}", run.out);
    assert_eq!(run.read, ["get_pet"]);
    // Lists come from the index: the root and a group read no entry, and still describe
    // every command.
    let run = petstore(&base, &["--help"]);
    assert_eq!((run.code, run.read.len()), (0, 0));
    assert!(run.out.contains("Pets in the store."), "{}", run.out);
    let run = petstore(&base, &["pets", "--help"]);
    assert_eq!((run.code, run.read.len()), (0, 0));
    assert!(
        run.out.contains("List the pets") && run.out.contains("ls"),
        "{}",
        run.out
    );
    // Completions describe everything, so they read everything.
    let run = petstore(&base, &["--completions", "bash"]);
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(run.read.len(), petstore::CATALOG_INDEX.tools.len());
}

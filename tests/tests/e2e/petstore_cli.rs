//! The generated petstore command-line program (`src/bin/petstore.rs` does exactly this: the
//! runtime's CLI over the crate's registry) against the axum server on loopback.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_e2e::{TOKEN, serve};
use serde_json::{Value, json};

struct Run {
    code: i32,
    out: String,
    err: String,
}

/// Runs the program with `args`; `PETSTORE_TOKEN` is set for the duration, as a user would.
fn petstore(base: &str, args: &[&str]) -> Run {
    let base = base.to_string();
    let factory = move |base_url: Option<String>| {
        let builder = petstore::Client::builder()
            .base_url(base_url.unwrap_or_else(|| base.clone()))
            .credential(
                "bearerAuth",
                harness_gen_runtime::http::Credential::Token(
                    harness_gen_runtime::http::Secret::new(TOKEN),
                ),
            );
        let client = petstore::Client::from_builder(builder).map_err(|e| e.to_string())?;
        petstore::registry(client).map_err(|e| e.to_string())
    };
    let mut argv = vec!["petstore".into()];
    argv.extend(args.iter().map(|a| (*a).into()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = std::thread::scope(|s| {
        s.spawn(|| {
            harness_gen_runtime::cli::run(
                "petstore", "1.2.0", argv, &factory, &mut out, &mut err, false,
            )
        })
        .join()
        .unwrap()
    });
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
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
    let run = petstore(&base, &["pets", "get-pet", "5"]);
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

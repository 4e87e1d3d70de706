//! Files and event streams through the projections of the generated `streams` crate, all
//! through `ToolRegistry::invoke`: the CLI saves a download with `--output` as it arrives (whole
//! or not at all), streams `@path` files and `@-` (standard input) into uploads and prints events as JSON lines as they
//! arrive; MCP returns a download as binary content, takes uploads as base64 (never as a local
//! file) and reports each event as progress; `invoke` collects a download into the base64 text
//! and events into the array their output schemas describe.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

mod json_or_events;
mod replies;

use harness_e2e::streams as server;
use harness_gen_runtime::mcp::McpServer;
use harness_gen_runtime::{Audience, ToolRegistry};
use serde_json::{Value, json};
use sha2::Digest;

fn registry(base: &str) -> ToolRegistry {
    let client = streams::Client::from_builder(streams::Client::builder().base_url(base)).unwrap();
    streams::registry(client).unwrap()
}

struct Run {
    code: i32,
    out: Vec<u8>,
    err: String,
}

/// Runs the crate's CLI (what `src/bin/streams.rs` does) with `args`; `tty` says whether
/// standard output is a terminal.
fn cli(base: &str, args: &[&str], tty: bool) -> Run {
    let base = base.to_string();
    let factory = move |base_url: Option<String>, keep: &dyn Fn(&str) -> bool| {
        let base = base_url.unwrap_or_else(|| base.clone());
        let client =
            streams::Client::from_builder(streams::Client::builder().base_url(base)).unwrap();
        streams::registry_of(client, keep).map_err(|e| e.to_string())
    };
    let (code, out, err) = super::run_cli(
        ("streams", "1.0.0"),
        &streams::CATALOG_INDEX,
        factory,
        args,
        tty,
    );
    Run { code, out, err }
}

/// A folder of this test's own.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hg-files-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn sha256(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn pattern(size: u64) -> Vec<u8> {
    (0..size).map(server::byte_at).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_saves_a_download_with_output_as_it_arrives() {
    let (base, _) = server::serve().await;
    let dir = scratch("save");
    let path = dir.join("file.bin");
    let size = "3000000";
    let run = cli(
        &base,
        &[
            "chat",
            "download-file",
            "f1",
            "--size",
            size,
            "--output",
            path.to_str().unwrap(),
        ],
        true,
    );
    assert_eq!(run.code, 0, "{}", run.err);
    assert!(run.out.is_empty());
    assert!(std::fs::read(&path).unwrap() == pattern(3_000_000));
    // Without --output, off a terminal, the bytes go to standard output as they are.
    let run = cli(
        &base,
        &["chat", "download-file", "f1", "--size", "1000"],
        false,
    );
    assert_eq!((run.code, run.out), (0, pattern(1000)));
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no staged file is left"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_cut_short_leaves_no_file_and_the_earlier_one_stays() {
    let (base, _) = server::serve().await;
    let dir = scratch("cut");
    let path = dir.join("file.bin");
    std::fs::write(&path, b"the earlier file").unwrap();
    let run = cli(
        &base,
        &[
            "chat",
            "download-file",
            "cut",
            "--size",
            "2000000",
            "--output",
            path.to_str().unwrap(),
        ],
        false,
    );
    assert_eq!(run.code, 4, "a runtime error: {}", run.err);
    let envelope: Value = serde_json::from_slice(&run.out).unwrap();
    assert_eq!(envelope["error"]["category"], "transport", "{envelope}");
    assert_eq!(std::fs::read(&path).unwrap(), b"the earlier file");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no staged file is left"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn binary_output_is_not_dumped_on_a_terminal() {
    let (base, seen) = server::serve().await;
    let run = cli(&base, &["chat", "download-file", "f1"], true);
    assert_eq!(run.code, 2, "{}", run.err);
    assert!(run.err.contains("--output FILE"), "{}", run.err);
    // Nothing was asked of the server.
    assert_eq!(seen.downloads.load(std::sync::atomic::Ordering::SeqCst), 0);
    let run = cli(
        &base,
        &[
            "chat",
            "download-file",
            "f1",
            "--size",
            "10",
            "--output",
            "-",
        ],
        true,
    );
    assert_eq!((run.code, run.out), (0, pattern(10)));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_streams_files_named_with_at_into_uploads() {
    let (base, _) = server::serve().await;
    let dir = scratch("at");
    let photo = dir.join("cat.png");
    let bytes = pattern(2_500_000);
    std::fs::write(&photo, &bytes).unwrap();
    let at = format!("@{}", photo.display());
    let run = cli(
        &base,
        &["chat", "put-file-bytes", "f1", "--body", &at],
        false,
    );
    assert_eq!(run.code, 0, "{}", run.err);
    let received: Value = serde_json::from_slice(&run.out).unwrap();
    assert_eq!(received["parts"][0]["sha256"], sha256(&bytes));
    // In a multipart body given as JSON, a file part and an array of them name files too;
    // other text is base64.
    let body = json!({"purpose": "@not-a-file", "file": at, "extras": [at, "aGk="]}).to_string();
    let run = cli(&base, &["chat", "upload-file", "--body", &body], false);
    assert_eq!(run.code, 0, "{}", run.err);
    let received: Value = serde_json::from_slice(&run.out).unwrap();
    let parts: Vec<(&str, &str, &str)> = received["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let text = |k: &str| p[k].as_str().unwrap_or_default();
            (text("name"), text("file_name"), text("sha256"))
        })
        .collect();
    let image = sha256(&bytes);
    assert_eq!(
        parts,
        [
            ("purpose", "", sha256(b"@not-a-file").as_str()),
            ("file", "cat.png", image.as_str()),
            ("extras", "cat.png", image.as_str()),
            ("extras", "extras", sha256(b"hi").as_str()),
        ]
    );
    // A file that is not there fails before anything is sent.
    let missing = format!("@{}", dir.join("none.png").display());
    let run = cli(
        &base,
        &["chat", "put-file-bytes", "f1", "--body", &missing],
        false,
    );
    assert_eq!(run.code, 4, "{}", run.err);
}

/// `@-` reads the upload from standard input, as the file it is sent with (the program itself:
/// the runtime's client reads its own standard input).
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_streams_standard_input_named_with_at_dash_into_an_upload() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let (base, seen) = server::serve().await;
    // The same build (features) as the MCP program's test, so nothing compiles twice.
    let program = tokio::task::spawn_blocking(|| harness_e2e::streams_binary("streams"))
        .await
        .unwrap();
    let bytes = pattern(300_000);
    let sent = bytes.clone();
    let output = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(program)
            .args([
                "--base-url",
                &base,
                "chat",
                "put-file-bytes",
                "f1",
                "--body",
                "@-",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&sent).unwrap());
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap();
        output
    })
    .await
    .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    let received: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(received["parts"][0]["sha256"], sha256(&bytes));
    assert_eq!(received["parts"][0]["length"], bytes.len());
    assert_eq!(seen.puts.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn invoke_collects_a_download_into_its_base64_output() {
    let (base, _) = server::serve().await;
    let output = registry(&base)
        .invoke(
            Audience::Cli,
            "download_file",
            json!({"file_id": "f1", "size": 5000}),
        )
        .await
        .unwrap();
    use base64::Engine;
    let text = output.as_str().unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap();
    assert_eq!(decoded, pattern(5000));
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_a_download_is_binary_content_and_an_upload_is_base64_never_a_local_file() {
    let (base, _) = server::serve().await;
    let server = McpServer::new(&registry(&base), "streams", "1.0.0");
    let listed = server.tools().unwrap();
    let download = listed.iter().find(|t| t.name == "download_file").unwrap();
    assert!(
        download.output_schema.is_none(),
        "bytes are content, not structured"
    );

    let args = |value: Value| value.as_object().cloned();
    let result = server
        .call(
            "download_file",
            args(json!({"file_id": "f1", "size": 3000})),
        )
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_ne!(result["isError"], true, "{result}");
    let resource = &result["content"][0]["resource"];
    assert_eq!(resource["mimeType"], "application/octet-stream");
    use base64::Engine;
    let blob = resource["blob"].as_str().unwrap();
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap(),
        pattern(3000)
    );

    // More than an MCP result carries is a tool error that says so.
    let size = harness_gen_runtime::mcp::MAX_BINARY_BYTES + 1;
    let result = server
        .call(
            "download_file",
            args(json!({"file_id": "f1", "size": size})),
        )
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.to_string().contains("too_large"), "{result}");

    let upload = json!({"file_id": "f1", "body": "aGVsbG8="});
    let result = server.call("put_file_bytes", args(upload)).await.unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(
        result["structuredContent"]["parts"][0]["sha256"],
        sha256(b"hello")
    );

    // The CLI's reference to a local file is no base64, so a client cannot name a file of the
    // server's.
    let forged = harness_gen_runtime::upload::file_reference("/etc/hostname");
    let result = server
        .call(
            "put_file_bytes",
            args(json!({"file_id": "f1", "body": forged})),
        )
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.to_string().contains("invalid input"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_prints_each_event_as_a_json_line_and_reports_a_bad_one_without_stopping() {
    let (base, _) = server::serve().await;
    let run = cli(
        &base,
        &["chat", "watch-ticks", "--every-ms", "1", "--count", "3"],
        false,
    );
    assert_eq!(run.code, 0, "{}", run.err);
    assert_eq!(
        String::from_utf8(run.out).unwrap(),
        "{\"seq\":0}\n{\"seq\":1}\n{\"seq\":2}\n"
    );
    let run = cli(
        &base,
        &[
            "chat",
            "watch-ticks",
            "--every-ms",
            "1",
            "--count",
            "3",
            "--bad",
            "true",
        ],
        false,
    );
    // The event whose data does not fit its type broke the tool's contract, where it did.
    assert_eq!(run.code, 5, "{}", run.err);
    assert_eq!(
        String::from_utf8(run.out).unwrap(),
        "{\"seq\":0}\n{\"seq\":2}\n"
    );
    assert!(run.err.contains("broke its contract"), "{}", run.err);
    assert!(run.err.contains("/seq fails `type`"), "{}", run.err);
    assert!(
        !run.err.contains("two"),
        "an event's data is never repeated: {}",
        run.err
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn invoke_collects_the_events_into_the_array_its_output_schema_describes() {
    let (base, _) = server::serve().await;
    let registry = registry(&base);
    let schema = registry
        .lookup(Audience::Mcp, "watch_ticks")
        .unwrap()
        .output_schema
        .clone();
    assert_eq!(schema.unwrap().as_value()["type"], "array");
    let output = registry
        .invoke(
            Audience::Mcp,
            "watch_ticks",
            json!({"every_ms": 1, "count": 2}),
        )
        .await
        .unwrap();
    assert_eq!(output, json!([{"seq": 0}, {"seq": 1}]));
}

/// Runs `script` (the Python MCP client's steps) against the `streams-mcp` program serving a
/// fresh stand-in, in both protocol eras; each era's steps, or `None` when Python's MCP SDK is
/// missing outside CI.
async fn over_mcp(script: Value) -> Option<Vec<(&'static str, Vec<Value>)>> {
    over_mcp_with(script, &[]).await
}

/// [`over_mcp`] with `env` set for the server too.
async fn over_mcp_with(
    script: Value,
    env: &[(&'static str, &'static str)],
) -> Option<Vec<(&'static str, Vec<Value>)>> {
    let python = crate::petstore_mcp::python()?;
    let (base, _) = server::serve().await;
    let program = tokio::task::spawn_blocking(|| harness_e2e::streams_binary("streams-mcp"))
        .await
        .unwrap();
    let program = program.to_str().unwrap().to_string();
    let mut runs = Vec::new();
    for mode in ["legacy", "modern"] {
        let (python, script, program, base) = (
            python.clone(),
            script.clone(),
            program.clone(),
            base.clone(),
        );
        let env = env.to_vec();
        let seen = tokio::task::spawn_blocking(move || {
            let mut env: Vec<(&str, &str)> = env;
            env.push(("STREAMS_BASE_URL", &base));
            crate::petstore_mcp::drive(&python, mode, &script, &["--", &program], &env)
        })
        .await
        .unwrap();
        runs.push((mode, crate::petstore_mcp::steps(&seen).to_vec()));
    }
    Some(runs)
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_each_event_is_a_progress_notification_and_the_result_holds_them_all() {
    let script = json!([
        {"call": "watch_ticks", "arguments": {"every_ms": 1, "count": 3}, "progress": true},
        {"call": "watch_ticks", "arguments": {"every_ms": 1, "count": 2}},
    ]);
    let Some(runs) = over_mcp(script).await else {
        return;
    };
    for (mode, steps) in runs {
        let notes: Vec<(f64, String)> = steps[0]["progress"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["progress"].as_f64().unwrap(),
                    n["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            notes,
            [
                (1.0, r#"{"seq":0}"#.to_string()),
                (2.0, r#"{"seq":1}"#.to_string()),
                (3.0, r#"{"seq":2}"#.to_string()),
            ],
            "{mode}"
        );
        let result = &steps[0]["result"];
        assert_ne!(result["isError"], true, "{mode}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            json!([{"seq": 0}, {"seq": 1}, {"seq": 2}]),
            "{mode}"
        );
        // Without a progress token nothing is sent but the result.
        assert_eq!(steps[1]["progress"], json!([]), "{mode}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_a_result_keeps_the_first_events_within_the_bound_and_says_how_many_came() {
    let script = json!([
        {"call": "watch_ticks", "arguments": {"every_ms": 1, "count": 5}, "progress": true},
    ]);
    let Some(runs) = over_mcp_with(script, &[("HARNESS_MCP_MAX_EVENTS", "2")]).await else {
        return;
    };
    for (mode, steps) in runs {
        // Every event is still reported as it comes.
        assert_eq!(steps[0]["progress"].as_array().unwrap().len(), 5, "{mode}");
        let result = &steps[0]["result"];
        assert_ne!(result["isError"], true, "{mode}: {result}");
        let kept: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(kept, json!([{"seq": 0}, {"seq": 1}]), "{mode}");
        let note = result["content"][1]["text"].as_str().unwrap();
        assert!(note.contains("sent 5 events"), "{mode}: {note}");
        assert!(note.contains("keeps the first 2"), "{mode}: {note}");
        let cut = &result["_meta"]["com.harnlang/truncated"];
        assert_eq!(cut["maxEvents"], 2, "{mode}: {cut}");
        assert_eq!(
            cut["cuts"],
            json!([{"at": "", "unit": "events", "total": 5, "kept": 2}]),
            "{mode}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn include_prints_the_replys_status_and_headers_on_standard_error() {
    let (base, _) = server::serve().await;
    let run = cli(
        &base,
        &[
            "chat",
            "put-file-bytes",
            "f1",
            "--body",
            "aGk=",
            "--include",
        ],
        false,
    );
    assert_eq!(run.code, 0, "{}", run.err);
    assert!(run.err.starts_with("HTTP 200\n"), "{}", run.err);
    assert!(
        run.err.contains("content-type: application/json\n"),
        "{}",
        run.err
    );
    let received: Value = serde_json::from_slice(&run.out).unwrap();
    assert_eq!(
        received["parts"][0]["sha256"],
        sha256(b"hi"),
        "standard output stays the value"
    );
    // A download's head is known before its body: the same, with the body written as it comes.
    let run = cli(
        &base,
        &[
            "chat",
            "download-file",
            "f1",
            "--size",
            "10",
            "--output",
            "-",
            "--include",
        ],
        true,
    );
    assert_eq!((run.code, run.out), (0, pattern(10)));
    assert!(run.err.contains("content-length: 10\n"), "{}", run.err);
    // Without the option nothing is said.
    let run = cli(
        &base,
        &["chat", "download-file", "f1", "--size", "10"],
        false,
    );
    assert!(run.err.is_empty(), "{}", run.err);
}

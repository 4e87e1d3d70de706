//! OpenAI end to end: the crate generated from OpenAI's own description
//! (`../shared/corpus/large/openai.openapi.2026-08-21.json`, four of its operation groups)
//! against a loopback stand-in that answers as the real API does (`harness_e2e::openai`):
//! chat plain and streamed, a streamed response, a file upload and the model list, a wrong key
//! and a rate limit, through the SDK (a program of a user's, `tests/openai/sdk.rs`), the CLI
//! (body fields as options, `--stream`) and the MCP server (both eras, the official Python
//! client). The crate is generated and compiled once per test run (a few minutes).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use harness_e2e::openai::{self, KEY};
use harness_e2e::root;
use serde_json::{Value, json};

/// The environment variable the generated programs read the key from.
const KEY_ENV: &str = "OPENAI_API_KEY";
/// The operation groups the test compiles (the rest of the API's 288 operations are not needed).
const FEATURES: &str = "chat,responses,files,models,cli,mcp";

/// The compiled programs: the CLI, the MCP server, the SDK program, and the OpenAI programs of
/// `docs/src/sdk-comparison.md` (by their file's name there: `chat`, `upload`, …).
struct Built {
    cli: PathBuf,
    mcp: PathBuf,
    sdk: PathBuf,
    comparison: Vec<(String, PathBuf)>,
}

/// Generates the crate into a scratch workspace (with the SDK program as an example and what
/// it needs as dev-dependencies) and builds it, once.
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let mut examples = vec![(
            "sdk.rs".to_string(),
            std::fs::read_to_string(root().join("tests/openai/sdk.rs")).unwrap(),
        )];
        let mut comparison = Vec::new();
        for task in harness_e2e::comparison::tasks() {
            if let Some(name) = task.file.strip_prefix("openai/") {
                let name = name.trim_end_matches(".rs");
                let example = format!("comparison_{name}");
                examples.push((format!("{example}.rs"), task.ours.clone()));
                comparison.push((name.to_string(), example));
            }
        }
        let dir = harness_e2e::scratch_crate(
            "openai.openapi.2026-08-21.json",
            "openai",
            "openai-e2e",
            &examples,
        );
        let mut cargo = Command::new(env!("CARGO"));
        harness_e2e::in_shared_target(&mut cargo)
            .args(["build", "--quiet", "--offline", "--no-default-features"])
            .args(["--features", FEATURES, "--bins", "--example", "sdk"])
            .current_dir(&dir);
        for (_, example) in &comparison {
            cargo.args(["--example", example]);
        }
        let out = cargo.output().expect("cargo runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let debug = harness_e2e::shared_target().join("debug");
        Built {
            cli: debug.join("openai"),
            mcp: debug.join("openai-mcp"),
            sdk: debug.join("examples/sdk"),
            comparison: comparison
                .into_iter()
                .map(|(name, example)| (name, debug.join("examples").join(example)))
                .collect(),
        }
    })
}

/// `built()` off the async runtime.
async fn programs() -> &'static Built {
    tokio::task::spawn_blocking(built).await.unwrap()
}

fn run(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(program)
        .args(args)
        .env_remove(KEY_ENV)
        .envs(env.iter().copied())
        .output()
        .expect("the program runs")
}

/// Runs the CLI against `base` with the right key.
async fn cli(base: &str, args: &[&str]) -> Output {
    cli_with_key(base, KEY, args).await
}

async fn cli_with_key(base: &str, key: &str, args: &[&str]) -> Output {
    let cli = &programs().await.cli;
    let (base, key) = (base.to_string(), key.to_string());
    let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(cli, &args, &[("OPENAI_BASE_URL", &base), (KEY_ENV, &key)])
    })
    .await
    .unwrap()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// The text of a chat stream's chunks, as printed one per line.
fn streamed_text(chunks: &[Value]) -> String {
    chunks
        .iter()
        .filter_map(|chunk| chunk["choices"][0]["delta"]["content"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_users_program_on_the_sdk_does_chat_streams_uploads_and_models() {
    let (base, seen) = openai::serve().await;
    let sdk = &programs().await.sdk;
    let out = tokio::task::spawn_blocking(move || {
        run(
            sdk,
            &[],
            &[("OPENAI_BASE_URL", &base), ("STANDIN_KEY", KEY)],
        )
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let steps: Vec<(String, Value)> = json_lines(&out.stdout)
        .into_iter()
        .map(|line| {
            (
                line["step"].as_str().unwrap().to_string(),
                line["outcome"].clone(),
            )
        })
        .collect();
    let outcome = |step: &str| {
        steps
            .iter()
            .find(|(name, _)| name == step)
            .map(|(_, outcome)| outcome.clone())
            .unwrap_or_else(|| panic!("no step {step}: {steps:?}"))
    };
    assert_eq!(
        outcome("chat"),
        json!({"content": "Hello!", "model": "gpt-4o-2024-08-06", "usage": 12})
    );
    // Role, three pieces, the finish and the usage chunk; `[DONE]` ends it unseen.
    assert_eq!(
        outcome("chat stream"),
        json!({"text": "Hello!", "chunks": 6, "usage": 12})
    );
    assert_eq!(
        outcome("response stream"),
        json!({"events": [
            "response.created", "response.output_text.delta", "response.output_text.delta",
            "response.output_text.done", "response.completed"
        ]})
    );
    assert_eq!(
        outcome("upload"),
        json!({"id": "file-standin1", "bytes": 16, "filename": "train.jsonl"})
    );
    let uploads = seen.uploads.lock().unwrap().clone();
    assert_eq!(
        uploads,
        [openai::Uploaded {
            purpose: "fine-tune".into(),
            file_name: "train.jsonl".into(),
            content_type: "application/jsonl".into(),
            bytes: b"{\"prompt\": \"p\"}
"
            .to_vec(),
        }]
    );
    assert_eq!(outcome("models"), json!({"ids": ["gpt-4o", "gpt-4.1"]}));
    // The description declares no 401: an undeclared status, with the API's own words.
    let wrong = outcome("wrong key");
    assert_eq!(wrong["status"], 401, "{wrong}");
    assert!(
        wrong["excerpt"]
            .as_str()
            .unwrap()
            .contains("invalid_api_key"),
        "{wrong}"
    );
    // Chat declares its 429 (without a body): the typed error. A POST is not repeated (only
    // idempotent operations and calls with an idempotency key are retried).
    let busy = outcome("rate limit");
    assert!(busy["declared"].as_str().unwrap().contains("429"), "{busy}");
    let bodies = seen.chat_bodies.lock().unwrap();
    assert_eq!(
        bodies.iter().filter(|b| b["model"] == "gpt-busy").count(),
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_takes_chat_fields_as_options_and_streams_with_stream() {
    let (base, seen) = openai::serve().await;
    let help = cli(&base, &["chat", "create-completion", "--help"]).await;
    let help = text(&help.stdout);
    for required in ["--model <", "--messages <"] {
        let line = help
            .lines()
            .find(|line| line.trim_start().starts_with(required))
            .unwrap_or_else(|| panic!("{required} is listed: {help}"));
        let at = help.find(line).unwrap();
        let entry = &help[at..help[at..].find("\n\n").map_or(help.len(), |end| at + end)];
        assert!(entry.contains("[required]"), "{entry}");
    }
    assert!(help.contains("--stream"), "{help}");

    let messages = r#"[{"role":"user","content":"hi"}]"#;
    let whole = cli(
        &base,
        &[
            "chat",
            "create-completion",
            "--model",
            "gpt-4o",
            "--messages",
            messages,
        ],
    )
    .await;
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let reply: Value = serde_json::from_slice(&whole.stdout).unwrap();
    assert_eq!(reply["choices"][0]["message"]["content"], "Hello!");
    assert_eq!(
        reply["trace_hints"]["region"], "standin-1",
        "a newer field is kept"
    );

    let streamed = cli(
        &base,
        &[
            "chat",
            "create-completion",
            "--model",
            "gpt-4o",
            "--messages",
            messages,
            "--stream",
            "--field",
            "stream_options.include_usage=true",
        ],
    )
    .await;
    assert!(streamed.status.success(), "{}", text(&streamed.stderr));
    let chunks = json_lines(&streamed.stdout);
    assert_eq!(chunks.len(), 6, "{chunks:?}");
    assert_eq!(streamed_text(&chunks), "Hello!");
    assert_eq!(chunks[4]["choices"][0]["finish_reason"], "stop");
    assert_eq!(chunks[5]["usage"]["total_tokens"], 12);
    assert_eq!(chunks[0]["obfuscation"], "q3Xv");
    assert!(
        text(&streamed.stderr).ends_with("stream ended: the server sent its end marker\n"),
        "{}",
        text(&streamed.stderr)
    );
    let bodies = seen.chat_bodies.lock().unwrap().clone();
    assert_eq!(
        bodies[1],
        json!({
            "model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}],
            "stream": true, "stream_options": {"include_usage": true}
        }),
        "the options are the body"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_streams_responses_uploads_files_and_lists_models() {
    let (base, seen) = openai::serve().await;
    let streamed = cli(
        &base,
        &[
            "responses",
            "create",
            "--model",
            "gpt-4.1",
            "--input",
            "\"Say hi\"",
            "--stream",
        ],
    )
    .await;
    assert!(streamed.status.success(), "{}", text(&streamed.stderr));
    let events = json_lines(&streamed.stdout);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.completed"
        ]
    );
    assert_eq!(
        events[4]["response"]["output"][0]["content"][0]["text"],
        "Hi there"
    );
    // The Responses API sends no `[DONE]`: its stream ends when the server closes it.
    assert_eq!(
        text(&streamed.stderr),
        "stream ended: the server closed it\n"
    );

    let dir = std::env::temp_dir().join(format!("hg-openai-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("batch.jsonl");
    std::fs::write(&file, "{\"custom_id\": \"r1\"}\n").unwrap();
    let upload = format!("@{}", file.display());
    let uploaded = cli(
        &base,
        &["files", "create", "--file", &upload, "--purpose", "batch"],
    )
    .await;
    assert!(uploaded.status.success(), "{}", text(&uploaded.stderr));
    let reply: Value = serde_json::from_slice(&uploaded.stdout).unwrap();
    assert_eq!(reply["filename"], "batch.jsonl");
    assert_eq!(reply["expires_at"], Value::Null);
    let uploads = seen.uploads.lock().unwrap().clone();
    assert_eq!(uploads[0].purpose, "batch");
    assert_eq!(uploads[0].bytes, b"{\"custom_id\": \"r1\"}\n");

    let models = cli(&base, &["models", "list"]).await;
    assert!(models.status.success(), "{}", text(&models.stderr));
    let reply: Value = serde_json::from_slice(&models.stdout).unwrap();
    assert_eq!(reply["data"][1]["id"], "gpt-4.1");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_reports_a_wrong_key_and_a_rate_limit_as_what_they_are() {
    let (base, seen) = openai::serve().await;
    // No key at all: refused before sending, saying what to set.
    let cli_program = &programs().await.cli;
    let bare = run(
        cli_program,
        &["models", "list"],
        &[("OPENAI_BASE_URL", &base)],
    );
    assert_eq!(bare.status.code(), Some(4), "{}", text(&bare.stderr));
    let err = text(&bare.stderr);
    assert!(err.contains("missing_credentials"), "{err}");
    assert!(err.contains("set OPENAI_API_KEY"), "{err}");
    assert!(seen.chat_bodies.lock().unwrap().is_empty());

    let wrong = cli_with_key(&base, "sk-wrong-key-0000", &["models", "list"]).await;
    // No 401 in the description: an HTTP failure with the API's own words, not a declared error.
    assert_eq!(wrong.status.code(), Some(4), "{}", text(&wrong.stderr));
    let err = text(&wrong.stderr);
    assert!(err.contains("401"), "{err}");
    assert!(err.contains("invalid_api_key"), "{err}");

    let messages = r#"[{"role":"user","content":"hi"}]"#;
    let busy = cli(
        &base,
        &[
            "chat",
            "create-completion",
            "--model",
            openai::BUSY_MODEL,
            "--messages",
            messages,
        ],
    )
    .await;
    // Chat declares its 429: the API's declared error.
    assert_eq!(busy.status.code(), Some(3), "{}", text(&busy.stderr));
    assert!(text(&busy.stderr).contains("429"), "{}", text(&busy.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_chat_and_responses_stream_as_progress_and_files_upload_as_base64() {
    let Some(python) = crate::petstore_mcp::python() else {
        return;
    };
    let (base, seen) = openai::serve().await;
    let program = programs().await.mcp.to_str().unwrap().to_string();
    let chat = |stream: bool| json!({"body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "stream": stream}});
    use base64::Engine;
    let script = json!([
        {"call": "create_chat_completion", "arguments": chat(true), "progress": true},
        {"call": "create_chat_completion", "arguments": chat(false)},
        {"call": "create_response", "arguments": {"body": {"model": "gpt-4.1", "input": "hi", "stream": true}}, "progress": true},
        {"call": "create_file", "arguments": {"body": {
            "file": base64::engine::general_purpose::STANDARD.encode(b"line\n"),
            "purpose": "user_data"
        }}},
        {"call": "list_models", "arguments": {}},
    ]);
    for mode in ["legacy", "modern"] {
        let (python, script, program, base) = (
            python.clone(),
            script.clone(),
            program.clone(),
            base.clone(),
        );
        let seen = tokio::task::spawn_blocking(move || {
            crate::petstore_mcp::drive(
                &python,
                mode,
                &script,
                &["--", &program],
                &[("OPENAI_BASE_URL", &base), (KEY_ENV, KEY)],
            )
        })
        .await
        .unwrap();
        let steps = crate::petstore_mcp::steps(&seen);
        let structured = |step: usize| {
            let result = &steps[step]["result"];
            assert_ne!(result["isError"], true, "{mode} step {step}: {result}");
            serde_json::from_str::<Value>(result["content"][0]["text"].as_str().unwrap()).unwrap()
        };
        let progress: Vec<Value> = steps[0]["progress"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| serde_json::from_str(n["message"].as_str().unwrap()).unwrap())
            .collect();
        assert_eq!(progress.len(), 5, "{mode}: {progress:?}");
        assert_eq!(streamed_text(&progress), "Hello!", "{mode}");
        assert_eq!(structured(0), Value::Array(progress), "{mode}");
        assert_eq!(
            structured(1)["choices"][0]["message"]["content"],
            "Hello!",
            "{mode}"
        );
        let events = structured(2);
        assert_eq!(events.as_array().unwrap().len(), 5, "{mode}: {events}");
        assert_eq!(events[4]["type"], "response.completed", "{mode}");
        assert_eq!(steps[2]["progress"].as_array().unwrap().len(), 5, "{mode}");
        assert_eq!(structured(3)["bytes"], 5, "{mode}");
        assert_eq!(structured(4)["data"][0]["id"], "gpt-4o", "{mode}");
    }
    let uploads = seen.uploads.lock().unwrap();
    assert!(
        uploads
            .iter()
            .all(|u| u.purpose == "user_data" && u.bytes == b"line\n")
    );
}

#[tokio::test]
async fn the_comparison_pages_openai_programs_do_their_tasks_against_the_stand_in() {
    let (base, seen) = openai::serve().await;
    let programs = &programs().await.comparison;
    assert_eq!(programs.len(), 5, "five OpenAI tasks on the page");
    // The upload program sends `train.jsonl` from where it runs.
    let here = root().join("target/harness-typecheck/openai-comparison-run");
    std::fs::create_dir_all(&here).unwrap();
    std::fs::write(here.join("train.jsonl"), "{\"prompt\": \"p\"}\n").unwrap();
    for (name, program) in programs {
        let (program, here, base) = (program.clone(), here.clone(), base.clone());
        let out = tokio::task::spawn_blocking(move || {
            Command::new(program)
                .current_dir(here)
                .env("OPENAI_BASE_URL", base)
                .env(KEY_ENV, KEY)
                .output()
                .expect("the program runs")
        })
        .await
        .unwrap();
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let expected = match name.as_str() {
            "chat" => "Some(\"Hello!\")\n".to_string(),
            "chat_stream" => "Hello!\n".to_string(),
            "upload" => "file-standin1 (16 bytes)\n".to_string(),
            "models" => "gpt-4o\ngpt-4.1\n".to_string(),
            "rate_limit" => {
                assert!(stdout.starts_with("rate limited: "), "{stdout}");
                stdout.clone()
            }
            other => panic!("no expectation for {other}"),
        };
        assert_eq!(stdout, expected, "{name}");
    }
    let uploads = seen.uploads.lock().unwrap().clone();
    assert_eq!(uploads.len(), 1);
    assert_eq!(uploads[0].file_name, "train.jsonl");
    assert_eq!(uploads[0].purpose, "fine-tune");
}

//! The generated `petstore` binary itself, built by cargo and run as a process against the axum
//! server, with its credentials in the environment as a user would set them.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::PathBuf;
use std::process::{Command, Output};

use harness_e2e::{API_KEY, TOKEN, petstore_binary, serve};

fn binary() -> PathBuf {
    petstore_binary("petstore")
}

fn run(base: &str, args: &[&str]) -> Output {
    Command::new(binary())
        .args(args)
        .env("PETSTORE_BASE_URL", base)
        .env("PETSTORE_TOKEN", TOKEN)
        .env("PETSTORE_API_KEY", API_KEY)
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_calls_the_api_with_credentials_from_the_environment() {
    let base = serve().await;
    let out = run(&base, &["pets", "list", "--limit", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pets: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pets[0]["name"], "Rex");
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_codes_distinguish_failure_kinds_and_the_token_is_never_printed() {
    let base = serve().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    for (args, code) in [
        (vec!["pets", "get", "5"], 3),
        (vec!["--base-url", dead.as_str(), "pets", "list"], 4),
        (vec!["pets", "list", "--limit", "0"], 2),
        (vec!["pets", "nope"], 2),
        (
            vec![
                "pets",
                "add",
                "--input-json",
                "{\"body\": {\"name\": \"Teapot\", \"species\": \"dog\"}}",
            ],
            3,
        ),
    ] {
        let out = run(&base, &args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!printed.contains(TOKEN), "{args:?} printed the token");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn help_and_completions_work_from_the_binary() {
    let base = serve().await;
    let out = run(&base, &["pets", "list", "--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--limit"));
    let out = run(&base, &["--completions", "bash"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("petstore"));
}

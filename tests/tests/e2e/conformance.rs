//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against
//! a generated server over Streamable HTTP: `specs/conformance.yaml`, whose operations are the
//! suite's tool scenarios, backed by a loopback stand-in that answers each as an HTTP API would.
//! Every scenario passes but those `tests/conformance/expected-failures.yaml` lists with the
//! reason a generated server has no source for them (the suite fails if one of those passes).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::process::Command;

use harness_e2e::root;

#[tokio::test(flavor = "multi_thread")]
async fn the_official_conformance_suite_passes_every_scenario_a_generated_server_can_meet() {
    let Some(node) = harness_e2e::tools::tool(
        "the MCP conformance suite",
        "tools/conformance/node_modules/.bin/node",
    ) else {
        return;
    };
    let suite = root()
        .join("tools/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let base = harness_e2e::conformance::serve().await;
    let (_server, url) =
        tokio::task::spawn_blocking(move || harness_e2e::start_conformance_mcp(&base))
            .await
            .unwrap();
    let results = std::env::temp_dir().join(format!("harness-conformance-{}", std::process::id()));
    // The active suite, then the pending scenario of the 2020-12 schema keywords the listing
    // keeps (`json-schema-2020-12`), which the active suite does not run yet.
    let runs = [
        vec![
            "--expected-failures".to_string(),
            root()
                .join("tests/conformance/expected-failures.yaml")
                .display()
                .to_string(),
        ],
        vec!["--scenario".to_string(), "json-schema-2020-12".to_string()],
    ];
    let mut said = String::new();
    for run in runs {
        let (node, suite, url, results) =
            (node.clone(), suite.clone(), url.clone(), results.clone());
        let out = tokio::task::spawn_blocking(move || {
            Command::new(node)
                .arg(suite)
                .args(["server", "--url", &url])
                .args(run)
                .arg("--output-dir")
                .arg(&results)
                .output()
                .unwrap()
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        said.push_str(&stdout);
    }
    // The scenario run alone reports its checks: every one of them succeeded.
    let schema_run = said
        .split("'json-schema-2020-12'")
        .nth(1)
        .unwrap_or_default();
    assert!(
        schema_run.contains("json-schema-2020-12-$schema") && schema_run.contains(", 0 failed"),
        "{said}"
    );
    // The scenarios this target exists for ran and passed.
    for scenario in [
        "server-initialize",
        "logging-set-level",
        "tools-list",
        "tools-call-simple-text",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-error",
        "tools-call-with-progress",
        "dns-rebinding-protection",
    ] {
        assert!(
            said.contains(&format!("✓ {scenario}:")),
            "{scenario} did not pass:\n{said}"
        );
    }
}

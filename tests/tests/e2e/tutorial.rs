//! The book's tutorial, followed as printed: its shell commands run in order from the
//! checkout's root, end with a working call through the generated CLI and an MCP client (the
//! MCP Inspector) listing and calling the tools.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::process::Command;

use harness_e2e::root;

/// The tutorial's shell commands.
fn commands() -> Vec<String> {
    super::docs::shell_commands(&root().join("docs/src/tutorial.md"))
}

#[test]
fn the_tutorial_run_as_printed_calls_the_api_and_serves_its_tools_to_an_mcp_client() {
    let Some(prism) = super::prism::prism() else {
        return;
    };
    let Some(inspector) = harness_e2e::tools::tool(
        "the tutorial's test",
        "tools/inspector/node_modules/.bin/inspector",
    ) else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let target = harness_e2e::shared_target();
    // What differs from a reader's run, and only that: the stand-in on a free port, the
    // Inspector from `tools/inspector` rather than downloaded by npx, the crate built in the
    // target directory the generated-crate tests share as this workspace's builds of generated
    // crates are ([`harness_e2e::as_workspace_builds`], between the command that generates it
    // and the rest), and the servers stopped at the end.
    let mut scripts = [String::from("set -e\n"), String::new()];
    let mut part = 0;
    for command in commands() {
        let command = command
            .replace("4010", &port.to_string())
            .replace(
                "tools/prism/node_modules/.bin/prism",
                &prism.display().to_string(),
            )
            .replace(
                "npx @modelcontextprotocol/inspector",
                &inspector.display().to_string(),
            )
            .replace("target/debug/", &format!("{}/debug/", target.display()));
        let script = &mut scripts[part];
        script.push_str(&command);
        script.push('\n');
        if command.contains(" openapi ") {
            part = 1;
            scripts[1] = String::from("set -e\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n");
        } else if command.contains("prism mock") {
            script.push_str(&format!(
                "for i in $(seq 1 120); do (echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && break; sleep 0.5; done\n"
            ));
        }
    }
    assert_eq!(part, 1, "the tutorial generates a crate first: {scripts:?}");
    let run = |script: &str| {
        harness_e2e::in_shared_target(&mut Command::new("bash"))
            .args(["-c", script])
            .current_dir(root())
            .output()
            .unwrap()
    };
    let generated = run(&scripts[0]);
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    harness_e2e::as_workspace_builds(&root().join("target/museum"));
    let script = &scripts[1];
    let out = run(script);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The CLI's call, the Inspector's listing, then its call.
    assert!(
        stdout.contains("\"eventId\""),
        "no events in the CLI's reply: {stdout}"
    );
    assert!(
        stdout.contains("\"name\": \"list_special_events\""),
        "no tool listed: {stdout}"
    );
    assert!(
        stdout.contains("Sasquatch") || stdout.matches("eventId").count() >= 2,
        "{stdout}"
    );
}

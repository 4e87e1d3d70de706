//! The secrets sweep of the generated programs (brief, quality: "Secrets stay secret"): with
//! credentials in the environment, the `petstore` CLI and the `petstore-mcp` server (stdio in
//! both protocol eras, tasks, Streamable HTTP) run every tool of the sample against the axum
//! pet store, succeeding and failing (declared errors, undeclared statuses, a server that echoes
//! the token back, invalid input, the API down), plus help, completions and usage errors; the
//! in-process projections (catalog per audience, agent tool definitions, search, the harness
//! revision and role surfaces, rendered failures, `Debug`) are swept with the same credentials.
//! Nothing printed, returned or rendered may contain one of them. The generator's own sweep is
//! `generator/tests/generator/secrets.rs`; both use `tests/src/sweep.rs`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Duration;

use harness_e2e::sweep::{SECRETS, Sweep};
use harness_e2e::{
    API_KEY, ECHO_ID, McpStdio, TOKEN, UNDECLARED_ECHO_ID, petstore_binary, root, serve,
    start_mcp_http,
};
use harness_gen_runtime::http::{Credential, Secret};
use harness_gen_runtime::render::{cli_failure_envelope, mcp_failure};
use harness_gen_runtime::{Audience, ToolRegistry};
use serde_json::{Value, json};

/// A call of one tool of the sample, and the CLI's exit code for it against the test server.
struct Call {
    tool: &'static str,
    arguments: Value,
    exit: i32,
}

fn call(tool: &'static str, arguments: Value, exit: i32) -> Call {
    Call {
        tool,
        arguments,
        exit,
    }
}

/// Every tool of the sample, succeeding and failing in each way the test server can make it.
fn calls() -> Vec<Call> {
    let echo: i64 = ECHO_ID.parse().unwrap();
    let undeclared_echo: i64 = UNDECLARED_ECHO_ID.parse().unwrap();
    vec![
        call("list_pets", json!({"limit": 2, "species": ["dog"]}), 0),
        call("list_pets", json!({"limit": 0}), 2),
        call(
            "pets.create",
            json!({"body": {"name": "Kit", "species": "cat"}}),
            0,
        ),
        // A declared 409, and an undeclared 418 whose body carries the token.
        call(
            "pets.create",
            json!({"body": {"name": "Rex", "species": "dog"}}),
            3,
        ),
        call(
            "pets.create",
            json!({"body": {"name": "Teapot", "species": "dog"}}),
            3,
        ),
        call("get_pet", json!({"pet_id": 1}), 0),
        call("get_pet", json!({"pet_id": 5}), 3),
        // The server echoes the Authorization header in a declared error body.
        call("get_pet", json!({"pet_id": echo}), 3),
        // A success body the typed client cannot read as its declared output: the tool broke
        // its contract.
        call("get_pet", json!({"pet_id": 7}), 5),
        call("get_pet", json!({"pet_id": "seven"}), 2),
        call("delete_pet", json!({"pet_id": 1}), 0),
        call(
            "put_pets_pet_id_photo",
            json!({"pet_id": 1, "body": "aGVsbG8="}),
            0,
        ),
        call("get_pet_name", json!({"pet_id": 1}), 0),
        // The server echoes the Authorization header as the success body.
        call("get_pet_name", json!({"pet_id": echo}), 0),
        // A status the operation does not declare: a runtime failure showing the reply.
        call("get_pet_name", json!({"pet_id": 2}), 4),
        // The same, its body echoing the credential: the reply's excerpt is redacted.
        call("get_pet_name", json!({"pet_id": undeclared_echo}), 4),
        call("get_inventory", json!({}), 0),
    ]
}

/// The sample's catalog, as the generated crates embed it.
fn catalog() -> harness_gen_runtime::Catalog {
    let text = std::fs::read_to_string(root().join("generated/petstore/catalog.json")).unwrap();
    harness_gen_runtime::Catalog::from_json(&text).unwrap()
}

/// The tools `audience` sees, which the sweep must call at least once.
fn tools_for(audience: Audience) -> BTreeSet<String> {
    catalog()
        .tools
        .iter()
        .filter(|e| e.allows(audience))
        .map(|e| e.name.to_string())
        .collect()
}

fn assert_every_tool_called(audience: Audience) {
    let called: BTreeSet<String> = calls().iter().map(|c| c.tool.to_string()).collect();
    let missing: Vec<String> = tools_for(audience).difference(&called).cloned().collect();
    assert!(missing.is_empty(), "the sweep never calls {missing:?}");
}

/// A base URL nothing listens on.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

#[test]
#[should_panic(expected = "contains $PETSTORE_TOKEN")]
fn the_sweep_notices_a_command_that_prints_a_credential() {
    let mut sweep = Sweep::default();
    sweep.run("printenv", Command::new("printenv").arg("PETSTORE_TOKEN"));
    sweep.assert_clean();
}

#[tokio::test(flavor = "multi_thread")]
async fn no_cli_command_prints_a_credential() {
    assert_every_tool_called(Audience::Cli);
    let base = serve().await;
    let dead = dead_url();
    let binary = petstore_binary("petstore");
    let catalog = catalog();
    let command_of = |tool: &str| -> Vec<String> {
        let entry = catalog.tools.iter().find(|e| e.is_named(tool)).unwrap();
        super::crash_sweep::command_words(entry)
    };
    let mut sweep = Sweep::default();
    let mut run = |label: String, args: &[String], base: &str| {
        let mut command = Command::new(&binary);
        command.args(args).env("PETSTORE_BASE_URL", base);
        sweep.run(label, &mut command)
    };
    for call in calls() {
        let mut args = command_of(call.tool);
        args.extend(["--input-json".into(), call.arguments.to_string()]);
        let label = format!("petstore {}", args.join(" "));
        let out = run(label.clone(), &args, &base);
        assert_eq!(
            out.status.code(),
            Some(call.exit),
            "{label}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The same call with the API down: a runtime error (or the same input error).
        let out = run(format!("{label} (API down)"), &args, &dead);
        let expected = if call.exit == 2 { 2 } else { 4 };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{label} with the API down"
        );
    }
    // Every output format of a success, an application error and an echo.
    for format in ["json", "pretty", "text"] {
        for (tool, arguments) in [
            ("get_pet", json!({"pet_id": 1})),
            (
                "get_pet",
                json!({"pet_id": ECHO_ID.parse::<i64>().unwrap()}),
            ),
            (
                "get_pet_name",
                json!({"pet_id": ECHO_ID.parse::<i64>().unwrap()}),
            ),
        ] {
            let mut args = command_of(tool);
            args.extend([
                "--output-format".into(),
                format.into(),
                "--input-json".into(),
                arguments.to_string(),
            ]);
            run(format!("petstore {}", args.join(" ")), &args, &base);
        }
    }
    // Help of the root and of every command, version, completions, usage errors.
    let mut paths: BTreeSet<Vec<String>> = BTreeSet::new();
    for entry in &catalog.tools {
        let segments = command_of(entry.name.as_str());
        for end in 1..=segments.len() {
            paths.insert(segments[..end].to_vec());
        }
    }
    paths.insert(Vec::new());
    for mut path in paths {
        path.push("--help".into());
        let out = run(format!("petstore {}", path.join(" ")), &path, &base);
        assert!(out.status.success(), "{path:?}");
    }
    let strings = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for (args, code) in [
        (strings(&["--version"]), 0),
        (strings(&["--completions", "bash"]), 0),
        (strings(&["--completions", "zsh"]), 0),
        (strings(&["--completions", "fish"]), 0),
        (strings(&["--completions", "powershell"]), 0),
        (strings(&["pets", "nope"]), 2),
        (strings(&["pets", "get"]), 2),
        (
            strings(&["pets", "get", "--input-json", "@/nonexistent"]),
            2,
        ),
        (strings(&["pets", "get", "--input-json", "{not json"]), 2),
        (strings(&["--base-url", "not a url", "pets", "list"]), 4),
    ] {
        let label = format!("petstore {}", args.join(" "));
        let out = run(label.clone(), &args, &base);
        assert_eq!(out.status.code(), Some(code), "{label}");
    }
    sweep.assert_clean();
}

/// `_meta` of a 2026-07-28 request; with `tasks`, the client declares the tasks extension.
fn modern_meta(tasks: bool) -> Value {
    let extensions = if tasks {
        json!({"io.modelcontextprotocol/tasks": {}})
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
        "io.modelcontextprotocol/clientInfo": {"name": "sweep", "version": "1"},
    })
}

fn request(id: i64, method: &str, mut params: Value, meta: Option<&Value>) -> Value {
    if let Some(meta) = meta {
        params["_meta"] = meta.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Lists every page and calls every tool of [`calls`] (plus one the MCP audience cannot see)
/// in one session; returns the next free request id.
async fn every_call(session: &mut McpStdio, meta: Option<&Value>, mut id: i64) -> i64 {
    let mut cursor: Option<Value> = None;
    loop {
        id += 1;
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let page = session
            .request(&request(id, "tools/list", params, meta))
            .await;
        assert!(page["result"]["tools"].is_array(), "{page}");
        cursor = page["result"].get("nextCursor").cloned();
        if cursor.is_none() {
            break;
        }
    }
    for call in calls()
        .into_iter()
        .chain([call("delete_pet", json!({"pet_id": 1}), 0)])
    {
        id += 1;
        let params = json!({"name": call.tool, "arguments": call.arguments});
        let answer = session
            .request(&request(id, "tools/call", params, meta))
            .await;
        assert!(
            answer.get("result").is_some() || answer.get("error").is_some(),
            "{answer}"
        );
    }
    id
}

#[tokio::test(flavor = "multi_thread")]
async fn no_mcp_answer_over_stdio_carries_a_credential() {
    assert_every_tool_called(Audience::Mcp);
    let base = serve().await;
    let env: Vec<(&str, &str)> = SECRETS.to_vec();
    let page_size = [("HARNESS_MCP_PAGE_SIZE", "2")];
    let mut sweep = Sweep::default();

    // 2025-11-25: initialize, then everything, then garbage.
    let mut session = McpStdio::initialized(&base, &[env.as_slice(), &page_size].concat()).await;
    let id = every_call(&mut session, None, 0).await;
    session.send_line(b"{not json").await;
    session.receive().await;
    session
        .request(&request(id + 1, "tools/lost", json!({}), None))
        .await;
    let (success, stdout, stderr) = session.finish().await;
    assert!(success, "{stderr}");
    sweep.record("petstore-mcp stdio 2025-11-25 (stdout)", stdout);
    sweep.record("petstore-mcp stdio 2025-11-25 (stderr)", stderr);

    // 2026-07-28: discovery, everything, and a task whose result is polled to the end.
    let mut session = McpStdio::spawn(&base, &env);
    let meta = modern_meta(true);
    session
        .request(&request(1, "server/discover", json!({}), Some(&meta)))
        .await;
    let id = every_call(&mut session, Some(&meta), 1).await;
    for (offset, name) in ["Kit", "Teapot"].into_iter().enumerate() {
        let id = id + 100 * (offset as i64 + 1);
        let params =
            json!({"name": "pets.create", "arguments": {"body": {"name": name, "species": "cat"}}});
        let created = session
            .request(&request(id, "tools/call", params, Some(&meta)))
            .await;
        let task = created["result"]["taskId"].as_str().unwrap().to_string();
        let mut polls = 0;
        loop {
            polls += 1;
            let state = session
                .request(&request(
                    id + polls,
                    "tasks/get",
                    json!({"taskId": task}),
                    Some(&meta),
                ))
                .await;
            if state["result"]["status"] != "working" {
                break;
            }
            assert!(polls < 50, "the task finishes: {state}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let (success, stdout, stderr) = session.finish().await;
    assert!(success, "{stderr}");
    sweep.record("petstore-mcp stdio 2026-07-28 (stdout)", stdout);
    sweep.record("petstore-mcp stdio 2026-07-28 (stderr)", stderr);

    // The API down.
    let mut session = McpStdio::initialized(&dead_url(), &env).await;
    every_call(&mut session, None, 0).await;
    let (_, stdout, stderr) = session.finish().await;
    sweep.record("petstore-mcp stdio, API down (stdout)", stdout);
    sweep.record("petstore-mcp stdio, API down (stderr)", stderr);
    sweep.assert_clean();
}

/// Posts `message` to the MCP endpoint; returns the headers and body as text.
async fn post(
    http: &reqwest::Client,
    url: &str,
    message: &Value,
    headers: &[(&str, String)],
) -> (String, String) {
    let mut builder = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    for (name, value) in headers {
        builder = builder.header(*name, value);
    }
    let response = builder.send().await.unwrap();
    let head = format!("{} {:?}", response.status(), response.headers());
    (head, response.text().await.unwrap())
}

/// Checks that an event stream's answer is a result, or for a tool outside the MCP audience a
/// JSON-RPC error.
fn assert_answered(tool: &str, head: &str, body: &str) {
    let answer: Value = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find_map(|data| serde_json::from_str(data).ok())
        .unwrap_or_else(|| panic!("{tool}: no answer in {head} {body}"));
    let visible = tools_for(Audience::Mcp).contains(tool);
    assert_eq!(answer.get("result").is_some(), visible, "{tool}: {answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_mcp_answer_over_http_carries_a_credential() {
    let base = serve().await;
    let (server, url) = start_mcp_http(&base, SECRETS);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let mut sweep = Sweep::default();
    let meta = modern_meta(false);
    for (n, c) in calls().into_iter().enumerate() {
        let message = request(
            n as i64,
            "tools/call",
            json!({"name": c.tool, "arguments": c.arguments}),
            Some(&meta),
        );
        let headers = [
            ("mcp-protocol-version", "2026-07-28".to_string()),
            ("mcp-method", "tools/call".to_string()),
            ("mcp-name", c.tool.to_string()),
        ];
        let (head, body) = post(&http, &url, &message, &headers).await;
        assert_answered(c.tool, &head, &body);
        sweep.record(
            format!("POST tools/call {} 2026-07-28", c.tool),
            head + &body,
        );
    }
    // The initialize era: a session, then the calls in it.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "sweep", "version": "1"}}});
    let response = http
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    sweep.record("POST initialize", response.text().await.unwrap());
    let in_session = [
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25".to_string()),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&http, &url, &initialized, &in_session).await;
    for (n, c) in calls().into_iter().enumerate() {
        let message = request(
            n as i64 + 1,
            "tools/call",
            json!({"name": c.tool, "arguments": c.arguments}),
            None,
        );
        let (head, body) = post(&http, &url, &message, &in_session).await;
        assert_answered(c.tool, &head, &body);
        sweep.record(
            format!("POST tools/call {} 2025-11-25", c.tool),
            head + &body,
        );
    }
    let out = server.stop();
    sweep.record("petstore-mcp --http (stdout)", out.stdout);
    sweep.record("petstore-mcp --http (stderr)", out.stderr);
    sweep.assert_clean();
}

fn registry(base: &str, timeout: Duration) -> ToolRegistry {
    let client = petstore::Client::from_builder(
        petstore::Client::builder()
            .base_url(base)
            .timeout(timeout)
            .credential("bearerAuth", Credential::Token(Secret::new(TOKEN)))
            .credential("apiKey", Credential::ApiKey(Secret::new(API_KEY))),
    )
    .unwrap();
    sweep_debug(&client);
    petstore::registry(client).unwrap()
}

/// `Debug` of anything holding the credentials must not show them.
fn sweep_debug(value: &impl std::fmt::Debug) {
    let mut sweep = Sweep::default();
    sweep.record("Debug", format!("{value:?} {value:#?}"));
    sweep.assert_clean();
}

#[tokio::test(flavor = "multi_thread")]
async fn no_projection_or_failure_in_process_carries_a_credential() {
    let base = serve().await;
    let registry = registry(&base, Duration::from_secs(10));
    let mut sweep = Sweep::default();
    sweep.record("registry Debug", format!("{registry:?}"));

    // Every audience's projection, the agent's provider definitions and search.
    sweep.record("catalog", registry.catalog().to_json_pretty());
    for audience in [
        Audience::Cli,
        Audience::Mcp,
        Audience::Catalog,
        Audience::Dashboard,
        Audience::Agent,
    ] {
        let projected = registry.project(audience);
        sweep.record(
            format!("{audience:?} catalog"),
            projected.catalog().to_json_pretty(),
        );
        for provider in [
            harness_gen_runtime::Provider::OpenAi,
            harness_gen_runtime::Provider::Anthropic,
        ] {
            let tools = projected.provider_tools(provider, projected.initial_tools(audience));
            sweep.record(
                format!("{audience:?} {provider:?} tools"),
                Value::Array(tools).to_string(),
            );
        }
        let found: Vec<String> = projected
            .search(audience, "pet", 10)
            .iter()
            .map(|e| format!("{e:?}"))
            .collect();
        sweep.record(format!("{audience:?} search"), found.join("\n"));
    }

    // The embedded harness: revision, preamble, role surfaces.
    let revision = petstore::harness::resolve("pet-store", None).unwrap();
    sweep.record("revision", format!("{revision:?}"));
    let bundle = petstore::harness::bundle().unwrap();
    let preamble = harness_gen_runtime::harness::preamble(bundle, &revision);
    sweep.record("preamble", format!("{preamble:?}"));
    for role in ["clerk", "keeper"] {
        let surface = petstore::harness::role_registry(&registry, &revision, role).unwrap();
        sweep.record(
            format!("{role} surface"),
            surface.catalog().to_json_pretty(),
        );
    }

    // Every call through the one invocation path, its result or both failure renderings; a
    // client with a short timeout adds the slow pet's timeout.
    let impatient = self::registry(&base, Duration::from_millis(300));
    let slow = call("get_pet", json!({"pet_id": 9}), 4);
    for (registry, call) in calls()
        .into_iter()
        .map(|c| (&registry, c))
        .chain([(&impatient, slow)])
    {
        let label = format!("invoke {} {}", call.tool, call.arguments);
        match registry
            .invoke(Audience::Cli, call.tool, call.arguments)
            .await
        {
            Ok(value) => sweep.record(label, value.to_string()),
            Err(error) => {
                sweep.record(format!("{label} Debug"), format!("{error:?}"));
                sweep.record(format!("{label} Display"), error.to_string());
                sweep.record(
                    format!("{label} CLI"),
                    cli_failure_envelope(&error).to_string(),
                );
                sweep.record(format!("{label} MCP"), format!("{:?}", mcp_failure(&error)));
            }
        }
    }
    sweep.assert_clean();
}

//! The generated `petstore-mcp` server as a process, driven by the official Python MCP SDK
//! (`mcp` 2.x from PyPI, installed by `.ci/run` into `target/mcp-venv`) in both protocol eras,
//! over stdio and Streamable HTTP, backed by the axum pet store on loopback.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness_e2e::{TOKEN, root, serve, start_mcp_http};
use serde_json::{Value, json};

fn server() -> PathBuf {
    harness_e2e::petstore_mcp()
}

/// The Python with the `mcp` SDK (`HARNESS_PYTHON`, else the one `scripts/test.sh` installs).
pub(crate) fn python() -> Option<PathBuf> {
    match std::env::var_os("HARNESS_PYTHON") {
        Some(path) => Some(PathBuf::from(path)),
        None => harness_e2e::tools::tool(
            "the official MCP client tests",
            "target/mcp-venv/bin/python",
        ),
    }
}

/// Runs `tests/mcp/drive.py` in `mode` over `script`, against `target` (stdio args or a URL).
pub(crate) fn drive(
    python: &Path,
    mode: &str,
    script: &Value,
    target: &[&str],
    env: &[(&str, &str)],
) -> Value {
    let out = Command::new(python)
        .arg(root().join("tests/mcp/drive.py"))
        .args([mode, &script.to_string()])
        .args(target)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stdout.contains(TOKEN) && !stderr.contains(TOKEN),
        "the token leaked"
    );
    serde_json::from_str(&stdout).unwrap()
}

pub(crate) fn steps(seen: &Value) -> &Vec<Value> {
    seen["steps"].as_array().unwrap()
}

fn calls() -> Value {
    json!([
        {"call": "get_pet", "arguments": {"pet_id": 1}},
        {"call": "list_pets", "arguments": {"limit": 2}},
        {"call": "get_pet_name", "arguments": {"pet_id": 1}},
        {"call": "get_pet", "arguments": {"pet_id": 3}},
        {"call": "get_pet", "arguments": {"pet_id": "three"}},
        {"call": "delete_pet", "arguments": {"pet_id": 1}},
        {"call": "pets.create", "arguments": {"body": {"name": "Teapot", "species": "cat"}}},
    ])
}

/// Runs the stdio server (with `args`) against the API at `base`, its token and `env` in the
/// environment, driven by `script` in `mode`.
fn drive_stdio(
    python: &Path,
    mode: &str,
    script: &Value,
    base: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Value {
    let program = server();
    let mut target = vec!["--", program.to_str().unwrap()];
    target.extend_from_slice(args);
    let mut all = vec![("PETSTORE_BASE_URL", base), ("PETSTORE_TOKEN", TOKEN)];
    all.extend_from_slice(env);
    drive(python, mode, script, &target, &all)
}

/// [`drive_stdio`] with two tools per listing page.
fn run_stdio(python: &Path, mode: &str, script: &Value, base: &str) -> Value {
    drive_stdio(
        python,
        mode,
        script,
        base,
        &[],
        &[("HARNESS_MCP_PAGE_SIZE", "2")],
    )
}

/// The listing as one list of tools, checking the page structure on the way.
pub(crate) fn listed(pages: &Value, page_size: usize) -> Vec<Value> {
    let pages = pages.as_array().unwrap();
    let mut tools = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let last = i + 1 == pages.len();
        assert_eq!(page.get("nextCursor").is_none(), last, "{page}");
        let these = page["tools"].as_array().unwrap();
        assert!(these.len() <= page_size && !these.is_empty());
        tools.extend(these.iter().cloned());
    }
    tools
}

fn check_listing(seen: &Value) {
    let tools = listed(&steps(seen)[0]["list"], 2);
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    // Registry order; `delete_pet` is not in the MCP audience.
    assert_eq!(
        names,
        [
            "list_pets",
            "pets.create",
            "get_pet",
            "put_pets_pet_id_photo",
            "get_pet_name",
            "get_inventory"
        ]
    );
    for tool in &tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        let annotations = tool["annotations"].as_object().unwrap();
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(annotations[hint].is_boolean(), "{hint} of {}", tool["name"]);
        }
        // Standalone: no reference leaves the schema.
        assert!(!tool.to_string().contains("#/components/"), "{tool}");
    }
    let get_pet = &tools[2];
    assert_eq!(get_pet["title"], "Get a pet");
    assert!(get_pet["_meta"]["com.harnlang/toolContract"]["errorSchema"].is_object());
    assert_eq!(tools[0]["icons"][0]["mimeType"], "image/png");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_modern_era_lists_in_pages_and_projects_any_output_as_structured_content() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let mut script = vec![json!({"list": true})];
    script.extend(calls().as_array().unwrap().iter().cloned());
    let seen = run_stdio(&python, "modern", &Value::from(script), &base);
    assert_eq!(seen["protocolVersion"], "2026-07-28");
    check_listing(&seen);
    let page = &steps(&seen)[0]["list"][0];
    assert_eq!(
        (page["ttlMs"].as_u64(), page["cacheScope"].as_str()),
        (Some(300_000), Some("public"))
    );
    // The string-output tool keeps its schema in the modern listing.
    let tools = listed(&steps(&seen)[0]["list"], 2);
    assert_eq!(tools[4]["outputSchema"], json!({"type": "string"}));

    let results: Vec<&Value> = steps(&seen)[1..].iter().collect();
    check_failures(&results[3..]);
    check_runtime_error(&python, "modern");
    // Object, array and string outputs: the raw value as structuredContent and the same JSON
    // as text; the SDK validated each against its outputSchema (no clientError).
    for (step, expected) in results[..3].iter().zip([
        json!({"id": 1, "name": "Rex", "species": "dog"}),
        json!([{"id": 1, "name": "Rex", "species": "dog", "tag": null}, {"id": 2, "name": "Tom", "species": "cat"}]),
        json!("Rex"),
    ]) {
        let result = &step["result"];
        assert_eq!(result["structuredContent"], expected, "{step}");
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, expected);
        assert_eq!(result["isError"], false);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_legacy_era_keeps_object_outputs_structured_and_sends_others_as_text() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let mut script = vec![json!({"list": true})];
    script.extend(calls().as_array().unwrap().iter().cloned());
    let seen = run_stdio(&python, "legacy", &Value::from(script), &base);
    assert_eq!(seen["protocolVersion"], "2025-11-25");
    check_listing(&seen);
    let tools = listed(&steps(&seen)[0]["list"], 2);
    // Object outputs (an allOf of objects included) keep their schema; array and string
    // outputs lose it rather than break an old client's listing.
    let with_schema: Vec<&str> = tools
        .iter()
        .filter(|t| t.get("outputSchema").is_some())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(with_schema, ["pets.create", "get_pet", "get_inventory"]);

    let results: Vec<&Value> = steps(&seen)[1..].iter().collect();
    check_failures(&results[3..]);
    check_runtime_error(&python, "legacy");
    assert_eq!(
        results[0]["result"]["structuredContent"],
        json!({"id": 1, "name": "Rex", "species": "dog"})
    );
    for step in &results[1..3] {
        assert!(step["result"].get("structuredContent").is_none(), "{step}");
        let text = step["result"]["content"][0]["text"].as_str().unwrap();
        assert!(serde_json::from_str::<Value>(text).is_ok(), "{text}");
    }
}

/// Application error, invalid input, a forged call outside the audience, an undeclared
/// upstream status.
fn check_failures(results: &[&Value]) {
    let application = &results[0]["result"];
    assert_eq!(application["isError"], true);
    assert!(application.get("structuredContent").is_none());
    let data = &application["_meta"]["com.harnlang/toolContract"]["applicationError"];
    assert_eq!(data["tool"], "get_pet");
    assert_eq!(data["data"]["status"], 404);

    let invalid = &results[1]["result"];
    assert_eq!(invalid["isError"], true);
    let message = invalid["content"][0]["text"].as_str().unwrap();
    assert!(
        message.contains("/pet_id") && !message.contains("three"),
        "{message}"
    );

    // Outside the MCP audience: exactly an unknown tool, a JSON-RPC invalid-params error.
    assert_eq!(results[2]["error"]["code"], -32602, "{}", results[2]);
    assert_eq!(results[2]["error"]["message"], "unknown tool `delete_pet`");

    // An undeclared upstream answer is the declared `upstream_error` variant, without the body
    // (which holds the token: `drive` checks it never appears).
    let upstream = &results[3]["result"]["_meta"]["com.harnlang/toolContract"]["applicationError"];
    assert_eq!(upstream["data"]["kind"], "upstream_error", "{}", results[3]);
    assert_eq!(upstream["data"]["status"], 418);
}

/// With the API unreachable, a call is a runtime error reported by category only.
fn check_runtime_error(python: &Path, mode: &str) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let script = json!([{"call": "get_pet_name", "arguments": {"pet_id": 1}}]);
    let seen = run_stdio(python, mode, &script, &dead);
    let result = &steps(&seen)[0]["result"];
    assert_eq!(result["isError"], true);
    assert!(result.get("structuredContent").is_none());
    assert_eq!(
        result["_meta"]["com.harnlang/toolContract"]["failure"],
        json!({"kind": "runtime", "tool": "get_pet_name", "category": "transport"})
    );
    assert_eq!(
        result["content"][0]["text"],
        "tool `get_pet_name` failed: transport"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn streamable_http_serves_both_eras_on_loopback_and_checks_the_origin() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let (server, url) = start_mcp_http(&base, &[]);
    let script = json!([{"list": true}, {"call": "get_pet_name", "arguments": {"pet_id": 1}}]);
    for (mode, version) in [("modern", "2026-07-28"), ("legacy", "2025-11-25")] {
        let seen = drive(&python, mode, &script, &["--url", &url], &[]);
        assert_eq!(seen["protocolVersion"], version);
        let names = listed(&steps(&seen)[0]["list"], 100);
        assert_eq!(names.len(), 6);
        assert!(
            steps(&seen)[1]["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("Rex")
        );
    }

    // The URL's query narrows the tools a connection is served; a name that is not a tool is
    // a 400 listing the tools.
    let chosen = format!("{url}?tool=get_pet&tool=list_pets");
    let seen = drive(
        &python,
        "legacy",
        &json!([{"list": true}]),
        &["--url", &chosen],
        &[],
    );
    let names: Vec<String> = listed(&steps(&seen)[0]["list"], 100)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["list_pets", "get_pet"]);
    // By tag: the operations' OpenAPI tags, which the catalog carries in `_meta`.
    let tagged = format!("{url}?tag=store");
    let seen = drive(
        &python,
        "modern",
        &json!([{"list": true}]),
        &["--url", &tagged],
        &[],
    );
    let tools = listed(&steps(&seen)[0]["list"], 100);
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["get_inventory"]);
    assert_eq!(tools[0]["_meta"]["com.harnlang/tags"], json!(["store"]));
    let client = reqwest::Client::new();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    for (query, says) in [
        ("tool=nope", "get_pet"),
        ("tag=nope", "pets, store"),
        ("groups=pets", "`groups`"),
    ] {
        let refused = client
            .post(format!("{url}?{query}"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(ping.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 400, "{query}");
        let body = refused.text().await.unwrap();
        assert!(body.contains(says), "{query}: {body}");
    }

    // A browser page from another origin is refused before anything is served.
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let refused = client
        .post(&url)
        .header("origin", "http://evil.example")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(discover.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
    drop(server);
}

/// The requests an API received: (pet id, `Authorization` header) of each `GET /pets/{id}/name`.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(u64, String)>>>;

/// An API that records who asked for each pet's name.
async fn recording_api() -> (String, Seen) {
    use axum::extract::{Path, State};
    let seen = Seen::default();
    let app =
        axum::Router::new()
            .route(
                "/pets/{id}/name",
                axum::routing::get(
                    |State(seen): State<Seen>,
                     Path(id): Path<u64>,
                     headers: axum::http::HeaderMap| async move {
                        let authorization = headers
                            .get("authorization")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_string();
                        seen.lock().unwrap().push((id, authorization));
                        axum::Json(json!("Rex"))
                    },
                ),
            )
            .with_state(seen.clone());
    (harness_e2e::listen(app).await, seen)
}

#[tokio::test(flavor = "multi_thread")]
async fn each_http_session_calls_the_api_with_its_own_credential_header() {
    let Some(python) = python() else { return };
    let (base, seen) = recording_api().await;
    // The server's environment has a token too (start_mcp_http sets PETSTORE_TOKEN): with the
    // mapping on, it is never used for the mapped scheme.
    let (server, url) = harness_e2e::start_mcp_http_with(
        &base,
        &["--credential-header", "bearerAuth=X-Petstore-Token"],
        &[],
    );
    let session = |first: u64| -> Value {
        let calls: Vec<Value> = (first..first + 50)
            .map(|id| json!({"call": "get_pet_name", "arguments": {"pet_id": id}}))
            .collect();
        Value::Array(calls)
    };
    let (alice, bob) = (session(1000), session(2000));
    let drive_as = |script: &Value, token: &str| {
        let header = format!("X-Petstore-Token: {token}");
        drive(
            &python,
            "modern",
            script,
            &["--url", &url, "--header", &header],
            &[],
        )
    };
    let (alice_seen, bob_seen) = std::thread::scope(|scope| {
        let a = scope.spawn(|| drive_as(&alice, "alice-token-0001"));
        let b = scope.spawn(|| drive_as(&bob, "Bearer bob-token-0002"));
        (a.join().unwrap(), b.join().unwrap())
    });
    for seen in [&alice_seen, &bob_seen] {
        for step in steps(seen) {
            assert_eq!(step["result"]["structuredContent"], "Rex", "{step}");
        }
    }
    // 100 calls interleaved over two sessions: each reached the API with its session's token.
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 100);
    for (id, authorization) in &requests {
        let expected = if *id < 2000 {
            "Bearer alice-token-0001"
        } else {
            "Bearer bob-token-0002"
        };
        assert_eq!(authorization, expected, "pet {id}");
    }

    // A session without the header: the call fails saying which header, and nothing is sent.
    let script = json!([{"call": "get_pet_name", "arguments": {"pet_id": 3000}}]);
    let anonymous = drive(&python, "legacy", &script, &["--url", &url], &[]);
    let result = &steps(&anonymous)[0]["result"];
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`x-petstore-token`"), "{text}");
    assert_eq!(seen.lock().unwrap().len(), 100);
    drop(server);
}

#[test]
fn credential_headers_are_refused_over_stdio_and_for_unknown_schemes() {
    for (args, says) in [
        (
            vec!["--credential-header", "bearerAuth=X-Token"],
            "needs --http",
        ),
        (
            vec![
                "--http",
                "127.0.0.1:0",
                "--credential-header",
                "nope=X-Token",
            ],
            "bearerAuth",
        ),
        (vec!["--credential-header", "bearerAuth"], "SCHEME=HEADER"),
    ] {
        let out = Command::new(server())
            .args(&args)
            .env("PETSTORE_BASE_URL", "http://127.0.0.1:9")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_name_budget_lists_short_unique_names_that_calls_reach() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let script = json!([{"list": true}]);
    let env = [("HARNESS_MCP_MAX_TOOL_NAME", "12")];
    let seen = drive_stdio(&python, "modern", &script, &base, &[], &env);
    let names: Vec<String> = listed(&steps(&seen)[0]["list"], 100)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 6);
    let unique: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), 6, "{names:?}");
    assert!(names.iter().all(|n| n.len() <= 12), "{names:?}");
    // Names that fit stay; `get_inventory` (13) becomes a prefix and a hash, the same each run.
    assert!(names.contains(&"get_pet_name".to_string()), "{names:?}");
    let inventory = harness_gen_runtime::cli_names::shorten("get_inventory", 12);
    assert!(names.contains(&inventory), "{names:?}");
    assert!(!names.contains(&"get_inventory".to_string()), "{names:?}");
    let call = json!([{"call": inventory, "arguments": {}}]);
    let seen = drive_stdio(&python, "modern", &call, &base, &[], &env);
    let result = &steps(&seen)[0]["result"];
    assert_eq!(result["structuredContent"]["available"], 3, "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn discovery_mode_lists_meta_tools_that_search_describe_and_call_like_a_direct_call() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let script = json!([
        {"list": true},
        {"call": "search_tools", "arguments": {"query": "pet name"}},
        {"call": "describe_tool", "arguments": {"name": "get_pet_name"}},
        {"call": "call_tool", "arguments": {"name": "get_pet", "arguments": {"pet_id": 1}}},
        {"call": "call_tool", "arguments": {"name": "get_pet", "arguments": {"pet_id": 3}}},
        {"call": "get_pet", "arguments": {"pet_id": 3}},
        {"call": "call_tool", "arguments": {"name": "delete_pet", "arguments": {"pet_id": 1}}},
        {"call": "describe_tool", "arguments": {"name": "nope"}},
    ]);
    let args = ["--discovery", "on", "--pin", "list_pets"];
    for mode in ["modern", "legacy"] {
        let seen = drive_stdio(&python, mode, &script, &base, &args, &[]);
        let steps = steps(&seen);
        let names: Vec<String> = listed(&steps[0]["list"], 100)
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            ["search_tools", "describe_tool", "call_tool", "list_pets"],
            "{mode}"
        );
        let found = &steps[1]["result"]["structuredContent"]["tools"];
        assert_eq!(found[0]["name"], "get_pet_name", "{mode}: {found}");
        let described = &steps[2]["result"]["structuredContent"];
        assert!(
            described["inputSchema"]["properties"]["pet_id"].is_object(),
            "{mode}: {described}"
        );
        assert_eq!(
            steps[3]["result"]["structuredContent"]["name"], "Rex",
            "{mode}"
        );
        // Through call_tool, a declared error is typed in `_meta` exactly as a direct call's.
        assert_eq!(steps[4]["result"], steps[5]["result"], "{mode}");
        let data = &steps[4]["result"]["_meta"]["com.harnlang/toolContract"]["applicationError"];
        assert_eq!(data["data"]["status"], 404, "{mode}: {}", steps[4]);
        // A tool outside the audience is unknown through call_tool too.
        assert_eq!(
            steps[6]["error"]["message"], "unknown tool `delete_pet`",
            "{mode}"
        );
        assert_eq!(steps[7]["result"]["isError"], true, "{mode}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_result_over_the_limit_is_cut_and_the_cut_is_marked() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let script = json!([{"call": "list_pets", "arguments": {}}]);
    let args = ["--max-result-bytes", "120"];
    for mode in ["modern", "legacy"] {
        let seen = drive_stdio(&python, mode, &script, &base, &args, &[]);
        let result = &steps(&seen)[0]["result"];
        let cut = &result["_meta"]["com.harnlang/truncated"];
        assert_eq!(cut["limit"], 120, "{mode}: {result}");
        assert_eq!(cut["cuts"][0]["at"], "", "{mode}: {result}");
        assert_eq!(cut["cuts"][0]["total"], 3, "{mode}: {result}");
        let kept = cut["cuts"][0]["kept"].as_u64().unwrap();
        assert!(kept < 3, "{mode}: {result}");
        let texts: Vec<&str> = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect();
        // The (cut) list itself, then the marker a model reads.
        let pets: Value = serde_json::from_str(texts[0]).unwrap();
        assert_eq!(pets.as_array().unwrap().len() as u64, kept, "{mode}");
        assert!(
            texts.iter().any(|t| t.starts_with("[cut: the result was")
                && t.contains(&format!("keeps {kept} of 3 items"))),
            "{mode}: {texts:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_strict_profile_passes_openai_strict_rules_and_strict_arguments_are_mapped_back() {
    let Some(python) = python() else { return };
    let base = serve().await;
    // What a model in strict mode sends: every property, `null` for the ones it leaves out.
    let script = json!([
        {"list": true},
        {"call": "list_pets", "arguments": {"limit": null, "species": null, "x_request_id": null}},
        {"call": "pets.create", "arguments": {"body": {"name": "Biscuit", "species": "cat", "tag": null}}},
        {"call": "list_pets", "arguments": {"limit": 0, "species": null, "x_request_id": null}},
    ]);
    let args = ["--schema-profile", "strict"];
    for mode in ["modern", "legacy"] {
        let seen = drive_stdio(&python, mode, &script, &base, &args, &[]);
        let steps = steps(&seen);
        let listing = std::env::temp_dir().join(format!("strict-listing-{mode}.json"));
        std::fs::write(&listing, steps[0]["list"].to_string()).unwrap();
        let check = Command::new(&python)
            .arg(root().join("tests/mcp/strict_check.py"))
            .arg(&listing)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{mode}: {}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        let tools = listed(&steps[0]["list"], 100);
        let list_pets = tools.iter().find(|t| t["name"] == "list_pets").unwrap();
        assert_eq!(
            list_pets["inputSchema"]["properties"]["limit"],
            json!({"type": ["integer", "null"], "minimum": 1, "maximum": 100, "description": "How many pets to return."}),
            "{mode}"
        );
        // A list: structured in the modern era, text for legacy clients.
        let pets = &steps[1]["result"];
        let text = pets["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            pets["structuredContent"].is_array()
                || serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_array()),
            "{mode}: {pets}"
        );
        assert_eq!(
            steps[2]["result"]["structuredContent"]["id"], 42,
            "{mode}: {}",
            steps[2]
        );
        // Mapping back changes the form, not the contract: a limit out of bounds is refused.
        let refused = &steps[3]["result"];
        assert_eq!(refused["isError"], true, "{mode}: {}", steps[3]);
        assert!(
            refused["content"][0]["text"]
                .as_str()
                .is_some_and(|text| text.contains("/limit fails `minimum`")),
            "{mode}: {refused}"
        );
    }
    // Through discovery, call_tool's free-form `arguments` is JSON text, parsed and mapped
    // back for the tool it names.
    let script = json!([
        {"list": true},
        {"call": "call_tool", "arguments": {"name": "list_pets", "arguments": "{\"limit\": null, \"species\": [\"cat\"], \"x_request_id\": null}"}},
    ]);
    let args = ["--schema-profile", "strict", "--discovery", "on"];
    let seen = drive_stdio(&python, "modern", &script, &base, &args, &[]);
    let steps = steps(&seen);
    let tools = listed(&steps[0]["list"], 100);
    let call = tools.iter().find(|t| t["name"] == "call_tool").unwrap();
    assert_eq!(
        call["inputSchema"]["required"],
        json!(["name", "arguments"]),
        "{call}"
    );
    let pets = steps[1]["result"]["structuredContent"].as_array().unwrap();
    assert!(
        !pets.is_empty() && pets.iter().all(|pet| pet["species"] == "cat"),
        "{}",
        steps[1]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_inlined_profile_lists_no_reference_and_real_calls_validate() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let script = json!([
        {"list": true},
        {"call": "get_pet", "arguments": {"pet_id": 1}},
        {"call": "pets.create", "arguments": {"body": {"name": "Biscuit", "species": "cat"}}},
    ]);
    let args = ["--schema-profile", "inlined"];
    for mode in ["modern", "legacy"] {
        // The SDK checks each structured result against the listed (inlined) output schema.
        let seen = drive_stdio(&python, mode, &script, &base, &args, &[]);
        let steps = steps(&seen);
        let tools = listed(&steps[0]["list"], 100);
        assert_eq!(tools.len(), 6, "{mode}");
        for tool in &tools {
            let text = tool.to_string();
            assert!(
                !text.contains("$ref") && !text.contains("$defs"),
                "{mode}: {text}"
            );
        }
        let get_pet = tools.iter().find(|t| t["name"] == "get_pet").unwrap();
        let species = &get_pet["outputSchema"]["allOf"][0]["properties"]["species"];
        assert_eq!(
            species["enum"],
            json!(["dog", "cat", "bird"]),
            "{mode}: {get_pet}"
        );
        assert_eq!(
            steps[1]["result"]["structuredContent"]["name"], "Rex",
            "{mode}"
        );
        assert_eq!(
            steps[2]["result"]["structuredContent"]["id"], 42,
            "{mode}: {}",
            steps[2]
        );
    }
}

/// MCP logging: a client that asks (`logging/setLevel`) hears of each of its calls and of each
/// request they send upstream, at or above its level, and another session on the same server
/// that did not ask hears nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_that_sets_a_log_level_hears_of_its_calls_and_no_other_session_does() {
    let Some(python) = python() else { return };
    let base = serve().await;
    let (_server, url) = start_mcp_http(&base, &[]);
    let calls = json!([
        {"setLevel": "debug"},
        {"call": "get_pet", "arguments": {"pet_id": 1}},
        {"call": "get_pet", "arguments": {"pet_id": 3}},
        {"awaitLogs": 4},
    ]);
    for target in [vec!["--url", url.as_str()], vec![]] {
        let seen = match target.is_empty() {
            true => drive_stdio(&python, "legacy", &calls, &base, &[], &[]),
            false => drive(&python, "legacy", &calls, &target, &[]),
        };
        assert!(steps(&seen)[0].get("error").is_none(), "{seen}");
        let logs = seen["logs"].as_array().unwrap();
        assert_eq!(logs.len(), 4, "{seen}");
        // The request upstream as it is answered, then the call.
        assert_eq!(logs[0]["level"], "debug", "{seen}");
        assert_eq!(logs[0]["logger"], "harness_gen::upstream");
        assert_eq!(logs[0]["data"]["tool"], "get_pet");
        assert_eq!(logs[0]["data"]["method"], "GET");
        assert_eq!(logs[0]["data"]["path"], "/pets/{petId}");
        assert_eq!(logs[0]["data"]["attempt"], 0);
        assert_eq!(logs[0]["data"]["status"], 200);
        assert!(logs[0]["data"]["durationMs"].is_u64());
        assert_eq!(logs[1]["level"], "info");
        assert_eq!(logs[1]["logger"], "harness_gen::call");
        assert_eq!(logs[1]["data"]["tool"], "get_pet");
        assert_eq!(logs[1]["data"]["outcome"], "ok");
        assert!(logs[1]["data"]["durationMs"].is_u64());
        // Pet 3 is the API's declared 404: its reply at `info`, the call a warning, with nothing
        // of the call's values.
        assert_eq!(logs[2]["level"], "info", "{seen}");
        assert_eq!(logs[2]["data"]["status"], 404, "{seen}");
        assert_eq!(logs[3]["level"], "warning", "{seen}");
        assert_eq!(logs[3]["data"]["outcome"], "application");
        assert!(!logs.iter().any(|l| l.to_string().contains("pet_id")));
        assert!(!logs.iter().any(|l| l.to_string().contains(TOKEN)));
    }
    // At `error`, the successful call and the declared error are below the level.
    let quiet = json!([{"setLevel": "error"}, {"call": "get_pet", "arguments": {"pet_id": 3}}]);
    let seen = drive(&python, "legacy", &quiet, &["--url", &url], &[]);
    assert_eq!(seen["logs"], json!([]), "{seen}");
    // A session that never asked hears nothing.
    let silent = json!([{"call": "get_pet", "arguments": {"pet_id": 1}}]);
    let seen = drive(&python, "legacy", &silent, &["--url", &url], &[]);
    assert_eq!(seen["logs"], json!([]), "{seen}");
}

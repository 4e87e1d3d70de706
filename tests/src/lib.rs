//! Shared by the end-to-end tests: an axum server on loopback implementing the pet-store
//! sample (`specs/petstore.yaml`), with a few paths that misbehave on purpose.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use serde_json::{Value, json};

pub mod comparison;
pub mod conformance;
pub mod deploy;
pub mod openai;
pub mod pages;
pub mod streams;
pub mod sweep;
pub mod tools;

pub use sweep::{API_KEY, TOKEN};

/// The pet id whose routes echo the request's `Authorization` header back: in a declared 404
/// body from `getPet`, as the 200 body of `getPetName`. Clients must not pass it on.
pub const ECHO_ID: &str = "666";
/// The pet whose name the server answers with a status the operation does not declare, its
/// body the request's `Authorization` header.
pub const UNDECLARED_ECHO_ID: &str = "667";

/// Per-server state.
#[derive(Default)]
struct Server {
    inventory_hits: AtomicUsize,
    /// The `Idempotency-Key` of each attempt to create the pet named `Flaky`.
    flaky_keys: std::sync::Mutex<Vec<String>>,
}

/// Starts the server; returns its base URL.
pub async fn serve() -> String {
    let state = Arc::new(Server::default());
    let app = Router::new()
        .route("/pets", get(list_pets).post(create_pet))
        .route(
            "/pets/{id}",
            get(get_pet).delete(|| async { StatusCode::NO_CONTENT }),
        )
        .route(
            "/pets/{id}/photo",
            put(|body: axum::body::Bytes| async move { format!("{}", body.len()) }),
        )
        .route("/pets/{id}/name", get(pet_name))
        .route("/store/inventory", get(inventory))
        .with_state(state);
    listen(app).await
}

/// Serves `app` on a free loopback port; returns its base URL.
pub async fn listen(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("the test server starts");
    let addr = listener.local_addr().expect("the test server starts");
    tokio::spawn(async move {
        axum::serve(listener, app)
            .await
            .expect("the test server starts")
    });
    format!("http://{addr}")
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

async fn list_pets(headers: HeaderMap, Query(query): Query<Vec<(String, String)>>) -> Response {
    if !authorized(&headers) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"title": "who are you"})),
        )
            .into_response();
    }
    let limit: usize = query
        .iter()
        .find(|(k, _)| k == "limit")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(20);
    let species = query
        .iter()
        .find(|(k, _)| k == "species")
        .map(|(_, v)| v.clone());
    let pets = vec![
        json!({"id": 1, "name": "Rex", "species": "dog", "tag": null}),
        json!({"id": 2, "name": "Tom", "species": "cat"}),
        json!({"id": 3, "name": "Tweety", "species": "bird", "born": "2020-01-01"}),
    ];
    let pets: Vec<Value> = pets
        .into_iter()
        .filter(|p| {
            species
                .as_ref()
                .is_none_or(|s| s.split(',').any(|s| p["species"] == s))
        })
        .take(limit)
        .collect();
    axum::Json(pets).into_response()
}

async fn create_pet(
    State(state): State<Arc<Server>>,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Value>,
) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    // `Flaky` is created on the second attempt: the first gets a 503 asking to retry at once;
    // the pet's tag lists the idempotency keys of all attempts.
    // `Slow` takes two seconds (a call under way when the server is told to stop, a task to
    // cancel while it works).
    if body["name"] == "Slow" {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let mut pet = body;
        pet["id"] = json!(44);
        return (StatusCode::CREATED, axum::Json(pet)).into_response();
    }
    if body["name"] == "Flaky" {
        let key = headers
            .get("idempotency-key")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("(none)");
        let mut keys = state.flaky_keys.lock().expect("no test thread panicked");
        keys.push(key.to_string());
        if keys.len() == 1 {
            return (StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "0")]).into_response();
        }
        let mut pet = body;
        pet["id"] = json!(43);
        pet["tag"] = json!(keys.join(","));
        return (StatusCode::CREATED, axum::Json(pet)).into_response();
    }
    if body["name"] == "Rex" {
        return (
            StatusCode::CONFLICT,
            axum::Json(json!({"title": "Rex exists"})),
        )
            .into_response();
    }
    if body["name"] == "Teapot" {
        return (StatusCode::IM_A_TEAPOT, format!("leaked {TOKEN}")).into_response();
    }
    let mut pet = body;
    pet["id"] = json!(42);
    (StatusCode::CREATED, axum::Json(pet)).into_response()
}

/// The request's `Authorization` header, as the echoing routes return it.
fn authorization(headers: &HeaderMap) -> String {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

async fn get_pet(headers: HeaderMap, Path(id): Path<String>) -> Response {
    match id.as_str() {
        ECHO_ID => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"title": "no such pet", "detail": format!("you sent {}", authorization(&headers))})),
        )
            .into_response(),
        "1" => axum::Json(json!({"id": 1, "name": "Rex", "species": "dog"})).into_response(),
        "7" => axum::Json(json!({"id": "not a number"})).into_response(),
        // A `format: date` field that is not a date.
        "8" => axum::Json(json!({"id": 8, "name": "Odd", "species": "cat", "born": "sometime in May"}))
            .into_response(),
        "9" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            StatusCode::OK.into_response()
        }
        _ => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"title": "no such pet", "detail": id})),
        )
            .into_response(),
    }
}

async fn pet_name(headers: HeaderMap, Path(id): Path<String>) -> Response {
    match id.as_str() {
        ECHO_ID => axum::Json(json!(authorization(&headers))).into_response(),
        // A status the operation does not declare, echoing the credential in its body: the
        // failure's excerpt of it must come out redacted.
        UNDECLARED_ECHO_ID => (StatusCode::IM_A_TEAPOT, authorization(&headers)).into_response(),
        "1" => axum::Json(json!("Rex")).into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn inventory(State(state): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if state.inventory_hits.fetch_add(1, Ordering::SeqCst) == 0 {
        return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")]).into_response();
    }
    let key = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none");
    axum::Json(json!({"available": 3, "key_was_sent": i64::from(key == API_KEY)})).into_response()
}

/// The workspace root.
pub fn root() -> std::path::PathBuf {
    tools::repository_root()
}

/// The features every program of a generated crate is built with here: one feature set for
/// all of them, so the runtime and its dependencies compile once for every test (each other
/// set compiles the whole dependency tree again). Users' feature sets, one program feature at a
/// time, are built by the README's and the tutorial's tests. `schemars` is what
/// `examples/composed` turns on in the pet store, so its programs share this build too.
const PROGRAM_FEATURES: &str = "cli,dashboard,redis,schemars";

/// Builds binary `bin` of `generated/petstore` ([`built_once`], [`PROGRAM_FEATURES`]); returns
/// its path.
pub fn petstore_binary(bin: &str) -> std::path::PathBuf {
    built_once("petstore", "--bin", bin, PROGRAM_FEATURES)
}

/// The `petstore-mcp` server.
pub fn petstore_mcp() -> std::path::PathBuf {
    petstore_binary("petstore-mcp")
}

/// Builds binary `bin` of the generated `pages` crate ([`built_once`], [`PROGRAM_FEATURES`]);
/// returns its path.
pub fn pages_binary(bin: &str) -> std::path::PathBuf {
    built_once("pages", "--bin", bin, PROGRAM_FEATURES)
}

/// Builds binary `bin` of the generated `streams` crate ([`built_once`], [`PROGRAM_FEATURES`]);
/// returns its path.
pub fn streams_binary(bin: &str) -> std::path::PathBuf {
    built_once("streams", "--bin", bin, PROGRAM_FEATURES)
}

/// Builds binary `bin` of `examples/composed` (the pet store and train travel APIs and tools
/// written in Rust in one registry) with the features that make its build the generated
/// programs' ([`built_once`], [`PROGRAM_FEATURES`]); returns its path.
pub fn composed_binary(bin: &str) -> std::path::PathBuf {
    built_once("composed", "--bin", bin, "dashboard,redis")
}

/// Builds example `name` of harness-gen-runtime ([`built_once`]) with the runtime features the
/// generated programs' [`PROGRAM_FEATURES`] turn on, so it shares their build; returns its path.
pub fn runtime_example(name: &str) -> std::path::PathBuf {
    built_once(
        "harness-gen-runtime",
        "--example",
        name,
        "cli,dashboard,redis,dates,typed",
    )
}

/// Makes the crate generated into `dir` (its own workspace, as a user's is) build as this
/// workspace's builds of generated crates do: with the versions this workspace resolved (the
/// registry's newest could differ, and the build needs nothing new) and its dev profile
/// (dependencies optimized, without debug info), so in [`shared_target`] it reuses the
/// dependencies those builds compiled instead of compiling them all again.
pub fn as_workspace_builds(dir: &std::path::Path) {
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("the lock file copies");
    std::fs::create_dir_all(dir.join(".cargo")).expect("the crate's .cargo folder");
    let profile = "[profile.dev.package.\"*\"]\nopt-level = 2\ndebug = false\n";
    std::fs::write(dir.join(".cargo/config.toml"), profile).expect("the crate's cargo config");
}

/// The target directory the tests' own builds of generated crates and programs share (the one
/// tests run from is locked by cargo while they run).
pub fn shared_target() -> std::path::PathBuf {
    root().join("target/harness-typecheck/target")
}

/// Generates the crate `name` from the corpus description `spec` into the scratch workspace
/// `target/harness-typecheck/<dir>` (emptied first), with `examples` (file name, program) as
/// its examples and what they need (tokio, futures) as dev-dependencies; returns the
/// workspace's folder, ready for a cargo in [`shared_target`].
pub fn scratch_crate(
    spec: &str,
    name: &str,
    dir: &str,
    examples: &[(String, String)],
) -> std::path::PathBuf {
    let dir = root().join("target/harness-typecheck").join(dir);
    let _ = std::fs::remove_dir_all(&dir);
    let spec = root().join("../shared/corpus/large").join(spec);
    let options = harness_gen::emit::krate::Options {
        crate_name: Some(name.into()),
        runtime_path: Some(root().join("runtime").display().to_string()),
        command: format!("harness-gen openapi {}", spec.display()),
        harness: None,
        listing_budget: None,
    };
    let mut diags = harness_gen::diag::Diagnostics::default();
    let (mut krate, _) = harness_gen::generate_crate(&spec, &options, &mut diags)
        .unwrap_or_else(|| panic!("{} generates: {diags}", spec.display()));
    assert!(!diags.has_errors(), "{diags}");
    for (file, program) in examples {
        krate
            .files
            .insert(format!("examples/{file}"), program.clone());
    }
    if let Some(manifest) = krate.files.get_mut("Cargo.toml") {
        manifest.push_str(
            "\n[dev-dependencies]\ntokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }\nfutures = \"0.3\"\n",
        );
    }
    harness_gen::output::write(&dir.join(name), &krate.files)
        .unwrap_or_else(|e| panic!("the crate is written: {e:?}"));
    let workspace = format!("[workspace]\nresolver = \"3\"\nmembers = [\"{name}\"]\n");
    std::fs::write(dir.join("Cargo.toml"), workspace).expect("the workspace is written");
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("the lock is copied");
    dir
}

/// `command` (a cargo, or a shell running one) building in [`shared_target`] with the flags every
/// build there uses (warnings denied), so dependencies compile once for all of them.
pub fn in_shared_target(command: &mut std::process::Command) -> &mut std::process::Command {
    command
        .env("CARGO_TARGET_DIR", shared_target())
        .env("RUSTFLAGS", "-D warnings")
}

/// Builds `name` (`kind` is `--bin` or `--example`) of `package` with `features`, once per test
/// process, with warnings denied, in a target directory of its own (the one tests run from is
/// locked by cargo while they run) that every such build shares with the same flags, so the
/// dependencies compile once; returns the executable's path.
fn built_once(package: &str, kind: &str, name: &str, features: &str) -> std::path::PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let target = shared_target();
    let path = match kind {
        "--example" => target.join("debug/examples").join(name),
        _ => target.join("debug").join(name),
    };
    let key = format!("{package} {kind} {name}");
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.contains(&key) {
        let out = in_shared_target(&mut std::process::Command::new(env!("CARGO")))
            .args(["build", "--quiet", "--offline", "-p", package])
            .args(["--features", features, kind, name])
            .current_dir(root())
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        built.push(key);
    }
    path
}

/// A `petstore-mcp --http` process, killed when dropped (so a failing test leaves nothing
/// behind holding its output pipes).
pub struct McpHttp(Option<std::process::Child>, Logs);

/// What a server printed on standard error, read as it comes (a server that logs each call
/// would otherwise stop once the pipe is full).
#[derive(Clone, Default)]
pub struct Logs(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Logs {
    /// Reads `from` to its end in a thread of its own, after `first` (what was read already).
    fn drain(first: &str, mut from: impl std::io::Read + Send + 'static) -> Logs {
        let logs = Logs::default();
        logs.push(first.as_bytes());
        let kept = logs.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(n @ 1..) = from.read(&mut buffer) {
                kept.push(&buffer[..n]);
            }
        });
        logs
    }

    fn push(&self, bytes: &[u8]) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
    }

    /// Everything printed so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

impl McpHttp {
    /// Kills the server; returns what it printed.
    pub fn stop(mut self) -> std::process::Output {
        let mut child = self.0.take().expect("the server is running");
        let _ = child.kill();
        self.finish(child)
    }

    /// Sends the server SIGTERM and waits (at most `within`) for it to exit; returns what it
    /// printed and how it exited.
    pub fn terminate(mut self, within: Duration) -> std::process::Output {
        let mut child = self.0.take().expect("the server is running");
        let pid = child.id().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM reaches the server");
        let deadline = std::time::Instant::now() + within;
        while child
            .try_wait()
            .expect("the server can be waited for")
            .is_none()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not exit within {within:?} of SIGTERM; it printed:\n{}",
                self.1.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.finish(child)
    }

    /// What the server printed on standard error so far.
    pub fn logs(&self) -> String {
        self.1.text()
    }

    fn finish(&self, child: std::process::Child) -> std::process::Output {
        let mut output = child
            .wait_with_output()
            .expect("the server can be waited for");
        // The thread reading standard error ends with the pipe; give it a moment.
        let until = std::time::Instant::now() + Duration::from_secs(2);
        while Arc::strong_count(&self.1.0) > 1 && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        output.stderr = self.1.text().into_bytes();
        output
    }
}

impl Drop for McpHttp {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts `petstore-mcp --http` on a free loopback port against the API at `base`, with the
/// token and `env` in its environment; returns the process and the MCP endpoint's URL.
pub fn start_mcp_http(base: &str, env: &[(&str, &str)]) -> (McpHttp, String) {
    start_mcp_http_with(base, &[], env)
}

/// [`start_mcp_http`] with more arguments.
pub fn start_mcp_http_with(base: &str, args: &[&str], env: &[(&str, &str)]) -> (McpHttp, String) {
    let (server, url) = start_mcp_http_at("127.0.0.1:0", base, args, env);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (server, url)
}

/// [`start_mcp_http_with`] listening on `addr`; the URL is the one the server printed.
pub fn start_mcp_http_at(
    addr: &str,
    base: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (McpHttp, String) {
    let mut command = std::process::Command::new(petstore_mcp());
    command
        .env("PETSTORE_BASE_URL", base)
        .env("PETSTORE_TOKEN", TOKEN);
    start_http(command, addr, args, env)
}

/// The generated `conformance` crate's MCP server (`specs/conformance.yaml`) over Streamable
/// HTTP on a free loopback port, against the stand-in at `base`
/// ([`conformance::serve`]); returns the process and the MCP endpoint's URL.
pub fn start_conformance_mcp(base: &str) -> (McpHttp, String) {
    let mut command = std::process::Command::new(built_once(
        "conformance",
        "--bin",
        "conformance-mcp",
        PROGRAM_FEATURES,
    ));
    command.env("CONFORMANCE_BASE_URL", base);
    start_http(command, "127.0.0.1:0", &[], &[])
}

/// `program --dashboard --http` (the generated `streams` crate's MCP program, and its
/// dashboard) on a free loopback port against the API at `base`; returns the process and the
/// dashboard's URL.
pub fn start_streams_dashboard(base: &str) -> (McpHttp, String) {
    let mut command = std::process::Command::new(streams_binary("streams-mcp"));
    command.env("STREAMS_BASE_URL", base);
    let (server, mcp) = start_http(command, "127.0.0.1:0", &["--dashboard"], &[]);
    (server, dashboard_of(&mcp))
}

/// `composed-mcp --http` (`examples/composed`) on a free loopback port with `args` and `env`;
/// returns the process and the MCP endpoint's URL.
pub fn start_composed_mcp(args: &[&str], env: &[(&str, &str)]) -> (McpHttp, String) {
    let command = std::process::Command::new(composed_binary("composed-mcp"));
    start_http(command, "127.0.0.1:0", args, env)
}

/// [`start_composed_mcp`] with `--dashboard`, against the pet store at `pets`; returns the
/// process and the dashboard's URL.
pub fn start_composed_dashboard(pets: &str) -> (McpHttp, String) {
    let (server, mcp) = start_composed_mcp(&["--dashboard"], &[("PETSTORE_BASE_URL", pets)]);
    (server, dashboard_of(&mcp))
}

/// The dashboard's URL beside the MCP endpoint `mcp`.
fn dashboard_of(mcp: &str) -> String {
    format!("{}/dashboard", mcp.trim_end_matches("/mcp"))
}

/// Starts `command` (an MCP program) with `--http addr`, `args` and `env`; returns the process
/// and the MCP endpoint's URL it printed.
fn start_http(
    mut command: std::process::Command,
    addr: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (McpHttp, String) {
    use std::io::BufRead;
    let mut child = command
        .args(["--http", addr])
        .args(args)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the MCP server starts");
    let mut line = String::new();
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr is piped"));
    stderr
        .read_line(&mut line)
        .expect("the MCP server says where it listens");
    let logs = Logs::drain(&line, stderr.into_inner());
    let url = line
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(url.starts_with("http://"), "{line}");
    (McpHttp(Some(child), logs), url)
}

/// A `petstore-mcp` process spoken to over stdio line by line, every line it printed kept.
pub struct McpStdio {
    child: tokio::process::Child,
    input: Option<tokio::process::ChildStdin>,
    output: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    /// Every line read from standard output so far.
    pub transcript: String,
    /// Standard error, read as it comes.
    stderr: Option<tokio::task::JoinHandle<String>>,
}

impl McpStdio {
    /// Starts the server against the API at `base` with the token and `env` in its
    /// environment; standard error is captured for [`McpStdio::finish`].
    pub fn spawn(base: &str, env: &[(&str, &str)]) -> McpStdio {
        let mut all = vec![("PETSTORE_BASE_URL", base), ("PETSTORE_TOKEN", TOKEN)];
        all.extend_from_slice(env);
        McpStdio::spawn_program(&petstore_mcp(), &all)
    }

    /// Starts the MCP program at `program` with `env` in its environment.
    pub fn spawn_program(program: &std::path::Path, env: &[(&str, &str)]) -> McpStdio {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(program)
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the MCP server starts");
        let input = child.stdin.take();
        let output = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().map(|mut err| {
            tokio::spawn(async move {
                use tokio::io::AsyncReadExt;
                let mut text = String::new();
                let _ = err.read_to_string(&mut text).await;
                text
            })
        });
        McpStdio {
            child,
            input,
            output: tokio::io::BufReader::new(output).lines(),
            transcript: String::new(),
            stderr,
        }
    }

    /// Starts the server and completes an `initialize` handshake (protocol 2025-11-25).
    pub async fn initialized(base: &str, env: &[(&str, &str)]) -> McpStdio {
        McpStdio::handshake(McpStdio::spawn(base, env)).await
    }

    /// Completes an `initialize` handshake (protocol 2025-11-25) with a started server.
    pub async fn handshake(mut session: McpStdio) -> McpStdio {
        session
            .send(
                &serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "1"}}}),
            )
            .await;
        assert_eq!(session.receive().await["id"], 0);
        session
            .send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    /// Writes one line.
    pub async fn send_line(&mut self, line: &[u8]) {
        use tokio::io::AsyncWriteExt;
        let input = self.input.as_mut().expect("standard input is open");
        input.write_all(line).await.expect("the server reads");
        input.write_all(b"\n").await.expect("the server reads");
        input.flush().await.expect("the server reads");
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(message.to_string().as_bytes()).await;
    }

    /// Reads the next message (within 20 s).
    pub async fn receive(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.output.next_line())
            .await
            .expect("the server answers")
            .expect("standard output is readable")
            .expect("the server is still there");
        self.transcript.push_str(&line);
        self.transcript.push('\n');
        serde_json::from_str(&line).expect("the server writes JSON lines")
    }

    /// Sends `request` and reads until its answer (notifications in between are kept in the
    /// transcript).
    pub async fn request(&mut self, request: &Value) -> Value {
        self.send(request).await;
        loop {
            let message = self.receive().await;
            if message.get("id") == request.get("id") {
                return message;
            }
        }
    }

    /// Pings and expects the pong: the server still serves.
    pub async fn still_serving(&mut self, id: i64) {
        let pong = self
            .request(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        assert!(pong["result"].is_object(), "{pong}");
    }

    /// Closes standard input (the client goes away) and waits up to 10 s for the server to
    /// end; returns whether it exited successfully, and what it printed: the rest of standard
    /// output appended to the transcript, and standard error.
    pub async fn finish(mut self) -> (bool, String, String) {
        drop(self.input.take());
        while let Ok(Some(line)) = self.output.next_line().await {
            self.transcript.push_str(&line);
            self.transcript.push('\n');
        }
        let stderr = match self.stderr.take() {
            Some(reading) => reading.await.unwrap_or_default(),
            None => String::new(),
        };
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .expect("the server ends when its client goes away")
            .expect("the server can be waited for");
        (status.success(), self.transcript, stderr)
    }
}

//! Attacks on the generated MCP server (`petstore-mcp --http`) and its HTTP client, run as
//! tests (SECURITY.md states the promises): a server open beyond loopback without client
//! authentication does not start; a spoofed `Host` from another address gets nothing without
//! the token; JWTs of the wrong issuer, audience or key, or expired, are refused; an upstream
//! redirect to another origin receives no credential (CLI and MCP server); a thousand slow
//! connections are closed while a normal client is served; one client cannot see another's
//! task; the oldest idle session makes room when sessions are at their cap.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::Request;
use axum::response::IntoResponse;
use harness_e2e::{API_KEY, TOKEN, listen, petstore_binary, serve, start_mcp_http_at};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The token clients authenticate with in these tests.
const CLIENT_TOKEN: &str = "client-token-3f9a1c7e5b2d4e6f";

/// A session of rmcp's client in the 2026-07-28 era, with a bearer token and extra headers.
async fn connect(
    url: &str,
    token: Option<&str>,
    headers: &[(&'static str, &str)],
    tasks: bool,
) -> Result<RunningService<RoleClient, ClientConfig>, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    config.custom_headers = headers
        .iter()
        .map(|(name, value)| (name.parse().unwrap(), value.parse().unwrap()))
        .collect();
    let capabilities = if tasks {
        ClientCapabilities::builder().enable_tasks().build()
    } else {
        ClientCapabilities::default()
    };
    ClientConfig::new(capabilities, Implementation::new("e2e", "1.0.0"))
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .map_err(|e| e.to_string())
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string())
        .with_arguments(arguments.as_object().unwrap().clone())
}

/// `pets.create` of a cat named Kit.
fn create_kit() -> CallToolRequestParams {
    call(
        "pets.create",
        json!({"body": {"name": "Kit", "species": "cat"}}),
    )
}

/// The inline result of a call.
async fn complete(
    client: &RunningService<RoleClient, ClientConfig>,
    request: CallToolRequestParams,
) -> rmcp::model::CallToolResult {
    match client.peer().call_tool_once(request).await.unwrap() {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected an inline result: {other:?}"),
    }
}

/// An MCP `initialize` request (the 2025-06-18 era), as a raw JSON-RPC body.
fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

fn post(
    url: &str,
    host: Option<&str>,
    token: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(host) = host {
        request = request.header("host", host);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request
}

/// This machine's address on its network (not loopback), if it has one.
fn network_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("10.255.255.255:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn a_server_open_beyond_loopback_with_its_own_credentials_does_not_start() {
    let out = std::process::Command::new(harness_e2e::petstore_mcp())
        .args(["--http", "0.0.0.0:0"])
        .env("PETSTORE_TOKEN", TOKEN)
        .env_remove("HARNESS_MCP_AUTH_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    for says in [
        "HARNESS_MCP_AUTH_TOKEN",
        "--auth-issuer",
        "--allow-unauthenticated",
    ] {
        assert!(stderr.contains(says), "{says}: {stderr}");
    }
    // A token too short to be secret is refused too.
    let out = std::process::Command::new(harness_e2e::petstore_mcp())
        .args(["--http", "0.0.0.0:0"])
        .env("HARNESS_MCP_AUTH_TOKEN", "short")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_token_nothing_is_served_even_with_a_loopback_host_from_another_address() {
    let base = serve().await;
    let (server, printed) = start_mcp_http_at(
        "0.0.0.0:0",
        &base,
        &["--dashboard"],
        &[("HARNESS_MCP_AUTH_TOKEN", CLIENT_TOKEN)],
    );
    let port = printed.rsplit(':').next().unwrap().trim_end_matches("/mcp");
    // From this machine's network address when it has one: not a loopback client.
    let ip = network_address().map_or_else(
        || {
            eprintln!("note: this machine has no network address; the client is on loopback");
            "127.0.0.1".to_string()
        },
        |ip| ip.to_string(),
    );
    let url = format!("http://{ip}:{port}/mcp");
    let spoofed = Some("localhost");

    for token in [None, Some("client-token-3f9a1c7e5b2d4e6e"), Some("")] {
        let refused = post(&url, spoofed, token, &initialize())
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 401, "{token:?}");
        let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    let accepted = post(&url, spoofed, Some(CLIENT_TOKEN), &initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), 200);

    // The dashboard asks a browser to sign in, and hands out nothing before.
    let page = reqwest::Client::new()
        .get(format!("http://{ip}:{port}/dashboard"))
        .header("host", "localhost")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 401);
    assert!(page.headers().get("set-cookie").is_none());
    assert!(page.text().await.unwrap().contains("Sign in"));

    let loopback = format!("http://127.0.0.1:{port}/mcp");
    assert!(connect(&loopback, None, &[], false).await.is_err());
    // The bridge (and `harness-gen bindings --from-mcp` with HARNESS_MCP_TOKEN) sends the token.
    use harness_gen_runtime::bridge::{Server, listing};
    assert!(listing(Server::Url(loopback.clone())).await.is_err());
    let listed = listing(Server::Authenticated {
        url: loopback.clone(),
        token: CLIENT_TOKEN.into(),
    })
    .await
    .unwrap();
    assert!(listed.tools.iter().any(|t| t["name"] == "get_pet"));
    let client = connect(&loopback, Some(CLIENT_TOKEN), &[], false)
        .await
        .unwrap();
    let pet = complete(&client, call("get_pet", json!({"pet_id": 1}))).await;
    assert_eq!(pet.is_error, Some(false), "{pet:?}");
    drop(server);
}

/// A fixed Ed25519 test key (its 32-byte seed), and the JWK of its public half.
fn test_key(seed: u8, kid: &str) -> (jsonwebtoken::EncodingKey, Value) {
    use base64::Engine;
    let seed = [seed; 32];
    let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
    let mut der = vec![
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    der.extend_from_slice(&seed);
    let x =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(signing.verifying_key().as_bytes());
    let jwk =
        json!({"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": "EdDSA", "use": "sig"});
    (jsonwebtoken::EncodingKey::from_ed_der(&der), jwk)
}

fn jwt(key: &jsonwebtoken::EncodingKey, kid: &str, claims: &Value) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA);
    header.kid = Some(kid.to_string());
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test(flavor = "multi_thread")]
async fn jwts_of_the_wrong_issuer_audience_or_key_or_expired_are_refused() {
    let (key, jwk) = test_key(7, "k1");
    let (other_key, _) = test_key(9, "k1");
    // The authorization server: its metadata names its key set.
    let issuer = Arc::new(Mutex::new(String::new()));
    let metadata_issuer = Arc::clone(&issuer);
    let keys = json!({"keys": [jwk]});
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || {
                let issuer = metadata_issuer.lock().unwrap().clone();
                async move {
                    axum::Json(json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}))
                }
            }),
        )
        .route(
            "/jwks",
            axum::routing::get(move || async move { axum::Json(keys) }),
        );
    let issuer_url = listen(app).await;
    *issuer.lock().unwrap() = issuer_url.clone();

    let base = serve().await;
    let audience = "https://pets.example/mcp";
    let (server, url) = harness_e2e::start_mcp_http_with(
        &base,
        &[
            "--auth-issuer",
            &issuer_url,
            "--auth-audience",
            audience,
            "--auth-scope",
            "pets:read=get_pet,get_pet_name",
            "--auth-scope",
            "admin=*",
        ],
        &[],
    );
    let claims = |iss: &str, aud: &str, exp: u64, scope: &str| json!({"iss": iss, "aud": aud, "exp": exp, "sub": "ada", "scope": scope});
    let hour = now() + 3600;
    let good = jwt(
        &key,
        "k1",
        &claims(&issuer_url, audience, hour, "pets:read"),
    );
    let refused = [
        (
            "another issuer",
            jwt(
                &key,
                "k1",
                &claims("http://127.0.0.1:1", audience, hour, "admin"),
            ),
        ),
        (
            "another audience",
            jwt(
                &key,
                "k1",
                &claims(&issuer_url, "https://else.example/mcp", hour, "admin"),
            ),
        ),
        (
            "expired",
            jwt(
                &key,
                "k1",
                &claims(&issuer_url, audience, now() - 600, "admin"),
            ),
        ),
        (
            "another key",
            jwt(
                &other_key,
                "k1",
                &claims(&issuer_url, audience, hour, "admin"),
            ),
        ),
        ("not a JWT", "not.a.jwt".to_string()),
    ];
    for (why, token) in &refused {
        let answer = post(&url, None, Some(token), &initialize())
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 401, "{why}");
        let challenge = answer.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{why}: {challenge}"
        );
        assert!(
            challenge.contains("resource_metadata="),
            "{why}: {challenge}"
        );
    }
    let missing = post(&url, None, None, &initialize()).send().await.unwrap();
    assert_eq!(missing.status(), 401);

    // The protected-resource metadata names the issuer and the scopes.
    let metadata_url = url.replace("/mcp", harness_e2e_metadata_path());
    let metadata = reqwest::get(&metadata_url)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let metadata: Value = serde_json::from_slice(&metadata).unwrap();
    assert_eq!(metadata["authorization_servers"], json!([issuer_url]));
    assert_eq!(metadata["scopes_supported"], json!(["pets:read", "admin"]));

    // A good token calls the tools its scope allows, and no other.
    let client = connect(&url, Some(&good), &[], false).await.unwrap();
    let allowed = complete(&client, call("get_pet", json!({"pet_id": 1}))).await;
    assert_eq!(allowed.is_error, Some(false), "{allowed:?}");
    let denied = complete(&client, create_kit()).await;
    assert_eq!(denied.is_error, Some(true));
    let text = serde_json::to_string(&denied.content).unwrap();
    assert!(text.contains("admin"), "{text}");
    drop(server);
}

fn harness_e2e_metadata_path() -> &'static str {
    "/.well-known/oauth-protected-resource/mcp"
}

/// An upstream whose every answer is a redirect to `/stolen` on another origin, and what that
/// origin received.
async fn redirecting_upstream() -> (String, Arc<Mutex<Vec<String>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&received);
    let elsewhere = listen(Router::new().fallback(move |request: Request| {
        let seen = Arc::clone(&seen);
        async move {
            seen.lock()
                .unwrap()
                .push(format!("{} {:?}", request.uri(), request.headers()));
            axum::Json(json!({"id": 1, "name": "Rex", "species": "dog"})).into_response()
        }
    }))
    .await;
    let home = listen(Router::new().fallback(move || {
        let target = format!("{elsewhere}/stolen");
        async move { (axum::http::StatusCode::FOUND, [("location", target)]).into_response() }
    }))
    .await;
    (home, received)
}

fn assert_no_credential(received: &Arc<Mutex<Vec<String>>>) {
    let seen = received.lock().unwrap().join("\n");
    assert!(
        seen.contains("/stolen"),
        "the redirect was followed: {seen}"
    );
    for secret in [TOKEN, API_KEY] {
        assert!(
            !seen.contains(secret),
            "{secret} reached another origin: {seen}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_redirect_to_another_origin_receives_no_credential() {
    // The CLI: a call with a bearer token and one with an API key.
    let (home, received) = redirecting_upstream().await;
    for args in [&["pets", "get", "1"][..], &["shop", "get-inventory"][..]] {
        let before = received.lock().unwrap().len();
        let out = std::process::Command::new(petstore_binary("petstore"))
            .args(args)
            .env("PETSTORE_BASE_URL", &home)
            .env("PETSTORE_TOKEN", TOKEN)
            .env("PETSTORE_API_KEY", API_KEY)
            .output()
            .unwrap();
        // Each command was sent and redirected (whatever it made of the other origin's reply).
        assert!(
            received.lock().unwrap().len() > before,
            "{args:?} reached nothing: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_no_credential(&received);

    // The MCP server, with its credentials from the environment.
    let (home, received) = redirecting_upstream().await;
    let (server, url) =
        harness_e2e::start_mcp_http_with(&home, &[], &[("PETSTORE_API_KEY", API_KEY)]);
    let client = connect(&url, None, &[], false).await.unwrap();
    for (tool, arguments) in [
        ("get_pet", json!({"pet_id": 1})),
        ("get_inventory", json!({})),
    ] {
        let before = received.lock().unwrap().len();
        client
            .peer()
            .call_tool_once(call(tool, arguments))
            .await
            .unwrap();
        assert!(
            received.lock().unwrap().len() > before,
            "{tool} reached nothing"
        );
    }
    assert_no_credential(&received);
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thousand_slow_connections_are_closed_and_a_normal_client_is_served_meanwhile() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(&base, &["--header-timeout", "2"], &[]);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let started = Instant::now();
    let mut slow = Vec::new();
    for _ in 0..1000 {
        let addr = addr.clone();
        slow.push(tokio::spawn(async move {
            let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let request = b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Slow: ";
            for byte in request.iter().cycle() {
                if stream.write_all(&[*byte]).await.is_err() {
                    break;
                }
                let mut buf = [0u8; 256];
                match tokio::time::timeout(Duration::from_secs(1), stream.read(&mut buf)).await {
                    Ok(Ok(0)) | Ok(Err(_)) => break,
                    _ => {}
                }
            }
            Instant::now()
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Meanwhile a normal client is served at once.
    let asked = Instant::now();
    let answer = post(&url, None, None, &initialize()).send().await.unwrap();
    let took = asked.elapsed();
    assert_eq!(answer.status(), 200);
    eprintln!("a normal client was served in {took:?} beside 1,000 slow connections");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // Every slow connection is closed by the server within the header timeout (and the time
    // it took to open them all).
    for handle in slow {
        let closed = tokio::time::timeout(Duration::from_secs(20), handle)
            .await
            .expect("the server closes a slow connection")
            .unwrap();
        assert!(
            closed - started < Duration::from_secs(12),
            "{:?}",
            closed - started
        );
    }
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn one_client_cannot_see_read_or_cancel_another_clients_task() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(
        &base,
        &["--credential-header", "bearerAuth=X-Petstore-Token"],
        &[],
    );
    let ada = connect(&url, None, &[("x-petstore-token", TOKEN)], true)
        .await
        .unwrap();
    let created = ada.peer().call_tool_once(create_kit()).await.unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("{created:?}")
    };
    let id = created.task.task_id;
    let mut finished = false;
    for _ in 0..100 {
        let state = ada
            .peer()
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .unwrap();
        if state.task.payload.status().is_terminal() {
            finished = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(finished);
    // Another user (another credential), and a client with none: the task does not exist.
    for headers in [
        &[("x-petstore-token", "someone-else-entirely")][..],
        &[][..],
    ] {
        let mallory = connect(&url, None, headers, true).await.unwrap();
        let read = mallory
            .peer()
            .get_task(GetTaskParams::new(id.clone()))
            .await;
        let unknown = mallory
            .peer()
            .get_task(GetTaskParams::new("task-00000000000000000000000000000000"))
            .await;
        let (read, unknown) = (
            read.unwrap_err().to_string(),
            unknown.unwrap_err().to_string(),
        );
        assert_eq!(
            read.replace(&*id, "ID"),
            unknown.replace("task-00000000000000000000000000000000", "ID"),
            "another client's task reads like an unknown one"
        );
        let cancel = mallory
            .peer()
            .cancel_task(rmcp::model::CancelTaskParams::new(id.clone()))
            .await;
        assert!(cancel.is_err());
    }
    assert!(ada.peer().get_task(GetTaskParams::new(id)).await.is_ok());
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn at_the_session_cap_the_session_idle_longest_is_closed_for_a_new_one() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(&base, &["--max-sessions", "3"], &[]);
    let mut ids = Vec::new();
    for _ in 0..4 {
        let answer = post(&url, None, None, &initialize()).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        ids.push(
            answer.headers()["mcp-session-id"]
                .to_str()
                .unwrap()
                .to_string(),
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let status_of = |id: String| {
        let ping = ping.clone();
        let url = url.clone();
        async move {
            post(&url, None, None, &ping)
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", "2025-06-18")
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(
        status_of(ids[0].clone()).await,
        404,
        "the oldest session was closed"
    );
    for id in &ids[1..] {
        assert_ne!(status_of(id.clone()).await, 404, "{id} is still open");
    }
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_signs_in_to_the_dashboard_with_the_token_and_calls_from_its_session() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(
        &base,
        &["--dashboard"],
        &[("HARNESS_MCP_AUTH_TOKEN", CLIENT_TOKEN)],
    );
    let home = url.replace("/mcp", "/dashboard");
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let sign_in = |token: &str| {
        http.post(format!("{home}/login"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("token={token}"))
            .send()
    };
    let wrong = sign_in("client-token-wrong-0000000000").await.unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(wrong.headers().get("set-cookie").is_none());
    let signed = sign_in(CLIENT_TOKEN).await.unwrap();
    assert_eq!(signed.status(), 303);
    let cookie = signed.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    let cookie = cookie.split(';').next().unwrap().to_owned();

    let page = http
        .get(&home)
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let token = super::dashboard::page_token(&page.text().await.unwrap());
    let call = |cookie: Option<&str>| {
        let mut request = http
            .post(format!("{home}/tools/get_pet"))
            .header("content-type", "application/json")
            .header("x-harness-token", &token)
            .body(json!({"input": {"pet_id": 1}}).to_string());
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        request.send()
    };
    let answer = call(Some(&cookie)).await.unwrap();
    assert_eq!(answer.status(), 200);
    let answer: Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap();
    assert_eq!(answer["output"]["name"], "Rex");
    // Without the signed-in session: 401 with the challenge, nothing called.
    let refused = call(None).await.unwrap();
    assert_eq!(refused.status(), 401);
    assert!(refused.headers().contains_key("www-authenticate"));
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn another_sites_requests_open_no_dashboard_session() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(&base, &["--dashboard"], &[]);
    let home = url.replace("/mcp", "/dashboard");
    let http = reqwest::Client::new();
    // What an image tag on another site's page sends.
    let image = http
        .get(&home)
        .header("sec-fetch-site", "cross-site")
        .header("sec-fetch-mode", "no-cors")
        .header("sec-fetch-dest", "image")
        .send()
        .await
        .unwrap();
    assert_eq!(image.status(), 403);
    assert!(image.headers().get("set-cookie").is_none());
    // The browser's own navigation to the dashboard does open one.
    let typed = http
        .get(&home)
        .header("sec-fetch-site", "none")
        .header("sec-fetch-mode", "navigate")
        .header("sec-fetch-dest", "document")
        .send()
        .await
        .unwrap();
    assert_eq!(typed.status(), 200);
    assert!(typed.headers().get("set-cookie").is_some());
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn choices_of_tools_without_sessions_give_their_place_to_new_ones() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(&base, &[], &[]);
    let tools = [
        "list_pets",
        "pets.create",
        "get_pet",
        "delete_pet",
        "get_pet_name",
        "get_inventory",
        "store_report",
    ];
    // More different choices than a server keeps at once, none holding a session: each is
    // served (a 2026-era request, which opens no session).
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}});
    let mut served = 0;
    for mask in 1u32..100 {
        let chosen: Vec<&str> = tools
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, t)| *t)
            .collect();
        let answer = post(
            &format!("{url}?tool={}", chosen.join(",")),
            None,
            None,
            &discover,
        )
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
        let text = answer.text().await.unwrap();
        assert!(
            !text.contains("different choices of tools"),
            "{mask}: {text}"
        );
        served += 1;
    }
    assert_eq!(served, 99);
    drop(server);
}

/// Everything the server writes on `stream` until it closes it (at most 5 s).
async fn read_to_close(stream: &mut tokio::net::TcpStream) -> String {
    let mut reply = Vec::new();
    let read = stream.read_to_end(&mut reply);
    let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
    String::from_utf8_lossy(&reply).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_sent_too_slowly_is_refused_and_connections_past_the_cap_are_told_busy() {
    let base = serve().await;
    let (server, url) = harness_e2e::start_mcp_http_with(
        &base,
        &["--body-timeout", "1", "--max-connections", "2"],
        &[],
    );
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    // A body that stops after its first byte.
    let mut slow = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{";
    slow.write_all(head.as_bytes()).await.unwrap();
    let reply = read_to_close(&mut slow).await;
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    drop(slow);

    // Two connections take the two places; a third is told the server is busy and closed.
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut third = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let reply = read_to_close(&mut third).await;
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    // Once they leave, a client is served again.
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = post(&url, None, None, &initialize()).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    drop(server);
}

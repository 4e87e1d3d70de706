//! The HTTP client against a real server on loopback: wire encoding, credentials, reply
//! classification, retries, timeouts and bounds.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use harness_gen_runtime::binding::Binding;
use harness_gen_runtime::http::{
    CallCredentials, CallOptions, ClientBuilder, Credential, Error, HttpClient, OperationError,
    REDACTED, Replies, Reply, ReplyExcerpt, Scheme, Secret, error_body,
};
use serde_json::{Value, json};

mod credentials;
mod resilience;

const TOKEN: &str = "tok_secret_5b7e9a";

#[derive(Default)]
struct Seen {
    hits: AtomicUsize,
}

/// A server whose behaviour is chosen by the request path.
async fn serve() -> (String, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let app = Router::new()
        .fallback(any(handler))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), seen)
}

async fn handler(State(seen): State<Arc<Seen>>, headers: HeaderMap, request: Request) -> Response {
    let hit = seen.hits.fetch_add(1, Ordering::SeqCst);
    let uri = request.uri().clone();
    let method = request.method().clone();
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap();
    let path = uri.path().to_string();
    match path.as_str() {
        "/echo" => axum::Json(json!({
            "method": method.as_str(),
            "path": uri.path(),
            "query": uri.query(),
            "auth": headers.get("authorization").and_then(|v| v.to_str().ok()),
            "x_id": headers.get("x-id").and_then(|v| v.to_str().ok()),
            "cookie": headers.get("cookie").and_then(|v| v.to_str().ok()),
            "content_type": headers.get("content-type").and_then(|v| v.to_str().ok()),
            "body": String::from_utf8_lossy(&body),
        }))
        .into_response(),
        "/echo-error" => {
            let auth = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            let key = headers
                .get("x-key")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            (
                StatusCode::NOT_FOUND,
                axum::Json(json!({
                    "title": format!("rejected {auth}"),
                    "seen": [{"key": key}],
                    auth: key,
                })),
            )
                .into_response()
        }
        "/missing" => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"title": "no such thing"})),
        )
            .into_response(),
        "/teapot" => (StatusCode::IM_A_TEAPOT, format!("secret body {TOKEN}")).into_response(),
        "/garbled" => (StatusCode::NOT_FOUND, "not json").into_response(),
        "/busy" if hit == 0 => {
            (StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "0")]).into_response()
        }
        "/busy" => axum::Json(json!({"ok": true})).into_response(),
        "/down" => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        "/crash" => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        "/traced" => (
            [
                ("x-request-id", "req_7"),
                ("x-echo", &format!("token {TOKEN}") as &str),
            ],
            axum::Json(json!({"ok": true})),
        )
            .into_response(),
        "/later" => (StatusCode::SERVICE_UNAVAILABLE, [("retry-after", "3600")]).into_response(),
        "/limited" => (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")]).into_response(),
        "/malformed" => {
            ([("content-type", "application/json")], "{\"pets\": [1, 2").into_response()
        }
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            axum::Json(json!({})).into_response()
        }
        "/huge" => "x".repeat(64 * 1024).into_response(),
        _ => axum::Json(json!({"path": path})).into_response(),
    }
}

fn binding(method: &str, path: &str, extra: Value) -> Binding {
    let mut value = json!({
        "method": method,
        "path": path,
        "response": {"status": "200", "contentType": "application/json", "encoding": "json"},
        "errors": [{"status": "404", "contentType": "application/json"}],
        "security": [["token"], []]
    });
    if let (Value::Object(v), Value::Object(extra)) = (&mut value, extra) {
        v.extend(extra);
    }
    serde_json::from_value(value).unwrap()
}

fn client(base: &str) -> HttpClient {
    ClientBuilder::new(base)
        .scheme("token", Scheme::Bearer)
        .credential("token", Credential::Token(Secret::new(TOKEN)))
        .timeout(Duration::from_millis(500))
        .max_response_bytes(1024)
        .build()
        .unwrap()
}

#[tokio::test]
async fn parameters_body_and_credentials_go_where_the_binding_says() {
    let (base, _) = serve().await;
    let b = binding(
        "POST",
        "/{kind}",
        json!({
            "parameters": [
                {"property": "kind", "in": "path", "name": "kind", "style": "simple", "explode": false, "required": true},
                {"property": "tags", "in": "query", "name": "tag", "style": "form", "explode": true, "required": false},
                {"property": "x_id", "in": "header", "name": "X-Id", "style": "simple", "explode": false, "required": false},
                {"property": "session", "in": "cookie", "name": "sid", "style": "form", "explode": true, "required": false}
            ],
            "body": {"property": "body", "contentType": "application/json", "encoding": "json", "required": true}
        }),
    );
    let reply = client(&base)
        .send(&b, &json!({"kind": "echo", "tags": ["a b", "c"], "x_id": "7", "session": "s1", "body": {"n": 1}}))
        .await
        .unwrap();
    let Reply::Success(echo) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["query"], "tag=a%20b&tag=c");
    // The server saw the token; what it echoed is redacted.
    assert_eq!(echo["auth"], format!("Bearer {REDACTED}"));
    assert_eq!(echo["x_id"], "7");
    assert_eq!(echo["cookie"], "sid=s1");
    assert_eq!(echo["content_type"], "application/json");
    assert_eq!(echo["body"], r#"{"n":1}"#);
}

#[tokio::test]
async fn a_path_value_cannot_change_the_path() {
    let (base, _) = serve().await;
    let b = binding(
        "GET",
        "/items/{id}",
        json!({"parameters": [
            {"property": "id", "in": "path", "name": "id", "style": "simple", "explode": false, "required": true}
        ]}),
    );
    let Reply::Success(echo) = client(&base)
        .send(&b, &json!({"id": "../echo?x=1#f"}))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(echo["path"], "/items/..%2Fecho%3Fx%3D1%23f");
    let refused = client(&base)
        .send(&b, &json!({"id": ".."}))
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::InvalidValue { ref pointer, .. } if pointer == "/id"));
}

#[tokio::test]
async fn a_header_value_with_a_line_break_is_refused_as_invalid_input() {
    let (base, seen) = serve().await;
    let b = binding(
        "GET",
        "/echo",
        json!({"parameters": [
            {"property": "x", "in": "header", "name": "X-Id", "style": "simple", "explode": false, "required": false}
        ]}),
    );
    let error = client(&base)
        .send(&b, &json!({"x": "1\r\nInjected: yes"}))
        .await
        .unwrap_err();
    assert_eq!(seen.hits.load(Ordering::SeqCst), 0, "nothing was sent");
    let Error::InvalidValue { pointer, reason } = error else {
        panic!("{error:?}")
    };
    assert_eq!(pointer, "/x");
    // A tool reports it as the caller's invalid input at its pointer, not an internal failure.
    let thrown = Error::<Value>::InvalidValue { pointer, reason }.into_thrown();
    assert!(
        matches!(&thrown, harness_gen_runtime::Thrown::InvalidInput(issues) if issues[0].pointer == "/x"),
        "{thrown:?}"
    );
}

#[tokio::test]
async fn declared_errors_and_undeclared_statuses_are_told_apart_without_leaking_credentials() {
    let (base, _) = serve().await;
    let c = client(&base);
    let declared = c
        .send(&binding("GET", "/missing", json!({})), &json!({}))
        .await
        .unwrap();
    assert_eq!(
        declared,
        Reply::Declared {
            kind: "http_404".into(),
            status: 404,
            body: json!({"title": "no such thing"})
        }
    );
    let undeclared = c
        .send(&binding("GET", "/teapot", json!({})), &json!({}))
        .await
        .unwrap();
    // An undeclared status shows what came back (its first bytes, the echoed credential
    // redacted), so the caller reads the server's own message.
    let Reply::Status(reply) = &undeclared else {
        panic!("{undeclared:?}")
    };
    assert_eq!(reply.status, 418);
    assert_eq!(reply.excerpt, "secret body [redacted]");
    assert!(!format!("{undeclared:?}{}", undeclared.error_value().unwrap()).contains(TOKEN));
    let garbled = c
        .send(&binding("GET", "/garbled", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(garbled, Reply::Undeclared { status: 404, .. }));
}

#[tokio::test]
async fn typed_calls_map_replies_to_outputs_and_declared_errors() {
    #[derive(Debug, PartialEq)]
    enum Failure {
        NotFound { status: u16, body: Value },
        Upstream { status: u16, reason: String },
    }
    impl OperationError for Failure {
        fn declared(kind: &str, status: u16, body: Value) -> Option<Self> {
            (kind == "http_404").then_some(Self::NotFound { status, body })
        }
        fn upstream(status: u16, reason: String) -> Self {
            Self::Upstream { status, reason }
        }
    }
    let (base, _) = serve().await;
    let c = client(&base);
    let out: Result<Value, Error<Failure>> =
        c.call(&binding("GET", "/ok", json!({})), &json!({})).await;
    assert_eq!(out.unwrap(), json!({"path": "/ok"}));
    let out: Result<Value, Error<Failure>> = c
        .call(&binding("GET", "/missing", json!({})), &json!({}))
        .await;
    assert!(matches!(
        out,
        Err(Error::Api(Failure::NotFound { status: 404, .. }))
    ));
    let out: Result<Value, Error<Failure>> = c
        .call(&binding("GET", "/teapot", json!({})), &json!({}))
        .await;
    // A status the operation does not declare is not one of its errors: an HTTP failure.
    assert!(
        matches!(&out, Err(Error::Status(reply)) if reply.status == 418),
        "{out:?}"
    );
}

#[tokio::test]
async fn a_declared_error_whose_body_does_not_parse_becomes_the_upstream_fallback() {
    /// Declares 404 with a body that must be a number, which the test server never sends.
    #[derive(Debug)]
    enum Failure {
        NotFound,
        Upstream { status: u16, reason: String },
    }
    impl OperationError for Failure {
        fn declared(kind: &str, _: u16, body: Value) -> Option<Self> {
            (kind == "http_404")
                .then(|| error_body::<u64>(body))
                .flatten()
                .map(|_| Self::NotFound)
        }
        fn upstream(status: u16, reason: String) -> Self {
            Self::Upstream { status, reason }
        }
    }
    let (base, _) = serve().await;
    let out: Result<Value, Error<Failure>> = client(&base)
        .call(&binding("GET", "/missing", json!({})), &json!({}))
        .await;
    match out {
        Err(Error::Api(Failure::Upstream { status, reason })) => {
            assert_eq!(status, 404);
            assert_eq!(reason, "the error body does not match its declared schema");
        }
        other => panic!("expected the upstream fallback, got {other:?}"),
    }
}

#[tokio::test]
async fn per_call_options_change_the_calls_of_one_handle_only() {
    let (base, _) = serve().await;
    let client = ClientBuilder::new(&base)
        .default_header("x-id", "default")
        .build()
        .unwrap();
    let x_id = |reply: Reply| match reply {
        Reply::Success(echo) => echo["x_id"].clone(),
        other => panic!("{other:?}"),
    };
    let echo = binding("GET", "/echo", json!({}));
    let call = client.with(CallOptions::new().header("X-Id", "this call"));
    assert_eq!(
        x_id(call.send(&echo, &json!({})).await.unwrap()),
        "this call"
    );
    assert_eq!(
        x_id(client.send(&echo, &json!({})).await.unwrap()),
        "default",
        "the client's own calls keep its defaults"
    );
    let started = std::time::Instant::now();
    let hurried = client.with(CallOptions::new().timeout(Duration::from_millis(50)));
    let slow = hurried
        .send(&binding("GET", "/slow", json!({})), &json!({}))
        .await;
    assert!(matches!(slow, Err(Error::Timeout)), "{slow:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_header_value_holding_a_line_break_is_refused_unsent() {
    let (base, seen) = serve().await;
    let call = client(&base).with(CallOptions::new().header("x-id", "a\r\nx-evil: 1"));
    let refused = call
        .send(&binding("GET", "/echo", json!({})), &json!({}))
        .await;
    assert!(
        matches!(refused, Err(Error::InvalidRequest(_))),
        "{refused:?}"
    );
    assert_eq!(seen.hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_reqwest_client_of_ones_own_carries_the_calls() {
    let (base, _) = serve().await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-id", "mine".parse().unwrap());
    let own = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    let client = ClientBuilder::new(&base)
        .reqwest_client(own)
        .scheme("token", Scheme::Bearer)
        .credential("token", Credential::Token(Secret::new(TOKEN)))
        .build()
        .unwrap();
    let Reply::Success(echo) = client
        .send(&binding("GET", "/echo", json!({})), &json!({}))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(echo["x_id"], "mine");
    assert_eq!(
        echo["auth"], "Bearer [redacted]",
        "our credentials are sent (and their echo redacted)"
    );
}

#[tokio::test]
async fn a_record_keeps_status_headers_and_request_id_with_echoed_credentials_redacted() {
    let (base, _) = serve().await;
    let replies = Replies::new();
    let recorded = client(&base).with(CallOptions::new().record(&replies));
    let reply = recorded
        .send(&binding("GET", "/traced", json!({})), &json!({}))
        .await
        .unwrap();
    assert_eq!(reply, Reply::Success(json!({"ok": true})));
    let info = replies.last().unwrap();
    assert_eq!(info.status, 200);
    assert_eq!(info.request_id.as_deref(), Some("req_7"));
    assert_eq!(info.header("X-Echo"), Some("token [redacted]"));
    assert_eq!(
        info.body, None,
        "a body within the contract is the value, not kept twice"
    );
    recorded
        .send(&binding("GET", "/teapot", json!({})), &json!({}))
        .await
        .unwrap();
    let info = replies.last().unwrap();
    assert_eq!(info.status, 418);
    assert_eq!(
        info.body.as_deref(),
        Some("secret body [redacted]"),
        "an undeclared reply keeps its (redacted) body for the caller"
    );
}

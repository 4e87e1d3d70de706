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
    REDACTED, Replies, Reply, Scheme, Secret, error_body,
};
use serde_json::{Value, json};

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
async fn declared_and_undeclared_errors_are_classified_without_leaking_bodies() {
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
    assert_eq!(
        undeclared,
        Reply::Undeclared {
            status: 418,
            reason: "undeclared status".into()
        }
    );
    assert!(!format!("{undeclared:?}{}", undeclared.error_value().unwrap()).contains(TOKEN));
    let garbled = c
        .send(&binding("GET", "/garbled", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(garbled, Reply::Undeclared { status: 404, .. }));
}

#[tokio::test]
async fn idempotent_calls_retry_on_503_honouring_retry_after() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/busy", json!({})), &json!({}))
        .await
        .unwrap();
    assert_eq!(reply, Reply::Success(json!({"ok": true})));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn non_idempotent_calls_are_not_retried() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("POST", "/busy", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Undeclared { status: 503, .. }));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_server_that_does_not_answer_times_out() {
    let (base, _) = serve().await;
    let error = client(&base)
        .send(&binding("POST", "/slow", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
}

#[tokio::test]
async fn an_oversized_response_is_refused() {
    let (base, _) = serve().await;
    let error = client(&base)
        .send(&binding("GET", "/huge", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::TooLarge));
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error_after_bounded_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let error = client(&base)
        .send(&binding("GET", "/x", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport));
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
    assert!(matches!(
        out,
        Err(Error::Api(Failure::Upstream { status: 418, .. }))
    ));
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

#[test]
fn credentials_never_show_in_debug_output() {
    let builder = ClientBuilder::new("http://127.0.0.1:1")
        .scheme("token", Scheme::Bearer)
        .credential("token", Credential::Token(Secret::new(TOKEN)));
    assert!(!format!("{builder:?}").contains(TOKEN));
    assert!(!format!("{:?}", builder.build().unwrap()).contains(TOKEN));
}

#[tokio::test]
async fn a_credential_the_server_echoes_is_redacted_from_every_reply() {
    let (base, _) = serve().await;
    let basic = ClientBuilder::new(&base)
        .scheme("basic", Scheme::Basic)
        .scheme(
            "key",
            Scheme::ApiKey {
                location: harness_gen_runtime::binding::ParamIn::Header,
                name: "X-Key".into(),
            },
        )
        .credential(
            "basic",
            Credential::Basic {
                username: "ada".into(),
                password: Secret::new("pw_9d41c0"),
            },
        )
        .credential("key", Credential::ApiKey(Secret::new("key_77f3aa")))
        .build()
        .unwrap();
    let mut b = binding("GET", "/echo-error", json!({}));
    b.security = vec![vec!["basic".into(), "key".into()].into()].into();
    let reply = basic.send(&b, &json!({})).await.unwrap();
    let Reply::Declared { body, .. } = &reply else {
        panic!("{reply:?}")
    };
    let text = body.to_string();
    for secret in ["pw_9d41c0", "key_77f3aa", "YWRhOnB3XzlkNDFjMA=="] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(body["title"], format!("rejected Basic {REDACTED}"));
    assert_eq!(body["seen"][0]["key"], REDACTED);
    assert_eq!(body[format!("Basic {REDACTED}")], REDACTED);
    let bearer = client(&base)
        .send(&binding("GET", "/echo-error", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(!format!("{bearer:?}").contains(TOKEN), "{bearer:?}");
}

#[tokio::test]
async fn credentials_too_short_to_be_secret_are_not_searched_for() {
    let (base, _) = serve().await;
    let c = ClientBuilder::new(&base)
        .scheme("token", Scheme::Bearer)
        .credential("token", Credential::Token(Secret::new("a")))
        .build()
        .unwrap();
    let Reply::Success(echo) = c
        .send(&binding("POST", "/echo", json!({})), &json!({}))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["auth"], "Bearer a");
}

#[tokio::test]
async fn a_persistent_503_is_retried_a_bounded_number_of_times() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/down", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Undeclared { status: 503, .. }));
    assert_eq!(
        seen.hits.load(Ordering::SeqCst),
        3,
        "one try and two retries"
    );
}

#[tokio::test]
async fn a_500_is_retried_for_idempotent_calls_then_an_undeclared_reply() {
    let (base, seen) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/crash", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Undeclared { status: 500, .. }));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_retry_after_beyond_the_time_budget_returns_the_reply_at_once() {
    let (base, seen) = serve().await;
    let started = std::time::Instant::now();
    let reply = client(&base)
        .send(&binding("GET", "/later", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Undeclared { status: 503, .. }));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 1, "an hour is past 30 s");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_post_with_an_idempotency_key_is_retried() {
    let (base, seen) = serve().await;
    let keyed = binding(
        "POST",
        "/busy",
        json!({"idempotencyKey": "Idempotency-Key"}),
    );
    let reply = client(&base).send(&keyed, &json!({})).await.unwrap();
    assert_eq!(reply, Reply::Success(json!({"ok": true})));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_429_is_retried_for_idempotent_calls_only() {
    let (base, seen) = serve().await;
    let get = client(&base)
        .send(&binding("GET", "/limited", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(get, Reply::Undeclared { status: 429, .. }));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 3);
    let post = client(&base)
        .send(&binding("POST", "/limited", json!({})), &json!({}))
        .await
        .unwrap();
    assert!(matches!(post, Reply::Undeclared { status: 429, .. }));
    assert_eq!(seen.hits.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_malformed_success_body_is_an_undeclared_reply() {
    let (base, _) = serve().await;
    let reply = client(&base)
        .send(&binding("GET", "/malformed", json!({})), &json!({}))
        .await
        .unwrap();
    assert_eq!(
        reply,
        Reply::Undeclared {
            status: 200,
            reason: "the success body is not valid JSON".into()
        }
    );
}

/// A server speaking raw HTTP/1.1 that answers every connection with `head` and `body`, then
/// keeps the connection open for `stall` before closing it.
async fn raw_server(head: &'static str, body: &'static str, stall: Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
                tokio::time::sleep(stall).await;
            });
        }
    });
    base
}

#[tokio::test]
async fn a_body_cut_short_is_a_transport_error() {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n";
    let base = raw_server(head, "{\"pets\": [1", Duration::ZERO).await;
    let error = client(&base)
        .send(&binding("GET", "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport), "{error:?}");
}

#[tokio::test]
async fn a_body_that_stalls_midway_times_out() {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n";
    let base = raw_server(head, "{\"pets\": [1", Duration::from_secs(30)).await;
    let started = std::time::Instant::now();
    let error = client(&base)
        .send(&binding("GET", "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "no hang");
}

#[tokio::test]
async fn a_server_that_accepts_and_never_answers_times_out() {
    let base = raw_server("", "", Duration::from_secs(30)).await;
    let error = client(&base)
        .send(&binding("POST", "/pets", json!({})), &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
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

#[tokio::test]
async fn credentials_given_with_a_call_replace_the_clients_for_the_schemes_they_name() {
    let (base, _) = serve().await;
    let echo = binding("GET", "/echo", json!({}));
    let client = client(&base);
    let auth_of = |reply: Reply| match reply {
        Reply::Success(echo) => echo["auth"].clone(),
        other => panic!("{other:?}"),
    };
    // A call's own token is sent instead of the client's (one too short to be searched for
    // shows which), and a long one is redacted like the client's.
    let mut given = CallCredentials::new();
    given.set("token", Some("Bearer abc".into()));
    let reply = given
        .clone()
        .scope(client.send(&echo, &json!({})))
        .await
        .unwrap();
    assert_eq!(auth_of(reply), "Bearer abc");
    given.set("token", Some("call_token_41c9".into()));
    let reply = given.scope(client.send(&echo, &json!({}))).await.unwrap();
    assert_eq!(auth_of(reply), format!("Bearer {REDACTED}"));
    // A scheme named without a value sends nothing: no fallback to the client's token (the
    // binding allows an anonymous call).
    let mut none = CallCredentials::new();
    none.set("token", None);
    let reply = none.scope(client.send(&echo, &json!({}))).await.unwrap();
    assert_eq!(auth_of(reply), Value::Null);
    // Schemes the call does not name keep the client's; outside a scope, the client's own.
    let mut other = CallCredentials::new();
    other.set("elsewhere", Some("x".into()));
    let reply = other.scope(client.send(&echo, &json!({}))).await.unwrap();
    assert_eq!(auth_of(reply), format!("Bearer {REDACTED}"));
    let reply = client.send(&echo, &json!({})).await.unwrap();
    assert_eq!(auth_of(reply), format!("Bearer {REDACTED}"));
}

/// What a server received: each request's path, query and headers, as text (replies redact
/// credentials, so what reached the server is read here).
type Received = Arc<std::sync::Mutex<Vec<String>>>;

/// A server that answers `/to?url=U&status=S` with a redirect to `U`, and anything else with
/// the request's method, path, query and headers; and what it received.
async fn redirecting() -> (String, Received) {
    async fn answer(State(received): State<Received>, request: Request) -> Response {
        received
            .lock()
            .unwrap()
            .push(format!("{} {:?}", request.uri(), request.headers()));
        let uri = request.uri().clone();
        if uri.path() == "/to" {
            let axum::extract::Query(pairs) = axum::extract::Query::<
                std::collections::HashMap<String, String>,
            >::try_from_uri(&uri)
            .unwrap();
            let status: u16 = pairs["status"].parse().unwrap();
            return (
                StatusCode::from_u16(status).unwrap(),
                [("location", pairs["url"].clone())],
            )
                .into_response();
        }
        let headers: serde_json::Map<String, Value> = request
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v.to_str().unwrap())))
            .collect();
        axum::Json(json!({
            "method": request.method().as_str(),
            "path": uri.path(),
            "query": uri.query(),
            "headers": headers,
        }))
        .into_response()
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let received = Received::default();
    let app = Router::new()
        .fallback(any(answer))
        .with_state(received.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), received)
}

/// A client with one credential of every kind a security scheme can send: bearer, basic, and
/// API keys in a header, a cookie and the query.
fn every_scheme(base: &str, redirects: harness_gen_runtime::http::Redirects) -> HttpClient {
    use harness_gen_runtime::binding::ParamIn;
    let key = |location, name: &str| Scheme::ApiKey {
        location,
        name: name.into(),
    };
    ClientBuilder::new(base)
        .scheme("bearer", Scheme::Bearer)
        .scheme("header", key(ParamIn::Header, "X-Zoo-Key"))
        .scheme("cookie", key(ParamIn::Cookie, "zoo_session"))
        .scheme("query", key(ParamIn::Query, "api_key"))
        .credential("bearer", Credential::Token(Secret::new("tok_bearer_1f2e")))
        .credential("header", Credential::ApiKey(Secret::new("key_header_3c4d")))
        .credential("cookie", Credential::ApiKey(Secret::new("key_cookie_5a6b")))
        .credential("query", Credential::ApiKey(Secret::new("key_query_7e8f")))
        .redirects(redirects)
        .max_retries(0)
        .build()
        .unwrap()
}

fn redirected_binding(method: &str, target: &str, status: u16) -> (Binding, Value) {
    let mut b = binding(
        method,
        "/to",
        json!({"parameters": [
            {"property": "url", "in": "query", "name": "url", "required": true,
             "style": "form", "explode": true},
            {"property": "status", "in": "query", "name": "status", "required": true,
             "style": "form", "explode": true}
        ]}),
    );
    b.security = vec![
        vec![
            "bearer".into(),
            "header".into(),
            "cookie".into(),
            "query".into(),
        ]
        .into(),
    ]
    .into();
    (b, json!({"url": target, "status": status.to_string()}))
}

#[tokio::test]
async fn a_redirect_to_another_origin_carries_no_credential_of_any_scheme() {
    use harness_gen_runtime::http::Redirects;
    let ((home, _), (elsewhere, received)) = (redirecting().await, redirecting().await);
    let secrets = [
        "tok_bearer_1f2e",
        "key_header_3c4d",
        "key_cookie_5a6b",
        "key_query_7e8f",
    ];
    for status in [301, 302, 303, 307, 308] {
        let client = every_scheme(&home, Redirects::DEFAULT);
        let (b, input) = redirected_binding("GET", &format!("{elsewhere}/stolen"), status);
        let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
            panic!("{status}: not followed")
        };
        assert_eq!(seen["path"], "/stolen", "{status}");
        let text = received.lock().unwrap().join("\n");
        assert!(text.contains("/stolen"), "{text}");
        for secret in secrets {
            assert!(!text.contains(secret), "{status}: {secret} reached {text}");
        }
        // The same origin is trusted with every credential the request carried.
        let (b, input) = redirected_binding("GET", "/same", status);
        let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
            panic!("{status}: not followed")
        };
        assert_eq!(seen["path"], "/same", "{status}");
        for header in ["authorization", "x-zoo-key", "cookie"] {
            assert!(
                seen["headers"][header].as_str().unwrap().contains(REDACTED),
                "{status}: {header} did not reach the same origin: {seen}"
            );
        }
    }
    // Refusing to follow: the redirect is the reply, and the other origin is never asked.
    let refusing = every_scheme(
        &home,
        Redirects {
            cross_origin: false,
            ..Redirects::DEFAULT
        },
    );
    let (b, input) = redirected_binding("GET", &format!("{elsewhere}/stolen"), 302);
    let asked = received.lock().unwrap().len();
    let reply = refusing.send(&b, &input).await.unwrap();
    assert_eq!(received.lock().unwrap().len(), asked);
    assert!(
        matches!(&reply, Reply::Undeclared { status: 302, .. }),
        "{reply:?}"
    );
}

#[tokio::test]
async fn a_post_redirected_with_303_becomes_a_get_and_307_keeps_its_method_and_body() {
    use harness_gen_runtime::http::Redirects;
    let (home, _) = redirecting().await;
    let client = every_scheme(&home, Redirects::DEFAULT);
    let (b, input) = redirected_binding("POST", "/after", 303);
    let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
        panic!("not followed")
    };
    assert_eq!(seen["method"], "GET");
    let (b, input) = redirected_binding("POST", "/after", 307);
    let Reply::Success(seen) = client.send(&b, &input).await.unwrap() else {
        panic!("not followed")
    };
    assert_eq!(seen["method"], "POST");
}

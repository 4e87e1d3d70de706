//! A loopback server for `specs/streams.yaml`: a chat completion answered whole (JSON) or as
//! server-sent events written the awkward ways real servers write them (comments, named
//! events, data split over lines and across writes, CRLF, a line that is not JSON, the
//! `[DONE]` sentinel), and a clock that ticks until the client hangs up.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

/// What the server saw.
#[derive(Clone, Default)]
pub struct Seen {
    /// The `stream` field of each completion request (`None` when absent).
    pub stream_flags: Arc<std::sync::Mutex<Vec<Option<bool>>>>,
    /// Ticks sent so far.
    pub ticks: Arc<AtomicUsize>,
    /// Whether a tick stream was dropped by the server (its client hung up).
    pub hung_up: Arc<AtomicBool>,
    /// Requests to replace a file's bytes, answered or not.
    pub puts: Arc<AtomicUsize>,
    /// Requests for a file's content.
    pub downloads: Arc<AtomicUsize>,
}

/// Starts the server; returns its base URL and what it saw.
pub async fn serve() -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route("/chat/completions", post(completion))
        .route("/ticks", get(ticks))
        .route("/news", get(news))
        .route("/files", post(upload_file))
        .route("/files/{file_id}/raw", axum::routing::put(put_file_bytes))
        .route("/files/{file_id}/content", get(file_content))
        // Uploads larger than axum's default 2 MB bound.
        .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
        .with_state(seen.clone());
    (crate::listen(app).await, seen)
}

/// The chunks of the streamed answer, as written: each piece is one write.
const CHUNKS: &[&str] = &[
    ": the stream opens\n\n",
    "event: chunk\nid: 1\ndata: {\"id\": \"c1\",\n",
    "data: \"delta\": \"Hel\"}\n\n",
    "data: {\"id\": \"c1\", \"delta\": \"lo\"}\r\n\r\n",
    "data: this is not JSON\n\n",
    "retry: 2500\ndata: {\"id\": \"c1\", \"delta\": \"!\"}",
    "\n\n: almost done\ndata: [DONE]\n\n",
    "data: {\"id\": \"c1\", \"delta\": \"after the end\"}\n\n",
];

async fn completion(State(seen): State<Seen>, axum::Json(body): axum::Json<Value>) -> Response {
    let stream = body.get("stream").and_then(Value::as_bool);
    seen.stream_flags
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(stream);
    if body["model"] == "missing" {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"title": "no such model"})),
        )
            .into_response();
    }
    // Answers outside the contract: a proxy's page where JSON is declared, a status the
    // operation does not declare.
    if body["model"] == "behind-proxy" {
        return (
            [(header::CONTENT_TYPE, "text/html")],
            "<html><body>502 Bad Gateway</body></html>",
        )
            .into_response();
    }
    if body["model"] == "no-key" {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": {"message": "Incorrect API key provided"}})),
        )
            .into_response();
    }
    if stream != Some(true) {
        return axum::Json(json!({"id": "c1", "content": "Hello!"})).into_response();
    }
    // Model `tidy` answers without the chunk whose data is not JSON.
    let tidy = body["model"] == "tidy";
    let chunks = CHUNKS
        .iter()
        .filter(move |c| !(tidy && c.contains("not JSON")));
    let pieces = futures::stream::iter(chunks.map(|c| Ok::<_, Infallible>(Bytes::from(*c))));
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(pieces))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// The news titles, for `listNews` (JSON or, by `Accept`, server-sent events).
pub const NEWS: [&str; 3] = ["Rust 2024 ships", "Streams everywhere", "The end"];

async fn news(
    headers: axum::http::HeaderMap,
    Query(query): Query<std::collections::BTreeMap<String, String>>,
) -> Response {
    // `stream` is the tool's switch, never a parameter of the operation: a client that sent it
    // would be refused here.
    if query.contains_key("stream") || headers.contains_key("stream") {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"title": "unexpected parameter `stream`"})),
        )
            .into_response();
    }
    let topic = query.get("topic").cloned().unwrap_or_default();
    let titles = NEWS.iter().map(move |t| match topic.as_str() {
        "" => (*t).to_string(),
        topic => format!("{topic}: {t}"),
    });
    let events = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if !events {
        let items: Vec<Value> = titles.map(|title| json!({"title": title})).collect();
        return axum::Json(json!({"items": items})).into_response();
    }
    let body: String = titles
        .map(|title| format!("data: {}\n\n", json!({"title": title})))
        .collect();
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Sets `hung_up` when the response body is dropped before it ends.
struct HangUp(Arc<AtomicBool>);

impl Drop for HangUp {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

async fn ticks(
    State(seen): State<Seen>,
    Query(query): Query<std::collections::BTreeMap<String, String>>,
) -> Response {
    let every = query
        .get("every_ms")
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let count: Option<u64> = query.get("count").and_then(|v| v.parse().ok());
    let bad = query.get("bad").is_some_and(|v| v == "true");
    let guard = HangUp(seen.hung_up.clone());
    let limit = count;
    let count = seen.ticks.clone();
    let ticking = futures::stream::unfold((0u64, guard), move |(seq, guard)| {
        let count = count.clone();
        async move {
            if limit.is_some_and(|limit| seq >= limit) {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(every)).await;
            count.fetch_add(1, Ordering::SeqCst);
            let event = if bad && seq == 1 {
                Bytes::from("data: {\"seq\": \"two\"}\n\n")
            } else {
                Bytes::from(format!("data: {{\"seq\": {seq}}}\n\n"))
            };
            Some((Ok::<_, Infallible>(event), (seq + 1, guard)))
        }
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .body(Body::from_stream(ticking))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Byte `i` of every file: a pattern a test can check without keeping the file.
pub fn byte_at(i: u64) -> u8 {
    (i % 251) as u8
}

/// `size` bytes (default 1 MiB) of [`byte_at`], 64 KiB a write; file `missing` is a declared
/// 404, and file `cut` breaks off halfway through its declared length.
async fn file_content(
    State(seen): State<Seen>,
    Path(file_id): Path<String>,
    Query(query): Query<std::collections::BTreeMap<String, String>>,
) -> Response {
    seen.downloads.fetch_add(1, Ordering::SeqCst);
    if file_id == "missing" {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"title": "no such file"})),
        )
            .into_response();
    }
    let size: u64 = query
        .get("size")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 20);
    let sent = if file_id == "cut" { size / 2 } else { size };
    const CHUNK: u64 = 64 << 10;
    let chunks = futures::stream::unfold(Some(0u64), move |at| async move {
        let at = at?;
        if at >= sent {
            // A file cut short breaks the connection: the client must not take what it got
            // for the whole file.
            return (sent < size).then(|| (Err(std::io::Error::other("cut off")), None));
        }
        let end = (at + CHUNK).min(sent);
        let bytes: Vec<u8> = (at..end).map(byte_at).collect();
        Some((Ok(Bytes::from(bytes)), Some(end)))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .header(header::CONTENT_LENGTH, size)
        .body(Body::from_stream(chunks))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// A part (or a whole body) as received: its name, file name and type, the SHA-256 and
/// length of its bytes, and the bytes themselves when they are short text.
fn received(
    name: &str,
    file_name: Option<&str>,
    content_type: Option<&str>,
    bytes: &[u8],
) -> Value {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let mut part = json!({
        "name": name,
        "sha256": digest.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        "length": bytes.len(),
    });
    if let Some(file_name) = file_name {
        part["file_name"] = json!(file_name);
    }
    if let Some(content_type) = content_type {
        part["content_type"] = json!(content_type);
    }
    if let Ok(text) = std::str::from_utf8(bytes)
        && text.len() <= 256
    {
        part["text"] = json!(text);
    }
    part
}

/// Reads a multipart body with an independent parser (multer, through axum) and says what
/// each part held.
async fn upload_file(mut form: axum::extract::Multipart) -> Response {
    let mut parts = Vec::new();
    loop {
        match form.next_field().await {
            Ok(Some(field)) => {
                let name = field.name().unwrap_or_default().to_string();
                let file_name = field.file_name().map(str::to_string);
                let content_type = field.content_type().map(str::to_string);
                let Ok(bytes) = field.bytes().await else {
                    return StatusCode::BAD_REQUEST.into_response();
                };
                parts.push(received(
                    &name,
                    file_name.as_deref(),
                    content_type.as_deref(),
                    &bytes,
                ));
            }
            Ok(None) => break,
            Err(_) => return StatusCode::BAD_REQUEST.into_response(),
        }
    }
    axum::Json(json!({"parts": parts})).into_response()
}

/// Takes a file's bytes; file `flaky` answers the first attempt with a 503 (after reading it
/// whole), so a retried upload must send its bytes again.
async fn put_file_bytes(
    State(seen): State<Seen>,
    Path(file_id): Path<String>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let attempt = seen.puts.fetch_add(1, Ordering::SeqCst);
    if file_id == "flaky" && attempt == 0 {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let mut part = received("body", None, content_type, &body);
    part["sized"] = json!(headers.contains_key(header::CONTENT_LENGTH));
    axum::Json(json!({"parts": [part]})).into_response()
}

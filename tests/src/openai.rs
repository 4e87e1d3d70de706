//! A loopback stand-in for the OpenAI API, answering the five operations the end-to-end tests
//! drive (`POST /chat/completions` plain and streamed, `POST /responses` streamed, `POST /files`,
//! `GET /models`) the way the real API does: `null` where the description says nullable, fields
//! newer than the description, chunks with `"obfuscation"`, the final usage chunk when asked
//! for, `data: [DONE]` after chat chunks (and none after the Responses API's named events), a
//! request id on every reply, and the real API's error bodies for a wrong key (401) and a rate
//! limit (429). Served under `/v1`, as the real base URL is.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

/// The API key the stand-in accepts (as `Authorization: Bearer …`).
pub const KEY: &str = "sk-proj-standin-0123456789abcdef";
/// The model the stand-in answers with a rate limit (429), every time.
pub const BUSY_MODEL: &str = "gpt-busy";
/// Every reply's `x-request-id`.
pub const REQUEST_ID: &str = "req_7f3c0ffee";

/// What the stand-in received.
#[derive(Default)]
pub struct Seen {
    /// Each `POST /chat/completions` body, in order.
    pub chat_bodies: Mutex<Vec<Value>>,
    /// Each uploaded file.
    pub uploads: Mutex<Vec<Uploaded>>,
}

/// One file `POST /files` received.
#[derive(Clone, Debug, PartialEq)]
pub struct Uploaded {
    /// The `purpose` field.
    pub purpose: String,
    /// The file part's file name.
    pub file_name: String,
    /// The file part's content type.
    pub content_type: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

type Shared = Arc<Seen>;

/// Starts the stand-in; returns its base URL (ending in `/v1`) and what it will have received.
pub async fn serve() -> (String, Shared) {
    let seen = Shared::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/responses", post(responses))
        .route("/v1/files", post(upload))
        .route("/v1/models", get(models))
        .with_state(seen.clone());
    (format!("{}/v1", crate::listen(app).await), seen)
}

/// The chunks of the streamed chat reply: the role, the text in three pieces, the finish, then
/// (when `stream_options.include_usage` is set) the usage with no choices.
pub const CHAT_PIECES: [&str; 3] = ["Hel", "lo", "!"];

/// The real API's error body.
fn error(status: StatusCode, message: &str, kind: &str, code: &str) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    let mut reply = (status, axum::Json(body)).into_response();
    let headers = reply.headers_mut();
    headers.insert("x-request-id", HeaderValue::from_static(REQUEST_ID));
    if status == StatusCode::TOO_MANY_REQUESTS {
        headers.insert("retry-after", HeaderValue::from_static("0"));
    }
    reply
}

/// The 401 the real API answers a missing or wrong key with, or `None` for the right one.
fn unauthorized(headers: &HeaderMap) -> Option<Response> {
    let sent = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    (sent != Some(&format!("Bearer {KEY}"))).then(|| {
        let shown = sent
            .and_then(|s| s.strip_prefix("Bearer "))
            .map(|key| format!("{}***", key.chars().take(6).collect::<String>()));
        let message = match shown {
            Some(key) => format!(
                "Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys."
            ),
            None => "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).".into(),
        };
        error(
            StatusCode::UNAUTHORIZED,
            &message,
            "invalid_request_error",
            "invalid_api_key",
        )
    })
}

fn json_reply(value: Value) -> Response {
    let mut reply = axum::Json(value).into_response();
    let headers = reply.headers_mut();
    headers.insert("x-request-id", HeaderValue::from_static(REQUEST_ID));
    headers.insert("openai-processing-ms", HeaderValue::from_static("42"));
    reply
}

/// A `text/event-stream` reply of `events`, each sent as its own chunk.
fn event_stream(events: Vec<String>) -> Response {
    let pieces = futures::stream::iter(
        events
            .into_iter()
            .map(|event| Ok::<_, Infallible>(Bytes::from(event))),
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .header("x-request-id", REQUEST_ID)
        .body(Body::from_stream(pieces))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

const CREATED: i64 = 1_764_892_800;

fn usage() -> Value {
    json!({
        "prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0
        }
    })
}

async fn chat(State(seen): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = unauthorized(&headers) {
        return refused;
    }
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "We could not parse the JSON body of your request.",
            "invalid_request_error",
            "invalid_json",
        );
    };
    seen.chat_bodies
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(body.clone());
    let model = body["model"].as_str().unwrap_or_default().to_string();
    if model == BUSY_MODEL {
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "Rate limit reached for {model} in organization org-standin on requests per min (RPM): Limit 3, Used 3, Requested 1."
            ),
            "requests",
            "rate_limit_exceeded",
        );
    }
    let served = format!("{model}-2024-08-06");
    if body["stream"] != true {
        return json_reply(json!({
            "id": "chatcmpl-standin1",
            "object": "chat.completion",
            "created": CREATED,
            "model": served,
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant", "content": CHAT_PIECES.concat(),
                    "refusal": null, "annotations": []
                },
                "logprobs": null,
                "finish_reason": "stop"
            }],
            "usage": usage(),
            "service_tier": "default",
            "system_fingerprint": "fp_standin",
            // Newer than the description: clients must let it through.
            "trace_hints": {"region": "standin-1"}
        }));
    }
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-standin2", "object": "chat.completion.chunk", "created": CREATED,
            "model": served, "service_tier": "default", "system_fingerprint": "fp_standin",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
            "obfuscation": "q3Xv"
        })
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": "", "refusal": null}),
        Value::Null,
    )];
    chunks.extend(
        CHAT_PIECES
            .iter()
            .map(|piece| chunk(json!({"content": piece}), Value::Null)),
    );
    chunks.push(chunk(json!({}), json!("stop")));
    if body["stream_options"]["include_usage"] == true {
        chunks.push(json!({
            "id": "chatcmpl-standin2", "object": "chat.completion.chunk", "created": CREATED,
            "model": served, "service_tier": "default", "system_fingerprint": "fp_standin",
            "choices": [], "usage": usage(), "obfuscation": "Zk"
        }));
    }
    let mut events: Vec<String> = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect();
    events.push("data: [DONE]\n\n".into());
    event_stream(events)
}

/// The Responses API's response object, `status` and `output` as given.
fn response_object(status: &str, output: Value, usage: Value) -> Value {
    json!({
        "id": "resp_standin", "object": "response", "created_at": CREATED, "status": status,
        "background": false, "error": null, "incomplete_details": null, "instructions": null,
        "max_output_tokens": null, "max_tool_calls": null, "model": "gpt-4.1-2025-04-14",
        "output": output, "parallel_tool_calls": true, "previous_response_id": null,
        "prompt_cache_key": null, "reasoning": {"effort": null, "summary": null},
        "safety_identifier": null, "service_tier": "default", "store": true,
        "temperature": 1.0, "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto", "tools": [], "top_logprobs": 0, "top_p": 1.0,
        "truncation": "disabled", "usage": usage, "user": null, "metadata": {}
    })
}

/// The text the streamed response writes, in its deltas.
pub const RESPONSE_PIECES: [&str; 2] = ["Hi ", "there"];

async fn responses(headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = unauthorized(&headers) {
        return refused;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or_default();
    let text = RESPONSE_PIECES.concat();
    let message = |status: &str, content: Value| json!({"type": "message", "id": "msg_standin", "status": status, "role": "assistant", "content": content});
    let part = json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []});
    let usage = json!({
        "input_tokens": 36, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 38
    });
    let done = response_object(
        "completed",
        json!([message("completed", json!([part]))]),
        usage,
    );
    if body["stream"] != true {
        return json_reply(done);
    }
    let mut events = vec![(
        "response.created",
        json!({"response": response_object("in_progress", json!([]), Value::Null)}),
    )];
    for piece in RESPONSE_PIECES {
        events.push((
            "response.output_text.delta",
            json!({
                "item_id": "msg_standin", "output_index": 0, "content_index": 0,
                "delta": piece, "logprobs": [], "obfuscation": "x9"
            }),
        ));
    }
    events.push((
        "response.output_text.done",
        json!({"item_id": "msg_standin", "output_index": 0, "content_index": 0, "text": text, "logprobs": []}),
    ));
    events.push(("response.completed", json!({"response": done})));
    let events = events
        .into_iter()
        .enumerate()
        .map(|(sequence, (name, mut data))| {
            data["type"] = json!(name);
            data["sequence_number"] = json!(sequence);
            format!("event: {name}\ndata: {data}\n\n")
        })
        .collect();
    event_stream(events)
}

async fn upload(
    State(seen): State<Shared>,
    headers: HeaderMap,
    mut form: axum::extract::Multipart,
) -> Response {
    if let Some(refused) = unauthorized(&headers) {
        return refused;
    }
    let (mut purpose, mut file) = (None, None);
    while let Ok(Some(field)) = form.next_field().await {
        let name = field.name().unwrap_or_default().to_string();
        let file_name = field.file_name().unwrap_or_default().to_string();
        let content_type = field.content_type().unwrap_or_default().to_string();
        let Ok(bytes) = field.bytes().await else {
            return StatusCode::BAD_REQUEST.into_response();
        };
        match name.as_str() {
            "purpose" => purpose = Some(String::from_utf8_lossy(&bytes).into_owned()),
            "file" => file = Some((file_name, content_type, bytes.to_vec())),
            _ => {}
        }
    }
    let (Some(purpose), Some((file_name, content_type, bytes))) = (purpose, file) else {
        return error(
            StatusCode::BAD_REQUEST,
            "Missing required parameter: 'file' or 'purpose'.",
            "invalid_request_error",
            "missing_required_parameter",
        );
    };
    let size = bytes.len();
    seen.uploads
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Uploaded {
            purpose: purpose.clone(),
            file_name: file_name.clone(),
            content_type,
            bytes,
        });
    json_reply(json!({
        "id": "file-standin1", "object": "file", "bytes": size, "created_at": CREATED,
        "filename": file_name, "purpose": purpose, "status": "processed",
        "expires_at": null, "status_details": null
    }))
}

async fn models(headers: HeaderMap) -> Response {
    if let Some(refused) = unauthorized(&headers) {
        return refused;
    }
    json_reply(json!({
        "object": "list",
        "data": [
            {"id": "gpt-4o", "object": "model", "created": 1_715_367_049, "owned_by": "system"},
            {"id": "gpt-4.1", "object": "model", "created": 1_744_316_542, "owned_by": "system"}
        ]
    }))
}

//! What the client tells a `tracing` subscriber: one span per upstream request
//! (`upstream_request`, at `debug`) and one event per attempt in it (target [`UPSTREAM`]), with the method, the path template, the attempt number, the status or
//! what failed, the time it took and the request id the server gave. Never a URL (its query may
//! carry an API key), a header or a value: the path is the template, not the filled-in path.
//!
//! Levels: a success at `debug`, a 4xx at `info`, a 5xx and a failure to get a reply at `warn`.
//!
//! The same attempts, as [`Attempt`] records, go to a watcher a caller sets for one future
//! ([`watched`]): how the MCP server tells a client that asked for log messages what its call
//! did upstream.

use std::time::Duration;

use harness_gen_wire::binding::Binding;
use tracing::Level;

use crate::REQUEST_ID_HEADERS;

/// The target of the upstream events (a `RUST_LOG` directive can name it).
pub const UPSTREAM: &str = "harness_gen::upstream";

/// The request id a reply's headers carry ([`REQUEST_ID_HEADERS`], first found).
pub(crate) fn request_id(headers: &reqwest::header::HeaderMap) -> Option<&str> {
    REQUEST_ID_HEADERS
        .iter()
        .find_map(|name| headers.get(*name)?.to_str().ok())
}

/// The span of one upstream request and its attempts.
pub(crate) fn request_span(binding: &Binding) -> tracing::Span {
    let path: &str = &binding.path;
    tracing::debug_span!(target: UPSTREAM, "upstream_request", method = binding.method.as_str(), path)
}

/// How one attempt of an upstream request went, as a watcher ([`watched`]) is told: what the
/// upstream event says, no more (the path template, never a URL, a header or a value).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// The HTTP method.
    pub method: &'static str,
    /// The path template.
    pub path: String,
    /// 0 for the first attempt, 1 for the first retry, …
    pub attempt: u32,
    /// The reply's status, when there was a reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What failed when there was no reply: `timeout`, `connect` or `transport`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<&'static str>,
    /// How long the attempt took, in milliseconds.
    pub duration_ms: u64,
}

type Watcher = std::sync::Arc<dyn Fn(&Attempt) + Send + Sync>;

tokio::task_local! {
    static WATCHER: Watcher;
}

/// Runs `future` with `watcher` told of each upstream attempt the client makes within it
/// (on the same task: what it spawns is not watched).
pub async fn watched<F: std::future::Future>(
    watcher: impl Fn(&Attempt) + Send + Sync + 'static,
    future: F,
) -> F::Output {
    WATCHER.scope(std::sync::Arc::new(watcher), future).await
}

/// Tells the subscriber how attempt `attempt` (0 for the first) of `binding`'s request went.
pub(crate) fn attempt(
    binding: &Binding,
    attempt: u32,
    took: Duration,
    outcome: &reqwest::Result<reqwest::Response>,
) {
    let method = binding.method.as_str();
    let path: &str = &binding.path;
    let duration_ms = took.as_secs_f64() * 1000.0;
    let _ = WATCHER.try_with(|watcher| {
        let (status, failure) = match outcome {
            Ok(response) => (Some(response.status().as_u16()), None),
            Err(error) => (None, Some(failure(error))),
        };
        watcher(&Attempt {
            method,
            path: path.to_owned(),
            attempt,
            status,
            failure,
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
        });
    });
    match outcome {
        Ok(response) => {
            let status = response.status().as_u16();
            let request_id = request_id(response.headers()).unwrap_or("");
            macro_rules! reply {
                ($level:expr) => {
                    tracing::event!(
                        target: UPSTREAM,
                        $level,
                        method,
                        path,
                        attempt,
                        status,
                        duration_ms,
                        request_id,
                        "upstream reply"
                    )
                };
            }
            match status {
                500.. => reply!(Level::WARN),
                400.. => reply!(Level::INFO),
                _ => reply!(Level::DEBUG),
            }
        }
        Err(error) => {
            let failure = failure(error);
            // The error's own text names the URL; its causes do not.
            let cause = std::error::Error::source(error).map(ToString::to_string);
            tracing::warn!(
                target: UPSTREAM,
                method,
                path,
                attempt,
                failure,
                duration_ms,
                cause = cause.as_deref().unwrap_or(""),
                "upstream request failed"
            );
        }
    }
}

/// What failed when an attempt got no reply.
fn failure(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timeout"
    } else if error.is_connect() {
        "connect"
    } else {
        "transport"
    }
}

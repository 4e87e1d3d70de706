//! What the client tells a `tracing` subscriber: one span per upstream request
//! (`upstream_request`, at `debug`) and one event per attempt in it (target [`UPSTREAM`]), with the method, the path template, the attempt number, the status or
//! what failed, the time it took and the request id the server gave. Never a URL (its query may
//! carry an API key), a header or a value: the path is the template, not the filled-in path.
//!
//! Levels: a success at `debug`, a 4xx at `info`, a 5xx and a failure to get a reply at `warn`.

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
            let failure = if error.is_timeout() {
                "timeout"
            } else if error.is_connect() {
                "connect"
            } else {
                "transport"
            };
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

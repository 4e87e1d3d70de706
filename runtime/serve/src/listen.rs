//! The HTTP server's connections, bounded: `axum::serve` sets no header read timeout and no
//! cap on connections, so clients that send one byte a second kept their connections (and the
//! process's file descriptors) forever. Here each connection is served by hyper with a header
//! read timeout (which also closes a kept-alive connection idle that long between requests),
//! each request's body must arrive within a body timeout, and connections beyond the cap are
//! answered `503` and closed at once.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// What one server allows its clients; every bound has a documented default and an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The time a client has to send a request's headers, and the longest a kept-alive
    /// connection stays open with no request (`--header-timeout`).
    pub header_timeout: Duration,
    /// The time a client has to send a request's body once its headers arrived
    /// (`--body-timeout`).
    pub body_timeout: Duration,
    /// The most bytes a request body may have.
    pub max_body_bytes: usize,
    /// The most connections open at once (`--max-connections`); more are answered `503`.
    pub max_connections: usize,
    /// The most MCP sessions (the `initialize` era's) open at once (`--max-sessions`); a new
    /// one closes the session idle longest.
    pub max_sessions: usize,
    /// How long an MCP session lives without a request (`--session-idle`).
    pub session_idle: Duration,
}

impl Limits {
    /// 10 s for headers, 30 s for a body of at most 16 MiB, 1,024 connections, 1,000 sessions
    /// idle at most 5 minutes.
    pub const DEFAULT: Self = Self {
        header_timeout: Duration::from_secs(10),
        body_timeout: Duration::from_secs(30),
        max_body_bytes: 16 * 1024 * 1024,
        max_connections: 1024,
        max_sessions: 1000,
        session_idle: Duration::from_secs(300),
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What a connection over the cap is told before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\nretry-after: 1\r\ncontent-type: text/plain\r\ncontent-length: 42\r\n\r\nthe server has too many connections open\r\n";

/// Serves `router` on `listener` within `limits` until `stop` resolves; then accepts no more
/// connections and returns, while the connections already open go on being served by their own
/// tasks (a caller that waits for their work before leaving stops gracefully).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: Limits,
    stop: impl std::future::Future<Output = ()>,
) {
    let router = router.layer(axum::middleware::from_fn_with_state(limits, bounded_body));
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => return,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors or a connection reset before it was accepted: the
            // listener still works, so wait a moment rather than spin or stop.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            let _ = stream.try_write(BUSY);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = http.serve_connection(io, service).with_upgrades().await;
            drop(permit);
        });
    }
}

/// Reads each request's body within the body timeout and size bound before anything else sees
/// it (`408` or `413` otherwise, and the connection closed).
async fn bounded_body(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limits.max_body_bytes);
    let refused = |status: StatusCode, why: String| {
        (status, [(header::CONNECTION, "close")], why).into_response()
    };
    match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is larger than {} bytes, or was cut short",
                limits.max_body_bytes
            ),
        ),
        Err(_) => refused(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                limits.body_timeout.as_secs()
            ),
        ),
    }
}

//! MCP logging: a client asks for messages at or above a level (`logging/setLevel`, for its
//! session), and each tool call it makes is then reported to it as `notifications/message`s:
//! each request the call sends upstream as it is answered (method, path template, attempt,
//! status or what failed, time taken), then which tool, how the call ended (the failure's kind
//! and category) and how long it took. Never an argument, a result, a URL or a credential: what
//! the server's own logs say of a call, no more.
// rmcp marks MCP logging deprecated (SEP-2577, the 2026-07-28 era); clients of the
// `initialize` era use it, and the conformance suite asks for it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};

/// The logger name of call messages, as the server's own logs name their target.
const LOGGER: &str = "harness_gen::call";

use harness_gen_client::trace::{Attempt, UPSTREAM};

/// The level one session asked for; none until it asks (nothing is sent unasked).
#[derive(Clone, Default)]
pub(crate) struct SessionLog(Arc<Mutex<Option<LoggingLevel>>>);

impl SessionLog {
    /// `logging/setLevel`.
    pub(crate) fn set(&self, level: LoggingLevel) {
        if let Ok(mut wanted) = self.0.lock() {
            *wanted = Some(level);
        }
    }

    fn wants(&self, level: LoggingLevel) -> bool {
        let wanted = self.0.lock().ok().and_then(|wanted| *wanted);
        wanted.is_some_and(|least| rank(level) >= rank(least))
    }

    /// Runs `call` (of `tool`), telling the session's client of each request it sends upstream
    /// as it is answered, at the level the server's logs give it (`debug` for a success, `info`
    /// for a 4xx, `warning` for a 5xx or no reply), when the client asked for that level.
    pub(crate) async fn watching<F: std::future::Future>(
        &self,
        peer: &Peer<RoleServer>,
        tool: &str,
        call: F,
    ) -> F::Output {
        // Most sessions never ask: their calls run unwatched.
        if !self.wants(LoggingLevel::Emergency) {
            return call.await;
        }
        let (sender, mut attempts) = tokio::sync::mpsc::unbounded_channel::<Attempt>();
        let watcher = move |attempt: &Attempt| {
            let _ = sender.send(attempt.clone());
        };
        // Ends when the call does (the watcher, and with it the sender, goes with its scope).
        let forward = async {
            while let Some(attempt) = attempts.recv().await {
                let (level, data) = upstream_message(tool, &attempt);
                if self.wants(level) {
                    let message =
                        LoggingMessageNotificationParam::new(level, data).with_logger(UPSTREAM);
                    let _ = peer.notify_logging_message(message).await;
                }
            }
        };
        let (output, ()) = tokio::join!(harness_gen_client::trace::watched(watcher, call), forward);
        output
    }

    /// Reports a finished call of `tool` to the session's client, when it asked for its level.
    pub(crate) async fn call_ended(
        &self,
        peer: &Peer<RoleServer>,
        tool: &str,
        result: &Result<CallToolResult, McpError>,
        took: Duration,
    ) {
        // Most sessions never ask: no message is built for them.
        if !self.wants(LoggingLevel::Emergency) {
            return;
        }
        let (level, data) = message(tool, result, took);
        if self.wants(level) {
            let message = LoggingMessageNotificationParam::new(level, data).with_logger(LOGGER);
            // A client gone before its message is sent needs nothing more.
            let _ = peer.notify_logging_message(message).await;
        }
    }
}

/// RFC 5424's order, least severe first.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The message of one upstream attempt of a call of `tool`.
fn upstream_message(tool: &str, attempt: &Attempt) -> (LoggingLevel, Value) {
    let level = match (attempt.status, attempt.failure) {
        (Some(500..), _) | (None, _) => LoggingLevel::Warning,
        (Some(400..), _) => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    };
    let mut data = json!({"tool": tool});
    if let (Some(data), Ok(Value::Object(attempt))) =
        (data.as_object_mut(), serde_json::to_value(attempt))
    {
        data.extend(attempt);
    }
    (level, data)
}

/// The message of a finished call: `info` when it succeeded, `warning` for the API's declared
/// error, `error` for any other failure, with the failure's kind and category.
fn message(
    tool: &str,
    result: &Result<CallToolResult, McpError>,
    took: Duration,
) -> (LoggingLevel, Value) {
    let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
    let result = match result {
        Ok(result) => result,
        Err(error) => {
            let data = json!({"tool": tool, "outcome": "protocol_error", "code": error.code.0, "durationMs": ms});
            return (LoggingLevel::Error, data);
        }
    };
    if result.is_error != Some(true) {
        let data = json!({"tool": tool, "outcome": "ok", "durationMs": ms});
        return (LoggingLevel::Info, data);
    }
    let contract = result
        .meta
        .as_ref()
        .and_then(|meta| meta.get(harness_gen_contract::catalog::CONTRACT_META_KEY));
    if contract.is_some_and(|c| c.get("applicationError").is_some()) {
        let data = json!({"tool": tool, "outcome": "application", "durationMs": ms});
        return (LoggingLevel::Warning, data);
    }
    let failure = contract.and_then(|c| c.get("failure"));
    let field = |name: &str| failure.and_then(|f| f.get(name)).cloned();
    let data = json!({
        "tool": tool,
        "outcome": field("kind").unwrap_or_else(|| json!("invalid_input")),
        "category": field("category"),
        "durationMs": ms,
    });
    (LoggingLevel::Error, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_hears_nothing_until_it_asks_and_then_its_level_and_above() {
        let log = SessionLog::default();
        assert!(!log.wants(LoggingLevel::Emergency));
        log.set(LoggingLevel::Warning);
        assert!(!log.wants(LoggingLevel::Info));
        assert!(log.wants(LoggingLevel::Warning));
        assert!(log.wants(LoggingLevel::Error));
        // Each session has its own.
        assert!(!SessionLog::default().wants(LoggingLevel::Error));
    }

    #[test]
    fn an_upstream_message_says_the_request_and_its_answer_at_the_servers_log_level() {
        let attempt = |status, failure| Attempt {
            method: "GET",
            path: "/pets/{petId}".into(),
            attempt: 1,
            status,
            failure,
            duration_ms: 3,
        };
        let (level, data) = upstream_message("get_pet", &attempt(Some(503), None));
        assert_eq!(level, LoggingLevel::Warning);
        assert_eq!(
            data,
            json!({"tool": "get_pet", "method": "GET", "path": "/pets/{petId}", "attempt": 1, "status": 503, "durationMs": 3})
        );
        let levels = [
            (attempt(Some(200), None), LoggingLevel::Debug),
            (attempt(Some(404), None), LoggingLevel::Info),
            (attempt(None, Some("connect")), LoggingLevel::Warning),
        ];
        for (attempt, level) in levels {
            assert_eq!(
                upstream_message("get_pet", &attempt).0,
                level,
                "{attempt:?}"
            );
        }
    }

    #[test]
    fn a_call_message_says_the_tool_the_outcome_and_the_time_and_nothing_of_the_call() {
        let ok = Ok(CallToolResult::success(vec![
            rmcp::model::ContentBlock::text("secret"),
        ]));
        let (level, data) = message("get_pet", &ok, Duration::from_millis(12));
        assert_eq!(level, LoggingLevel::Info);
        assert_eq!(
            data,
            json!({"tool": "get_pet", "outcome": "ok", "durationMs": 12})
        );
        assert!(!data.to_string().contains("secret"));
    }
}

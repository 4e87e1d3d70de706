//! The Streamable HTTP endpoint's services, one per choice of tools a client's URL makes, and
//! their sessions, capped.

use super::*;

type HttpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// The Streamable HTTP endpoint: one MCP service per choice of tools a client's URL makes
/// (`/mcp?tool=a&tool=b&exclude_tool=c&read_only=true`, narrowing the start-up choice), each
/// with its own sessions, made when first asked for and kept while used. Sessions of all of
/// them together are capped (the one idle longest is closed for a new one), and a choice with
/// no open session is forgotten, least recently used first, when a new one needs its place.
pub(super) struct Connections {
    /// The tools chosen at start.
    registry: ToolRegistry,
    /// The server over them, which each narrower one is made like.
    server: McpServer,
    config: StreamableHttpServerConfig,
    limits: Limits,
    services: std::sync::Mutex<std::collections::BTreeMap<Selection, Service>>,
    /// Each open session's last request, by id.
    sessions: std::sync::Mutex<std::collections::HashMap<Arc<str>, Seen>>,
}

/// One choice of tools' service, its sessions, and when it was last asked for.
#[derive(Clone)]
struct Service {
    http: Arc<HttpService>,
    sessions: Arc<LocalSessionManager>,
    used: Instant,
}

/// An open session: whose it is and when it was last asked for.
struct Seen {
    manager: Arc<LocalSessionManager>,
    at: Instant,
}

use std::time::Instant;

/// How many different choices of tools one server keeps services for at once.
const MAX_SELECTIONS: usize = 64;

/// The header that names a session (the `initialize` era's).
const SESSION_HEADER: &str = "mcp-session-id";

impl Connections {
    pub(super) fn new(
        registry: ToolRegistry,
        server: McpServer,
        config: StreamableHttpServerConfig,
        limits: Limits,
    ) -> Self {
        let connections = Self {
            registry,
            server,
            config,
            limits,
            services: Default::default(),
            sessions: Default::default(),
        };
        // A URL that chooses nothing gets the server prepared at start.
        let whole = connections.service_of(connections.server.clone());
        if let Ok(mut services) = connections.services.lock() {
            services.insert(Selection::default(), whole);
        }
        connections
    }

    fn service_of(&self, server: McpServer) -> Service {
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(self.limits.session_idle);
        let sessions = Arc::new(sessions);
        Service {
            http: Arc::new(StreamableHttpService::new(
                move || Ok(server.for_session()),
                Arc::clone(&sessions),
                self.config.clone(),
            )),
            sessions,
            used: Instant::now(),
        }
    }

    /// The service for the choice `uri`'s query makes, or why there is none (an unknown
    /// parameter or tool name, or every place taken by a choice with open sessions).
    fn service(&self, uri: &axum::http::Uri) -> Result<Service, String> {
        let selection = Selection::from_uri(uri)?;
        let mut services = self.services.lock().map_err(|_| "the server is failing")?;
        if let Some(service) = services.get_mut(&selection) {
            service.used = Instant::now();
            return Ok(service.clone());
        }
        if services.len() >= MAX_SELECTIONS {
            // The least recently used choice nobody has a session with gives its place.
            let idle = services
                .iter()
                .filter(|(chosen, service)| {
                    **chosen != Selection::default()
                        && service
                            .sessions
                            .sessions
                            .try_read()
                            .is_ok_and(|s| s.is_empty())
                })
                .min_by_key(|(_, service)| service.used)
                .map(|(chosen, _)| chosen.clone());
            match idle {
                Some(chosen) => {
                    services.remove(&chosen);
                }
                None => {
                    return Err(format!(
                        "this server serves at most {MAX_SELECTIONS} different choices of tools at once, all in use: try again later or use one of them"
                    ));
                }
            }
        }
        // Tool names are no secret (the crate's catalog publishes them), so the error may list
        // them whatever the request's origin.
        let server = self.server.over(&selection.apply(&self.registry)?);
        let service = self.service_of(server);
        services.insert(selection, service.clone());
        Ok(service)
    }

    /// Before a request that may open a session (a POST naming none) is served: when the
    /// sessions are at their cap, the one idle longest is closed.
    async fn make_room(&self) {
        let oldest = {
            let Ok(mut sessions) = self.sessions.lock() else {
                return;
            };
            // Below the cap there is nothing to do: the book is read only when it might be full
            // (every 2026-era request is a POST naming no session).
            if sessions.len() < self.limits.max_sessions {
                return;
            }
            // Sessions rmcp closed (idle, or ended by their client) leave the book first.
            sessions.retain(|id, seen| {
                seen.manager
                    .sessions
                    .try_read()
                    .map_or(true, |open| open.contains_key(&**id))
            });
            if sessions.len() < self.limits.max_sessions {
                return;
            }
            let oldest = sessions
                .iter()
                .min_by_key(|(_, seen)| seen.at)
                .map(|(id, _)| Arc::clone(id));
            oldest.and_then(|id| sessions.remove(&id).map(|seen| (id, seen.manager)))
        };
        if let Some((id, manager)) = oldest {
            use rmcp::transport::streamable_http_server::SessionManager;
            let _ = manager.close_session(&id).await;
        }
    }

    /// How many MCP sessions are open (the `initialize` era's), over every choice of tools.
    pub(super) fn open_sessions(&self) -> usize {
        let Ok(services) = self.services.lock() else {
            return 0;
        };
        services
            .values()
            .map(|service| service.sessions.sessions.try_read().map_or(0, |s| s.len()))
            .sum()
    }

    /// Notes a request of session `id` of `manager`'s.
    fn seen(&self, id: &str, manager: &Arc<LocalSessionManager>) {
        if let Ok(mut sessions) = self.sessions.lock() {
            let seen = Seen {
                manager: Arc::clone(manager),
                at: Instant::now(),
            };
            match sessions.get_mut(id) {
                Some(known) => known.at = seen.at,
                None => {
                    sessions.insert(id.into(), seen);
                }
            }
        }
    }
}

pub(super) async fn connection(
    axum::extract::State(connections): axum::extract::State<Arc<Connections>>,
    mut request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let named = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let activity = connections.server.activity();
    // Stopping: new work (a session, a call) goes to another replica; the rest is still served,
    // so the calls under way finish for their clients (which follow a call with more requests,
    // on new connections: the Python SDK lists the tools to check a result against).
    if activity.draining() {
        let (parts, body) = request.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let post = parts.method == axum::http::Method::POST;
        if (post && starts_work(&body)) || (!post && named.is_none()) {
            return (
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                [
                    (axum::http::header::CONNECTION, "close"),
                    (axum::http::header::RETRY_AFTER, "1"),
                ],
                "the server is stopping: try again",
            )
                .into_response();
        }
        request = axum::extract::Request::from_parts(parts, axum::body::Body::from(body));
    }
    let service = match connections.service(request.uri()) {
        Ok(service) => service,
        Err(why) => return (axum::http::StatusCode::BAD_REQUEST, why).into_response(),
    };
    if named.is_none() && request.method() == axum::http::Method::POST {
        connections.make_room().await;
    }
    // A POST is under way until its whole answer is written (a stop waits for it); a GET is a
    // client's stream of server messages, which may stay open for as long as it likes.
    let busy =
        (request.method() == axum::http::Method::POST).then(|| connections.server.activity.busy());
    let mut response = service.http.handle(request).await.into_response();
    if let Some(busy) = busy {
        use futures::StreamExt;
        response = response.map(|body| {
            axum::body::Body::from_stream(body.into_data_stream().map(move |chunk| {
                let _written_with = &busy;
                chunk
            }))
        });
    }
    let opened = response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok());
    if let Some(id) = named.as_deref().or(opened) {
        connections.seen(id, &service.sessions);
    }
    response
}

/// Whether a JSON-RPC message (or batch) starts work: a session (`initialize`) or a call
/// (`tools/call`, a task included). Anything unreadable counts as work.
fn starts_work(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message {
        #[serde(default)]
        method: String,
    }
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Messages {
        One(Message),
        Batch(Vec<Message>),
    }
    let work = |message: &Message| matches!(message.method.as_str(), "initialize" | "tools/call");
    match serde_json::from_slice::<Messages>(body) {
        Ok(Messages::One(message)) => work(&message),
        Ok(Messages::Batch(messages)) => messages.iter().any(work),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::starts_work;

    #[test]
    fn a_stopping_server_counts_sessions_and_calls_as_new_work_and_nothing_else() {
        for work in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/call"}]"#,
            "not json",
        ] {
            assert!(starts_work(work.as_bytes()), "{work}");
        }
        for rest in [
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        ] {
            assert!(!starts_work(rest.as_bytes()), "{rest}");
        }
    }
}

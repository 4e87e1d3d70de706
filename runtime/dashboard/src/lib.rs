//! `harness-gen-dashboard`: the operator dashboard, the registry's fifth projection, served over
//! HTTP by the MCP program beside `/mcp` (`--http ADDR --dashboard`; the runtime's feature
//! `dashboard` mounts it there through [`Mount`]).
//!
//! Like every projection it owns no list of its own: its tools are the registry's
//! dashboard-audience tools (any other name is a 404, as an unknown one), every call goes
//! through [`ToolRegistry::invoke_page`] (a tool's events are sent to the page as they arrive,
//! one JSON line each; any other output is finished into one value by
//! [`ToolRegistry::finish`]) and its outcome is rendered from
//! [`render::cli_failure_envelope`], the CLI's and MCP's classification. Its pages are
//! askama templates; its one script (`assets/dashboard.js`, ours, served from the binary) makes
//! each tool's form from its input schema, checks it as the schema does, calls, and renders the
//! result.
//!
//! Who may use it: the `Host` and `Origin` rules of `/mcp` ([`Access`]); a call is a
//! `POST` that must carry the browser session's cookie and the token its page holds
//! ([`guard`]); a destructive tool's call must say it was confirmed. Every response sets a
//! Content-Security-Policy that allows this server's own script, styles and requests only.
//! Recent calls are kept in memory, bounded: everyone sees each call's tool, time, duration and
//! outcome; its input and result only the session that made it. Credentials never reach a page:
//! the client holds them, as in the other programs.

mod guard;
mod pages;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use guard::Sessions;
use harness_gen_client::CallCredentials;
use harness_gen_contract::harness::Bundle;
use harness_gen_contract::{Audience, harness, schema};
use harness_gen_registry::{EventOutput, ToolError, ToolRegistry, render};
use harness_gen_serve::{
    Access, ClientAuth, CredentialHeaders, Denied, Gate, Mount, Principal, Site, bearer,
};

/// The dashboard as the MCP program mounts it beside `/mcp` (`--http ADDR --dashboard`).
pub struct Mounted;

impl Mount for Mounted {
    fn option(&self) -> (&'static str, &'static str) {
        (
            "dashboard",
            "Also serve the operator dashboard at http://ADDR/dashboard: the dashboard-audience tools with a form each, recent calls, and the embedded .harness roles",
        )
    }

    fn path(&self) -> &'static str {
        "/dashboard"
    }

    fn routes(&self, site: Site<'_>) -> Result<Router, String> {
        let dashboard = Dashboard::new(
            site.registry,
            site.name,
            site.version,
            site.harness,
            site.access,
        )?
        .with_credential_headers(site.credential_headers)
        .with_client_auth(site.auth, site.public_url);
        Ok(Arc::new(dashboard).router())
    }
}

/// How many calls the dashboard remembers (the oldest are forgotten first).
const RECENT_CALLS: usize = 100;

/// The most bytes of JSON a remembered call keeps of its input and of its result each; a
/// larger one is remembered as too large to keep.
const KEPT_BYTES: usize = 64 * 1024;

/// The dashboard of one program: its registry's dashboard projection, the embedded bundle,
/// the sessions it gave out and the calls made through it.
pub struct Dashboard {
    program: String,
    version: String,
    /// The registry as the program built it, for the agent surfaces of the bundle's roles.
    registry: ToolRegistry,
    /// Its dashboard projection: the tools that exist here.
    tools: ToolRegistry,
    bundle: Option<Bundle>,
    access: Access,
    /// Schemes whose credentials come from each request's headers (`--credential-header`),
    /// never from the environment: a dashboard call carries them as an MCP request would.
    credential_headers: CredentialHeaders,
    /// How clients authenticate, when they must: the bearer token in each request, or a
    /// browser's session opened by signing in with it.
    gate: Gate,
    sessions: Sessions,
    calls: Mutex<Calls>,
}

/// The calls made through the dashboard, oldest first.
#[derive(Default)]
struct Calls {
    next: u64,
    kept: VecDeque<Call>,
}

/// One call made through the dashboard.
struct Call {
    id: u64,
    tool: String,
    at: SystemTime,
    duration: Duration,
    /// `ok`, or the failure kind as the CLI envelope says it.
    outcome: &'static str,
    /// The session that made it: the only one shown its input and result.
    session: String,
    input: Value,
    result: Value,
}

impl Dashboard {
    /// The dashboard of `registry` (every tool the program has; only its dashboard-audience
    /// ones are shown and callable) for program `program` `version`, with the embedded
    /// `.harness` bundle's JSON if the crate has one, answering requests `access` admits.
    pub fn new(
        registry: &ToolRegistry,
        program: &str,
        version: &str,
        bundle: Option<&str>,
        access: Access,
    ) -> Result<Self, String> {
        let bundle = bundle.map(harness::parse_embedded).transpose()?;
        Ok(Self {
            program: program.to_owned(),
            version: version.to_owned(),
            tools: registry.project(Audience::Dashboard),
            registry: registry.clone(),
            bundle,
            access,
            credential_headers: CredentialHeaders::default(),
            gate: Gate {
                auth: None,
                public_url: None,
            },
            sessions: Sessions::default(),
            calls: Mutex::default(),
        })
    }

    /// Takes the credentials of the schemes `headers` maps from each call's request headers, as
    /// the MCP endpoint does: a mapped scheme's credential never comes from the environment.
    pub fn with_credential_headers(mut self, headers: CredentialHeaders) -> Self {
        self.credential_headers = headers;
        self
    }

    /// Requires the client authentication of `/mcp` (`None`: none): a request carries the
    /// bearer token, or comes from a browser session opened by signing in with it
    /// (`/dashboard/login`); calls are allowed by the token's scopes as over MCP.
    pub fn with_client_auth(
        mut self,
        auth: Option<Arc<ClientAuth>>,
        public_url: Option<String>,
    ) -> Self {
        self.gate = Gate { auth, public_url };
        self
    }

    /// The dashboard's routes, all under `/dashboard`.
    pub fn router(self: Arc<Self>) -> Router {
        Router::new()
            .route("/dashboard", get(index))
            .route("/dashboard/", get(index))
            .route("/dashboard/tools/{name}", get(tool_page).post(call))
            .route("/dashboard/tools/{name}/schemas/{which}", get(schema))
            .route("/dashboard/calls", get(calls_page))
            .route("/dashboard/calls/{id}", get(call_page))
            .route("/dashboard/harness", get(harness_page))
            .route("/dashboard/assets/{file}", get(asset))
            .route("/dashboard/login", axum::routing::post(login))
            .fallback(|| async { not_found() })
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&self),
                guarded,
            ))
            .with_state(self)
    }

    /// A page for the browser that sent `headers`: `render` gets its session and returns the
    /// HTML; a browser without a session gets one with the page.
    fn page(
        &self,
        headers: &HeaderMap,
        render: impl FnOnce(&guard::Session) -> Option<String>,
    ) -> Response {
        if self.sessions.find(headers).is_none() && !guard::opens_session(headers) {
            return refused(
                "a page of another site cannot open a dashboard session: open the dashboard at its own address",
            );
        }
        let Some((session, cookie)) = self.sessions.of_page(headers) else {
            return failure(
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"kind": "runtime", "message": "the operating system gives no randomness for a session"}),
            );
        };
        let Some(html) = render(&session) else {
            return not_found();
        };
        let mut response =
            ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response();
        if let Some(cookie) = cookie {
            response.headers_mut().insert(header::SET_COOKIE, cookie);
        }
        response
    }

    /// Remembers a call; returns its number.
    fn remember(&self, mut call: Call) -> u64 {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.next += 1;
        call.id = calls.next;
        for value in [&mut call.input, &mut call.result] {
            if schema::serialized_len(value) > KEPT_BYTES {
                *value = json!(format!("(more than {KEPT_BYTES} bytes: not kept)"));
            }
        }
        if calls.kept.len() >= RECENT_CALLS {
            calls.kept.pop_front();
        }
        calls.kept.push_back(call);
        calls.next
    }
}

/// Refuses requests the server's `Host`/`Origin` rules do not admit (as `/mcp` does), and sets
/// the security headers on every response.
async fn guarded(
    State(dashboard): State<Arc<Dashboard>>,
    mut request: Request,
    next: Next,
) -> Response {
    let mut response = match dashboard.access.admits(request.headers()) {
        Ok(()) => match dashboard
            .authenticated(request.uri().path(), request.method(), request.headers())
            .await
        {
            Ok(principal) => {
                if let Some(principal) = principal {
                    request.extensions_mut().insert(principal);
                }
                next.run(request).await
            }
            Err(refusal) => refusal,
        },
        Err(refusal) => refused(refusal.message()),
    };
    guard::security_headers(response.headers_mut());
    response
}

impl Dashboard {
    /// The client `request` comes from on a server with client authentication (`None` without
    /// it, and for the sign-in form and the assets), or the answer to a client that is not
    /// authenticated: the sign-in page for a page, a `401` with the challenge otherwise.
    async fn authenticated(
        &self,
        path: &str,
        method: &axum::http::Method,
        headers: &HeaderMap,
    ) -> Result<Option<Principal>, Response> {
        let Some(auth) = &self.gate.auth else {
            return Ok(None);
        };
        if path == "/dashboard/login" || path.starts_with("/dashboard/assets/") {
            return Ok(None);
        }
        if bearer(headers).is_some() {
            return match auth.principal(headers).await {
                Ok(principal) => Ok(Some(principal)),
                Err(denied) => Err(self.gate.refusal(auth, denied, headers)),
            };
        }
        let signed_in = self
            .sessions
            .find(headers)
            .and_then(|session| session.principal)
            .filter(|p| p.expires.is_none_or(|at| at > SystemTime::now()));
        match signed_in {
            Some(principal) => Ok(Some(principal)),
            None if method == axum::http::Method::GET => Err(sign_in(auth, false)),
            None => Err(self.gate.refusal(auth, Denied::Missing, headers)),
        }
    }
}

/// The sign-in page, `401` with the challenge.
fn sign_in(auth: &ClientAuth, failed: bool) -> Response {
    let denied = if failed {
        Denied::Invalid
    } else {
        Denied::Missing
    };
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        pages::login(failed),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, auth.challenge(denied, ""));
    response
}

/// Signing in: the token from the form, checked as `/mcp` checks it; a browser session of its
/// client on success (a new one, whatever cookie came with the request).
async fn login(
    State(dashboard): State<Arc<Dashboard>>,
    axum::extract::Form(form): axum::extract::Form<std::collections::HashMap<String, String>>,
) -> Response {
    let Some(auth) = &dashboard.gate.auth else {
        return axum::response::Redirect::to("/dashboard").into_response();
    };
    let token = form.get("token").map(String::as_str).unwrap_or_default();
    let Ok(principal) = auth.verify(token.trim()).await else {
        return sign_in(auth, true);
    };
    let Some((_, cookie)) = dashboard.sessions.open(Some(principal)) else {
        return failure(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"kind": "runtime", "message": "the operating system gives no randomness for a session"}),
        );
    };
    let mut response = axum::response::Redirect::to("/dashboard").into_response();
    if let Some(cookie) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

fn refused(why: &str) -> Response {
    failure(
        StatusCode::FORBIDDEN,
        json!({"kind": "forbidden", "message": why}),
    )
}

/// A failure a call answers with, as the page's script reads it.
fn failure(status: StatusCode, error: Value) -> Response {
    (status, axum::Json(json!({"ok": false, "error": error}))).into_response()
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        pages::not_found(),
    )
        .into_response()
}

async fn index(State(dashboard): State<Arc<Dashboard>>, headers: HeaderMap) -> Response {
    dashboard.page(&headers, |session| Some(pages::index(&dashboard, session)))
}

async fn tool_page(
    State(dashboard): State<Arc<Dashboard>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    dashboard.page(&headers, |session| pages::tool(&dashboard, session, &name))
}

/// One of a dashboard tool's schemas, standalone, as JSON.
async fn schema(
    State(dashboard): State<Arc<Dashboard>>,
    Path((name, which)): Path<(String, String)>,
) -> Response {
    match pages::schema(&dashboard, &name, &which) {
        Some(schema) => axum::Json(schema).into_response(),
        None => not_found(),
    }
}

async fn calls_page(State(dashboard): State<Arc<Dashboard>>, headers: HeaderMap) -> Response {
    dashboard.page(&headers, |session| Some(pages::calls(&dashboard, session)))
}

async fn call_page(
    State(dashboard): State<Arc<Dashboard>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let id = id.parse::<u64>().ok();
    dashboard.page(&headers, |session| pages::call(&dashboard, session, id?))
}

async fn harness_page(State(dashboard): State<Arc<Dashboard>>, headers: HeaderMap) -> Response {
    dashboard.page(&headers, |session| {
        Some(pages::harness(&dashboard, session))
    })
}

/// The dashboard's script and style sheet, compiled into the binary.
async fn asset(Path(file): Path<String>) -> Response {
    let (kind, body) = match file.as_str() {
        "dashboard.js" => (
            "text/javascript; charset=utf-8",
            include_str!("assets/dashboard.js"),
        ),
        "dashboard.css" => (
            "text/css; charset=utf-8",
            include_str!("assets/dashboard.css"),
        ),
        _ => return not_found(),
    };
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// A call: `{"input": {...}, "confirmed": bool}` from a page of this session, answered with
/// `{"ok": true, "output": …}` or the CLI's failure envelope, and the call's number and
/// duration.
async fn call(
    State(dashboard): State<Arc<Dashboard>>,
    Path(name): Path<String>,
    principal: Option<axum::Extension<Principal>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(session) = dashboard.sessions.of_call(&headers) else {
        return refused(guard::NO_TOKEN);
    };
    let Some(entry) = dashboard.tools.lookup(Audience::Dashboard, &name) else {
        let message = ToolError::UnknownTool { name }.to_string();
        return failure(
            StatusCode::NOT_FOUND,
            json!({"kind": "unknown_tool", "message": message}),
        );
    };
    let request: Value = match serde_json::from_slice(&body) {
        Ok(Value::Object(request)) => Value::Object(request),
        _ => {
            return failure(
                StatusCode::BAD_REQUEST,
                json!({"kind": "invalid_input", "tool": name,
                       "message": "the request is not a JSON object {\"input\": …}"}),
            );
        }
    };
    if let Some(auth) = &dashboard.gate.auth
        && let Err(why) = auth.scopes().allows(principal.as_deref(), entry)
    {
        return failure(
            StatusCode::FORBIDDEN,
            json!({"kind": "forbidden", "tool": name, "message": why}),
        );
    }
    if pages::destructive(entry) && request["confirmed"] != json!(true) {
        return failure(
            StatusCode::CONFLICT,
            json!({"kind": "confirmation_required", "tool": name,
                   "message": "this tool may destroy something: confirm the call"}),
        );
    }
    let credentials = match dashboard
        .credential_headers
        .for_call(|| Some(entry), &headers)
    {
        Ok(credentials) => credentials,
        Err(why) => {
            return failure(
                StatusCode::UNAUTHORIZED,
                json!({"kind": "unauthenticated", "tool": name, "message": why}),
            );
        }
    };
    let input = request.get("input").cloned().unwrap_or_else(|| json!({}));
    let call = Started {
        tool: name,
        session: session.id,
        input,
        started: Instant::now(),
        at: SystemTime::now(),
    };
    let invoked = dashboard
        .tools
        .invoke_page(Audience::Dashboard, &call.tool, call.input.clone());
    let outcome = match CallCredentials::scope_of(credentials, invoked).await {
        Ok(mut output) => match output.events.take() {
            Some(events) => return live_events(dashboard, call, events),
            None => {
                dashboard
                    .tools
                    .finish(Audience::Dashboard, &call.tool, output)
                    .await
            }
        },
        Err(error) => Err(error),
    };
    axum::Json(call.answered(&dashboard, outcome)).into_response()
}

/// A call under way: what its record will say.
struct Started {
    tool: String,
    session: String,
    input: Value,
    started: Instant,
    at: SystemTime,
}

impl Started {
    /// The call's answer, `{"ok": true, "output": …}` or the CLI's failure envelope, with the
    /// number and duration of the record it leaves among the recent calls.
    fn answered(self, dashboard: &Dashboard, outcome: Result<Value, ToolError>) -> Value {
        let duration = self.started.elapsed();
        let (kind, mut answer) = match outcome {
            Ok(output) => ("ok", json!({"ok": true, "output": output})),
            Err(error) => (error.kind(), render::cli_failure_envelope(&error)),
        };
        let id = dashboard.remember(Call {
            id: 0,
            tool: self.tool,
            at: self.at,
            duration,
            outcome: kind,
            session: self.session,
            input: self.input,
            result: answer.clone(),
        });
        answer["call"] = json!({"id": id, "durationMs": duration.as_secs_f64() * 1000.0});
        answer
    }
}

/// The answer to a call whose tool returns events, as they arrive: newline-delimited JSON, one
/// `{"event": …}` line per event (each checked, as `invoke` checks them), then the call's
/// answer, whose output is every event (past `EventOutput::COLLECTED` a `too_large` runtime
/// failure, as `invoke` says it), or the failure that ended them. The page shows each event as
/// it comes.
fn live_events(dashboard: Arc<Dashboard>, call: Started, events: EventOutput) -> Response {
    struct Live {
        dashboard: Arc<Dashboard>,
        call: Started,
        events: EventOutput,
        kept: Vec<Value>,
    }
    let line = |value: Value| Ok::<_, std::convert::Infallible>(Bytes::from(format!("{value}\n")));
    let live = Live {
        dashboard,
        call,
        events,
        kept: Vec::new(),
    };
    let lines = futures::stream::unfold(Some(live), move |state| async move {
        let mut live = state?;
        let (tools, tool) = (&live.dashboard.tools, live.call.tool.as_str());
        let next = tools
            .next_collected(Audience::Dashboard, tool, &mut live.events, live.kept.len())
            .await;
        let outcome = match next {
            Some(Ok(event)) => {
                live.kept.push(event.clone());
                return Some((line(json!({"event": event})), Some(live)));
            }
            Some(Err(error)) => Err(error),
            None => Ok(Value::Array(std::mem::take(&mut live.kept))),
        };
        let answer = live.call.answered(&live.dashboard, outcome);
        Some((line(answer), None))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .body(axum::body::Body::from_stream(lines))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

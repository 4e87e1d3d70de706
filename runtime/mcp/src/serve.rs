//! The MCP server program: arguments, the registry, and the stdio or Streamable HTTP transport.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Arg, ArgAction, Command, value_parser};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::observe::{self, Gauges, Metrics, Operated};
use super::{
    Access, ClientAuth, CredentialHeaders, Gate, Limits, McpServer, Mount, SchemaProfile,
    ScopeRules, Selection, Site,
};
use super::{MemoryStore, TaskStore};
use crate::cli_names::BASE_URL;
use harness_gen_registry::{Factory, ToolRegistry};

mod args;
mod connections;

pub use args::command;
use args::options;
use connections::{Connections, connection};

/// Where the server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// JSON-RPC over standard input and output (the default).
    Stdio,
    /// Streamable HTTP at `/mcp` on this address.
    Http(SocketAddr),
}

/// An MCP server program: what a generated `src/bin/<name>-mcp.rs` hands to [`main`].
pub struct Program<'a> {
    /// The program's name (`env!("CARGO_BIN_NAME")`).
    pub name: &'a str,
    /// Its version (`env!("CARGO_PKG_VERSION")`).
    pub version: &'a str,
    /// Builds the registry.
    pub registry: &'a Factory<'a>,
    /// The crate's embedded `.harness` bundle (IR JSON), which the dashboard shows.
    pub harness: Option<&'a str>,
}

/// How the server runs.
#[derive(Clone)]
pub struct Options {
    /// How HTTP clients authenticate (`None`: they do not; see [`Options::allow_unauthenticated`]).
    pub auth: Option<Arc<ClientAuth>>,
    /// Whether to serve beyond loopback, with the server's own credentials, to clients that do
    /// not authenticate (refused at start otherwise).
    pub allow_unauthenticated: bool,
    /// The server's public base URL (`https://mcp.example.com`), for the protected-resource
    /// metadata; `None`: `http://` and each request's `Host`.
    pub public_url: Option<String>,
    /// Timeouts and caps of the HTTP server.
    pub limits: Limits,
    /// The transport.
    pub transport: Transport,
    /// Tools per `tools/list` page; `None`: the whole listing in one page.
    pub page_size: Option<usize>,
    /// Browser origins allowed besides loopback ones (HTTP only; others get 403).
    pub allowed_origins: Vec<String>,
    /// `Host` values allowed besides loopback ones (HTTP only).
    pub allowed_hosts: Vec<String>,
    /// Overrides the API's base URL.
    pub base_url: Option<String>,
    /// Which tools to serve.
    pub selection: Selection,
    /// Schemes whose credentials each HTTP request carries, in a header (HTTP only).
    pub credential_headers: CredentialHeaders,
    /// The longest tool name listed; longer ones are shortened (`None`: names as they are).
    pub max_tool_name: Option<usize>,
    /// Whether the listing is the discovery meta-tools (`None`: when there are more than
    /// [`super::DISCOVERY_THRESHOLD`] tools).
    pub discovery: Option<bool>,
    /// Tools listed beside the meta-tools in discovery mode.
    pub pinned: Vec<String>,
    /// The form of the listed schemas.
    pub schema_profile: SchemaProfile,
    /// The most bytes of JSON a call result carries before it is cut (`None`: no limit).
    pub max_result_bytes: Option<usize>,
    /// The most events of a tool's stream a call result keeps.
    pub max_events: usize,
    /// How logs are written (`--log-format`).
    pub log_format: harness_gen_registry::logs::LogFormat,
    /// Where tasks are kept: `memory`, or a `redis://` URL (`--task-store`).
    pub task_store: String,
    /// Where `/metrics` is served instead of beside `/mcp` (`--metrics-addr`).
    pub metrics_addr: Option<SocketAddr>,
    /// How long a stop waits for the calls and tasks under way (`--shutdown-grace`).
    pub shutdown_grace: std::time::Duration,
    /// How long a stop goes on answering at least, over HTTP (`--drain-window`).
    pub drain_window: std::time::Duration,
    /// The metrics `/metrics` shows, fed by the log subscriber [`main`] installs.
    pub metrics: Arc<Metrics>,
    /// The pages served beside `/mcp` (HTTP only): those of the program's [`Mount`]s whose
    /// option the command line gave (`--dashboard`).
    pub mounts: Vec<&'static dyn Mount>,
}

/// Why the server must not start on `addr` as `options` say: beyond loopback, with its own
/// credentials, for clients that do not authenticate.
fn exposed(addr: SocketAddr, options: &Options) -> Option<String> {
    let open = !addr.ip().is_loopback()
        && options.auth.is_none()
        && options.credential_headers.is_empty()
        && !options.allow_unauthenticated;
    open.then(|| format!(
        "listening on {addr} reaches beyond this machine, and anyone who can connect would call the API with this server's credentials: make clients authenticate (HARNESS_MCP_AUTH_TOKEN or --auth-token-file FILE with a long random token, or --auth-issuer URL for OAuth JWTs), take credentials from each request (--credential-header), listen on 127.0.0.1, or say --allow-unauthenticated"
    ))
}

/// What is logged when `RUST_LOG` is unset: each tool call and failed upstream request of
/// harness-gen's, and the warnings of the libraries beneath.
pub const DEFAULT_LOG_FILTER: &str = "warn,harness_gen=info";

/// The store `--task-store` names for the server `name`: `memory`, or Redis (keys under
/// `harness:NAME:`).
fn task_store(choice: &str, name: &str) -> Result<Arc<dyn TaskStore>, String> {
    if choice == "memory" {
        return Ok(Arc::new(MemoryStore::default()));
    }
    if !(choice.starts_with("redis://") || choice.starts_with("rediss://")) {
        return Err(format!(
            "--task-store `{choice}` is neither `memory` nor a redis:// URL"
        ));
    }
    #[cfg(feature = "redis")]
    {
        let store = crate::RedisStore::open(choice, &format!("harness:{name}:"))?;
        Ok(Arc::new(store))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = name;
        Err("--task-store redis://… needs a server built with Redis: build it with the crate's feature `redis` (cargo build --features mcp,redis)".into())
    }
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C).
async fn stop_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// How long nothing must be under way before a stopping server closes.
const QUIET: std::time::Duration = std::time::Duration::from_millis(500);

/// After a stop signal: marks `server` as stopping (not ready; over HTTP, new work is answered
/// 503 with `Retry-After`) and waits for its calls and tasks under way and what their clients
/// send next (until nothing has been under way for [`QUIET`]), at most `grace`, and in all at
/// least `window`. The tasks still running then are recorded as failed (a shared store keeps
/// them for the client). Over HTTP the listener stays open meanwhile: a
/// client whose call is under way may open another connection for it.
async fn drain(server: &McpServer, grace: std::time::Duration, window: std::time::Duration) {
    let started = tokio::time::Instant::now();
    let activity = server.activity();
    activity.drain();
    let under_way = activity.under_way();
    tracing::info!(target: "harness_gen::serve", under_way, grace_s = grace.as_secs(), "stopping: not ready, new work refused; waiting for the calls and tasks under way");
    // Done when nothing has been under way for a moment: a client follows its call with more
    // (the Python SDK lists the tools to check the result, then ends its session).
    if tokio::time::timeout(grace, activity.quiet(QUIET))
        .await
        .is_err()
    {
        let cut = activity.under_way();
        tracing::warn!(target: "harness_gen::serve", cut, "stopping: the grace period ended with calls or tasks under way");
        server.abandon_tasks().await;
    } else {
        tracing::info!(target: "harness_gen::serve", "stopped: every call and task under way finished");
    }
    tokio::time::sleep_until(started + window).await;
}

/// Runs the MCP server program with the process arguments until its transport closes.
/// Exit status: 0 when the client went away, 2 on bad arguments, 4 when the server could not
/// start (registry, address).
pub fn main(program: &Program<'_>) -> ExitCode {
    main_with(program, &[])
}

/// [`main`], with pages the command line may mount beside `/mcp` (the runtime's `dashboard`
/// feature mounts the dashboard this way).
pub fn main_with(program: &Program<'_>, mounts: &[&'static dyn Mount]) -> ExitCode {
    let args = std::env::args_os().collect();
    let options = match options(program.name, program.version, args, mounts) {
        Ok(options) => options,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    harness_gen_registry::logs::install(
        DEFAULT_LOG_FILTER,
        options.log_format,
        Some(Metrics::layer(Arc::clone(&options.metrics))),
    );
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(4);
        }
    };
    match runtime.block_on(run(program, options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(4)
        }
    }
}

/// Serves until the transport closes (stdio) or the process is stopped (HTTP).
pub async fn run(program: &Program<'_>, options: Options) -> Result<(), String> {
    let (name, version) = (program.name, program.version);
    let all = (program.registry)(options.base_url.clone(), &|_| true)?;
    let registry = options.selection.apply(&all)?;
    if options.transport == Transport::Stdio && !options.credential_headers.is_empty() {
        return Err("--credential-header needs --http: over stdio there are no request headers, and the credentials come from the environment".into());
    }
    if options.transport == Transport::Stdio && options.auth.is_some() {
        return Err("client authentication (--auth-token-file, HARNESS_MCP_AUTH_TOKEN, --auth-issuer) is for --http: over stdio the client is the process that started the server".into());
    }
    if let Transport::Http(addr) = options.transport
        && let Some(why) = exposed(addr, &options)
    {
        return Err(why);
    }
    if let Some(auth) = &options.auth {
        auth.scopes()
            .check(&registry.entries().collect::<Vec<_>>())?;
    }
    let store = task_store(&options.task_store, name)?;
    let server = McpServer::new(&registry, name, version)
        .with_task_store(Arc::clone(&store))
        .with_page_size_of(options.page_size)
        .with_max_tool_name(options.max_tool_name)
        .with_max_result_bytes(options.max_result_bytes)
        .with_max_events(options.max_events)
        .with_schema_profile(options.schema_profile)
        .with_scope_rules(
            options
                .auth
                .as_ref()
                .map(|a| a.scopes().clone())
                .unwrap_or_default(),
        )
        .with_credential_headers(options.credential_headers.clone())?;
    let tools = registry.list(crate::Audience::Mcp).count();
    let server = if options
        .discovery
        .unwrap_or(tools > super::DISCOVERY_THRESHOLD)
    {
        server.with_discovery(options.pinned)?
    } else if !options.pinned.is_empty() {
        return Err("--pin lists tools beside the meta-tools of discovery mode, which is off: add --discovery on".into());
    } else {
        server
    };
    // Prepare the listing before the first request, so a catalog that cannot be listed fails
    // at start-up rather than on a client's first call.
    server.tools().map_err(|e| e.message.to_string())?;
    match options.transport {
        Transport::Stdio => {
            super::stdio::serve(server, tokio::io::stdin(), tokio::io::stdout()).await
        }
        Transport::Http(addr) => {
            let access = Access::new(&options.allowed_hosts, &options.allowed_origins);
            let config = StreamableHttpServerConfig::default()
                .with_allowed_hosts(access.hosts().to_vec())
                .with_allowed_origins(access.origins().to_vec())
                .enforce_origin_validation();
            let served = server.clone();
            let connections = Arc::new(Connections::new(registry, server, config, options.limits));
            let operated = {
                let connections = Arc::clone(&connections);
                let served = served.clone();
                Operated {
                    metrics: Arc::clone(&options.metrics),
                    activity: Arc::clone(&served.activity),
                    store: Arc::clone(&store),
                    gauges: Arc::new(move || Gauges {
                        sessions: connections.open_sessions(),
                        tasks: served.running_tasks(),
                        in_flight: served.activity().under_way(),
                    }),
                    with_metrics: options.metrics_addr.is_none(),
                }
            };
            let mut router = axum::Router::new()
                .route("/mcp", axum::routing::any(connection))
                .with_state(Arc::clone(&connections));
            // Pages mounted beside `/mcp` see every tool the program built (each projects
            // it for its own audience: the selection options choose MCP tools).
            for mount in &options.mounts {
                router = router.merge(mount.routes(Site {
                    registry: &all,
                    name,
                    version,
                    harness: program.harness,
                    access: access.clone(),
                    credential_headers: options.credential_headers.clone(),
                    auth: options.auth.clone(),
                    public_url: options.public_url.clone(),
                })?);
            }
            if let Some(first) = options.mounts.first() {
                let to = first.path();
                router = router.route(
                    "/",
                    axum::routing::get(move || async move { axum::response::Redirect::to(to) }),
                );
            }
            let gate = Gate {
                auth: options.auth.clone(),
                public_url: options.public_url.clone(),
            };
            // The operator's endpoints answer without client authentication.
            let router = Arc::new(gate)
                .guard(router)
                .merge(observe::routes(operated.clone()));
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("serving MCP over Streamable HTTP at http://{bound}/mcp");
            for mount in &options.mounts {
                eprintln!(
                    "serving {} at http://{bound}{}",
                    mount.option().0,
                    mount.path()
                );
            }
            match &options.auth {
                Some(auth) => eprintln!(
                    "clients authenticate with a bearer {}",
                    if auth.issuer().is_some() {
                        "JWT of the issuer"
                    } else {
                        "token"
                    }
                ),
                None if !addr.ip().is_loopback() => eprintln!(
                    "warning: clients do not authenticate, and this address reaches beyond this machine"
                ),
                None => {}
            }
            if let Some(metrics_addr) = options.metrics_addr {
                let listener = tokio::net::TcpListener::bind(metrics_addr)
                    .await
                    .map_err(|e| format!("cannot listen on {metrics_addr} for /metrics: {e}"))?;
                let bound = listener.local_addr().map_err(|e| e.to_string())?;
                eprintln!("serving metrics at http://{bound}/metrics");
                let router = observe::metrics_routes(operated);
                tokio::spawn(harness_gen_serve::listen::serve(
                    listener,
                    router,
                    options.limits,
                    std::future::pending(),
                ));
            }
            if store.shared()
                && let Err(error) = store.ping().await
            {
                tracing::warn!(target: "harness_gen::serve", %error, "the task store does not answer yet: /readyz says so until it does");
            }
            // The listener closes once the drain is over, not at the signal.
            let stopped = async {
                stop_signal().await;
                drain(&served, options.shutdown_grace, options.drain_window).await;
            };
            harness_gen_serve::listen::serve(listener, router, options.limits, stopped).await;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;

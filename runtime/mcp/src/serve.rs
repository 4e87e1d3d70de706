//! The MCP server program: arguments, the registry, and the stdio or Streamable HTTP transport.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Arg, ArgAction, Command, value_parser};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{
    Access, ClientAuth, CredentialHeaders, Gate, Limits, McpServer, Mount, SchemaProfile,
    ScopeRules, Selection, Site,
};
use crate::cli_names::BASE_URL;
use harness_gen_registry::{Factory, ToolRegistry};

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
    /// The pages served beside `/mcp` (HTTP only): those of the program's [`Mount`]s whose
    /// option the command line gave (`--dashboard`).
    pub mounts: Vec<&'static dyn Mount>,
}

/// The number given as option `id`, else in environment variable `var` (ignored when it is no
/// number).
fn number<T: Copy + Send + Sync + std::str::FromStr + 'static>(
    matches: &clap::ArgMatches,
    id: &str,
    var: &str,
) -> Option<T> {
    matches
        .get_one::<T>(id)
        .copied()
        .or_else(|| std::env::var(var).ok()?.parse().ok())
}

fn command(name: &str, version: &str, mounts: &[&'static dyn Mount]) -> Command {
    let command = mounts
        .iter()
        .fold(Command::new(name.to_owned()), |command, mount| {
            let (long, help) = mount.option();
            command.arg(
                Arg::new(long)
                    .long(long)
                    .action(ArgAction::SetTrue)
                    .requires("http")
                    .help(help),
            )
        });
    let command = command
        .version(version.to_owned())
        .about("Serves the API's MCP tools over stdio (default) or Streamable HTTP.")
        .arg(
            Arg::new("http")
                .long("http")
                .value_name("ADDR")
                .num_args(0..=1)
                .default_missing_value("127.0.0.1:8080")
                .value_parser(value_parser!(SocketAddr))
                .help("Serve Streamable HTTP at http://ADDR/mcp instead of stdio [default ADDR: 127.0.0.1:8080]"),
        )
        .arg(
            Arg::new("page-size")
                .long("page-size")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("Tools per tools/list page [env: HARNESS_MCP_PAGE_SIZE] [default: the whole listing in one page, since several clients read only the first]"),
        )
        .arg(
            Arg::new("allow-origin")
                .long("allow-origin")
                .value_name("ORIGIN")
                .action(ArgAction::Append)
                .help("Also accept requests from this browser origin (scheme://host[:port]); loopback origins are always accepted"),
        )
        .arg(
            Arg::new("allow-host")
                .long("allow-host")
                .value_name("HOST")
                .action(ArgAction::Append)
                .help("Also accept this Host header (needed when listening beyond loopback)"),
        )
        .arg(
            Arg::new("tool")
                .long("tool")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Serve only this tool (repeat for more); an unknown name is an error listing the tools"),
        )
        .arg(
            Arg::new("tag")
                .long("tag")
                .value_name("TAG")
                .action(ArgAction::Append)
                .help("Serve the tools with this tag (the operation's OpenAPI tag; repeat for more; with --tool, both); an unknown tag is an error listing the tags"),
        )
        .arg(
            Arg::new("exclude-tool")
                .long("exclude-tool")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Do not serve this tool (repeat for more)"),
        )
        .arg(
            Arg::new("read-only")
                .long("read-only")
                .action(ArgAction::SetTrue)
                .help("Serve only the tools whose annotations say they are read-only"),
        )
        .arg(
            Arg::new("discovery")
                .long("discovery")
                .value_name("WHEN")
                .value_parser(["auto", "on", "off"])
                .help("List three meta-tools (search_tools, describe_tool, call_tool) and the pinned tools instead of every tool: on, off, or auto (on above 128 tools, the most some clients accept) [env: HARNESS_MCP_DISCOVERY] [default: auto]"),
        )
        .arg(
            Arg::new("schema-profile")
                .long("schema-profile")
                .value_name("PROFILE")
                .value_parser(["standard", "inlined", "strict"])
                .help("The form of listed schemas: standard (2020-12 with $defs), inlined (no $ref or $defs, recursion cut to an open schema; for clients that reject references) or strict (input schemas OpenAI's strict tool calling accepts; arguments are mapped back before the call is checked) [env: HARNESS_MCP_SCHEMA_PROFILE] [default: standard]"),
        )
        .arg(
            Arg::new("pin")
                .long("pin")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("In discovery mode, also list this tool (repeat for more)"),
        )
        .arg(
            Arg::new("max-tool-name")
                .long("max-tool-name")
                .value_name("N")
                .value_parser(value_parser!(u16).range(1..))
                .help("List tools under names of at most N characters: a longer name becomes a prefix and a hash of the whole name, stable across runs [env: HARNESS_MCP_MAX_TOOL_NAME]"),
        )
        .arg(
            Arg::new("max-result-bytes")
                .long("max-result-bytes")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("Cut call results over N bytes of JSON (the largest arrays keep the items that fit, long strings their beginning; the cut is said in the result), 0 for no limit [env: HARNESS_MCP_MAX_RESULT_BYTES] [default: 1048576]"),
        )
        .arg(
            Arg::new("credential-header")
                .long("credential-header")
                .value_name("SCHEME=HEADER")
                .action(ArgAction::Append)
                .help("Take the credential of security scheme SCHEME from this header of each HTTP request, never from the environment (repeat for more schemes; HTTP only) [env: HARNESS_MCP_CREDENTIAL_HEADERS, comma-separated]"),
        )
        .arg(
            Arg::new(BASE_URL)
                .long(BASE_URL)
                .value_name("URL")
                .help("The API's base URL (overrides the environment)"),
        );
    http_args(command)
}

/// The options of the HTTP server: client authentication and its bounds.
fn http_args(command: Command) -> Command {
    command
        .arg(
            Arg::new("auth-token-file")
                .long("auth-token-file")
                .value_name("PATH")
                .help("Require HTTP clients to send Authorization: Bearer <the token in this file> (at least 16 characters) [env: HARNESS_MCP_AUTH_TOKEN holds the token itself]"),
        )
        .arg(
            Arg::new("auth-issuer")
                .long("auth-issuer")
                .value_name("URL")
                .conflicts_with("auth-token-file")
                .help("Require HTTP clients to send a JWT of this OAuth authorization server, checked against its JWKS (the MCP authorization specification's resource server) [env: HARNESS_MCP_AUTH_ISSUER]"),
        )
        .arg(
            Arg::new("auth-audience")
                .long("auth-audience")
                .value_name("AUD")
                .action(ArgAction::Append)
                .help("An audience the JWT must be for (repeat for more) [env: HARNESS_MCP_AUTH_AUDIENCE, comma-separated] [default: the --public-url's /mcp]"),
        )
        .arg(
            Arg::new("auth-jwks-url")
                .long("auth-jwks-url")
                .value_name("URL")
                .help("Where the issuer's signing keys are [env: HARNESS_MCP_AUTH_JWKS_URL] [default: the jwks_uri of the issuer's metadata]"),
        )
        .arg(
            Arg::new("auth-scope")
                .long("auth-scope")
                .value_name("SCOPE=TOOLS")
                .action(ArgAction::Append)
                .help("Tools a JWT scope allows: tool names, tag:TAG or * separated by commas (repeat for more scopes); with any, a JWT client calls only the tools its scopes allow"),
        )
        .arg(
            Arg::new("allow-unauthenticated")
                .long("allow-unauthenticated")
                .action(ArgAction::SetTrue)
                .help("Serve beyond loopback with this server's credentials to clients that do not authenticate (refused otherwise)"),
        )
        .arg(
            Arg::new("public-url")
                .long("public-url")
                .value_name("URL")
                .help("The server's public base URL, as clients reach it (for the protected-resource metadata) [env: HARNESS_MCP_PUBLIC_URL]"),
        )
        .arg(
            Arg::new("header-timeout")
                .long("header-timeout")
                .value_name("SECS")
                .value_parser(value_parser!(u64).range(1..))
                .help("Seconds a client has to send a request's headers; also how long an idle connection is kept [env: HARNESS_MCP_HEADER_TIMEOUT] [default: 10]"),
        )
        .arg(
            Arg::new("body-timeout")
                .long("body-timeout")
                .value_name("SECS")
                .value_parser(value_parser!(u64).range(1..))
                .help("Seconds a client has to send a request's body [env: HARNESS_MCP_BODY_TIMEOUT] [default: 30]"),
        )
        .arg(
            Arg::new("max-connections")
                .long("max-connections")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("Connections served at once; more are answered 503 [env: HARNESS_MCP_MAX_CONNECTIONS] [default: 1024]"),
        )
        .arg(
            Arg::new("max-sessions")
                .long("max-sessions")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("MCP sessions kept at once; a new one closes the session idle longest [env: HARNESS_MCP_MAX_SESSIONS] [default: 1000]"),
        )
        .arg(
            Arg::new("session-idle")
                .long("session-idle")
                .value_name("SECS")
                .value_parser(value_parser!(u64).range(1..))
                .help("Seconds an MCP session lives without a request [env: HARNESS_MCP_SESSION_IDLE] [default: 300]"),
        )
}

fn options(
    name: &str,
    version: &str,
    args: Vec<std::ffi::OsString>,
    mounts: &[&'static dyn Mount],
) -> Result<Options, clap::Error> {
    let command = || command(name, version, mounts);
    let matches = command().try_get_matches_from(args)?;
    let strings = |id: &str| -> Vec<String> {
        matches
            .get_many::<String>(id)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    let mappings = or_env_list(
        strings("credential-header"),
        "HARNESS_MCP_CREDENTIAL_HEADERS",
    );
    let credential_headers = CredentialHeaders::parse(&mappings)
        .map_err(|why| command().error(clap::error::ErrorKind::ValueValidation, why))?;
    // The option, else its environment variable (blank is unset); a value clap did not check
    // (from the environment) must be one of the choices.
    let setting = |id: &str, var: &str| {
        matches.get_one::<String>(id).cloned().or_else(|| {
            std::env::var(var)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        })
    };
    let refused = |var: &str, value: &str, choices: &str| {
        command().error(
            clap::error::ErrorKind::ValueValidation,
            format!("{var} is `{value}`: use {choices}"),
        )
    };
    let discovery = match setting("discovery", "HARNESS_MCP_DISCOVERY").as_deref() {
        None | Some("auto") => None,
        Some("on") => Some(true),
        Some("off") => Some(false),
        Some(other) => return Err(refused("HARNESS_MCP_DISCOVERY", other, "auto, on or off")),
    };
    let schema_profile = match setting("schema-profile", "HARNESS_MCP_SCHEMA_PROFILE").as_deref() {
        None | Some("standard") => SchemaProfile::Standard,
        Some("inlined") => SchemaProfile::Inlined,
        Some("strict") => SchemaProfile::Strict,
        Some(other) => {
            return Err(refused(
                "HARNESS_MCP_SCHEMA_PROFILE",
                other,
                "standard, inlined or strict",
            ));
        }
    };
    let public_url = setting("public-url", "HARNESS_MCP_PUBLIC_URL");
    let auth = client_auth(&matches, &strings, &setting, public_url.as_deref())
        .map_err(|why| command().error(clap::error::ErrorKind::ValueValidation, why))?;
    let defaults = Limits::DEFAULT;
    let seconds = |id: &str, var: &str, default: std::time::Duration| {
        number::<u64>(&matches, id, var)
            .filter(|&s| s > 0)
            .map_or(default, std::time::Duration::from_secs)
    };
    let limits = Limits {
        header_timeout: seconds(
            "header-timeout",
            "HARNESS_MCP_HEADER_TIMEOUT",
            defaults.header_timeout,
        ),
        body_timeout: seconds(
            "body-timeout",
            "HARNESS_MCP_BODY_TIMEOUT",
            defaults.body_timeout,
        ),
        session_idle: seconds(
            "session-idle",
            "HARNESS_MCP_SESSION_IDLE",
            defaults.session_idle,
        ),
        max_connections: number(&matches, "max-connections", "HARNESS_MCP_MAX_CONNECTIONS")
            .filter(|&n| n > 0)
            .unwrap_or(defaults.max_connections),
        max_sessions: number(&matches, "max-sessions", "HARNESS_MCP_MAX_SESSIONS")
            .filter(|&n| n > 0)
            .unwrap_or(defaults.max_sessions),
        ..defaults
    };
    Ok(Options {
        auth: auth.map(Arc::new),
        allow_unauthenticated: matches.get_flag("allow-unauthenticated"),
        public_url,
        limits,
        schema_profile,
        discovery,
        pinned: strings("pin"),
        credential_headers,
        max_tool_name: number::<u16>(&matches, "max-tool-name", "HARNESS_MCP_MAX_TOOL_NAME")
            .map(usize::from)
            .filter(|&n| n > 0),
        max_result_bytes: match number(&matches, "max-result-bytes", "HARNESS_MCP_MAX_RESULT_BYTES")
        {
            None => Some(super::DEFAULT_MAX_RESULT_BYTES),
            Some(0) => None,
            Some(n) => Some(n),
        },
        mounts: mounts
            .iter()
            .copied()
            .filter(|mount| matches.get_flag(mount.option().0))
            .collect(),
        transport: match matches.get_one::<SocketAddr>("http") {
            Some(addr) => Transport::Http(*addr),
            None => Transport::Stdio,
        },
        page_size: number(&matches, "page-size", "HARNESS_MCP_PAGE_SIZE").filter(|&size| size > 0),
        allowed_origins: strings("allow-origin"),
        allowed_hosts: strings("allow-host"),
        base_url: matches.get_one::<String>(BASE_URL).cloned(),
        selection: Selection::new(
            strings("tool"),
            strings("tag"),
            strings("exclude-tool"),
            matches.get_flag("read-only"),
        ),
    })
}

/// `given` (a repeatable option's values), else the comma-separated list in variable `var`.
fn or_env_list(given: Vec<String>, var: &str) -> Vec<String> {
    if !given.is_empty() {
        return given;
    }
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

/// The client authentication the options ask for: a shared token (from a file, or the
/// environment), or JWTs of an issuer; `None` when neither is set.
fn client_auth(
    matches: &clap::ArgMatches,
    strings: &dyn Fn(&str) -> Vec<String>,
    setting: &dyn Fn(&str, &str) -> Option<String>,
    public_url: Option<&str>,
) -> Result<Option<ClientAuth>, String> {
    let scopes = ScopeRules::parse(strings("auth-scope"))?;
    let token = match matches.get_one::<String>("auth-token-file") {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the client token from `{path}`: {e}"))?,
        ),
        None => std::env::var("HARNESS_MCP_AUTH_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty()),
    };
    let issuer = setting("auth-issuer", "HARNESS_MCP_AUTH_ISSUER");
    match (token, issuer) {
        (Some(_), Some(_)) => {
            Err("a client token and a JWT issuer are both set: choose one".into())
        }
        (Some(token), None) if scopes.names().is_empty() => ClientAuth::token(&token).map(Some),
        (Some(_), None) => {
            Err("--auth-scope maps the scopes of JWTs: it needs --auth-issuer".into())
        }
        (None, Some(issuer)) => {
            let mut audience = or_env_list(strings("auth-audience"), "HARNESS_MCP_AUTH_AUDIENCE");
            if audience.is_empty()
                && let Some(url) = public_url
            {
                audience.push(format!("{}/mcp", url.trim_end_matches('/')));
            }
            let jwks = setting("auth-jwks-url", "HARNESS_MCP_AUTH_JWKS_URL");
            Ok(Some(
                ClientAuth::jwt(&issuer, audience, jwks)?.with_scopes(scopes),
            ))
        }
        (None, None) if !scopes.names().is_empty() => {
            Err("--auth-scope maps the scopes of JWTs: it needs --auth-issuer".into())
        }
        (None, None) => Ok(None),
    }
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
    let server = McpServer::new(&registry, name, version)
        .with_page_size_of(options.page_size)
        .with_max_tool_name(options.max_tool_name)
        .with_max_result_bytes(options.max_result_bytes)
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
            let connections = Connections::new(registry, server, config, options.limits);
            let router = axum::Router::new()
                .route("/mcp", axum::routing::any(connection))
                .with_state(Arc::new(connections));
            // Pages mounted beside `/mcp` see every tool the program built (each projects
            // it for its own audience: the selection options choose MCP tools).
            let mut router = router;
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
            let router = Arc::new(gate).guard(router);
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
            harness_gen_serve::listen::serve(listener, router, options.limits).await;
            Ok(())
        }
    }
}

type HttpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// The Streamable HTTP endpoint: one MCP service per choice of tools a client's URL makes
/// (`/mcp?tool=a&tool=b&exclude_tool=c&read_only=true`, narrowing the start-up choice), each
/// with its own sessions, made when first asked for and kept while used. Sessions of all of
/// them together are capped (the one idle longest is closed for a new one), and a choice with
/// no open session is forgotten, least recently used first, when a new one needs its place.
struct Connections {
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
    fn new(
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
                move || Ok(server.clone()),
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

async fn connection(
    axum::extract::State(connections): axum::extract::State<Arc<Connections>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let service = match connections.service(request.uri()) {
        Ok(service) => service,
        Err(why) => return (axum::http::StatusCode::BAD_REQUEST, why).into_response(),
    };
    let named = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if named.is_none() && request.method() == axum::http::Method::POST {
        connections.make_room().await;
    }
    let response = service.http.handle(request).await.into_response();
    let opened = response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok());
    if let Some(id) = named.as_deref().or(opened) {
        connections.seen(id, &service.sessions);
    }
    response
}

#[cfg(test)]
mod tests;

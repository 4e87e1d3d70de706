//! The MCP program's command line: its options, each with its environment variable, read into
//! [`Options`].

use super::*;

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

/// The MCP program's command line, with an option per page in `mounts`: what it parses, its
/// help, and the book's reference of generated programs.
pub fn command(name: &str, version: &str, mounts: &[&'static dyn Mount]) -> Command {
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
            Arg::new("max-events")
                .long("max-events")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("Keep at most N events of a tool's event stream in the call's result (each event is also sent as progress as it comes; the result says how many came) [env: HARNESS_MCP_MAX_EVENTS] [default: 10000]"),
        )
        .arg(
            Arg::new("log-format")
                .long("log-format")
                .value_name("FORMAT")
                .value_parser(["text", "json"])
                .help("Write logs on standard error as text or as one JSON object per line; RUST_LOG chooses what is logged [env: HARNESS_LOG_FORMAT] [default: text; RUST_LOG default: warn,harness_gen=info]"),
        )
        .arg(
            Arg::new("task-store")
                .long("task-store")
                .value_name("URL")
                .help("Where MCP tasks are kept: `memory` (this process; lost when it stops) or redis://[:PASSWORD@]HOST[:PORT][/DB] (shared by replicas, kept across restarts; the server must be built with the feature `redis`) [env: HARNESS_MCP_TASK_STORE] [default: memory]"),
        )
        .arg(
            Arg::new("metrics-addr")
                .long("metrics-addr")
                .value_name("ADDR")
                .value_parser(value_parser!(SocketAddr))
                .requires("http")
                .help("Serve /metrics on this address instead of beside /mcp (e.g. a port only the operator's network reaches) [env: HARNESS_MCP_METRICS_ADDR]"),
        )
        .arg(
            Arg::new("shutdown-grace")
                .long("shutdown-grace")
                .value_name("SECONDS")
                .value_parser(value_parser!(u64))
                .help("On SIGTERM or SIGINT, report not ready (/readyz) and answer new requests with 503 and Retry-After, while calls and tasks under way (and the other requests of their sessions) finish, for at most this long; then exit 0 [env: HARNESS_MCP_SHUTDOWN_GRACE] [default: 30]"),
        )
        .arg(
            Arg::new("drain-window")
                .long("drain-window")
                .value_name("SECONDS")
                .value_parser(value_parser!(u64))
                .requires("http")
                .help("After SIGTERM or SIGINT, go on answering (not ready, 503 to new requests) for at least this long, even with nothing under way: the time a load balancer takes to stop sending requests [env: HARNESS_MCP_DRAIN_WINDOW] [default: 0]"),
        )
        .arg(
            Arg::new("credential-header")
                .long("credential-header")
                .value_name("SCHEME=HEADER")
                .action(ArgAction::Append)
                .help("Take the credential of security scheme SCHEME from this header of each HTTP request, never from the environment (repeat for more schemes; NAMESPACE.SCHEME for one API of a composed program; HTTP only) [env: HARNESS_MCP_CREDENTIAL_HEADERS, comma-separated]"),
        )
        .arg(
            Arg::new(BASE_URL)
                .long(BASE_URL)
                .value_name("URL")
                .help("The API's base URL (overrides the environment); a program serving several APIs takes NAME=URL pairs, comma-separated"),
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

pub(super) fn options(
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
    let log_format = match setting("log-format", harness_gen_registry::logs::FORMAT_ENV) {
        None => harness_gen_registry::logs::LogFormat::Text,
        Some(text) => harness_gen_registry::logs::LogFormat::parse(&text).map_err(|_| {
            refused(
                harness_gen_registry::logs::FORMAT_ENV,
                &text,
                "text or json",
            )
        })?,
    };
    let metrics_addr = match matches.get_one::<SocketAddr>("metrics-addr") {
        Some(addr) => Some(*addr),
        None => match setting("metrics-addr", "HARNESS_MCP_METRICS_ADDR") {
            Some(text) => Some(text.parse().map_err(|_| {
                refused(
                    "HARNESS_MCP_METRICS_ADDR",
                    &text,
                    "an address such as 127.0.0.1:9090",
                )
            })?),
            None => None,
        },
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
            None => Some(crate::DEFAULT_MAX_RESULT_BYTES),
            Some(0) => None,
            Some(n) => Some(n),
        },
        log_format,
        task_store: setting("task-store", "HARNESS_MCP_TASK_STORE")
            .unwrap_or_else(|| "memory".into()),
        metrics_addr,
        metrics: Arc::default(),
        shutdown_grace: std::time::Duration::from_secs(
            number(&matches, "shutdown-grace", "HARNESS_MCP_SHUTDOWN_GRACE").unwrap_or(30),
        ),
        drain_window: std::time::Duration::from_secs(
            number(&matches, "drain-window", "HARNESS_MCP_DRAIN_WINDOW").unwrap_or(0),
        ),
        max_events: number(&matches, "max-events", "HARNESS_MCP_MAX_EVENTS")
            .filter(|&n| n > 0)
            .unwrap_or(crate::DEFAULT_MAX_EVENTS),
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
pub(super) fn client_auth(
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

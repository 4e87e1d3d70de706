//! The MCP server program: arguments, the registry, and the stdio or Streamable HTTP transport.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Arg, ArgAction, Command, value_parser};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{Access, CredentialHeaders, McpServer, SchemaProfile, Selection};
use crate::cli::Factory;
use crate::cli_names::BASE_URL;

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
#[derive(Clone, Debug)]
pub struct Options {
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
    /// Whether to serve the operator dashboard at `/dashboard` beside `/mcp` (HTTP only; with
    /// the `dashboard` feature).
    pub dashboard: bool,
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

fn command(name: &str, version: &str) -> Command {
    let command = Command::new(name.to_owned());
    #[cfg(feature = "dashboard")]
    let command = command.arg(
        Arg::new("dashboard")
            .long("dashboard")
            .action(ArgAction::SetTrue)
            .requires("http")
            .help("Also serve the operator dashboard at http://ADDR/dashboard: the dashboard-audience tools with a form each, recent calls, and the embedded .harness roles"),
    );
    command
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
        )
}

fn options(
    name: &str,
    version: &str,
    args: Vec<std::ffi::OsString>,
) -> Result<Options, clap::Error> {
    let matches = command(name, version).try_get_matches_from(args)?;
    let strings = |id: &str| -> Vec<String> {
        matches
            .get_many::<String>(id)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    let mut mappings = strings("credential-header");
    if mappings.is_empty()
        && let Ok(env) = std::env::var("HARNESS_MCP_CREDENTIAL_HEADERS")
    {
        mappings = env
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect();
    }
    let credential_headers = CredentialHeaders::parse(&mappings).map_err(|why| {
        command(name, version).error(clap::error::ErrorKind::ValueValidation, why)
    })?;
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
        command(name, version).error(
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
    Ok(Options {
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
        dashboard: matches
            .try_get_one::<bool>("dashboard")
            .ok()
            .flatten()
            .copied()
            .unwrap_or(false),
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

/// Runs the MCP server program with the process arguments until its transport closes.
/// Exit status: 0 when the client went away, 2 on bad arguments, 4 when the server could not
/// start (registry, address).
pub fn main(program: &Program<'_>) -> ExitCode {
    let options = match options(program.name, program.version, std::env::args_os().collect()) {
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
    let server = McpServer::new(&registry, name, version)
        .with_page_size_of(options.page_size)
        .with_max_tool_name(options.max_tool_name)
        .with_max_result_bytes(options.max_result_bytes)
        .with_schema_profile(options.schema_profile)
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
            let connections = Connections::new(registry, server, config);
            let router = axum::Router::new()
                .route("/mcp", axum::routing::any(connection))
                .with_state(Arc::new(connections));
            #[cfg(feature = "dashboard")]
            let router = if options.dashboard {
                // The dashboard's tools are the program's dashboard-audience ones: the
                // selection options choose MCP tools.
                let dashboard =
                    crate::dashboard::Dashboard::new(&all, name, version, program.harness, access)?
                        .with_credential_headers(options.credential_headers);
                router.merge(Arc::new(dashboard).router()).route(
                    "/",
                    axum::routing::get(|| async { axum::response::Redirect::to("/dashboard") }),
                )
            } else {
                router
            };
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("serving MCP over Streamable HTTP at http://{bound}/mcp");
            if options.dashboard {
                eprintln!("serving the dashboard at http://{bound}/dashboard");
            }
            axum::serve(listener, router)
                .await
                .map_err(|e| format!("HTTP server failed: {e}"))
        }
    }
}

type HttpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// The Streamable HTTP endpoint: one MCP service per choice of tools a client's URL makes
/// (`/mcp?tool=a&tool=b&exclude_tool=c&read_only=true`, narrowing the start-up choice), each
/// with its own sessions, made when first asked for and kept.
struct Connections {
    /// The tools chosen at start.
    registry: crate::ToolRegistry,
    /// The server over them, which each narrower one is made like.
    server: McpServer,
    config: StreamableHttpServerConfig,
    services: std::sync::Mutex<std::collections::BTreeMap<Selection, Arc<HttpService>>>,
}

/// How many different choices of tools one server keeps services for.
const MAX_SELECTIONS: usize = 64;

impl Connections {
    fn new(
        registry: crate::ToolRegistry,
        server: McpServer,
        config: StreamableHttpServerConfig,
    ) -> Self {
        let connections = Self {
            registry,
            server,
            config,
            services: Default::default(),
        };
        // A URL that chooses nothing gets the server prepared at start.
        let whole = connections.service_of(connections.server.clone());
        if let Ok(mut services) = connections.services.lock() {
            services.insert(Selection::default(), whole);
        }
        connections
    }

    fn service_of(&self, server: McpServer) -> Arc<HttpService> {
        Arc::new(StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            self.config.clone(),
        ))
    }

    /// The service for the choice `uri`'s query makes, or why there is none (an unknown
    /// parameter or tool name, or too many different choices).
    fn service(&self, uri: &axum::http::Uri) -> Result<Arc<HttpService>, String> {
        let selection = Selection::from_uri(uri)?;
        let mut services = self.services.lock().map_err(|_| "the server is failing")?;
        if let Some(service) = services.get(&selection) {
            return Ok(Arc::clone(service));
        }
        if services.len() >= MAX_SELECTIONS {
            return Err(format!(
                "this server serves at most {MAX_SELECTIONS} different choices of tools"
            ));
        }
        // Tool names are no secret (the crate's catalog publishes them), so the error may list
        // them whatever the request's origin.
        let server = self.server.over(&selection.apply(&self.registry)?);
        let service = self.service_of(server);
        services.insert(selection, Arc::clone(&service));
        Ok(service)
    }
}

async fn connection(
    axum::extract::State(connections): axum::extract::State<Arc<Connections>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match connections.service(request.uri()) {
        Ok(service) => service.handle(request).await.into_response(),
        Err(why) => (axum::http::StatusCode::BAD_REQUEST, why).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Options {
        let mut all = vec!["srv".into()];
        all.extend(args.iter().map(Into::into));
        options("srv", "1.0.0", all).unwrap()
    }

    #[test]
    fn results_are_cut_at_a_mebibyte_unless_told_otherwise() {
        assert_eq!(parse(&[]).max_result_bytes, Some(1024 * 1024));
        let told = parse(&["--max-result-bytes", "100000"]);
        assert_eq!(told.max_result_bytes, Some(100_000));
        assert_eq!(parse(&["--max-result-bytes", "0"]).max_result_bytes, None);
    }

    #[test]
    fn tools_are_chosen_by_name_by_exclusion_and_read_only() {
        assert_eq!(parse(&[]).selection, Selection::default());
        let chosen = parse(&[
            "--tool",
            "a",
            "--tool",
            "b",
            "--exclude-tool",
            "c",
            "--read-only",
        ]);
        assert_eq!(
            chosen.selection,
            Selection {
                tools: vec!["a".into(), "b".into()],
                tags: Vec::new(),
                exclude: vec!["c".into()],
                read_only: true,
            }
        );
    }

    #[test]
    fn the_whole_listing_is_one_page_unless_a_page_size_is_given() {
        assert_eq!(parse(&[]).page_size, None);
        assert_eq!(parse(&["--page-size", "50"]).page_size, Some(50));
        assert_eq!(parse(&["--page-size", "0"]).page_size, None);
    }

    #[test]
    fn stdio_is_the_default_and_http_binds_loopback_unless_told_otherwise() {
        assert_eq!(parse(&[]).transport, Transport::Stdio);
        assert_eq!(
            parse(&["--http"]).transport,
            Transport::Http("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse(&["--http", "0.0.0.0:9000"]).transport,
            Transport::Http("0.0.0.0:9000".parse().unwrap())
        );
    }

    #[cfg(feature = "dashboard")]
    #[test]
    fn the_dashboard_is_off_unless_asked_for_and_needs_http() {
        assert!(!parse(&["--http"]).dashboard);
        assert!(parse(&["--http", "--dashboard"]).dashboard);
        let args = ["srv", "--dashboard"]
            .map(std::ffi::OsString::from)
            .to_vec();
        assert!(options("srv", "1.0.0", args).is_err());
    }

    #[test]
    fn discovery_is_automatic_unless_turned_on_or_off_and_pins_add_tools() {
        assert_eq!(parse(&[]).discovery, None);
        assert_eq!(parse(&["--discovery", "on"]).discovery, Some(true));
        assert_eq!(parse(&["--discovery", "off"]).discovery, Some(false));
        assert_eq!(parse(&["--pin", "a", "--pin", "b"]).pinned, ["a", "b"]);
        assert_eq!(parse(&["--max-tool-name", "40"]).max_tool_name, Some(40));
        assert_eq!(parse(&[]).schema_profile, SchemaProfile::Standard);
        assert_eq!(
            parse(&["--schema-profile", "inlined"]).schema_profile,
            SchemaProfile::Inlined
        );
        let mut all: Vec<std::ffi::OsString> = vec!["srv".into()];
        all.extend(["--discovery", "sometimes"].map(Into::into));
        assert!(options("srv", "1.0.0", all).is_err());
    }
}

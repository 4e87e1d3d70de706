//! `harness-gen-bridge`: the language bridge (the runtime's feature `bridge`), typed calls to the tools of a `harn-tools/2.0` catalog, in process or
//! over MCP. `harness-gen bindings` writes a crate of native input, output and application-error
//! types and one typed method per tool; every method is a [`Bridge::call`] through a
//! [`Transport`]:
//!
//! - [`InProcess`]: a [`ToolRegistry`] in this process, through [`ToolRegistry::invoke`];
//! - [`Mcp`]: an MCP server over stdio ([`Mcp::stdio`], a child process) or Streamable HTTP
//!   ([`Mcp::http`]), through the official `rmcp` client. Each call goes through `invoke` of a
//!   registry made from the bindings' own catalog whose handlers ask the server, so the input is
//!   checked before it is sent and the output, or the declared error, is checked against the
//!   contract the bindings were generated from before it is returned.
//!
//! Failures keep the registry's classification ([`BridgeError`]): a declared application error
//! arrives typed, read from `_meta["com.harnlang/toolContract"].applicationError` and from
//! nothing else; invalid input, an unknown tool (or one outside the transport's audience),
//! a runtime failure and a contract violation are their own variants. What an MCP server
//! reports as another failure is read from `_meta["com.harnlang/toolContract"].failure`, which
//! our servers write ([`harness_gen_registry::render::mcp_failure`]); a server that says nothing is a runtime
//! failure (`undeclared_error`).
//!
//! Compatibility is checked when a bridge is made: each tool's schemas as an MCP server lists
//! them (the standard profile, the default listing budget) are hashed ([`catalog::listed::listed_hash`]), and the
//! hashes the bindings were generated with ([`Contract::hashes`]) must equal those of the live
//! listing, or of the registry. A mismatch names the tools; [`Compatibility::Warn`] keeps the
//! bridge and reports them through [`Bridge::mismatches`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use harness_gen_contract::catalog::{self, Audience, CONTRACT_META_KEY, Catalog};
use harness_gen_registry::{Handler, Issue, Phase, Thrown, ToolError, ToolRegistry};
use harness_gen_wire::error::typed_value;
use harness_gen_wire::{ReplyExcerpt, RuntimeCategory};

/// What generated bindings were made from: their catalog's text and, per tool an MCP server of
/// it lists, the hash of its listed schemas ([`catalog::listed::listed_hash`]).
#[derive(Clone, Copy, Debug)]
pub struct Contract {
    /// The catalog (`catalog.json` of the bindings crate, compiled in).
    pub catalog: &'static str,
    /// `(tool, hash)`, by tool name.
    pub hashes: &'static [(&'static str, &'static str)],
}

/// How a bridge takes a transport whose tools differ from its contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compatibility {
    /// Refuse it: [`ConnectError::Incompatible`].
    #[default]
    Require,
    /// Keep it, and say which tools differ ([`Bridge::mismatches`]).
    Warn,
}

/// How one tool of the contract differs from what the transport offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The transport offers the tool with other schemas.
    Changed {
        /// The tool.
        tool: String,
    },
    /// The transport does not offer the tool.
    Missing {
        /// The tool.
        tool: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Changed { tool } => write!(f, "`{tool}` has other schemas"),
            Mismatch::Missing { tool } => write!(f, "`{tool}` is not offered"),
        }
    }
}

/// Why a bridge could not be made.
#[derive(Debug)]
pub enum ConnectError {
    /// The bindings' own catalog does not load (a crate edited by hand, or generated for
    /// another format version): regenerate the catalog, its schema and the bindings together.
    Catalog(String),
    /// The server could not be started or reached, or did not answer as an MCP server.
    Transport(String),
    /// The tools differ from the contract the bindings were generated from.
    Incompatible(Vec<Mismatch>),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Catalog(why) => write!(
                f,
                "[HB0101] the bindings' catalog does not load ({why}); regenerate the catalog and the bindings together"
            ),
            ConnectError::Transport(why) => write!(f, "[HB0102] could not reach the tools: {why}"),
            ConnectError::Incompatible(mismatches) => {
                write!(
                    f,
                    "[HB0103] the tools differ from the contract these bindings were generated from: "
                )?;
                for (i, mismatch) in mismatches.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{mismatch}")?;
                }
                write!(
                    f,
                    "; regenerate the bindings from the server's catalog (or `--from-mcp`), or connect with Compatibility::Warn"
                )
            }
        }
    }
}

impl std::error::Error for ConnectError {}

/// How a typed call failed: the registry's classification, with the declared application
/// error as the bindings' type `E`.
#[derive(Clone, Debug, PartialEq)]
pub enum BridgeError<E> {
    /// The tool returned an error its `errorSchema` declares: typed data.
    Application(E),
    /// The input does not satisfy the tool's input schema.
    InvalidInput {
        /// The tool.
        tool: String,
        /// Where and which keyword failed; never the values.
        issues: Vec<Issue>,
    },
    /// No such tool for the transport's audience (a tool outside it answers the same).
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// The call failed in a way reported by category only (a transport failure included).
    Runtime {
        /// The tool.
        tool: String,
        /// What kind of failure.
        category: RuntimeCategory,
    },
    /// The API answered outside the operation's contract (a status or a success body it does
    /// not declare): a runtime failure with the reply's status, content type and first bytes.
    Reply {
        /// The tool.
        tool: String,
        /// `http_status` or `unexpected_reply`.
        category: RuntimeCategory,
        /// What the reply was.
        reply: ReplyExcerpt,
    },
    /// The tool broke its contract: its output or its error does not match its schema (or the
    /// bindings' type of it).
    ContractViolation {
        /// The tool.
        tool: String,
        /// Which schema was violated.
        phase: Phase,
        /// Where and which keyword failed.
        issues: Vec<Issue>,
    },
}

impl<E> fmt::Display for BridgeError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The registry's value-free wording, for every kind.
        let error = match self {
            BridgeError::Application(_) => {
                return f.write_str("the tool returned a declared application error");
            }
            BridgeError::InvalidInput { tool, issues } => ToolError::InvalidInput {
                tool: tool.clone(),
                issues: issues.clone(),
            },
            BridgeError::UnknownTool { name } => ToolError::UnknownTool { name: name.clone() },
            BridgeError::Runtime { tool, category } => ToolError::Runtime {
                tool: tool.clone(),
                category: *category,
                hint: None,
            },
            BridgeError::Reply {
                tool,
                category,
                reply,
            } => ToolError::Reply {
                tool: tool.clone(),
                category: *category,
                reply: reply.clone(),
            },
            BridgeError::ContractViolation {
                tool,
                phase,
                issues,
            } => ToolError::ContractViolation {
                tool: tool.clone(),
                phase: *phase,
                issues: issues.clone(),
            },
        };
        error.fmt(f)
    }
}

impl<E: fmt::Debug> std::error::Error for BridgeError<E> {}

/// The application-error type of a tool that declares none: it has no values, and a call of
/// such a tool never fails with [`BridgeError::Application`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NoError {}

impl<'de> serde::Deserialize<'de> for NoError {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "this tool declares no application error",
        ))
    }
}

/// Where a bridge's calls go. Each call is classified as [`ToolRegistry::invoke`] classifies.
pub trait Transport: Send + Sync {
    /// Calls `tool` with `input`.
    fn call<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, Result<Value, ToolError>>;

    /// What an MCP server of these tools lists, as [`catalog::listed::listed_hash`]es by tool name.
    fn listed<'a>(&'a self) -> BoxFuture<'a, Result<BTreeMap<String, String>, ConnectError>>;

    /// Calls `tool`, whose output is events, and hands them back one by one. By default once
    /// the call has ended, from its result (the array of them); a transport that can hands
    /// each back as it arrives.
    fn events<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, EventsResult> {
        Box::pin(async move { Ok(collected(self.call(tool, input).await?)) })
    }
}

/// The events a call's result holds (the array of them), one by one.
fn collected(result: Value) -> EventItems {
    let items = match result {
        Value::Array(items) => items,
        other => vec![other],
    };
    Box::pin(futures::stream::iter(items.into_iter().map(Ok)))
}

/// Events as a transport hands them back, each checked against the tool's contract.
pub type EventItems = futures::stream::BoxStream<'static, Result<Value, ToolError>>;

/// What [`Transport::events`] comes back with.
pub type EventsResult = Result<EventItems, ToolError>;

/// Calls through a registry in this process, on behalf of one audience.
pub struct InProcess {
    registry: ToolRegistry,
    audience: Audience,
}

impl InProcess {
    /// Calls `registry`'s tools as `audience` sees them.
    pub fn new(registry: ToolRegistry, audience: Audience) -> Self {
        Self { registry, audience }
    }
}

impl Transport for InProcess {
    fn call<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(self.registry.invoke(self.audience, tool, input))
    }

    fn listed<'a>(&'a self) -> BoxFuture<'a, Result<BTreeMap<String, String>, ConnectError>> {
        let hashes =
            catalog::listed::listed_hashes(self.registry.entries(), self.registry.components());
        Box::pin(async move { Ok(hashes) })
    }

    /// Each event as the tool's handler yields it, checked as the registry checks every event.
    fn events<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, EventsResult> {
        Box::pin(async move {
            let mut output = self
                .registry
                .invoke_page(self.audience, tool, input)
                .await?;
            let Some(events) = output.events.take() else {
                return Ok(collected(
                    self.registry.finish(self.audience, tool, output).await?,
                ));
            };
            let (registry, audience, name) =
                (self.registry.clone(), self.audience, tool.to_string());
            let items: EventItems = Box::pin(futures::StreamExt::map(events.items, move |item| {
                registry.event(audience, &name, item)
            }));
            Ok(items)
        })
    }
}

type Client = rmcp::service::RunningService<rmcp::service::RoleClient, rmcp::model::ClientConfig>;

/// Calls an MCP server's tools, through a registry of the bindings' catalog whose handlers
/// ask the server.
pub struct Mcp {
    client: Arc<Client>,
    contract: ToolRegistry,
}

impl Mcp {
    /// Starts `command` (an MCP server speaking stdio) and connects to it; the server stops
    /// when the bridge is dropped.
    pub async fn stdio(
        contract: &Contract,
        command: std::process::Command,
    ) -> Result<Self, ConnectError> {
        Self::over(contract, Server::Command(command)).await
    }

    /// Connects to the MCP server at `url` (Streamable HTTP).
    pub async fn http(contract: &Contract, url: &str) -> Result<Self, ConnectError> {
        Self::over(contract, Server::Url(url.to_string())).await
    }

    /// Connects to the MCP server at `url` (Streamable HTTP) that requires client
    /// authentication, sending `Authorization: Bearer <token>` (never to another origin: a
    /// redirect elsewhere drops it).
    pub async fn http_with_token(
        contract: &Contract,
        url: &str,
        token: &str,
    ) -> Result<Self, ConnectError> {
        let server = Server::Authenticated {
            url: url.to_string(),
            token: token.to_string(),
        };
        Self::over(contract, server).await
    }

    async fn over(contract: &Contract, server: Server) -> Result<Self, ConnectError> {
        let client = Arc::new(connect(server).await?);
        let generated = Catalog::from_generated_json(contract.catalog)
            .map_err(|error| ConnectError::Catalog(error.to_string()))?;
        let handlers = generated
            .catalog()
            .tools
            .iter()
            .map(|entry| {
                let name = entry.name.to_string();
                let client = Arc::clone(&client);
                let handler = Handler::new(move |input| {
                    let client = Arc::clone(&client);
                    let name = name.clone();
                    async move { ask(&client, name, input).await }
                });
                (entry.name.to_string(), handler)
            })
            .collect();
        let contract = ToolRegistry::publish_generated(generated, handlers)
            .map_err(|error| ConnectError::Catalog(error.to_string()))?;
        Ok(Self { client, contract })
    }
}

impl Transport for Mcp {
    fn call<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(self.contract.invoke(Audience::Mcp, tool, input))
    }

    fn listed<'a>(&'a self) -> BoxFuture<'a, Result<BTreeMap<String, String>, ConnectError>> {
        Box::pin(async move {
            let tools = tools_of(&self.client).await?;
            Ok(tools
                .iter()
                .map(|tool| {
                    let name = tool["name"].as_str().unwrap_or_default().to_string();
                    (name, catalog::listed::listed_hash(tool))
                })
                .collect())
        })
    }
}

/// Where a live MCP server is.
pub enum Server {
    /// The command that starts it, speaking stdio.
    Command(std::process::Command),
    /// Its Streamable HTTP endpoint.
    Url(String),
    /// Its Streamable HTTP endpoint, which requires client authentication with this bearer
    /// token.
    Authenticated {
        /// The endpoint.
        url: String,
        /// The token.
        token: String,
    },
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Server::Command(command) => f.debug_tuple("Command").field(command).finish(),
            Server::Url(url) => f.debug_tuple("Url").field(url).finish(),
            // The token is a secret: never printed.
            Server::Authenticated { url, .. } => f
                .debug_struct("Authenticated")
                .field("url", url)
                .finish_non_exhaustive(),
        }
    }
}

/// What a live MCP server lists: its name and version, and every tool (all pages) as JSON.
#[derive(Clone, Debug)]
pub struct Listing {
    /// The server's name (`serverInfo.name`).
    pub name: String,
    /// The server's version.
    pub version: String,
    /// The tools, as listed.
    pub tools: Vec<Value>,
}

/// Connects to `server` and reads its listing (`harness-gen bindings --from-mcp`); a server
/// started for it is stopped again.
pub async fn listing(server: Server) -> Result<Listing, ConnectError> {
    let client = connect(server).await?;
    let tools = tools_of(&client).await?;
    let info = client.peer().peer_info();
    let (name, version) = match info.as_ref().and_then(|info| info.server_info.as_ref()) {
        Some(server) => (server.name.clone(), server.version.clone()),
        None => ("mcp".to_string(), String::new()),
    };
    let _ = client.cancel().await;
    Ok(Listing {
        name,
        version,
        tools,
    })
}

/// An MCP client session with `server`: the 2026-07-28 era, which lists every output schema
/// as it is, else `initialize` for older servers.
async fn connect(server: Server) -> Result<Client, ConnectError> {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let config = rmcp::model::ClientConfig::new(
        rmcp::model::ClientCapabilities::default(),
        rmcp::model::Implementation::new("harness-gen-bridge", env!("CARGO_PKG_VERSION")),
    );
    let lifecycle = ClientLifecycleMode::Auto {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    };
    match server {
        Server::Command(command) => {
            let command = tokio::process::Command::from(command);
            let transport = rmcp::transport::TokioChildProcess::new(command).map_err(|error| {
                ConnectError::Transport(format!("cannot start the server: {error}"))
            })?;
            config.serve_with_lifecycle(transport, lifecycle).await
        }
        Server::Url(url) => {
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
            config.serve_with_lifecycle(transport, lifecycle).await
        }
        Server::Authenticated { url, token } => {
            use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
            let http = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
            let transport = rmcp::transport::StreamableHttpClientTransport::from_config(http);
            config.serve_with_lifecycle(transport, lifecycle).await
        }
    }
    .map_err(|error| ConnectError::Transport(error.to_string()))
}

/// Every tool `client`'s server lists, as JSON.
async fn tools_of(client: &Client) -> Result<Vec<Value>, ConnectError> {
    let tools = client
        .peer()
        .list_all_tools()
        .await
        .map_err(|error| ConnectError::Transport(error.to_string()))?;
    tools
        .iter()
        .map(|tool| {
            serde_json::to_value(tool).map_err(|error| ConnectError::Transport(error.to_string()))
        })
        .collect()
}

/// One `tools/call` to the server, its answer as a handler's outcome: the result's value, the
/// declared error's data (checked by `invoke`), or the failure the server classified.
async fn ask(client: &Client, name: String, input: Value) -> Result<Value, Thrown> {
    use rmcp::service::ServiceError;
    let arguments = match input {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let params = rmcp::model::CallToolRequestParams::new(name).with_arguments(arguments);
    let result = match client.peer().call_tool(params).await {
        Ok(result) => result,
        Err(error) => {
            return Err(Thrown::Fault(match error {
                ServiceError::Timeout { .. } => RuntimeCategory::Timeout,
                ServiceError::Cancelled { .. } => RuntimeCategory::Cancelled,
                ServiceError::TransportSend(_) | ServiceError::TransportClosed => {
                    RuntimeCategory::Transport
                }
                // The server does not know a tool the contract has (refused as invalid
                // params): what it serves is not what the bindings were made from.
                _ => RuntimeCategory::Internal,
            }));
        }
    };
    let contract = result
        .meta
        .as_ref()
        .and_then(|meta| meta.get(CONTRACT_META_KEY));
    if result.is_error == Some(true) {
        return Err(failure(contract));
    }
    if let Some(value) = result.structured_content {
        return Ok(value);
    }
    // A legacy server sends a non-object output as the text of its one block.
    let text = result
        .content
        .iter()
        .find_map(|block| block.as_text().map(|text| text.text.clone()));
    Ok(text
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null))
}

/// What a server's `isError` result says, read from `_meta["com.harnlang/toolContract"]` only.
fn failure(contract: Option<&Value>) -> Thrown {
    let undeclared = Thrown::Fault(RuntimeCategory::UndeclaredError);
    let Some(contract) = contract else {
        return undeclared;
    };
    if let Some(data) = contract
        .get("applicationError")
        .and_then(|error| error.get("data"))
    {
        return Thrown::Value(data.clone());
    }
    let Some(failure) = contract.get("failure") else {
        return undeclared;
    };
    let issues = || -> Vec<Issue> {
        failure
            .get("issues")
            .and_then(|issues| serde_json::from_value(issues.clone()).ok())
            .unwrap_or_default()
    };
    let field = |name: &str| failure.get(name).cloned().unwrap_or(Value::Null);
    match failure.get("kind").and_then(Value::as_str) {
        Some("invalid_input") => Thrown::InvalidInput(issues()),
        Some("contract_violation") => Thrown::Violation {
            phase: serde_json::from_value(field("phase")).unwrap_or(Phase::Output),
            issues: issues(),
        },
        Some("runtime") => {
            let category = serde_json::from_value(field("category"))
                .unwrap_or(RuntimeCategory::UndeclaredError);
            match serde_json::from_value(field("reply")) {
                Ok(reply) => Thrown::Reply { category, reply },
                Err(_) => Thrown::Fault(category),
            }
        }
        _ => undeclared,
    }
}

/// Typed calls through one transport.
pub struct Bridge {
    transport: Box<dyn Transport>,
    mismatches: Vec<Mismatch>,
}

impl fmt::Debug for Bridge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bridge")
            .field("mismatches", &self.mismatches)
            .finish_non_exhaustive()
    }
}

impl Bridge {
    /// A bridge over `transport`, once its tools are checked against `contract`.
    pub async fn new(
        contract: &Contract,
        transport: impl Transport + 'static,
        compatibility: Compatibility,
    ) -> Result<Self, ConnectError> {
        let live = transport.listed().await?;
        let mismatches = mismatches(contract, &live);
        if !mismatches.is_empty() && compatibility == Compatibility::Require {
            return Err(ConnectError::Incompatible(mismatches));
        }
        Ok(Self {
            transport: Box::new(transport),
            mismatches,
        })
    }

    /// The tools that differ from the contract (empty unless made with
    /// [`Compatibility::Warn`]).
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }

    /// Calls `tool` with `input`: its output as `O`, or how it failed, a declared error as `E`.
    pub async fn call<I, O, E>(&self, tool: &str, input: &I) -> Result<O, BridgeError<E>>
    where
        I: Serialize + ?Sized,
        O: DeserializeOwned,
        E: DeserializeOwned,
    {
        let input = serde_json::to_value(input).map_err(|_| BridgeError::InvalidInput {
            tool: tool.to_string(),
            issues: Vec::new(),
        })?;
        // A value that passed its schema but not the bindings' type of it: where, as the
        // registry would say it.
        let violation =
            |phase, (pointer, reason): (String, String)| BridgeError::ContractViolation {
                tool: tool.to_string(),
                phase,
                issues: vec![harness_gen_registry::mismatch_issue(pointer, &reason)],
            };
        match self.transport.call(tool, input).await {
            Ok(output) => typed_value(output).map_err(|m| violation(Phase::Output, m)),
            Err(error) => Err(bridged(error)),
        }
    }

    /// Calls `tool`, whose output is events, and streams them typed as `T`: as they arrive in
    /// process, once the call has ended over MCP (its result holds them all). An event that
    /// does not fit `T` is a contract violation item, and the stream goes on.
    ///
    /// `ask`: the JSON pointer of the input's boolean that asks for the events of a tool that
    /// otherwise answers JSON (OpenAI's `/body/stream`); set to `true` here.
    pub async fn events<I, T, E>(
        &self,
        tool: &str,
        input: &I,
        ask: Option<&str>,
    ) -> Result<BridgeEvents<T, E>, BridgeError<E>>
    where
        I: Serialize + ?Sized,
        T: DeserializeOwned + Send + 'static,
        E: DeserializeOwned + Send + 'static,
    {
        let refused = || BridgeError::InvalidInput {
            tool: tool.to_string(),
            issues: Vec::new(),
        };
        let mut input = serde_json::to_value(input).map_err(|_| refused())?;
        if let Some(pointer) = ask
            && !harness_gen_wire::pointer::set(&mut input, pointer, Value::Bool(true))
        {
            return Err(refused());
        }
        let items = self.transport.events(tool, input).await.map_err(bridged)?;
        let tool = tool.to_string();
        Ok(Box::pin(futures::StreamExt::map(items, move |item| {
            let value = item.map_err(bridged)?;
            typed_value(value).map_err(|(pointer, reason)| BridgeError::ContractViolation {
                tool: tool.clone(),
                phase: Phase::Output,
                issues: vec![harness_gen_registry::mismatch_issue(pointer, &reason)],
            })
        })))
    }
}

/// The events of a tool, typed: [`Bridge::events`].
pub type BridgeEvents<T, E> = futures::stream::BoxStream<'static, Result<T, BridgeError<E>>>;

/// A tool's failure as the bindings report it: a declared application error typed as `E`.
fn bridged<E: DeserializeOwned>(error: ToolError) -> BridgeError<E> {
    match error {
        ToolError::Application { tool, data, .. } => match typed_value(data) {
            Ok(data) => BridgeError::Application(data),
            // A value that passed its schema but not the bindings' type of it: where, as the
            // registry would say it.
            Err((pointer, reason)) => BridgeError::ContractViolation {
                tool,
                phase: Phase::Error,
                issues: vec![harness_gen_registry::mismatch_issue(pointer, &reason)],
            },
        },
        ToolError::InvalidInput { tool, issues } => BridgeError::InvalidInput { tool, issues },
        ToolError::UnknownTool { name } => BridgeError::UnknownTool { name },
        ToolError::Runtime { tool, category, .. } => BridgeError::Runtime { tool, category },
        ToolError::Reply {
            tool,
            category,
            reply,
        } => BridgeError::Reply {
            tool,
            category,
            reply,
        },
        ToolError::ContractViolation {
            tool,
            phase,
            issues,
        } => BridgeError::ContractViolation {
            tool,
            phase,
            issues,
        },
    }
}

/// The tools of `contract` that `live` lists otherwise or not at all, by name.
fn mismatches(contract: &Contract, live: &BTreeMap<String, String>) -> Vec<Mismatch> {
    contract
        .hashes
        .iter()
        .filter_map(|(tool, hash)| match live.get(*tool) {
            None => Some(Mismatch::Missing {
                tool: tool.to_string(),
            }),
            Some(live) if live != hash => Some(Mismatch::Changed {
                tool: tool.to_string(),
            }),
            Some(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(value: Value) -> Thrown {
        failure(value.get(CONTRACT_META_KEY))
    }

    #[test]
    fn a_servers_failure_is_read_from_the_tool_contract_key_only() {
        let data = json!({"kind": "http_404"});
        let application =
            meta(json!({CONTRACT_META_KEY: {"applicationError": {"tool": "t", "data": data}}}));
        assert!(matches!(application, Thrown::Value(ref v) if *v == data));
        let issues = json!([{"pointer": "/id", "keyword": "type"}]);
        let violation = meta(json!({CONTRACT_META_KEY: {"failure": {
            "kind": "contract_violation", "tool": "t", "phase": "error", "issues": issues
        }}}));
        assert!(matches!(
            violation,
            Thrown::Violation { phase: Phase::Error, ref issues } if issues[0].pointer == "/id"
        ));
        let invalid = meta(
            json!({CONTRACT_META_KEY: {"failure": {"kind": "invalid_input", "issues": issues}}}),
        );
        assert!(matches!(invalid, Thrown::InvalidInput(ref issues) if issues[0].keyword == "type"));
        let runtime = meta(
            json!({CONTRACT_META_KEY: {"failure": {"kind": "runtime", "category": "timeout"}}}),
        );
        assert!(matches!(runtime, Thrown::Fault(RuntimeCategory::Timeout)));
        // Nothing under the contract key (another key does not count): undeclared.
        let other = meta(json!({"com.example/kind": {"failure": {"kind": "invalid_input"}}}));
        assert!(matches!(
            other,
            Thrown::Fault(RuntimeCategory::UndeclaredError)
        ));
    }
}

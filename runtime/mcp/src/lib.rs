//! `harness-gen-mcp`: the MCP server (the runtime's feature `mcp`), built at run time on the official Rust SDK (`rmcp`) from a
//! registry's MCP projection: dynamic `tools/list` (standalone schemas, hints, icons, the
//! error schema in `_meta`, cursor pagination, cache hints) and `tools/call` through the one
//! invocation path, rendered by [`harness_gen_registry::render::mcp_failure`].
//!
//! Both protocol eras are served by rmcp's lifecycle: 2026-07-28 (`server/discover`,
//! per-request metadata, `resultType`, `ttlMs`/`cacheScope`, any JSON value as
//! `structuredContent`) and the `initialize` era (2025-11-25, 2025-06-18), for which rmcp drops
//! non-object output schemas from the listing and moves non-object structured results into the
//! text block, so one tool never breaks an old client's listing.

mod cut;
mod discovery;
mod logging;
pub mod observe;
mod select;
mod serve;
mod stdio;
mod tasks;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use rmcp::ErrorData as McpError;
use rmcp::ServerHandler;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    ClientCapabilities, GetTaskParams, GetTaskResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ResultType,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use harness_gen_contract::{Audience, catalog, cli_names, schema};
use harness_gen_registry::{ByteOutput, ToolError, ToolOutput, ToolRegistry};
use harness_gen_wire::{ContractError, ErrorCode};

use crate::catalog::{Entry, TaskSupport};
use crate::schema::listing::Role;
use harness_gen_registry::render::{McpFailure, mcp_failure};

/// The command-line parser the program's options are made with ([`command`]).
pub use clap;
pub use cut::{DEFAULT_MAX_EVENTS, DEFAULT_MAX_RESULT_BYTES, TRUNCATED_META_KEY};
pub use discovery::{
    AUTO_THRESHOLD as DISCOVERY_THRESHOLD, CALL as CALL_TOOL, DESCRIBE as DESCRIBE_TOOL,
    SEARCH as SEARCH_TOOLS,
};
// What the HTTP servers share (harness-gen-serve), where this server's options name it.
pub use harness_gen_serve::{
    Access, ClientAuth, CredentialHeaders, Denied, Gate, Limits, METADATA_PATH, Mount, Principal,
    Refusal, ScopeRules, Site, bearer,
};
/// The MCP SDK the server is built on, for callers that embed [`McpServer`] in their own
/// transport.
pub use rmcp;
pub use select::Selection;
pub use serve::{Options, Program, Transport, command, main, main_with, run};
pub use stdio::{MAX_MESSAGE_BYTES, serve as serve_stdio};
#[cfg(feature = "redis")]
pub use tasks::RedisStore;
pub use tasks::{MemoryStore, StoreError, Stored, TASK_LEASE, TASK_TTL_MS, TaskStore};

/// How long a client may reuse a `tools/list` page: the tools never change while the
/// process runs.
pub const LIST_TTL_MS: u64 = 300_000;

/// An MCP server over one registry. Cheap to clone: clones share the registry and the
/// prepared listing. Unless a page size is set, `tools/list` answers with every tool in one
/// page: several clients read only the first page of a listing.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    page_size: usize,
    /// Schemes whose credentials each HTTP request carries (empty: the client's own).
    credential_headers: Arc<CredentialHeaders>,
    /// Which tools an authenticated client's scopes allow.
    scopes: Arc<ScopeRules>,
    /// In discovery mode, the tools listed beside the meta-tools (registry names).
    discovery: Option<Arc<[String]>>,
    /// The most bytes of JSON a call result carries; larger ones are cut, marked (`None`: no
    /// limit).
    max_result: Option<usize>,
    /// The most events a call's result keeps of a stream (every one is still sent as progress).
    max_events: usize,
    /// The tasks, shared by every server made from this one (`over`).
    tasks: Arc<tasks::Tasks>,
    /// The calls and tasks under way, which a graceful stop waits for.
    activity: Arc<observe::Activity>,
    /// The level of MCP log messages this session's client asked for (`for_session`).
    log: logging::SessionLog,
}

struct Inner {
    registry: ToolRegistry,
    /// How tools are listed.
    shape: Shape,
    /// What `initialize` / `server/discover` answer; fixed for the process.
    config: ServerConfig,
    listing: OnceLock<Result<Listing, String>>,
}

/// How the listing shows tools, fixed when it is prepared.
#[derive(Clone, Copy, Debug, Default)]
struct Shape {
    /// The longest tool name listed (longer ones are shortened, see `with_max_tool_name`).
    max_name: Option<usize>,
    /// The form of the listed schemas.
    profile: SchemaProfile,
}

/// The form of the schemas a listing shows (the contract a call is checked against is the same
/// in every profile).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchemaProfile {
    /// JSON Schema 2020-12, each schema standalone with its `$defs`.
    #[default]
    Standard,
    /// No `$ref` or `$defs` anywhere ([`crate::schema::inline`]): for clients that reject
    /// references.
    Inlined,
    /// Input schemas OpenAI's strict tool calling accepts ([`crate::schema::strict`]), and the
    /// arguments sent in that form mapped back before the call is checked; output and error
    /// schemas as in `Standard` (a client checks results against them, and results keep the
    /// contract's form).
    Strict,
}

/// The prepared `tools/list`, in registry order, with each tool's position by its listed name
/// (and its registry name, when a name budget shortened it).
struct Listing {
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    names: Vec<String>,
    /// In the strict profile, each tool's inlined input schema, which maps the arguments back.
    inputs: Vec<Value>,
}

impl McpServer {
    /// A server for the MCP-audience tools of `registry`, announcing itself as `name` `version`.
    pub fn new(registry: &ToolRegistry, name: &str, version: &str) -> Self {
        let registry = registry.project(Audience::Mcp);
        // The tasks extension is announced when some tool may run as a task.
        let offers_tasks = registry.entries().any(|entry| {
            entry
                .execution
                .as_ref()
                .is_some_and(|e| e.task_support != TaskSupport::Forbidden)
        });
        // Logging: each call is reported to a client that asks (`logging/setLevel`).
        #[allow(deprecated)]
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools();
        let capabilities = if offers_tasks {
            capabilities.enable_tasks().build()
        } else {
            capabilities.build()
        };
        let mut config = ServerConfig::new(capabilities);
        config.server_info = Implementation::new(name, version);
        Self {
            inner: Arc::new(Inner {
                registry,
                shape: Shape::default(),
                config,
                listing: OnceLock::new(),
            }),
            page_size: usize::MAX,
            credential_headers: Arc::default(),
            scopes: Arc::default(),
            discovery: None,
            max_result: Some(DEFAULT_MAX_RESULT_BYTES),
            max_events: DEFAULT_MAX_EVENTS,
            tasks: Arc::default(),
            activity: Arc::default(),
            log: logging::SessionLog::default(),
        }
    }

    /// The server one client session talks to: everything shared with this one but the
    /// session's own state (the MCP log level it asked for).
    pub fn for_session(&self) -> Self {
        Self {
            log: logging::SessionLog::default(),
            ..self.clone()
        }
    }

    /// The same server keeping its tasks in `store` (replicas that share one see each other's
    /// tasks; see [`TaskStore`]).
    pub fn with_task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = Arc::new(tasks::Tasks::new(store));
        self
    }

    /// The calls and tasks under way.
    pub fn activity(&self) -> &observe::Activity {
        &self.activity
    }

    /// The task store.
    pub fn task_store(&self) -> &dyn TaskStore {
        self.tasks.store()
    }

    /// How many tasks this process is running.
    pub fn running_tasks(&self) -> usize {
        self.tasks.running()
    }

    /// The same server with `page_size` tools per `tools/list` page (at least 1).
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// The same server cutting call results over `max` bytes of JSON (`None`: never): the
    /// largest arrays keep the items that fit, long strings their beginning, and the result
    /// says what was cut in a text block and in `_meta["com.harnlang/truncated"]`.
    pub fn with_max_result_bytes(mut self, max: Option<usize>) -> Self {
        self.max_result = max;
        self
    }

    /// The same server keeping at most `max` events of a tool's stream in the call's result
    /// (at least 1); the result says how many came. Every event is still reported as progress
    /// as it arrives, and the result's bytes stay within [`McpServer::with_max_result_bytes`].
    pub fn with_max_events(mut self, max: usize) -> Self {
        self.max_events = max.max(1);
        self
    }

    /// The same server taking the credentials of the mapped schemes from each HTTP request
    /// (see [`CredentialHeaders`]); `Err` when a mapping names a scheme no tool uses.
    pub fn with_credential_headers(mut self, headers: CredentialHeaders) -> Result<Self, String> {
        headers.check(self.inner.registry.entries())?;
        self.credential_headers = Arc::new(headers);
        Ok(self)
    }

    /// The same server refusing a call of an authenticated client whose token's scopes do not
    /// allow the tool (see [`ScopeRules`]).
    pub fn with_scope_rules(mut self, scopes: ScopeRules) -> Self {
        self.scopes = Arc::new(scopes);
        self
    }

    /// The same server listing every tool under a name of at most `max` bytes (some clients
    /// cap names, Cursor at about 60 for server and tool together): a longer name becomes a
    /// readable prefix and a hash of the whole name (`cli_names::short_names`: stable across
    /// runs, unique), and a call by the listed name reaches the tool. `None`: names as they are.
    pub fn with_max_tool_name(self, max: Option<usize>) -> Self {
        let shape = Shape {
            max_name: max,
            ..self.inner.shape
        };
        self.shaped(shape)
    }

    /// The same server listing its schemas in `profile`'s form.
    pub fn with_schema_profile(self, profile: SchemaProfile) -> Self {
        let shape = Shape {
            profile,
            ..self.inner.shape
        };
        self.shaped(shape)
    }

    /// This server with a listing of `shape`, prepared anew.
    fn shaped(self, shape: Shape) -> Self {
        let inner = &self.inner;
        Self {
            inner: Arc::new(Inner {
                registry: inner.registry.clone(),
                shape,
                config: inner.config.clone(),
                listing: OnceLock::new(),
            }),
            ..self
        }
    }

    /// The same server in discovery mode (large APIs): the listing holds the
    /// meta-tools [`SEARCH_TOOLS`], [`DESCRIBE_TOOL`] and [`CALL_TOOL`] and the `pinned` tools.
    /// `Err` when a pinned name is not one of the server's tools, or a tool has a meta-tool's
    /// name.
    pub fn with_discovery(mut self, pinned: Vec<String>) -> Result<Self, String> {
        let registry = &self.inner.registry;
        if let Some(clash) = [SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL]
            .into_iter()
            .find(|meta| registry.lookup(Audience::Mcp, meta).is_some())
        {
            return Err(format!(
                "discovery mode lists a meta-tool named `{clash}`, and so is one of the API's tools: leave that tool out (--exclude-tool) or turn discovery off (--discovery off)"
            ));
        }
        if let Some(unknown) = pinned
            .iter()
            .find(|name| registry.lookup(Audience::Mcp, name).is_none())
        {
            return Err(format!(
                "--pin `{unknown}` is not one of the server's tools"
            ));
        }
        self.discovery = Some(pinned.into());
        Ok(self)
    }

    /// A server like this one (its name, version, page size, name budget, discovery mode and
    /// credential headers) over `registry`.
    pub(crate) fn over(&self, registry: &ToolRegistry) -> Self {
        let info = &self.inner.config.server_info;
        let mut server = McpServer::new(registry, &info.name, &info.version)
            .with_page_size(self.page_size)
            .with_max_result_bytes(self.max_result)
            .with_max_events(self.max_events)
            .shaped(self.inner.shape);
        server.credential_headers = Arc::clone(&self.credential_headers);
        server.scopes = Arc::clone(&self.scopes);
        server.tasks = Arc::clone(&self.tasks);
        server.activity = Arc::clone(&self.activity);
        // Pinned tools the narrower choice left out are not listed.
        server.discovery = self.discovery.as_ref().map(|pinned| {
            pinned
                .iter()
                .filter(|name| registry.lookup(Audience::Mcp, name).is_some())
                .cloned()
                .collect()
        });
        server
    }

    /// The registry name of the tool listed as `name` (the name itself when no budget
    /// shortened it, or when it is no listed tool).
    fn registry_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.position(name)
            .map_or(name, |(listing, i)| listing.names[i].as_str())
    }

    /// The name the tool `name` (either of its names) is listed under.
    fn listed_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.position(name)
            .map_or(name, |(listing, i)| listing.tools[i].name.as_ref())
    }

    fn position(&self, name: &str) -> Option<(&Listing, usize)> {
        let listing = self.listing().ok()?;
        listing.index.get(name).map(|&i| (listing, i))
    }

    /// The same server with `page_size` tools per page, or the whole listing in one.
    pub fn with_page_size_of(self, page_size: Option<usize>) -> Self {
        match page_size {
            Some(page_size) => self.with_page_size(page_size),
            None => self,
        }
    }

    fn listing(&self) -> Result<&Listing, McpError> {
        let listing = self.inner.listing.get_or_init(|| {
            let registry = &self.inner.registry;
            let profile = self.inner.shape.profile;
            let entries: Vec<&Entry> = registry.entries().collect();
            let (mut tools, inputs): (Vec<Tool>, Vec<Value>) =
                in_parallel(&entries, |entry| listed(registry, entry, profile))
                    .into_iter()
                    .collect::<Result<Vec<(Tool, Value)>, ContractError>>()
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .unzip();
            let inputs = if profile == SchemaProfile::Strict {
                inputs
            } else {
                Vec::new()
            };
            let names: Vec<String> = tools.iter().map(|tool| tool.name.to_string()).collect();
            if let Some(max) = self.inner.shape.max_name {
                let short = crate::cli_names::short_names(names.iter().map(String::as_str), max);
                for (tool, short) in tools.iter_mut().zip(short) {
                    tool.name = short.into();
                }
            }
            let mut index: HashMap<String, usize> = tools
                .iter()
                .enumerate()
                .map(|(i, tool)| (tool.name.to_string(), i))
                .collect();
            // A shortened tool is found by its registry name too (a longer name than any
            // listed one, so it never hides another tool).
            for (i, name) in names.iter().enumerate() {
                index.entry(name.clone()).or_insert(i);
            }
            Ok(Listing {
                tools,
                index,
                names,
                inputs,
            })
        });
        listing
            .as_ref()
            .map_err(|why| McpError::internal_error(why.clone(), None))
    }

    /// Every listed tool, in registry order, prepared once (standalone schemas are projected on
    /// first use and reused by every page).
    pub fn tools(&self) -> Result<&[Tool], McpError> {
        self.listing().map(|listing| listing.tools.as_slice())
    }

    /// One page of the listing: tools from `cursor` on.
    pub fn page(&self, cursor: Option<&str>) -> Result<ListToolsResult, McpError> {
        let every = self.tools()?;
        let discovered;
        let tools = match &self.discovery {
            None => every,
            Some(pinned) => {
                let mut tools = discovery::meta_tools(self.inner.shape.profile).to_vec();
                tools.extend(
                    pinned
                        .iter()
                        .filter_map(|name| self.position(name))
                        .map(|(listing, i)| listing.tools[i].clone()),
                );
                discovered = tools;
                discovered.as_slice()
            }
        };
        let start = match cursor {
            None => 0,
            Some(text) => text
                .strip_prefix("at:")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0 && n < tools.len())
                .ok_or_else(|| {
                    McpError::invalid_params(
                        "invalid cursor: pass back a nextCursor from tools/list, or none for the first page",
                        None,
                    )
                })?,
        };
        let end = start.saturating_add(self.page_size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec())
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Public);
        result.next_cursor = (end < tools.len()).then(|| format!("at:{end}"));
        Ok(result)
    }

    /// Calls `name` with `arguments` through the registry's invocation path, projected to a
    /// `CallToolResult` (or invalid params for a tool the MCP audience cannot see).
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<CallToolResult, McpError> {
        self.call_reporting(name, arguments, None).await
    }

    /// [`McpServer::call`], sending a progress notification to `progress` (the peer, and the
    /// token its request asked for progress with) for each event of a tool that returns events,
    /// the event's data as its message.
    pub async fn call_reporting(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        progress: Option<(rmcp::Peer<RoleServer>, ProgressToken)>,
    ) -> Result<CallToolResult, McpError> {
        let input = Value::Object(arguments.unwrap_or_default());
        let (name, listed) = (self.registry_name(name), self.listed_name(name));
        match self
            .inner
            .registry
            .invoke_page(Audience::Mcp, name, input)
            .await
        {
            Ok(ToolOutput {
                bytes: Some(bytes), ..
            }) => binary_result(name, bytes).await,
            Ok(output) if output.events.is_some() => {
                self.events_result(listed, output, progress).await
            }
            Ok(output) => Ok(self.page_result(listed, output)),
            Err(error) => failure(&error),
        }
    }
}

impl McpServer {
    /// The result of a tool that returns events: the events (each checked) in the array its
    /// output schema describes, each reported as it arrives when the client asked for
    /// progress. The result keeps the first events within the server's bounds (at most
    /// `max_events`, and `max_result` bytes of JSON) and says how many came when it could not
    /// keep them all; an event that fails its check fails the call.
    async fn events_result(
        &self,
        name: &str,
        mut output: ToolOutput,
        progress: Option<(rmcp::Peer<RoleServer>, ProgressToken)>,
    ) -> Result<CallToolResult, McpError> {
        use futures::StreamExt;
        let Some(mut events) = output.events.take() else {
            return Ok(self.page_result(name, output));
        };
        let registry = &self.inner.registry;
        let (mut kept, mut kept_bytes) = (Vec::new(), 2);
        let (mut received, mut bytes) = (0usize, 2);
        while let Some(item) = events.items.next().await {
            let event = match registry.event(Audience::Mcp, name, item) {
                Ok(event) => event,
                Err(error) => return failure(&error),
            };
            received += 1;
            let text = event.to_string();
            bytes += text.len() + 1;
            if let Some((peer, token)) = &progress {
                let step = ProgressNotificationParam::new(token.clone(), received as f64)
                    .with_message(text.clone());
                // A client that went away stops nothing here: the call still completes.
                let _ = peer.notify_progress(step).await;
            }
            let fits = kept.len() == received - 1
                && kept.len() < self.max_events
                && self
                    .max_result
                    .is_none_or(|max| kept_bytes + text.len() < max);
            if fits {
                kept_bytes += text.len() + 1;
                kept.push(event);
            }
        }
        let dropped = received - kept.len();
        output.value = Value::Array(kept);
        let mut result = self.page_result(name, output);
        if dropped > 0 {
            let (text, described) = cut::events_described(
                received,
                received - dropped,
                bytes,
                self.max_result,
                self.max_events,
            );
            result.content.push(rmcp::model::ContentBlock::text(text));
            let meta = result.meta.get_or_insert_with(Default::default);
            meta.0.insert(TRUNCATED_META_KEY.to_owned(), described);
        }
        Ok(result)
    }
}

impl McpServer {
    /// The credentials a call of `name` carries in its HTTP request, when the server takes
    /// them per request; `Err` saying which headers are missing when its tool cannot
    /// authenticate without them.
    fn credentials(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<harness_gen_client::CallCredentials>, String> {
        let empty = axum::http::HeaderMap::new();
        let headers = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map_or(&empty, |parts| &parts.headers);
        let entry = || self.inner.registry.lookup(Audience::Mcp, name);
        self.credential_headers.for_call(entry, headers)
    }
}

/// The authenticated client of a request (HTTP with client authentication).
fn principal(context: &RequestContext<RoleServer>) -> Option<&Principal> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .extensions
        .get::<Principal>()
}

impl McpServer {
    /// Whose a task started by this request is, and who may see it: the authenticated client,
    /// the session (the `initialize` era's `Mcp-Session-Id`) and the credentials the request
    /// carries for the mapped schemes, hashed (never kept as they are). Over stdio there is one
    /// client: every task is its.
    fn owner(&self, context: &RequestContext<RoleServer>) -> String {
        use sha2::Digest;
        let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
            return String::new();
        };
        let mut hash = sha2::Sha256::new();
        let mut part = |bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        part(principal(context).map_or(&b""[..], |p| p.subject.as_bytes()));
        let session = parts.headers.get("mcp-session-id");
        part(session.map_or(&b""[..], |v| v.as_bytes()));
        for value in self.credential_headers.values(&parts.headers) {
            part(value);
        }
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A call refused before it started (or a meta-tool used wrongly), as a tool error the model
/// reads.
fn refused(why: impl Into<String>) -> CallToolResult {
    let mut result = CallToolResult::error(vec![rmcp::model::ContentBlock::text(why.into())]);
    result.result_type = Some(ResultType::COMPLETE);
    result
}

/// A failed call as MCP renders it: invalid params, or an `isError` result.
fn failure(error: &ToolError) -> Result<CallToolResult, McpError> {
    match mcp_failure(error) {
        McpFailure::InvalidParams { message } => Err(McpError::invalid_params(message, None)),
        McpFailure::ToolResult(value) => {
            let mut result: CallToolResult =
                serde_json::from_value(value).unwrap_or_else(|_| CallToolResult::error(vec![]));
            // As every rmcp constructor does; rmcp drops it again for legacy peers.
            result.result_type = Some(ResultType::COMPLETE);
            Ok(result)
        }
    }
}

impl McpServer {
    /// The result of a successful call: the output as structured content (and its JSON text),
    /// cut to the server's result limit with the cut said; and for a tool that lists in pages
    /// with more to come, the next page's arguments as a text block the model reads and under
    /// `_meta["com.harnlang/nextPage"]`: one page per call, paged explicitly.
    fn page_result(&self, name: &str, output: ToolOutput) -> CallToolResult {
        let mut result = CallToolResult::structured(output.value);
        let mut meta = rmcp::model::MetaObject::default();
        let mut notes = Vec::new();
        // The result's first block is its JSON text: its length is the result's size.
        let bytes = result
            .content
            .first()
            .and_then(|b| b.as_text())
            .map_or(0, |t| t.text.len());
        if let Some(max) = self.max_result.filter(|&max| bytes > max)
            && let Some(mut value) = result.structured_content.take()
        {
            let cuts = cut::cut(&mut value, max);
            let (text, described) = cut::described(&cuts, bytes, max);
            notes.push(text);
            meta.0.insert(TRUNCATED_META_KEY.to_owned(), described);
            result = CallToolResult::structured(value);
        }
        if let Some(next) = output.next_page {
            let next = Value::Object(next);
            notes.push(format!(
                "More results: call `{name}` again with the same arguments and these changed: {next}"
            ));
            meta.0.insert(NEXT_PAGE_META_KEY.to_owned(), next);
        }
        for note in notes {
            result.content.push(rmcp::model::ContentBlock::text(note));
        }
        if !meta.0.is_empty() {
            result.meta = Some(meta);
        }
        result
    }
}

/// The most bytes a binary output (a download) is returned with over MCP; a larger one is a
/// tool error saying so (the CLI and the SDK stream it instead).
pub const MAX_BINARY_BYTES: usize = 8 * 1024 * 1024;

/// The result of a tool whose output is bytes: one binary content block, base64 — an image or
/// audio block for `image/*` and `audio/*`, else an embedded resource blob with its media type.
/// Such tools list no output schema (their result is binary content, not structured).
async fn binary_result(name: &str, bytes: ByteOutput) -> Result<CallToolResult, McpError> {
    use base64::Engine;
    let media_type = bytes
        .content_type
        .clone()
        .unwrap_or_else(|| "application/octet-stream".to_string());
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let collected = match bytes.collect(MAX_BINARY_BYTES).await {
        Ok(collected) => collected,
        Err(category) => {
            return failure(&ToolError::Runtime {
                tool: name.to_string(),
                category,
                hint: None,
            });
        }
    };
    let data = base64::engine::general_purpose::STANDARD.encode(collected);
    let block = if essence.starts_with("image/") {
        rmcp::model::ContentBlock::image(data, essence)
    } else if essence.starts_with("audio/") {
        rmcp::model::ContentBlock::audio(data, essence)
    } else {
        rmcp::model::ContentBlock::resource(
            rmcp::model::ResourceContents::blob(data, format!("tool://{name}/output"))
                .with_mime_type(essence),
        )
    };
    Ok(CallToolResult::success(vec![block]))
}

/// The `_meta` key of a call result that holds the next page's arguments.
pub const NEXT_PAGE_META_KEY: &str = "com.harnlang/nextPage";

impl McpServer {
    /// The arguments of a call of `name` (a tool or meta-tool, by its listed name) in the form
    /// its contract describes: in the strict profile, mapped back from the strict form
    /// ([`crate::schema::strict::arguments`]); otherwise as sent.
    fn contract_arguments(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Option<Map<String, Value>> {
        if self.inner.shape.profile != SchemaProfile::Strict {
            return arguments;
        }
        let arguments = arguments.unwrap_or_default();
        let meta = self
            .discovery
            .as_ref()
            .and_then(|_| discovery::meta_input(name));
        let schema = match &meta {
            Some(schema) => schema,
            None => match self.position(name) {
                Some((listing, i)) => &listing.inputs[i],
                None => return Some(arguments),
            },
        };
        Some(crate::schema::strict::arguments(arguments, schema))
    }

    /// Whether `name` (an MCP tool) may or must run as a task.
    fn task_support(&self, name: &str) -> TaskSupport {
        self.inner
            .registry
            .lookup(Audience::Mcp, name)
            .and_then(|entry| entry.execution.as_ref())
            .map_or(TaskSupport::Forbidden, |e| e.task_support)
    }
}

/// `f` of each item, in order, computed on the machine's cores (in a few chunks, each on a
/// thread of its own): the first listing of a big API projects hundreds of schemas, and the
/// components they share are prepared once whichever thread gets there first.
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    // Small listings are not worth a thread.
    let chunk = items.len().div_ceil(threads).max(64);
    if chunk >= items.len() {
        return items.iter().map(&f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| {
                part.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The MCP `Tool` of one catalog entry, and in the strict profile the inlined input schema its
/// strict form was made from (`Null` otherwise).
fn listed(
    registry: &ToolRegistry,
    entry: &Entry,
    profile: SchemaProfile,
) -> Result<(Tool, Value), ContractError> {
    let name = entry.name.as_str();
    let mut contract_input = Value::Null;
    let tool = crate::catalog::listed::mcp_tool(entry, &mut |schema, at, role| {
        let listed = registry.listable(schema, &format!("{name}.{at}"), role);
        match (profile, role) {
            (SchemaProfile::Standard, _) | (SchemaProfile::Strict, Role::Output | Role::Error) => {
                crate::catalog::listed::with_dialect(listed)
            }
            (SchemaProfile::Inlined, _) => crate::schema::inline::inlined(&listed),
            (SchemaProfile::Strict, Role::Input) => {
                contract_input = crate::schema::inline::inlined(&listed);
                crate::schema::strict::strict(&contract_input)
            }
        }
    });
    let tool = serde_json::from_value(tool).map_err(|e| {
        ContractError::new(
            ErrorCode::Syntax,
            name.to_owned(),
            format!("cannot be listed over MCP: {e}"),
        )
    })?;
    Ok((tool, contract_input))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.inner.config.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.page(request.as_ref().and_then(|r| r.cursor.as_deref()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let client_tasks = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        let arguments = self.contract_arguments(&request.name, request.arguments);
        let (listed, arguments) = match self.meta_call(&request.name, arguments.as_ref()) {
            Some(discovery::MetaCall::Answer(result)) => return Ok(result.into()),
            Some(discovery::MetaCall::Call(name, arguments)) => {
                let arguments = self.contract_arguments(&name, arguments);
                (name.into(), arguments)
            }
            None => (request.name, arguments),
        };
        let name = self.registry_name(&listed);
        if let Some(entry) = self.inner.registry.lookup(Audience::Mcp, name)
            && let Err(why) = self.scopes.allows(principal(&context), entry)
        {
            return Ok(refused(why).into());
        }
        let credentials = match self.credentials(name, &context) {
            Ok(credentials) => credentials,
            Err(why) => return Ok(refused(why).into()),
        };
        match (self.task_support(name), client_tasks) {
            (TaskSupport::Optional | TaskSupport::Required, true) => self
                .start_task(
                    name.to_owned(),
                    arguments,
                    credentials,
                    self.owner(&context),
                )
                .await
                .map(Into::into),
            (TaskSupport::Required, false) => Err(McpError::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            )),
            _ => {
                let _busy = self.activity.busy();
                let progress = context
                    .meta
                    .get_progress_token()
                    .map(|token| (context.peer.clone(), token));
                let call = self.call_reporting(name, arguments, progress);
                let started = std::time::Instant::now();
                let call = harness_gen_client::CallCredentials::scope_of(credentials, call);
                let result = self.log.watching(&context.peer, &listed, call).await;
                self.log
                    .call_ended(&context.peer, &listed, &result, started.elapsed())
                    .await;
                result.map(Into::into)
            }
        }
    }

    #[allow(deprecated)] // MCP logging, which clients of the `initialize` era use.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log.set(request.level);
        Ok(())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        McpServer::get_task(self, &request.task_id, &self.owner(&context)).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        McpServer::cancel_task(self, &request.task_id, &self.owner(&context)).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.discovery.is_some()
            && let Some(meta) = discovery::meta_tools(self.inner.shape.profile)
                .iter()
                .find(|t| t.name == name)
        {
            return Some(meta.clone());
        }
        self.position(name)
            .map(|(listing, i)| listing.tools[i].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::in_parallel;

    #[test]
    fn work_done_in_parallel_keeps_the_order_of_its_items() {
        let items: Vec<usize> = (0..1000).collect();
        let doubled = in_parallel(&items, |n| n * 2);
        assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        assert_eq!(in_parallel(&items[..3], |n| n + 1), [1, 2, 3]);
    }
}

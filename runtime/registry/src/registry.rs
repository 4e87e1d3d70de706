//! The live registry: each tool's contract paired with its handler, validated once when
//! published and prepared for every adapter (name index, per-audience views, lazily compiled
//! validators). Adapters only project it; none keeps a list of its own.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use serde_json::Value;

use crate::catalog::{
    Audience, Catalog, CliTree, Components, Entry, GeneratedCatalog, Info, SchemaDoc,
};
use crate::schema::{listing, standalone};
use harness_gen_wire::error::{ContractError, ContractErrors, ErrorCode};

/// What a handler returns when it does not succeed.
#[derive(Debug)]
pub enum Thrown {
    /// The handler threw a value. It becomes application-error data only if the tool declares an
    /// `errorSchema` and the value satisfies it; otherwise it is dropped unseen.
    Value(Value),
    /// The handler failed without a value to show (transport, timeout, …).
    Fault(crate::RuntimeCategory),
    /// The handler could not run as configured (an operation that needs credentials the client
    /// lacks): a runtime failure of `category` with what to do about it (names, never values).
    Unconfigured {
        /// `missing_credentials`.
        category: crate::RuntimeCategory,
        /// What to set (`… set OPENAI_API_KEY`).
        hint: String,
    },
    /// The API answered outside the operation's contract (a status or a success body it does
    /// not declare): a runtime failure of `category` that shows what the reply was.
    Reply {
        /// `unexpected_reply` or `http_status`.
        category: crate::RuntimeCategory,
        /// The reply's status, content type and first bytes.
        reply: harness_gen_wire::ReplyExcerpt,
    },
    /// The input passed the schema but the handler cannot take it (a format the schema names
    /// but does not assert, such as a `date-time` that is not one): reported as invalid input.
    InvalidInput(Vec<crate::Issue>),
    /// The tool behind this handler (another process's, reached over MCP) reported that it
    /// broke its own contract: reported as that contract violation.
    Violation {
        /// Which schema it broke.
        phase: crate::Phase,
        /// Where and which keyword failed.
        issues: Vec<crate::Issue>,
    },
}

/// The future a handler returns.
pub type HandlerFuture = BoxFuture<'static, Result<Value, Thrown>>;

/// Builds the program's registry: receives `--base-url` when given, and which tools (by name)
/// the run needs; a generated crate's `registry_of` reads only their entries.
pub type Factory<'a> =
    dyn Fn(Option<String>, &dyn Fn(&str) -> bool) -> Result<ToolRegistry, String> + 'a;

/// What a tool call produced: the output, and for a tool that lists in pages the input
/// properties that fetch the next page (merged into this call's input), absent on the last page.
#[derive(Debug, Default)]
pub struct ToolOutput {
    /// The output value (valid against the tool's output schema; null while `bytes` holds it).
    pub value: Value,
    /// The arguments of the next page: the input properties that change.
    pub next_page: Option<serde_json::Map<String, Value>>,
    /// The output of a tool whose output is bytes (a download, base64 text in its output
    /// schema), as they arrive. [`ToolRegistry::invoke`] collects them into that text (within
    /// [`ByteOutput::COLLECTED`]); an adapter that can write bytes as they come (the CLI's
    /// `--output`) takes them from [`ToolRegistry::invoke_page`].
    pub bytes: Option<ByteOutput>,
    /// The output of a tool that returns events as they arrive (an operation that answers
    /// with server-sent events; its output schema is the array of them).
    /// [`ToolRegistry::invoke`] collects them (at most [`EventOutput::COLLECTED`]); the CLI
    /// prints each as it arrives and MCP reports each as progress, every one checked by
    /// [`ToolRegistry::event`].
    pub events: Option<EventOutput>,
}

impl ToolOutput {
    /// The output `value`, alone.
    pub fn value(value: Value) -> Self {
        Self {
            value,
            ..Self::default()
        }
    }
}

/// Bytes a tool returns as they arrive, with their media type and length when known.
pub struct ByteOutput {
    /// The media type, as the source said it.
    pub content_type: Option<String>,
    /// The length, when the source said it.
    pub length: Option<u64>,
    /// The bytes; an error item (why they stopped) ends them: a download broken off midway is
    /// an error, never a short output.
    pub chunks: futures::stream::BoxStream<'static, Result<bytes::Bytes, crate::RuntimeCategory>>,
}

impl fmt::Debug for ByteOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByteOutput")
            .field("content_type", &self.content_type)
            .field("length", &self.length)
            .finish_non_exhaustive()
    }
}

/// Events a tool returns as they arrive: each event's data, or what went wrong with one (an
/// event whose data does not fit; the stream goes on after it) or with the stream (it ends).
pub struct EventOutput {
    /// The events.
    pub items: futures::stream::BoxStream<'static, Result<Value, Thrown>>,
    /// How they ended, told once `items` has (the CLI says it after the last event); `None`
    /// for a source that does not tell.
    pub end: Option<harness_gen_wire::binding::EndWatch>,
}

impl EventOutput {
    /// How many events [`ToolRegistry::invoke`] collects into one output at most.
    pub const COLLECTED: usize = 10_000;
}

impl fmt::Debug for EventOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventOutput").finish_non_exhaustive()
    }
}

impl ByteOutput {
    /// How many bytes [`ToolRegistry::invoke`] collects into one output value at most (the
    /// HTTP client's default bound on buffered replies).
    pub const COLLECTED: usize = crate::BUFFERED_BYTES;

    /// All the bytes, or `TooLarge` past `bound` (before reading further).
    pub async fn collect(mut self, bound: usize) -> Result<Vec<u8>, crate::RuntimeCategory> {
        use futures::StreamExt;
        let too_large = crate::RuntimeCategory::TooLarge;
        if self.length.is_some_and(|length| length > bound as u64) {
            return Err(too_large);
        }
        let mut out = Vec::new();
        while let Some(chunk) = self.chunks.next().await {
            let chunk = chunk?;
            if out.len() + chunk.len() > bound {
                return Err(too_large);
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }
}

type PagedFuture = BoxFuture<'static, Result<ToolOutput, Thrown>>;

/// An in-process async handler. It receives the validated input and returns the output value.
#[derive(Clone)]
pub struct Handler(Arc<dyn Fn(Value) -> PagedFuture + Send + Sync>);

impl Handler {
    /// Wraps an async closure.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, Thrown>> + Send + 'static,
    {
        Self(Arc::new(move |input| {
            let output = f(input);
            Box::pin(async move { Ok(ToolOutput::value(output.await?)) })
        }))
    }

    /// Wraps an async closure of a tool that lists in pages: one page per call, with the
    /// arguments of the next.
    pub fn paged<F, Fut>(f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, Thrown>> + Send + 'static,
    {
        Self(Arc::new(move |input| Box::pin(f(input))))
    }

    /// A handler that hands each input to `chosen` when `choose` says so, else to `otherwise`
    /// (an operation that answers JSON or, when its input asks, a stream of events).
    pub fn either(
        choose: impl Fn(&Value) -> bool + Send + Sync + 'static,
        chosen: Handler,
        otherwise: Handler,
    ) -> Self {
        Self(Arc::new(move |input| {
            if choose(&input) {
                chosen.call(input)
            } else {
                otherwise.call(input)
            }
        }))
    }

    /// Runs the handler on `input` (already validated): how a wrapper
    /// ([`Composer::wrap`](crate::Composer::wrap)) calls the handler it wraps.
    pub fn call(&self, input: Value) -> BoxFuture<'static, Result<ToolOutput, Thrown>> {
        (self.0)(input)
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handler")
    }
}

/// A published registry. Cheap to clone; immutable once built.
#[derive(Clone)]
pub struct ToolRegistry {
    shared: Arc<Shared>,
    /// Indexes into `shared.tools` of the tools this registry (or projection) holds, in order.
    members: Arc<[usize]>,
    /// Name → position in `members`.
    index: Arc<BTreeMap<String, usize>>,
    /// What listings show of each schema, before the environment's overrides.
    listing_budget: listing::Budget,
}

struct Shared {
    info: Option<Info>,
    cli: Option<CliTree>,
    components: Option<Components>,
    tools: Vec<LiveTool>,
    /// The listing work per component, shared by every projection and listing.
    prepared: OnceLock<listing::Prepared>,
}

pub(crate) struct LiveTool {
    pub(crate) entry: Entry,
    pub(crate) handler: Handler,
    pub(crate) validators: Validators,
}

/// The three validators of one tool, each compiled on first use and at most once.
#[derive(Default)]
pub(crate) struct Validators {
    pub(crate) input: OnceLock<Option<jsonschema::Validator>>,
    pub(crate) output: OnceLock<Option<jsonschema::Validator>>,
    pub(crate) error: OnceLock<Option<jsonschema::Validator>>,
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries().map(|e| e.name.as_str()))
            .finish()
    }
}

impl ToolRegistry {
    /// Publishes `catalog` with one handler per tool, looked up by tool name. Runs every
    /// publish-time rule; a tool without a handler, or a handler for no tool, is an error.
    pub fn publish(
        catalog: Catalog,
        handlers: BTreeMap<String, Handler>,
    ) -> Result<ToolRegistry, ContractErrors> {
        crate::catalog::validate::validate_catalog(&catalog)?;
        Self::pair(catalog, handlers)
    }

    /// Publishes a catalog compiled into the program ([`Catalog::from_generated_json`] or
    /// [`Catalog::from_generated_index`]): the publish-time rules ran when harness-gen
    /// generated it; only the pairing of tools and handlers is checked. The handlers of tools
    /// the catalog was read without are set aside.
    pub fn publish_generated(
        catalog: GeneratedCatalog,
        mut handlers: BTreeMap<String, Handler>,
    ) -> Result<ToolRegistry, ContractErrors> {
        handlers.retain(|name, _| !catalog.left_out(name));
        Self::pair(catalog.into_catalog(), handlers)
    }

    /// One live tool per entry with its handler; a tool without a handler, or a handler for no
    /// tool, is an error.
    fn pair(
        catalog: Catalog,
        mut handlers: BTreeMap<String, Handler>,
    ) -> Result<ToolRegistry, ContractErrors> {
        let mut errors = Vec::new();
        let mut tools = Vec::with_capacity(catalog.tools.len());
        for (i, entry) in catalog.tools.into_iter().enumerate() {
            match handlers.remove(entry.name.as_str()) {
                Some(handler) => tools.push(LiveTool {
                    entry,
                    handler,
                    validators: Validators::default(),
                }),
                None => errors.push(ContractError::new(
                    ErrorCode::MissingHandler,
                    format!("tools[{i}]"),
                    format!(
                        "tool `{}` has no handler: register one under its name",
                        entry.name.as_str()
                    ),
                )),
            }
        }
        for name in handlers.keys() {
            errors.push(ContractError::new(
                ErrorCode::MissingHandler,
                "handlers",
                format!("a handler is registered for `{name}`, which is not in the catalog: remove it or add the tool"),
            ));
        }
        ContractErrors::check(errors)?;
        let shared = Shared {
            info: catalog.info,
            cli: catalog.cli,
            components: catalog.components,
            tools,
            prepared: OnceLock::new(),
        };
        let members: Vec<usize> = (0..shared.tools.len()).collect();
        Ok(Self::over(
            Arc::new(shared),
            members,
            listing::Budget::DEFAULT,
        ))
    }

    /// Starts a registry built in code.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    fn over(shared: Arc<Shared>, members: Vec<usize>, listing_budget: listing::Budget) -> Self {
        let index = members
            .iter()
            .enumerate()
            .map(|(pos, &i)| (shared.tools[i].entry.name.to_string(), pos))
            .collect();
        Self {
            shared,
            members: members.into(),
            index: Arc::new(index),
            listing_budget,
        }
    }

    /// This registry with listings bounded by `budget` (the default is
    /// [`listing::Budget::DEFAULT`]); `HARNESS_LISTING_DEPTH` and `HARNESS_LISTING_BYTES` still
    /// override it at run time. Generated crates call it when harness-gen was given a budget.
    pub fn with_listing_budget(mut self, budget: listing::Budget) -> Self {
        self.listing_budget = budget;
        self
    }

    /// A registry holding only the tools exposed to `audience`, with their original handlers
    /// and shared validators. Everything done through it (listing, search, prompts, calls) sees
    /// only those tools.
    pub fn project(&self, audience: Audience) -> ToolRegistry {
        self.retain(|entry| entry.allows(audience))
    }

    /// A registry holding only the tools of this one for which `keep` is true, with their
    /// original handlers and shared validators.
    pub fn retain(&self, keep: impl Fn(&Entry) -> bool) -> ToolRegistry {
        let members = self
            .members
            .iter()
            .copied()
            .filter(|&i| keep(&self.shared.tools[i].entry))
            .collect();
        Self::over(Arc::clone(&self.shared), members, self.listing_budget)
    }

    /// Every tool of this registry, in order, whatever its audiences.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.members.iter().map(|&i| &self.shared.tools[i].entry)
    }

    /// The tools `audience` may see, in registry order.
    pub fn list(&self, audience: Audience) -> impl Iterator<Item = &Entry> {
        self.entries().filter(move |e| e.allows(audience))
    }

    /// The tool named `name` if `audience` may see it. A tool outside the audience is
    /// indistinguishable from one that does not exist.
    pub fn lookup(&self, audience: Audience, name: &str) -> Option<&Entry> {
        self.live(audience, name).map(|tool| &tool.entry)
    }

    /// Every tool of this registry with its handler, in order.
    pub(crate) fn live_tools(&self) -> impl Iterator<Item = &LiveTool> {
        self.members.iter().map(|&i| &self.shared.tools[i])
    }

    pub(crate) fn live(&self, audience: Audience, name: &str) -> Option<&LiveTool> {
        let &pos = self.index.get(name)?;
        let tool = &self.shared.tools[self.members[pos]];
        tool.entry.allows(audience).then_some(tool)
    }

    /// How many validators this registry's tools have compiled so far (they compile lazily, on
    /// first use, at most once per schema). For tests and benchmarks.
    pub fn compiled_validators(&self) -> usize {
        self.shared
            .tools
            .iter()
            .map(|t| {
                let v = &t.validators;
                [&v.input, &v.output, &v.error]
                    .iter()
                    .filter(|cell| cell.get().is_some())
                    .count()
            })
            .sum()
    }

    /// The catalog's parent-command metadata.
    pub fn cli_commands(&self) -> &[crate::catalog::CommandSpec] {
        self.shared
            .cli
            .as_ref()
            .map_or(&[], |t| t.commands.as_slice())
    }

    /// What the registry is.
    pub fn info(&self) -> Option<&Info> {
        self.shared.info.as_ref()
    }

    /// The named component schemas.
    pub fn components(&self) -> Option<&BTreeMap<String, SchemaDoc>> {
        self.shared.components.as_ref().map(|c| &c.schemas)
    }

    /// The serializable catalog of this registry, without handlers.
    pub fn catalog(&self) -> Catalog {
        Catalog {
            schema_version: crate::catalog::SchemaVersion,
            info: self.shared.info.clone(),
            cli: self.shared.cli.clone(),
            tools: self.entries().cloned().collect(),
            components: self.shared.components.clone(),
        }
    }

    /// `schema` made self-contained (tool-contract.md §6): every component it reaches copied
    /// under its `$defs`.
    pub fn standalone(&self, schema: &Value, at: &str) -> Result<Value, ContractError> {
        standalone::project(schema, &|name| self.component(name), at)
    }

    /// `schema` as a listing shows it in `role`: its standalone projection bounded by the
    /// listing budget ([`listing`]), or, when it cannot be made standalone,
    /// [`listing::permissive`]. Never an error: one schema cannot take a listing down; calls
    /// are still validated against the full contract. Work per component is done once per
    /// registry and shared by its projections.
    pub fn listable(&self, schema: &Value, at: &str, role: listing::Role) -> Value {
        let prepared = self.shared.prepared.get_or_init(|| {
            listing::Prepared::new(
                self.components()
                    .into_iter()
                    .flatten()
                    .map(|(n, _)| n.as_str()),
            )
        });
        let components = |name: &str| self.component(name);
        listing::Lister::new(&components, prepared, self.listing_budget.with_env())
            .list(schema, at, role)
    }

    fn component(&self, name: &str) -> Option<&Value> {
        self.components()
            .and_then(|c| c.get(name))
            .map(SchemaDoc::as_value)
    }

    /// Compiles the validator for `schema`: from its standalone projection, or, when a keyword
    /// makes the move unsafe, from the schema with the catalog's components beside it. With
    /// `input_formats`, the formats whose text has one unambiguous grammar
    /// (`ipv4`, `ipv6`, `uuid`, `date`, `date-time`) are asserted, so a `oneOf` whose branches differ only
    /// by format (an IPv4 or an IPv6 range) matches one branch; the other formats stay
    /// annotations, as 2020-12 makes them (servers read `uri`, `email` and `hostname` more
    /// loosely than their RFCs).
    pub(crate) fn compile(
        &self,
        schema: &Value,
        input_formats: bool,
    ) -> Option<jsonschema::Validator> {
        let source = match self.standalone(schema, "") {
            Ok(standalone) => standalone,
            Err(_) => {
                let mut doc = schema.clone();
                if let (Value::Object(map), Some(components)) = (&mut doc, &self.shared.components)
                {
                    let schemas = serde_json::to_value(&components.schemas).unwrap_or_default();
                    map.insert(
                        "components".to_string(),
                        serde_json::json!({ "schemas": schemas }),
                    );
                }
                doc
            }
        };
        let mut options = jsonschema::draft202012::options();
        if input_formats {
            options = options.should_validate_formats(true);
            for name in ANNOTATION_FORMATS {
                options = options.with_format(*name, |_: &str| true);
            }
        }
        options.build(&source).ok()
    }
}

/// The validator's built-in formats other than those a tool's input is checked for (`ipv4`,
/// `ipv6`, `uuid`, `date`, `date-time`), kept as annotations on input as everywhere else.
const ANNOTATION_FORMATS: &[&str] = &[
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "iri",
    "iri-reference",
    "json-pointer",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
];

/// Builds a registry in code: add tools with their handlers, then [`RegistryBuilder::build`].
#[derive(Default)]
pub struct RegistryBuilder {
    catalog: Option<Catalog>,
    handlers: BTreeMap<String, Handler>,
}

impl RegistryBuilder {
    fn catalog(&mut self) -> &mut Catalog {
        self.catalog.get_or_insert_with(|| Catalog::new(Vec::new()))
    }

    /// Sets what the registry is.
    pub fn info(mut self, info: Info) -> Self {
        self.catalog().info = Some(info);
        self
    }

    /// Sets parent-command metadata.
    pub fn cli(mut self, cli: CliTree) -> Self {
        self.catalog().cli = Some(cli);
        self
    }

    /// Adds a named component schema.
    pub fn component(mut self, name: impl Into<String>, schema: SchemaDoc) -> Self {
        self.catalog()
            .components
            .get_or_insert_with(Components::default)
            .schemas
            .insert(name.into(), schema);
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, entry: Entry, handler: Handler) -> Self {
        self.handlers.insert(entry.name.to_string(), handler);
        self.catalog().tools.push(entry);
        self
    }

    /// Validates and publishes.
    pub fn build(mut self) -> Result<ToolRegistry, ContractErrors> {
        let catalog = self.catalog().clone();
        ToolRegistry::publish(catalog, self.handlers)
    }
}

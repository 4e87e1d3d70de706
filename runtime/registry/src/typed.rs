//! Tools written in Rust (feature `typed`): a function with typed input, output and declared
//! error, from which the catalog entry is derived. The input, output and error JSON Schemas
//! come from the types (schemars, Draft 2020-12), their definitions placed under
//! `#/components/schemas/` where every projection (the CLI's option builder included) follows
//! them; the rest of the entry is said with the builder. The `#[tool]` attribute of
//! `harness-gen-macros` expands to this builder.
//!
//! The handler is the registry's like any other: the input is validated against its schema
//! before the function runs, the output after; a [`Failure::Declared`] error is an application
//! error (exit 3, MCP `isError` with the data), a [`Failure::Runtime`] one a runtime failure by
//! its category.
//!
//! ```
//! use harness_gen_registry::typed::{Failure, TypedTool};
//! use harness_gen_registry::{Composer, ToolRegistry};
//! use harness_gen_contract::Audience;
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// Two numbers to add.
//! #[derive(Deserialize, JsonSchema)]
//! struct Sum { a: i64, b: i64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Overflow { message: String }
//!
//! let add = TypedTool::new("add", |input: Sum| async move {
//!     input.a.checked_add(input.b).ok_or_else(|| {
//!         Failure::Declared(Overflow { message: "the sum does not fit in 64 bits".into() })
//!     })
//! })
//! .description("Adds two integers.")
//! .read_only();
//! let registry = Composer::new("calculator").typed(add).publish()?;
//! # futures::executor::block_on(async {
//! let sum = registry.invoke(Audience::Mcp, "add", serde_json::json!({"a": 2, "b": 3})).await?;
//! assert_eq!(sum, 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::{
    Annotations, Audience, Audiences, CommandPath, Entry, NonBlank, ObjectSchema, SchemaDoc, Source,
};
use crate::{Handler, Thrown};
use harness_gen_wire::RuntimeCategory;
use harness_gen_wire::error::{ContractError, ErrorCode};

/// How a typed tool's function fails.
#[derive(Debug)]
pub enum Failure<E> {
    /// One of the errors the tool declares: an application error whose data is `E`, checked
    /// against the tool's error schema.
    Declared(E),
    /// Anything else, reported as a runtime failure by its category (a failed upstream call:
    /// `?` on the generated clients' errors converts to this).
    Runtime(Thrown),
}

impl<E> From<Thrown> for Failure<E> {
    fn from(thrown: Thrown) -> Self {
        Failure::Runtime(thrown)
    }
}

impl<E> From<RuntimeCategory> for Failure<E> {
    fn from(category: RuntimeCategory) -> Self {
        Failure::Runtime(Thrown::Fault(category))
    }
}

/// The error type of a tool that declares none: no value has it (its schema is `false`), and a
/// tool whose error type it is gets no `errorSchema`.
#[derive(Debug, Serialize)]
pub enum NoError {}

impl JsonSchema for NoError {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoError".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        false.into()
    }
}

/// The schema a generated type describes itself with (`harness_gen_runtime::catalog_types!`):
/// a reference to the component `component` of the generated catalog `catalog`
/// ([`catalog_ref`](crate::catalog_ref)), which [`Composer::publish`](crate::Composer::publish)
/// points at that component where the catalog is mounted.
pub fn catalog_schema(catalog: &str, component: &str) -> schemars::Schema {
    schemars::Schema::try_from(crate::catalog_ref(catalog, component))
        .expect("a reference is an object schema")
}

/// The source kind of tools written in Rust.
pub const RUST_SOURCE: &str = "rust";

/// A tool written in Rust: its entry, derived from its types and the builder, its handler, and
/// the component schemas its schemas reference. Add it to a registry with
/// [`Composer::typed`](crate::Composer::typed).
pub struct TypedTool {
    pub(crate) entry: Entry,
    pub(crate) handler: Handler,
    pub(crate) components: BTreeMap<String, Value>,
    /// What the builder was given that cannot be (a blank description, a command segment with
    /// a space), reported when the registry is published.
    pub(crate) problems: Vec<ContractError>,
}

impl TypedTool {
    /// A tool named `name` that runs `function`: its input schema from `I` (deserialized), its
    /// output schema from `O` and its error schema from `E` (serialized; none for [`NoError`]).
    /// It is at the command `name` (in kebab case) for every audience until the builder says
    /// otherwise.
    pub fn new<I, O, E, F, Fut>(name: &str, function: F) -> Self
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + 'static,
        E: Serialize + JsonSchema + 'static,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, Failure<E>>> + Send + 'static,
    {
        let mut problems = Vec::new();
        let at = format!("tool `{name}`");
        let mut components = BTreeMap::new();
        let mut schema =
            |direction, (schema, definitions): (Value, serde_json::Map<String, Value>)| {
                for (name, definition) in definitions {
                    match components.get(&name) {
                    Some(known) if *known != definition => problems.push(ContractError::new(
                        ErrorCode::DuplicateComponent,
                        format!("{at}.components.{name}"),
                        format!("the type `{name}` has one schema as {direction} and another elsewhere in the tool (a field with a default, or renamed one way only): give the two forms two types"),
                    )),
                    _ => {
                        components.insert(name, definition);
                    }
                }
                }
                schema
            };
        let input = schema("input", schema_of::<I>(Direction::Input));
        let output = schema("output", schema_of::<O>(Direction::Output));
        let error = schema("error", schema_of::<E>(Direction::Output));
        let input_schema = ObjectSchema::new(input).unwrap_or_else(|why| {
            problems.push(ContractError::new(
                ErrorCode::InvalidSchema,
                format!("{at}.inputSchema"),
                format!("the input type's schema is not an object schema ({why}): take a struct as the input"),
            ));
            ObjectSchema::new(serde_json::json!({"type": "object"})).expect("an object schema")
        });
        let name_text = NonBlank::new(name).unwrap_or_else(|_| {
            problems.push(ContractError::new(
                ErrorCode::InvalidField,
                at.clone(),
                "a tool's name must not be blank",
            ));
            NonBlank::new("unnamed").expect("not blank")
        });
        let command = harness_gen_contract::cli_names::kebab(name);
        let command = CommandPath::parse([command.as_str()]).unwrap_or_else(|why| {
            problems.push(ContractError::new(
                ErrorCode::InvalidField,
                format!("{at}.cli.command"),
                format!("no command can be made of the name ({why}): give one with `.cli(…)`"),
            ));
            CommandPath::parse(["tool"]).expect("a command")
        });
        let mut entry = Entry::new(name_text, input_schema, command);
        entry.output_schema = Some(SchemaDoc::new(output).expect("schemars writes schemas"));
        if error != Value::Bool(false) {
            entry.error_schema = Some(SchemaDoc::new(error).expect("schemars writes schemas"));
        }
        entry.source = Some(Source {
            kind: NonBlank::new(RUST_SOURCE).expect("not blank"),
            id: None,
            binding: None,
        });
        let function = Arc::new(function);
        let handler = Handler::new(move |input: Value| {
            let function = Arc::clone(&function);
            async move {
                let input: I = crate::typed_input(input)?;
                match function(input).await {
                    Ok(output) => crate::output_value(output),
                    Err(Failure::Declared(error)) => {
                        Err(Thrown::Value(crate::output_value(error)?))
                    }
                    Err(Failure::Runtime(thrown)) => Err(thrown),
                }
            }
        });
        Self {
            entry,
            handler,
            components,
            problems,
        }
    }

    /// The entry as the builder has it so far.
    pub fn entry(&self) -> &Entry {
        &self.entry
    }

    /// The component schemas the tool's schemas reference, by name.
    pub fn components(&self) -> &BTreeMap<String, Value> {
        &self.components
    }

    /// What the tool does and when to use it (the `#[tool]` attribute takes the function's doc
    /// comment). Its first line is the tool's title until [`TypedTool::title`] says otherwise.
    pub fn description(mut self, text: &str) -> Self {
        let first = text.trim().lines().next().unwrap_or_default().trim();
        if self.entry.title.is_none() && first.len() <= 80 {
            self.entry.title = NonBlank::new(first.trim_end_matches('.')).ok();
        }
        match NonBlank::new(text.trim()) {
            Ok(text) => self.entry.description = Some(text),
            Err(_) => self.problem(
                "description",
                "a description must not be blank: leave it out instead",
            ),
        }
        self
    }

    /// What the source's `id` says: the function's path (the `#[tool]` attribute gives
    /// `module::function`).
    pub fn source_id(mut self, id: &str) -> Self {
        if let (Some(source), Ok(id)) = (&mut self.entry.source, NonBlank::new(id)) {
            source.id = Some(id);
        }
        self
    }

    /// A short title for listings.
    pub fn title(mut self, text: &str) -> Self {
        match NonBlank::new(text.trim()) {
            Ok(text) => self.entry.title = Some(text),
            Err(_) => self.problem("title", "a title must not be blank: leave it out instead"),
        }
        self
    }

    /// Where it sits in the command line: its path, one word per segment
    /// (`["pets", "by-species"]`, or `"pets by-species"`).
    pub fn cli(mut self, path: &str) -> Self {
        match CommandPath::parse(path.split_whitespace()) {
            Ok(command) => self.entry.cli.command = command,
            Err(why) => self.problem(
                "cli.command",
                &format!("{why}: write kebab-case words separated by spaces"),
            ),
        }
        self
    }

    /// The projections that may expose it (all by default).
    pub fn audiences(mut self, audiences: &[Audience]) -> Self {
        match Audiences::from_any(audiences.iter().copied()) {
            Ok(audiences) => self.entry.governance.audiences = audiences,
            Err(why) => self.problem("governance.audiences", &why.to_string()),
        }
        self
    }

    /// A group it belongs to, for listing and search.
    pub fn namespace(mut self, namespace: &str) -> Self {
        match NonBlank::new(namespace) {
            Ok(namespace) => self.entry.namespace = Some(namespace),
            Err(_) => self.problem("namespace", "a namespace must not be blank"),
        }
        self
    }

    /// It calls the API mounted under `namespace` (with that API's generated client), so a
    /// server that takes credentials from each request gives it that API's
    /// (`--credential-header NAMESPACE.SCHEME=HEADER`).
    pub fn credentials_of(mut self, namespace: &str) -> Self {
        self.entry.set_mount(namespace);
        self
    }

    /// Agents find it through tool search rather than in the initial listing.
    pub fn defer_loading(mut self) -> Self {
        self.entry.defer_loading = true;
        self
    }

    /// It changes nothing (MCP's `readOnlyHint`).
    pub fn read_only(self) -> Self {
        self.annotate(|a| a.read_only_hint = Some(true))
    }

    /// It may destroy or overwrite (MCP's `destructiveHint`).
    pub fn destructive(self) -> Self {
        self.annotate(|a| a.destructive_hint = Some(true))
    }

    /// Calling it twice with the same input does what calling it once does (`idempotentHint`).
    pub fn idempotent(self) -> Self {
        self.annotate(|a| a.idempotent_hint = Some(true))
    }

    /// Whether it reaches an open world of outside entities (`openWorldHint`).
    pub fn open_world(self, open: bool) -> Self {
        self.annotate(|a| a.open_world_hint = Some(open))
    }

    /// Changes anything else of the entry (icons, `_meta`, policy).
    pub fn edit(mut self, edit: impl FnOnce(&mut Entry)) -> Self {
        edit(&mut self.entry);
        self
    }

    fn annotate(mut self, set: impl FnOnce(&mut Annotations)) -> Self {
        set(self
            .entry
            .annotations
            .get_or_insert_with(Annotations::default));
        self
    }

    fn problem(&mut self, field: &str, message: &str) {
        self.problems.push(ContractError::new(
            ErrorCode::InvalidField,
            format!("tool `{}`.{field}", self.entry.name),
            message,
        ));
    }
}

/// Which way a type's values travel, which decides its schema (a field with a default is
/// optional only in input).
#[derive(Clone, Copy)]
enum Direction {
    Input,
    Output,
}

/// `T`'s schema (2020-12, definitions under `#/components/schemas/`) and those definitions:
/// the input inline (an object schema, its generated title, the type's name,
/// left out), an output or error as schemars references it (a named type by `$ref`).
fn schema_of<T: JsonSchema>(direction: Direction) -> (Value, serde_json::Map<String, Value>) {
    let settings = match direction {
        Direction::Input => SchemaSettings::draft2020_12().for_deserialize(),
        Direction::Output => SchemaSettings::draft2020_12().for_serialize(),
    };
    let mut generator = settings
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator();
    let schema = match direction {
        Direction::Input => {
            let mut root = generator.root_schema_for::<T>().to_value();
            if let Value::Object(map) = &mut root {
                if map.get("title").and_then(Value::as_str) == Some(&*T::schema_name()) {
                    map.remove("title");
                }
                map.remove("components");
            }
            root
        }
        Direction::Output => generator.subschema_for::<T>().to_value(),
    };
    (schema, generator.take_definitions(true))
}

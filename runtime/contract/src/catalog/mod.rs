//! The portable catalog, `harn-tools/2.0`: the serializable projection of a registry.
//!
//! These Rust types own the format. Field names and casing are the format's (a mix of camelCase
//! and snake_case); every record is closed; absent optional fields are omitted. The JSON Schema
//! and the TypeScript declaration in `runtime/schema/` are generated from these types
//! (see [`crate::artifacts`]).

mod annotations;
mod cli;
mod governance;
pub mod index;
pub mod listed;
mod source;
mod text;
pub mod validate;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

#[cfg(feature = "artifacts")]
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
#[cfg(feature = "artifacts")]
use ts_rs::TS;

pub use cli::{
    ArgumentSpec, BodyOptions, BooleanStyle, CliTree, CommandSpec, ToolCli, ValueHint,
    argument_names, long_names,
};
pub use text::{
    CommandPath, CommandSegment, InvalidValue, MetaKey, NonBlank, ObjectSchema, OptionName,
    SchemaDoc,
};

pub use annotations::{Annotations, Execution, Icon, IconTheme, TaskSupport};
pub use governance::{Audience, Audiences, Governance};
pub use source::{Policy, PolicyKind, SideEffectLevel, Source, SourceBinding};

use crate::binding::Binding;
use crate::error::{ContractError, ContractErrors, ErrorCode};

/// The only catalog format version this runtime reads and writes.
pub const SCHEMA_VERSION: &str = "harn-tools/2.0";

/// The `_meta` key reserved for the tool contract's own projection.
pub const CONTRACT_META_KEY: &str = "com.harnlang/toolContract";

/// The `_meta` key holding a tool's tags (an array of strings; harness-gen writes an
/// operation's OpenAPI tags there): what MCP servers choose tools by and tool search matches.
pub const TAGS_META_KEY: &str = "com.harnlang/tags";

/// The `_meta` key naming the namespace whose API a tool calls with that API's credentials (a
/// string): set on every tool of a mounted registry (`Composer::mount`) and on tools written in
/// Rust that call a mounted API (`TypedTool::credentials_of`). A server that takes credentials
/// from each request maps `NAMESPACE.SCHEME=HEADER` for these tools, so two mounted APIs with
/// schemes of one name take them from two headers.
pub const MOUNT_META_KEY: &str = "com.harnlang/mount";

/// The `_meta` key holding a tool's descriptions for particular audiences (an object from
/// audience to text, e.g. `{"mcp": "…", "agent": "…"}`; harness-gen writes
/// `x-harn.descriptions` there): what that audience is told instead of `description`.
pub const DESCRIPTIONS_META_KEY: &str = "com.harnlang/descriptions";

/// A whole catalog.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Always `harn-tools/2.0`.
    pub schema_version: SchemaVersion,
    /// What the registry is.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub info: Option<Info>,
    /// Parent-command metadata for the CLI tree.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub cli: Option<CliTree>,
    /// The tools, in registry order.
    pub tools: Vec<Entry>,
    /// Named schemas that tool schemas reference as `#/components/schemas/<name>`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub components: Option<Components>,
}

/// The format version marker; any other value is refused with a message to regenerate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[cfg_attr(feature = "artifacts", schemars(with = "SchemaVersionLiteral"))]
#[cfg_attr(feature = "artifacts", ts(type = "\"harn-tools/2.0\""))]
pub struct SchemaVersion;

#[cfg(feature = "artifacts")]
#[derive(JsonSchema)]
#[allow(dead_code)]
enum SchemaVersionLiteral {
    #[serde(rename = "harn-tools/2.0")]
    V2,
}

impl Serialize for SchemaVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(SCHEMA_VERSION)
    }
}

impl<'de> Deserialize<'de> for SchemaVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value == SCHEMA_VERSION {
            Ok(SchemaVersion)
        } else {
            Err(serde::de::Error::custom(format!(
                "unsupported catalog version: only \"{SCHEMA_VERSION}\" is read; regenerate the catalog with the current harness-gen"
            )))
        }
    }
}

/// What the registry is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct Info {
    /// The catalog's name (for a generated crate: the kebab-case API title).
    pub name: NonBlank,
    /// The version of the API or tool set the catalog describes.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub version: Option<NonBlank>,
    /// What the tools are for, as one text.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub description: Option<NonBlank>,
}

/// Reusable named schemas.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct Components {
    /// Schemas by name.
    #[cfg_attr(
        feature = "artifacts",
        ts(type = "{ readonly [name: string]: JsonSchema }")
    )]
    pub schemas: BTreeMap<String, SchemaDoc>,
}

/// One tool's contract, as serialized. The live `ToolRegistry` pairs each of these with
/// its handler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entry {
    /// The tool's name: unique in the catalog, the name MCP clients and agents call it by.
    pub name: NonBlank,
    /// A short human-readable title for listings.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub title: Option<NonBlank>,
    /// What the tool does and when to use it, for people and models.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub description: Option<NonBlank>,
    /// The JSON Schema (2020-12) of the tool's input: an object schema; `$ref`s point into `components`.
    pub input_schema: ObjectSchema,
    /// The JSON Schema of a successful result; absent when the tool returns nothing structured.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub output_schema: Option<SchemaDoc>,
    /// The JSON Schema of the application errors the tool declares (what it may fail with on purpose, as opposed to runtime failures).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub error_schema: Option<SchemaDoc>,
    /// Advisory hints for clients (MCP tool annotations): they describe, they do not enforce.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub annotations: Option<Annotations>,
    /// Icons clients may show next to the tool.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    #[cfg_attr(feature = "artifacts", schemars(length(min = 1), extend("uniqueItems" = true)))]
    pub icons: Option<Vec<Icon>>,
    /// Whether the tool runs as an MCP task (long-running, polled).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub execution: Option<Execution>,
    /// Which projections may expose the tool.
    pub governance: Governance,
    /// Where the tool sits in the command-line tree and how its arguments are spelled.
    pub cli: ToolCli,
    /// A group the tool belongs to (for generated tools: the OpenAPI tag), for listing and search.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub namespace: Option<NonBlank>,
    /// Whether agents leave the tool out of the initial listing and find it through search.
    pub defer_loading: bool,
    /// Where the tool came from and how a call reaches it.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub source: Option<Source>,
    /// Execution classification (kind of work, strongest side effect), separate from the advisory hints.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub policy: Option<Policy>,
    /// Open metadata by namespaced key; `com.harnlang/toolContract` is reserved for the contract's own projection.
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(
        feature = "artifacts",
        ts(optional, type = "{ readonly [key: string]: JsonValue }")
    )]
    pub meta: Option<BTreeMap<MetaKey, Value>>,
}

impl Entry {
    /// Whether its output is bytes (an OpenAPI operation whose success body is bytes: a
    /// download), which adapters write or carry as binary rather than as JSON.
    pub fn returns_bytes(&self) -> bool {
        self.source
            .as_ref()
            .and_then(Source::openapi_binding)
            .and_then(|binding| binding.response.as_ref())
            .is_some_and(|response| response.encoding == crate::binding::Encoding::Bytes)
    }

    /// A minimal entry: the given name, input schema and command, every audience, nothing else.
    pub fn new(name: NonBlank, input_schema: ObjectSchema, command: CommandPath) -> Self {
        Self {
            name,
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            error_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            governance: Governance::default(),
            cli: ToolCli::at(command),
            namespace: None,
            defer_loading: false,
            source: None,
            policy: None,
            meta: None,
        }
    }

    /// The line a command list shows for the tool: its title, else its annotations' title,
    /// else its name.
    pub fn command_title(&self) -> &str {
        self.title
            .as_deref()
            .or(self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(self.name.as_str())
    }

    /// Whether `audience` may see and call this tool.
    pub fn allows(&self, audience: Audience) -> bool {
        self.governance.audiences.contains(audience)
    }

    /// The tool's tags (`_meta["com.harnlang/tags"]`), in order.
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.meta
            .iter()
            .flatten()
            .find(|(key, _)| key.as_str() == TAGS_META_KEY)
            .and_then(|(_, tags)| tags.as_array())
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
    }

    /// The namespace whose credentials the tool calls with (`_meta["com.harnlang/mount"]`).
    pub fn mount(&self) -> Option<&str> {
        self.meta
            .iter()
            .flatten()
            .find(|(key, _)| key.as_str() == MOUNT_META_KEY)
            .and_then(|(_, mount)| mount.as_str())
    }

    /// Sets the namespace whose credentials the tool calls with.
    pub fn set_mount(&mut self, namespace: &str) {
        let key = MetaKey::new(MOUNT_META_KEY).expect("a valid key");
        self.meta
            .get_or_insert_with(BTreeMap::new)
            .insert(key, Value::String(namespace.to_string()));
    }

    /// The tool's description as `audience` is told it: its own
    /// (`_meta["com.harnlang/descriptions"]`), else `description`.
    pub fn description_for(&self, audience: Audience) -> Option<&str> {
        let key = audience.as_str();
        self.meta
            .iter()
            .flatten()
            .find(|(meta, _)| meta.as_str() == DESCRIPTIONS_META_KEY)
            .and_then(|(_, descriptions)| descriptions.get(key)?.as_str())
            .or(self.description.as_deref())
    }

    /// Whether `id` names this tool: its name, or `namespace.name` (how a `.harness` tool id
    /// refers to a registry tool).
    pub fn is_named(&self, id: &str) -> bool {
        let name = self.name.as_str();
        id == name
            || self.namespace.as_ref().is_some_and(|ns| {
                id.strip_prefix(ns.as_str())
                    .and_then(|rest| rest.strip_prefix('.'))
                    == Some(name)
            })
    }
}

/// A catalog compiled into the program by harness-gen, made only by
/// [`Catalog::from_generated_json`] and [`Catalog::from_generated_index`].
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedCatalog {
    catalog: Catalog,
    /// The tools of the text that were deliberately not read (not kept, or not in this build):
    /// their handlers are set aside when the catalog is published.
    left_out: BTreeSet<String>,
}

impl GeneratedCatalog {
    /// The catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The catalog, owned.
    pub fn into_catalog(self) -> Catalog {
        self.catalog
    }

    /// The catalog of the tools `keep` keeps ([`Catalog::retain_tools`]); the others are left
    /// out like tools not read, so their handlers are set aside when it is published. Dropping
    /// tools keeps every publish-time rule the catalog passed, so it stays a generated catalog.
    pub fn retain_tools(mut self, mut keep: impl FnMut(&Entry) -> bool) -> Self {
        let left_out = &mut self.left_out;
        self.catalog.retain_tools(|entry| {
            let kept = keep(entry);
            if !kept {
                left_out.insert(entry.name.to_string());
            }
            kept
        });
        self
    }

    /// Whether the tool named `name` is in the text but was not read.
    pub fn left_out(&self, name: &str) -> bool {
        self.left_out.contains(name)
    }
}

impl Catalog {
    /// Keeps the tools `keep` keeps, and the parent-command metadata of the CLI commands that
    /// still hold one of them; components stay (tools share them).
    pub fn retain_tools(&mut self, keep: impl FnMut(&Entry) -> bool) {
        self.tools.retain(keep);
        let tools = &self.tools;
        if let Some(tree) = &mut self.cli {
            tree.commands.retain(|spec| {
                let parent = spec.command.segments();
                tools.iter().any(|entry| {
                    entry.allows(Audience::Cli) && entry.cli.command.segments().starts_with(parent)
                })
            });
        }
    }

    /// An empty catalog.
    pub fn new(tools: Vec<Entry>) -> Self {
        Self {
            schema_version: SchemaVersion,
            info: None,
            cli: None,
            tools,
            components: None,
        }
    }

    /// Parses and validates a catalog: structure while deserializing, then the publish-time
    /// rules ([`crate::validate`]). Every error names where it is.
    pub fn from_json(text: &str) -> Result<Catalog, ContractErrors> {
        let catalog = Self::parse(text)?;
        validate::validate_catalog(&catalog)?;
        Ok(catalog)
    }

    /// Parses the catalog harness-gen generated into a crate (its `CATALOG_JSON`), which
    /// harness-gen checked against every publish-time rule when it wrote it: records and fields
    /// are validated while deserializing, but the cross-entry rules (schemas against the
    /// meta-schema, references, the CLI tree) are not run again, which keeps start-up fast for
    /// large APIs.
    ///
    /// Why skipping them is safe: the text must be `'static`, i.e. compiled into the program
    /// (`include_str!` or a literal), so a catalog read at run time (a file, a request, another
    /// registry's export) cannot come through this door; it goes through [`Catalog::from_json`].
    /// The result is a [`GeneratedCatalog`], the only input of
    /// [`crate::ToolRegistry::publish_generated`].
    pub fn from_generated_json(text: &'static str) -> Result<GeneratedCatalog, ContractErrors> {
        Self::parse(text).map(|catalog| GeneratedCatalog {
            catalog,
            left_out: BTreeSet::new(),
        })
    }

    /// The structural parse: records and fields checked, every error located.
    fn parse(text: &str) -> Result<Catalog, ContractErrors> {
        // Fast path: a well-formed catalog parses without tracking field paths (a large
        // catalog parses in about half the time). Only a failure is parsed again, with paths,
        // to say where it is.
        if let Ok(catalog) = serde_json::from_str(text) {
            return Ok(catalog);
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let catalog = deserialize_located(&mut de)?;
        de.end().map_err(|e| {
            ContractErrors::one(ContractError::new(
                ErrorCode::Syntax,
                format!("line {} column {}", e.line(), e.column()),
                "trailing characters after the catalog: remove them",
            ))
        })?;
        Ok(catalog)
    }

    /// Like [`Catalog::from_json`], from an already parsed value.
    pub fn from_value(value: Value) -> Result<Catalog, ContractErrors> {
        let catalog = deserialize_located(value)?;
        validate::validate_catalog(&catalog)?;
        Ok(catalog)
    }

    /// The catalog as pretty-printed JSON with a trailing newline: the form written to disk.
    pub fn to_json_pretty(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The named component schemas (empty when the catalog has none).
    pub fn component_schemas(&self) -> Option<&BTreeMap<String, SchemaDoc>> {
        self.components.as_ref().map(|c| &c.schemas)
    }
}

/// Deserializes an optional field that, when present, must hold a value: `null` is refused
/// (absent optional fields are omitted, never written as `null`).
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

fn deserialize_located<'de, D>(de: D) -> Result<Catalog, ContractErrors>
where
    D: Deserializer<'de>,
    D::Error: IntoLocated,
{
    serde_path_to_error::deserialize(de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let (code, where_) = match inner.syntax_position() {
            Some((line, column)) => (ErrorCode::Syntax, format!("line {line} column {column}")),
            None if path == "schema_version" => (ErrorCode::UnsupportedVersion, path),
            None => (ErrorCode::InvalidField, path),
        };
        ContractErrors::one(ContractError::new(code, where_, inner.message()))
    })
}

/// Access to what a deserializer error says, without its position suffix.
trait IntoLocated {
    fn syntax_position(&self) -> Option<(usize, usize)>;
    fn message(&self) -> String;
}

impl IntoLocated for serde_json::Error {
    fn syntax_position(&self) -> Option<(usize, usize)> {
        match self.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                Some((self.line(), self.column()))
            }
            _ => None,
        }
    }

    fn message(&self) -> String {
        let text = self.to_string();
        match text.rfind(" at line ") {
            Some(cut) if self.line() > 0 => crate::error::mask_serde_message(&text[..cut]),
            _ => crate::error::mask_serde_message(&text),
        }
    }
}

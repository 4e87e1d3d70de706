//! The CLI records of the catalog format: a tool's command, its per-argument token metadata,
//! and the catalog-level metadata for parent commands.

use std::collections::BTreeMap;

#[cfg(feature = "artifacts")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(feature = "artifacts")]
use ts_rs::TS;

use super::present;
use super::text::{CommandPath, CommandSegment, NonBlank, OptionName};
use crate::cli_names::{ArgumentName, default_long};

/// Where and how a tool appears in the generated command-line program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct ToolCli {
    /// The command path, e.g. `["pets", "list"]`.
    pub command: CommandPath,
    /// Other spellings of the last segment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "artifacts", schemars(extend("uniqueItems" = true)))]
    #[cfg_attr(
        feature = "artifacts",
        ts(as = "Option<Vec<CommandSegment>>", optional)
    )]
    pub aliases: Vec<CommandSegment>,
    /// Hidden from help, still callable.
    pub hidden: bool,
    /// Token metadata per input property; a property without an entry becomes `--kebab-name`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(
        feature = "artifacts",
        ts(as = "Option<BTreeMap<String, ArgumentSpec>>", optional)
    )]
    pub arguments: BTreeMap<String, ArgumentSpec>,
}

impl ToolCli {
    /// A visible command at `path` with no aliases and default argument handling.
    pub fn at(path: CommandPath) -> Self {
        Self {
            command: path,
            aliases: Vec::new(),
            hidden: false,
            arguments: BTreeMap::new(),
        }
    }
}

/// Completion hint for an argument's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "snake_case")]
pub enum ValueHint {
    /// A file path.
    File,
    /// A directory path.
    Directory,
    /// Any path.
    Path,
    /// A URL.
    Url,
    /// An email address.
    Email,
    /// A user name.
    Username,
    /// A host name.
    Hostname,
    /// A command line.
    Command,
    /// Anything else.
    Other,
}

/// How a boolean property is spelled on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "snake_case")]
pub enum BooleanStyle {
    /// `--flag true` / `--flag false`.
    #[default]
    Value,
    /// `--flag` sets `true`; absent leaves the property out.
    SetTrue,
    /// `--flag` sets `false`; absent leaves the property out.
    SetFalse,
}

impl BooleanStyle {
    fn is_default(&self) -> bool {
        *self == Self::Value
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// Token metadata for one input property.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct ArgumentSpec {
    /// Long option name, without dashes; defaults to the property name in kebab-case.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub long: Option<OptionName>,
    /// One-character short option.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub short: Option<char>,
    /// Other long names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "artifacts", schemars(extend("uniqueItems" = true)))]
    #[cfg_attr(feature = "artifacts", ts(as = "Option<Vec<OptionName>>", optional))]
    pub aliases: Vec<OptionName>,
    /// Positional index instead of an option.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub position: Option<u32>,
    /// Placeholder shown in help.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub value_name: Option<NonBlank>,
    /// Help text; defaults to the property's description.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub help: Option<NonBlank>,
    /// Completion hint.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub value_hint: Option<ValueHint>,
    /// Boolean spelling.
    #[serde(default, skip_serializing_if = "BooleanStyle::is_default")]
    #[cfg_attr(feature = "artifacts", ts(as = "Option<BooleanStyle>", optional))]
    pub boolean_style: BooleanStyle,
    /// The option may be given several times (array properties).
    #[serde(default, skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "artifacts", ts(as = "Option<bool>", optional))]
    pub repeatable: bool,
    /// Hidden from help.
    #[serde(default, skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "artifacts", ts(as = "Option<bool>", optional))]
    pub hidden: bool,
    /// Advisory completion candidates; they do not constrain the value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "artifacts", schemars(extend("uniqueItems" = true)))]
    #[cfg_attr(feature = "artifacts", ts(as = "Option<Vec<String>>", optional))]
    pub completions: Vec<String>,
    /// Order in help.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub display_order: Option<u32>,
    /// Help heading the argument is listed under.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub help_group: Option<NonBlank>,
}

/// Catalog-level CLI metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct CliTree {
    /// Titles, descriptions and aliases of parent (non-runnable) commands.
    #[serde(default)]
    pub commands: Vec<CommandSpec>,
}

/// Presentation of one parent command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// The parent command's path.
    pub command: CommandPath,
    /// Short title.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub title: Option<NonBlank>,
    /// Longer help text.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub description: Option<NonBlank>,
    /// Other spellings of the last segment.
    #[serde(default)]
    #[cfg_attr(feature = "artifacts", schemars(extend("uniqueItems" = true)))]
    #[cfg_attr(
        feature = "artifacts",
        ts(as = "Option<Vec<CommandSegment>>", optional)
    )]
    pub aliases: Vec<CommandSegment>,
    /// Hidden from help.
    #[serde(default)]
    #[cfg_attr(feature = "artifacts", ts(as = "Option<bool>", optional))]
    pub hidden: bool,
    /// Order in help.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub display_order: Option<u32>,
}

/// The long options the input properties `properties` of a tool take, by their specs in
/// `arguments` ([`argument_names`]): the names a body field's option must not take
/// ([`crate::cli_names::body::options`]).
pub fn long_names<'a>(
    properties: impl IntoIterator<Item = &'a str>,
    arguments: &BTreeMap<String, ArgumentSpec>,
) -> std::collections::BTreeSet<String> {
    properties
        .into_iter()
        .flat_map(|property| argument_names(property, arguments.get(property)))
        .filter_map(|name| match name {
            ArgumentName::Long(long) => Some(long),
            _ => None,
        })
        .collect()
}

/// A tool's object request body (JSON, form or multipart) as options of its command, named by
/// one rule for the CLI, which builds them, and the generator, which notes the renamed ones.
#[derive(Clone, Debug)]
pub struct BodyOptions<'a> {
    /// The input property holding the body.
    pub property: &'a str,
    /// Its top-level fields ([`crate::cli_names::body::fields`]).
    pub fields: Vec<crate::cli_names::body::Field<'a>>,
    /// Each field's long option and whether it had to be renamed
    /// ([`crate::cli_names::body::options`]), in the order of `fields`.
    pub longs: Vec<(String, bool)>,
    /// The assignment option's long name ([`crate::cli_names::body::assign_long`]).
    pub assign: String,
}

impl<'a> BodyOptions<'a> {
    /// The body options of a tool whose binding is `binding`, input schema `input` and argument
    /// specs `arguments`; `resolve` gives a component's schema by name. `None` when the tool
    /// has no object body among its input's properties.
    pub fn of(
        binding: &'a crate::binding::Binding,
        input: &'a serde_json::Value,
        arguments: &BTreeMap<String, ArgumentSpec>,
        resolve: &dyn Fn(&str) -> Option<&'a serde_json::Value>,
    ) -> Option<Self> {
        use crate::binding::Encoding;
        use crate::cli_names::body;
        let binding = binding.body.as_ref()?;
        if !matches!(
            binding.encoding,
            Encoding::Json | Encoding::Form | Encoding::Multipart
        ) {
            return None;
        }
        let properties = input.get("properties")?.as_object()?;
        let property = binding.property.as_ref();
        let fields = body::fields(properties.get(property)?, resolve);
        let mut taken = long_names(properties.keys().map(String::as_str), arguments);
        let assign = body::assign_long(&taken);
        let longs = body::options(&fields, &mut taken);
        Some(BodyOptions {
            property,
            fields,
            longs,
            assign,
        })
    }
}

/// Every name by which `property` can be given: position, or long name, aliases and short.
pub fn argument_names(property: &str, spec: Option<&ArgumentSpec>) -> Vec<ArgumentName> {
    let Some(spec) = spec else {
        return vec![ArgumentName::Long(default_long(property))];
    };
    if let Some(position) = spec.position {
        return vec![ArgumentName::Position(position)];
    }
    let mut names = vec![ArgumentName::Long(
        spec.long
            .as_ref()
            .map_or_else(|| default_long(property), |l| l.to_string()),
    )];
    names.extend(
        spec.aliases
            .iter()
            .map(|a| ArgumentName::Long(a.to_string())),
    );
    names.extend(spec.short.map(ArgumentName::Short));
    names
}

//! One tool's command: an argument per input property, named and shaped by its argument spec,
//! and the values given on the command line turned back into JSON by the property's schema.

use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, ArgMatches, Command, ValueHint as ClapHint};
use serde_json::Value;

use crate::ToolRegistry;
use crate::catalog::{self, ArgumentSpec, BooleanStyle, Entry, OptionName, ValueHint};
use crate::cli_names::{body, default_long};

/// The clap id of the argument of input property `property`: `/` and the property, which no
/// global option's id (a kebab-case word) can be, so a property named like one of the CLI's own
/// options (`include`, `output`) never reads that option's value.
fn id(property: &str) -> String {
    format!("/{property}")
}

/// The clap id of the option of body field `field`: `=` and the field (no property's id starts
/// so).
fn field_id(field: &str) -> String {
    format!("={field}")
}

/// The clap id of the body's assignment option (`--field key.path=value`).
const ASSIGN_ID: &str = "=";

/// The heading the body's options are listed under in `--help`.
const BODY_HEADING: &str = "Body fields";
/// The id of `--body-file`.
const BODY_FILE_ID: &str = "__body_file";

/// The property's schema with a top-level component reference followed.
fn schema_of<'a>(schema: &'a Value, registry: &'a ToolRegistry) -> &'a Value {
    body::resolved(schema, &|name| {
        registry
            .components()
            .and_then(|c| c.get(name))
            .map(|s| s.as_value())
    })
}

/// The JSON type a command-line value of `schema` is read as: its `type` (the first besides
/// `null`), else the one type every member of its `allOf`, `anyOf` or `oneOf` has (OpenAI's
/// chat request is an `allOf` of objects), else `object` or `array` by its keywords; `""` when
/// it says nothing.
fn type_of<'a>(schema: &'a Value, registry: &'a ToolRegistry) -> &'a str {
    match schema.get("type") {
        Some(Value::String(t)) => return t,
        Some(Value::Array(types)) => {
            return types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("string");
        }
        _ => {}
    }
    if schema.get("properties").is_some() {
        return "object";
    }
    if schema.get("items").is_some() {
        return "array";
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        let Some(Value::Array(members)) = schema.get(keyword) else {
            continue;
        };
        let mut types = members
            .iter()
            .map(|m| type_of(schema_of(m, registry), registry))
            .filter(|t| !t.is_empty() && *t != "null");
        if let Some(first) = types.next()
            && types.all(|t| t == first)
        {
            return first;
        }
    }
    ""
}

fn properties(entry: &Entry) -> Vec<(&String, &Value)> {
    entry
        .input_schema
        .as_value()
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

/// The leaf command of `entry`, named `name`, with its options: one per input property, then,
/// when the tool has an object request body, one per top-level field of the body and the
/// repeatable assignment option, under their own heading.
pub fn leaf(name: &str, entry: &Entry, registry: &ToolRegistry) -> Command {
    let mut command = Command::new(name.to_string()).hide(entry.cli.hidden);
    command = command.about(entry.command_title().to_string());
    if let Some(description) = &entry.description {
        command = command.long_about(description.to_string());
    }
    for alias in &entry.cli.aliases {
        command = command.visible_alias(alias.to_string());
    }
    let required: Vec<&str> = entry
        .input_schema
        .as_value()
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (property, schema) in properties(entry) {
        let spec = entry
            .cli
            .arguments
            .get(property)
            .cloned()
            .unwrap_or_default();
        let schema = schema_of(schema, registry);
        command = command.arg(argument(
            Arg::new(id(property)),
            (property, schema),
            &spec,
            required.contains(&property.as_str()),
            registry,
        ));
    }
    if let Some(fields) = BodyFields::of(entry, registry) {
        for (field, spec) in fields.specs(registry) {
            let arg = argument(
                Arg::new(field_id(field.name)),
                (field.name, field.schema),
                &spec,
                field.required,
                registry,
            );
            command = command.arg(arg.help_heading(BODY_HEADING));
        }
        if let Some(long) = fields.file_long() {
            command = command.arg(
                Arg::new(BODY_FILE_ID)
                    .long(long)
                    .value_name("FILE")
                    .conflicts_with(id(fields.options.property))
                    .help(format!(
                        "The whole --{} as JSON from FILE (- for standard input); the body's options and assignments change its fields",
                        fields.body_long
                    ))
                    .help_heading(BODY_HEADING),
            );
        }
        command = command.arg(
            Arg::new(ASSIGN_ID)
                .long(fields.options.assign.clone())
                .action(ArgAction::Append)
                .value_name("KEY=VALUE")
                .help(format!(
                    "Sets one value of --{} by its path: `a.b=text` (typed by the schema), `a.0.b=text` (an array item), `a:=JSON` (any JSON); repeatable",
                    fields.body_long
                ))
                .help_heading(BODY_HEADING),
        );
    }
    command
}

/// A tool's object request body as options ([`catalog::BodyOptions`]), and the body's own
/// option's name (for messages).
struct BodyFields<'a> {
    options: catalog::BodyOptions<'a>,
    body_long: String,
}

impl<'a> BodyFields<'a> {
    /// The body of `entry` as options, when it is a JSON, form or multipart body among the
    /// input's properties.
    fn of(entry: &'a Entry, registry: &'a ToolRegistry) -> Option<Self> {
        let binding = entry.source.as_ref()?.openapi_binding()?;
        let resolve = |name: &str| {
            registry
                .components()
                .and_then(|c| c.get(name))
                .map(|s| s.as_value())
        };
        let input = entry.input_schema.as_value();
        let options = catalog::BodyOptions::of(binding, input, &entry.cli.arguments, &resolve)?;
        let body_long = entry
            .cli
            .arguments
            .get(options.property)
            .and_then(|s| s.long.as_ref())
            .map_or_else(|| default_long(options.property), |l| l.to_string());
        Some(BodyFields { options, body_long })
    }

    /// Each field with the spec of its option: its long name, repeated when an array of
    /// scalars, a flag when a boolean.
    fn specs(&self, registry: &ToolRegistry) -> Vec<(&body::Field<'a>, ArgumentSpec)> {
        let longs = self.options.longs.iter().map(|(long, _)| long);
        self.options
            .fields
            .iter()
            .zip(longs)
            .map(|(field, long)| {
                let spec = ArgumentSpec {
                    long: OptionName::new(long.clone()).ok(),
                    repeatable: is_scalar_array(field.schema, registry),
                    boolean_style: BooleanStyle::SetTrue,
                    ..ArgumentSpec::default()
                };
                (field, spec)
            })
            .collect()
    }
}

/// Whether `schema` is an array of scalars (repeated as an option, `--stop a --stop b`).
fn is_scalar_array(schema: &Value, registry: &ToolRegistry) -> bool {
    type_of(schema, registry) == "array"
        && schema.get("items").is_some_and(|items| {
            matches!(
                type_of(schema_of(items, registry), registry),
                "string" | "integer" | "number" | "boolean"
            )
        })
}

fn argument(
    arg: Arg,
    (property, schema): (&str, &Value),
    spec: &ArgumentSpec,
    required: bool,
    registry: &ToolRegistry,
) -> Arg {
    let mut arg = match spec.position {
        Some(position) => arg.index(position as usize + 1),
        None => {
            let long = spec
                .long
                .as_ref()
                .map_or_else(|| default_long(property), |l| l.to_string());
            let mut arg = arg.long(long);
            for alias in &spec.aliases {
                arg = arg.visible_alias(alias.to_string());
            }
            if let Some(short) = spec.short {
                arg = arg.short(short);
            }
            arg
        }
    };
    let ty = type_of(schema, registry);
    arg = match (ty, spec.boolean_style) {
        ("boolean", BooleanStyle::SetTrue | BooleanStyle::SetFalse) if spec.position.is_none() => {
            arg.action(ArgAction::SetTrue)
        }
        ("boolean", _) => arg.value_parser(["true", "false"]).action(ArgAction::Set),
        ("array", _) if spec.repeatable => arg.action(ArgAction::Append),
        _ => arg.action(ArgAction::Set),
    };
    let enum_values = if ty == "array" {
        schema
            .get("items")
            .and_then(|i| schema_of(i, registry).get("enum"))
    } else {
        schema.get("enum")
    };
    if let Some(Value::Array(values)) = enum_values {
        let strings: Vec<String> = values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        if strings.len() == values.len() && (ty != "array" || spec.repeatable) {
            arg = arg.value_parser(PossibleValuesParser::new(strings));
        }
    }
    let mut help = spec
        .help
        .as_ref()
        .map(|h| h.to_string())
        .or_else(|| {
            schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default();
    let shape = match ty {
        "object" => " (JSON object)",
        "array" if !spec.repeatable => " (JSON array)",
        _ => "",
    };
    help.push_str(shape);
    if required {
        help.push_str(" [required]");
    }
    if let Some(default) = schema.get("default") {
        help.push_str(&format!(" [default: {default}]"));
    }
    arg = arg.help(help.trim().to_string()).hide(spec.hidden);
    // Shown as `<property>` unless the spec names the value (the id is not for people).
    if let Some(name) = &spec.value_name {
        arg = arg.value_name(name.to_string());
    } else if arg.get_action().takes_values() {
        arg = arg.value_name(property.to_string());
    }
    if let Some(hint) = spec.value_hint {
        arg = arg.value_hint(match hint {
            ValueHint::File => ClapHint::FilePath,
            ValueHint::Directory => ClapHint::DirPath,
            ValueHint::Path => ClapHint::AnyPath,
            ValueHint::Url => ClapHint::Url,
            ValueHint::Email => ClapHint::EmailAddress,
            ValueHint::Username => ClapHint::Username,
            ValueHint::Hostname => ClapHint::Hostname,
            ValueHint::Command => ClapHint::CommandName,
            ValueHint::Other => ClapHint::Other,
        });
    }
    if let Some(group) = &spec.help_group {
        arg = arg.help_heading(group.to_string());
    }
    if let Some(order) = spec.display_order {
        arg = arg.display_order(order as usize);
    }
    arg
}

/// The properties given on the command line, as JSON values by their schema type; the body's
/// fields and assignments given go into the body property's object (over what `--body` gave).
pub fn values(
    entry: &Entry,
    matches: &ArgMatches,
    registry: &ToolRegistry,
) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    for (property, schema) in properties(entry) {
        let spec = entry
            .cli
            .arguments
            .get(property)
            .cloned()
            .unwrap_or_default();
        let schema = schema_of(schema, registry);
        let long = spec
            .long
            .as_ref()
            .map_or_else(|| default_long(property), |l| l.to_string());
        if let Some(value) = value_of(matches, &id(property), (&long, schema), &spec, registry)? {
            out.push((property.clone(), value));
        }
    }
    if let Some(fields) = BodyFields::of(entry, registry) {
        fields.gather(matches, registry, &mut out)?;
    }
    Ok(out)
}

/// The value the option `id` (`--long`, of `schema`) was given, if any.
fn value_of(
    matches: &ArgMatches,
    id: &str,
    (long, schema): (&str, &Value),
    spec: &ArgumentSpec,
    registry: &ToolRegistry,
) -> Result<Option<Value>, String> {
    let ty = type_of(schema, registry);
    if ty == "boolean" && spec.position.is_none() && spec.boolean_style != BooleanStyle::Value {
        return Ok(matches
            .get_flag(id)
            .then(|| Value::Bool(spec.boolean_style == BooleanStyle::SetTrue)));
    }
    let Some(raw) = matches.get_many::<String>(id) else {
        return Ok(None);
    };
    let raw: Vec<&String> = raw.collect();
    let value = if ty == "array" && spec.repeatable {
        let item_schema = schema
            .get("items")
            .map(|i| schema_of(i, registry))
            .unwrap_or(&Value::Null);
        Value::Array(
            raw.iter()
                .map(|r| scalar(long, r, item_schema, registry))
                .collect::<Result<_, _>>()?,
        )
    } else {
        scalar(long, raw[raw.len() - 1], schema, registry)?
    };
    Ok(Some(value))
}

impl BodyFields<'_> {
    /// `--body-file` (after the body's own option), unless a field's option has that name.
    fn file_long(&self) -> Option<String> {
        let long = format!("{}-file", self.body_long);
        let taken =
            self.options.longs.iter().any(|(l, _)| *l == long) || self.options.assign == long;
        (!taken).then_some(long)
    }

    /// Puts the fields and assignments given into the body's value in `out` (made an object
    /// when `--body` gave none).
    fn gather(
        &self,
        matches: &ArgMatches,
        registry: &ToolRegistry,
        out: &mut Vec<(String, Value)>,
    ) -> Result<(), String> {
        if let Some(file) = matches.get_one::<String>(BODY_FILE_ID) {
            let long = self.file_long().unwrap_or_default();
            let source = if file == "-" {
                "-".to_string()
            } else {
                format!("@{file}")
            };
            let text =
                super::read_json_source(&source).map_err(|why| format!("--{long}: {why}"))?;
            let value = serde_json::from_str(&text)
                .map_err(|e| format!("--{long}: {file} is not JSON ({e})"))?;
            out.retain(|(p, _)| p != self.options.property);
            out.push((self.options.property.to_string(), value));
        }
        let mut given = Vec::new();
        for (field, spec) in self.specs(registry) {
            let id = field_id(field.name);
            let long = spec.long.as_ref().map_or(field.name, |l| l.as_ref());
            if let Some(value) = value_of(matches, &id, (long, field.schema), &spec, registry)? {
                given.push((vec![field.name.to_string()], value));
            }
        }
        for assignment in matches.get_many::<String>(ASSIGN_ID).into_iter().flatten() {
            given.push(self.assignment(assignment, registry)?);
        }
        if given.is_empty() {
            return Ok(());
        }
        let at = match out.iter().position(|(p, _)| p == self.options.property) {
            Some(at) => at,
            None => {
                out.push((
                    self.options.property.to_string(),
                    Value::Object(Default::default()),
                ));
                out.len() - 1
            }
        };
        let body = &mut out[at].1;
        if !body.is_object() {
            return Err(format!(
                "--{}: fields and --{} set values of a JSON object, and this is not one",
                self.body_long, self.options.assign
            ));
        }
        for (path, value) in given {
            set(body, &path, value).map_err(|why| format!("--{}: {why}", self.options.assign))?;
        }
        Ok(())
    }

    /// One `--field` assignment: `a.b=text`, typed by the schema at that path, or `a.b:=JSON`.
    fn assignment(
        &self,
        text: &str,
        registry: &ToolRegistry,
    ) -> Result<(Vec<String>, Value), String> {
        let bad = |why: &str| format!("--{} {text}: {why}", self.options.assign);
        let (key, raw, json) = match (text.find(":="), text.find('=')) {
            (Some(colon), Some(equals)) if colon < equals => {
                (&text[..colon], &text[colon + 2..], true)
            }
            (_, Some(equals)) => (&text[..equals], &text[equals + 1..], false),
            _ => return Err(bad("expected KEY=VALUE or KEY:=JSON")),
        };
        let path: Vec<String> = key.split('.').map(str::to_string).collect();
        if path.iter().any(String::is_empty) {
            return Err(bad("a key is names joined by `.`, none of them empty"));
        }
        let value = if json {
            serde_json::from_str(raw).map_err(|_| bad("the value after `:=` is not JSON"))?
        } else {
            let schema = self.schema_at(&path, registry);
            scalar(&self.options.assign, raw, schema, registry)?
        };
        Ok((path, value))
    }

    /// The schema of the body's value at `path` (properties by name, array items by index),
    /// `null` (any) where the schema says nothing.
    fn schema_at<'s>(&'s self, path: &[String], registry: &'s ToolRegistry) -> &'s Value {
        let Some(field) = self.options.fields.iter().find(|f| f.name == path[0]) else {
            return &Value::Null;
        };
        let mut schema = field.schema;
        for segment in &path[1..] {
            match inside(schema, segment, registry, 4) {
                Some(next) => schema = schema_of(next, registry),
                None => return &Value::Null,
            }
        }
        schema
    }
}

/// The schema of what `segment` names inside a value of `schema` (a property by name, an item
/// by index), looking into the members of its `allOf`, `anyOf` and `oneOf` (references
/// followed, `depth` levels down) when it says nothing itself: OpenAI's
/// `stream_options` is `anyOf: [{$ref: ChatCompletionStreamOptions}, {type: null}]`.
fn inside<'s>(
    schema: &'s Value,
    segment: &str,
    registry: &'s ToolRegistry,
    depth: u8,
) -> Option<&'s Value> {
    let direct = if segment.parse::<usize>().is_ok() {
        schema.get("items")
    } else {
        schema.get("properties").and_then(|p| p.get(segment))
    };
    if direct.is_some() || depth == 0 {
        return direct;
    }
    ["allOf", "anyOf", "oneOf"]
        .iter()
        .filter_map(|keyword| schema.get(*keyword).and_then(Value::as_array))
        .flatten()
        .find_map(|member| inside(schema_of(member, registry), segment, registry, depth - 1))
}

/// Sets `value` at `path` in `target`, making the objects and arrays (before an index) on the
/// way.
fn set(target: &mut Value, path: &[String], value: Value) -> Result<(), String> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(());
    };
    let mut current = target;
    for (at, segment) in parents.iter().enumerate() {
        current = slot(current, segment)?;
        if current.is_null() {
            // An array where the next segment is an index, else an object.
            *current = if path[at + 1].parse::<usize>().is_ok() {
                Value::Array(Vec::new())
            } else {
                Value::Object(Default::default())
            };
        }
    }
    *slot(current, last)? = value;
    Ok(())
}

/// The place `segment` names in `value`: a property of an object, an item of an array (the
/// array grown with nulls to reach it, at most 10,000 items).
fn slot<'v>(value: &'v mut Value, segment: &str) -> Result<&'v mut Value, String> {
    match value {
        Value::Object(map) => Ok(map.entry(segment.to_string()).or_insert(Value::Null)),
        Value::Array(items) => {
            let index: usize = segment
                .parse()
                .map_err(|_| format!("`{segment}` is not an index of an array"))?;
            if index > 10_000 {
                return Err(format!(
                    "index {index} is past the 10,000 an array may take here"
                ));
            }
            if items.len() <= index {
                items.resize(index + 1, Value::Null);
            }
            Ok(&mut items[index])
        }
        _ => Err(format!(
            "`{segment}` names a place inside a value that holds none"
        )),
    }
}

/// One command-line value as JSON: numbers and booleans parsed, objects and arrays as JSON text
/// (`@file` reads it from a file, `-` from standard input), a value of a schema that says
/// nothing as JSON when it reads as an object or array, everything else a string.
fn scalar(long: &str, raw: &str, schema: &Value, registry: &ToolRegistry) -> Result<Value, String> {
    let bad = |what: &str| format!("--{long}: expected {what}");
    match type_of(schema, registry) {
        "integer" => raw
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| raw.parse::<u64>().map(Value::from))
            .map_err(|_| bad("an integer")),
        "number" => raw
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| bad("a number")),
        "boolean" => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("true or false")),
        },
        "object" | "array" => {
            let text = super::read_json_source(raw).map_err(|why| format!("--{long}: {why}"))?;
            serde_json::from_str(&text).map_err(|_| bad("JSON"))
        }
        "null" => Ok(Value::Null),
        "" if raw.starts_with(['{', '[']) => {
            Ok(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string())))
        }
        _ => Ok(Value::String(raw.to_string())),
    }
}

/// Whether `schema` describes binary data (an upload).
fn binary(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("binary")
}

/// Turns each `@path` (and `-`) given for binary data in a command's input (a property, an
/// item of one, or a property of an object such as a multipart body's file parts, at most three
/// levels down) into the reference the SDK reads as that file, streamed when sent; other text
/// stays base64.
pub(super) fn local_files(value: &mut Value, schema: &Value, registry: &ToolRegistry, depth: u8) {
    if depth > 3 {
        return;
    }
    match value {
        Value::String(text) if binary(schema) => {
            if let Some(path) = text.strip_prefix('@') {
                *text = crate::upload::file_reference(path);
            } else if text == "-" {
                *text = crate::upload::file_reference("-");
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                let item = schema_of(item, registry);
                for value in items {
                    local_files(value, item, registry, depth + 1);
                }
            }
        }
        Value::Object(fields) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (name, value) in fields {
                if let Some(property) = properties.get(name) {
                    local_files(value, schema_of(property, registry), registry, depth + 1);
                }
            }
        }
        _ => {}
    }
}

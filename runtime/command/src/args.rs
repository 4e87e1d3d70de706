//! One tool's command: an argument per input property, named and shaped by its argument spec,
//! and the values given on the command line turned back into JSON by the property's schema.

use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, ArgMatches, Command, ValueHint as ClapHint};
use serde_json::Value;

use crate::ToolRegistry;
use crate::catalog::{ArgumentSpec, BooleanStyle, Entry, ValueHint};
use crate::cli_names::default_long;

/// The clap id of the argument of input property `property`: `/` and the property, which no
/// global option's id (a kebab-case word) can be, so a property named like one of the CLI's own
/// options (`include`, `output`) never reads that option's value.
fn id(property: &str) -> String {
    format!("/{property}")
}

/// The property's schema with a top-level component reference followed.
fn schema_of<'a>(schema: &'a Value, registry: &'a ToolRegistry) -> &'a Value {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str)
        && let Some(name) = reference.strip_prefix("#/components/schemas/")
        && let Some(target) = registry
            .components()
            .and_then(|c| c.get(&crate::schema::unescape(name)))
    {
        return target.as_value();
    }
    schema
}

fn type_of(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ if schema.get("items").is_some() => "array",
        _ => "",
    }
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

/// The leaf command of `entry`, named `name`, with its options.
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
            property,
            schema,
            &spec,
            required.contains(&property.as_str()),
        ));
    }
    command
}

fn argument(property: &str, schema: &Value, spec: &ArgumentSpec, required: bool) -> Arg {
    let mut arg = Arg::new(id(property));
    arg = match spec.position {
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
    let ty = type_of(schema);
    let items = schema
        .get("items")
        .map(|i| type_of(i).to_string())
        .unwrap_or_default();
    arg = match (ty, spec.boolean_style) {
        ("boolean", BooleanStyle::SetTrue | BooleanStyle::SetFalse) if spec.position.is_none() => {
            arg.action(ArgAction::SetTrue)
        }
        ("boolean", _) => arg.value_parser(["true", "false"]).action(ArgAction::Set),
        ("array", _) if spec.repeatable => arg.action(ArgAction::Append),
        _ => arg.action(ArgAction::Set),
    };
    let enum_values = if ty == "array" {
        schema.get("items").and_then(|i| i.get("enum"))
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
    let shape = match (ty, items.as_str()) {
        ("object", _) => " (JSON object)",
        ("array", _) if !spec.repeatable => " (JSON array)",
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

/// The properties given on the command line, as JSON values by their schema type.
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
        let ty = type_of(schema);
        if ty == "boolean" && spec.position.is_none() && spec.boolean_style != BooleanStyle::Value {
            if matches.get_flag(&id(property)) {
                out.push((
                    property.clone(),
                    Value::Bool(spec.boolean_style == BooleanStyle::SetTrue),
                ));
            }
            continue;
        }
        let Some(raw) = matches.get_many::<String>(&id(property)) else {
            continue;
        };
        let raw: Vec<&String> = raw.collect();
        let value = if ty == "array" && spec.repeatable {
            let item_schema = schema
                .get("items")
                .map(|i| schema_of(i, registry))
                .unwrap_or(&Value::Null);
            Value::Array(
                raw.iter()
                    .map(|r| scalar(property, r, item_schema))
                    .collect::<Result<_, _>>()?,
            )
        } else {
            scalar(property, raw[raw.len() - 1], schema)?
        };
        out.push((property.clone(), value));
    }
    Ok(out)
}

/// One command-line value as JSON: numbers and booleans parsed, objects and arrays as JSON text,
/// everything else a string.
fn scalar(property: &str, raw: &str, schema: &Value) -> Result<Value, String> {
    let bad = |what: &str| format!("--{}: expected {what}", default_long(property));
    match type_of(schema) {
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
        "object" | "array" => serde_json::from_str(raw).map_err(|_| bad("JSON")),
        "null" => Ok(Value::Null),
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

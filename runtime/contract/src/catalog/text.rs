//! Validated scalar types of the catalog format: non-blank text, CLI command segments,
//! option names, `_meta` keys and schema documents. Each rule lives here once and runs both
//! when a catalog is deserialized and when a value is constructed in code.

#[cfg(feature = "artifacts")]
use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

#[cfg(feature = "artifacts")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "artifacts")]
use ts_rs::TS;

/// Why a scalar value was refused. The message never contains the value itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidValue(pub(crate) &'static str);

macro_rules! validated_string {
    ($(#[$doc:meta])* $name:ident, $check:path, $schema:tt) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "artifacts", derive(TS))]
        #[serde(try_from = "String", into = "String")]
        #[cfg_attr(feature = "artifacts", ts(type = "string"))]
        pub struct $name(String);

        impl $name {
            /// Checks `value` against the format rule for this type.
            pub fn new(value: impl Into<String>) -> Result<Self, InvalidValue> {
                let value = value.into();
                $check(&value)?;
                Ok(Self(value))
            }

            /// The text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidValue;
            fn try_from(value: String) -> Result<Self, InvalidValue> {
                Self::new(value)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = InvalidValue;
            fn try_from(value: &str) -> Result<Self, InvalidValue> {
                Self::new(value)
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        #[cfg(feature = "artifacts")]
        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!($schema)
            }
        }
    };
}

validated_string!(
    /// A string with at least one non-whitespace character.
    NonBlank,
    check_non_blank,
    { "type": "string", "minLength": 1, "pattern": "\\S" }
);

validated_string!(
    /// One segment of a CLI command path: `^[A-Za-z0-9_][A-Za-z0-9_-]*$`.
    CommandSegment,
    check_command_segment,
    { "type": "string", "pattern": "^[A-Za-z0-9_][A-Za-z0-9_-]*$" }
);

validated_string!(
    /// A long option name or option alias without its leading dashes: `^[A-Za-z0-9][A-Za-z0-9-]*$`.
    OptionName,
    check_option_name,
    { "type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9-]*$" }
);

validated_string!(
    /// A `_meta` key in MCP's grammar: an optional reverse-DNS prefix ending in `/`, then a
    /// name that starts and ends with a letter or digit.
    MetaKey,
    check_meta_key,
    {
        "type": "string",
        "minLength": 1,
        "pattern": "^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$"
    }
);

fn check_non_blank(value: &str) -> Result<(), InvalidValue> {
    if value.trim().is_empty() {
        return Err(InvalidValue(
            "must not be blank: give it at least one visible character or omit it",
        ));
    }
    Ok(())
}

pub(crate) fn is_command_segment(value: &str) -> bool {
    let mut chars = value.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check_command_segment(value: &str) -> Result<(), InvalidValue> {
    if is_command_segment(value) {
        Ok(())
    } else {
        Err(InvalidValue(
            "must match ^[A-Za-z0-9_][A-Za-z0-9_-]*$ (letters, digits, `_` and `-`, not starting with `-`)",
        ))
    }
}

fn check_option_name(value: &str) -> Result<(), InvalidValue> {
    let mut chars = value.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(InvalidValue(
            "must match ^[A-Za-z0-9][A-Za-z0-9-]*$ (an option name without its leading dashes)",
        ))
    }
}

fn is_dns_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

fn is_meta_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) => true,
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        (Some(_), None) => false,
    }
}

fn check_meta_key(value: &str) -> Result<(), InvalidValue> {
    let ok = match value.rsplit_once('/') {
        Some((prefix, name)) => prefix.split('.').all(is_dns_label) && is_meta_name(name),
        None => !value.is_empty() && is_meta_name(value),
    };
    if ok {
        Ok(())
    } else {
        Err(InvalidValue(
            "is not a valid _meta key: use `name` or `reverse.dns.prefix/name`, where the name starts and ends with a letter or digit",
        ))
    }
}

/// A non-empty command path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(TS))]
#[serde(try_from = "Vec<CommandSegment>", into = "Vec<CommandSegment>")]
#[cfg_attr(feature = "artifacts", ts(type = "Array<string>"))]
pub struct CommandPath(Vec<CommandSegment>);

impl CommandPath {
    /// Accepts one or more segments.
    pub fn new(segments: Vec<CommandSegment>) -> Result<Self, InvalidValue> {
        if segments.is_empty() {
            return Err(InvalidValue("must name at least one command segment"));
        }
        Ok(Self(segments))
    }

    /// Parses segments from strings, e.g. `CommandPath::parse(["pets", "list"])`.
    pub fn parse<'a>(segments: impl IntoIterator<Item = &'a str>) -> Result<Self, InvalidValue> {
        Self::new(
            segments
                .into_iter()
                .map(CommandSegment::new)
                .collect::<Result<_, _>>()?,
        )
    }

    /// The segments.
    pub fn segments(&self) -> &[CommandSegment] {
        &self.0
    }

    /// The segments as words, in order.
    pub fn words(&self) -> impl Iterator<Item = &str> + Clone {
        self.0.iter().map(CommandSegment::as_str)
    }
}

impl TryFrom<Vec<CommandSegment>> for CommandPath {
    type Error = InvalidValue;
    fn try_from(value: Vec<CommandSegment>) -> Result<Self, InvalidValue> {
        Self::new(value)
    }
}

impl From<CommandPath> for Vec<CommandSegment> {
    fn from(value: CommandPath) -> Self {
        value.0
    }
}

impl fmt::Display for CommandPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(segment)?;
        }
        Ok(())
    }
}

#[cfg(feature = "artifacts")]
impl JsonSchema for CommandPath {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("CommandPath")
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let segment = generator.subschema_for::<CommandSegment>();
        json_schema!({ "type": "array", "minItems": 1, "items": segment })
    }
}

/// A JSON Schema (Draft 2020-12) document: an object or a boolean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(TS))]
#[serde(try_from = "Value", into = "Value")]
#[cfg_attr(feature = "artifacts", ts(type = "JsonSchema"))]
pub struct SchemaDoc(Value);

impl SchemaDoc {
    /// Accepts an object or boolean schema.
    pub fn new(value: Value) -> Result<Self, InvalidValue> {
        match value {
            Value::Object(_) | Value::Bool(_) => Ok(Self(value)),
            _ => Err(InvalidValue(
                "must be a JSON Schema: an object or a boolean",
            )),
        }
    }

    /// The schema as JSON.
    pub fn as_value(&self) -> &Value {
        &self.0
    }
}

impl TryFrom<Value> for SchemaDoc {
    type Error = InvalidValue;
    fn try_from(value: Value) -> Result<Self, InvalidValue> {
        Self::new(value)
    }
}

impl From<SchemaDoc> for Value {
    fn from(value: SchemaDoc) -> Value {
        value.0
    }
}

#[cfg(feature = "artifacts")]
impl JsonSchema for SchemaDoc {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("SchemaDoc")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": ["object", "boolean"] })
    }
}

/// A JSON Schema whose root is an object schema with `"type": "object"`: the shape every
/// tool input must have.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(TS))]
#[serde(try_from = "Value", into = "Value")]
#[cfg_attr(feature = "artifacts", ts(type = "ObjectJsonSchema"))]
pub struct ObjectSchema(Value);

impl ObjectSchema {
    /// Accepts an object schema whose `type` is `"object"`.
    pub fn new(value: Value) -> Result<Self, InvalidValue> {
        let root_is_object = value
            .as_object()
            .and_then(|map| map.get("type"))
            .is_some_and(|t| t == "object");
        if root_is_object {
            Ok(Self(value))
        } else {
            Err(InvalidValue(
                "must be a JSON Schema object with \"type\": \"object\" at its root",
            ))
        }
    }

    /// The schema as JSON.
    pub fn as_value(&self) -> &Value {
        &self.0
    }
}

impl TryFrom<Value> for ObjectSchema {
    type Error = InvalidValue;
    fn try_from(value: Value) -> Result<Self, InvalidValue> {
        Self::new(value)
    }
}

impl From<ObjectSchema> for Value {
    fn from(value: ObjectSchema) -> Value {
        value.0
    }
}

#[cfg(feature = "artifacts")]
impl JsonSchema for ObjectSchema {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("ObjectSchema")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "required": ["type"],
            "properties": { "type": { "const": "object" } }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_text_is_refused() {
        assert!(NonBlank::new("  \t").is_err());
        assert!(NonBlank::new("").is_err());
        assert!(NonBlank::new(" a ").is_ok());
    }

    #[test]
    fn command_segments_follow_the_pattern() {
        for ok in ["a", "_x", "list-all", "v2", "A_b-c"] {
            assert!(CommandSegment::new(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-a", "a b", "a/b", "é", "a.b"] {
            assert!(CommandSegment::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn meta_keys_follow_mcp_grammar() {
        for ok in [
            "x",
            "com.example/thing",
            "com.harnlang/toolContract",
            "a.b-c/d_e.f",
        ] {
            assert!(MetaKey::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-x",
            "x-",
            "1com.example/x",
            "com..example/x",
            "com.example/-x",
            "a b",
        ] {
            assert!(MetaKey::new(bad).is_err(), "{bad}");
        }
    }
}

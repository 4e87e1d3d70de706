//! The form of a schema, checked against the JSON Schema 2020-12 meta-schema: which keyword
//! holds a subschema, a list of them, a string, a non-negative integer, and so on.
//!
//! The rules are the meta-schema's own (its seven vocabularies and the deprecated keywords of
//! `schema.json`), keyword by keyword, with formats as annotations, as the meta-schema's
//! format-annotation vocabulary has them. Why not a validator: the generator library, which a
//! `build.rs` compiles, needs only this check, and a whole validator would bring dozens of
//! packages into every build script. The registry's validator (jsonschema) answers the same: a
//! test compares the two over every schema of the corpus and over generated schemas.

use serde_json::{Map, Value};

use crate::catalog::validate::first_duplicate;
use crate::pointer::escape;

/// Where a schema breaks the meta-schema, and what the meta-schema asks for there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The JSON pointer, relative to the checked schema, of the value of the wrong form
    /// (a keyword's value, or one item of it).
    pub pointer: String,
    /// What the meta-schema asks for there, as a phrase ("a non-negative integer").
    pub expected: &'static str,
}

/// The first place, in document order, where `schema` is not a valid JSON Schema 2020-12;
/// `None` when it is one.
pub fn first_violation(schema: &Value) -> Option<Violation> {
    let mut pointer = String::new();
    check_schema(schema, &mut pointer).err()
}

type Checked = Result<(), Violation>;

fn violation(pointer: &str, expected: &'static str) -> Violation {
    Violation {
        pointer: pointer.to_string(),
        expected,
    }
}

/// What the meta-schema asks of one keyword's value.
#[derive(Clone, Copy)]
enum Form {
    Schema,
    SchemaMap,
    SchemaList,
    Text,
    Id,
    Anchor,
    Vocabulary,
    Number,
    Positive,
    Count,
    Flag,
    Names,
    NamesMap,
    Dependencies,
    Type,
    List,
}

fn form(keyword: &str) -> Option<Form> {
    Some(match keyword {
        "items"
        | "contains"
        | "additionalProperties"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "not"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Form::Schema,
        "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
            Form::SchemaMap
        }
        "prefixItems" | "allOf" | "anyOf" | "oneOf" => Form::SchemaList,
        // `uri`, `uri-reference` and `regex` formats are annotations, like every format.
        "$schema" | "$ref" | "$dynamicRef" | "$recursiveRef" | "$comment" | "title"
        | "description" | "format" | "contentEncoding" | "contentMediaType" | "pattern" => {
            Form::Text
        }
        "$id" => Form::Id,
        "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" => Form::Anchor,
        "$vocabulary" => Form::Vocabulary,
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => Form::Number,
        "multipleOf" => Form::Positive,
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains"
        | "maxProperties" | "minProperties" => Form::Count,
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => Form::Flag,
        "required" => Form::Names,
        "dependentRequired" => Form::NamesMap,
        "dependencies" => Form::Dependencies,
        "type" => Form::Type,
        "enum" | "examples" => Form::List,
        _ => return None,
    })
}

fn check_schema(schema: &Value, pointer: &mut String) -> Checked {
    let Some(map) = schema.as_object() else {
        return match schema {
            Value::Bool(_) => Ok(()),
            _ => Err(violation(pointer, "a schema: an object or a boolean")),
        };
    };
    for (keyword, value) in map {
        if let Some(form) = form(keyword) {
            within(pointer, keyword, |pointer| check(form, value, pointer))?;
        }
    }
    Ok(())
}

/// Runs `check` with `segment` appended to `pointer`, and takes it off again.
fn within(
    pointer: &mut String,
    segment: &str,
    check: impl FnOnce(&mut String) -> Checked,
) -> Checked {
    let base = pointer.len();
    pointer.push('/');
    pointer.push_str(&escape(segment));
    let checked = check(pointer);
    pointer.truncate(base);
    checked
}

fn check(form: Form, value: &Value, pointer: &mut String) -> Checked {
    match form {
        Form::Schema => check_schema(value, pointer),
        Form::SchemaMap => each_entry(value, pointer, check_schema),
        Form::SchemaList => match value.as_array() {
            Some(items) if !items.is_empty() => each_item(items, pointer, check_schema),
            _ => Err(violation(pointer, "a non-empty array of schemas")),
        },
        Form::Text => fits_at(pointer, value.is_string(), "a string"),
        Form::Id => fits_at(
            pointer,
            value
                .as_str()
                .is_some_and(|id| !id.strip_suffix('#').unwrap_or(id).contains('#')),
            "a URI reference without a fragment",
        ),
        Form::Anchor => fits_at(
            pointer,
            value.as_str().is_some_and(is_anchor),
            "a name of letters, digits, `-`, `.` and `_`, starting with a letter or `_`",
        ),
        Form::Vocabulary => each_entry(value, pointer, |value, pointer| {
            fits_at(pointer, value.is_boolean(), "a boolean")
        }),
        Form::Number => fits_at(pointer, value.is_number(), "a number"),
        Form::Positive => fits_at(
            pointer,
            value.as_f64().is_some_and(|number| number > 0.0),
            "a number greater than 0",
        ),
        Form::Count => fits_at(pointer, is_count(value), "a non-negative integer"),
        Form::Flag => fits_at(pointer, value.is_boolean(), "a boolean"),
        Form::Names => check_names(value, pointer),
        Form::NamesMap => each_entry(value, pointer, check_names),
        Form::Dependencies => each_entry(value, pointer, |value, pointer| {
            let either =
                check_schema(value, pointer).is_ok() || check_names(value, pointer).is_ok();
            fits_at(pointer, either, "a schema or an array of unique strings")
        }),
        Form::Type => fits_at(
            pointer,
            is_type(value),
            "a type name, or a non-empty array of unique type names",
        ),
        Form::List => fits_at(pointer, value.is_array(), "an array"),
    }
}

fn fits_at(pointer: &str, ok: bool, expected: &'static str) -> Checked {
    if ok {
        Ok(())
    } else {
        Err(violation(pointer, expected))
    }
}

fn each_entry(
    value: &Value,
    pointer: &mut String,
    check: impl Fn(&Value, &mut String) -> Checked,
) -> Checked {
    let map: &Map<String, Value> = value
        .as_object()
        .ok_or_else(|| violation(pointer, "an object"))?;
    for (name, value) in map {
        within(pointer, name, |pointer| check(value, pointer))?;
    }
    Ok(())
}

fn each_item(
    items: &[Value],
    pointer: &mut String,
    check: impl Fn(&Value, &mut String) -> Checked,
) -> Checked {
    for (index, item) in items.iter().enumerate() {
        within(pointer, &index.to_string(), |pointer| check(item, pointer))?;
    }
    Ok(())
}

/// The meta-schema's `stringArray`: strings, no two equal.
fn check_names(value: &Value, pointer: &mut String) -> Checked {
    let items = value
        .as_array()
        .ok_or_else(|| violation(pointer, "an array of unique strings"))?;
    each_item(items, pointer, |item, pointer| {
        fits_at(pointer, item.is_string(), "a string")
    })?;
    let unique = first_duplicate(items).is_none();
    fits_at(pointer, unique, "an array of unique strings")
}

/// An integer (a number without a fractional part, `2.0` included) of at least 0.
fn is_count(value: &Value) -> bool {
    match value {
        Value::Number(number) if number.is_u64() => true,
        Value::Number(number) if number.is_i64() => false,
        Value::Number(number) => number
            .as_f64()
            .is_some_and(|float| float >= 0.0 && float.fract() == 0.0),
        _ => false,
    }
}

const TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

fn is_type(value: &Value) -> bool {
    let named = |value: &Value| value.as_str().is_some_and(|name| TYPES.contains(&name));
    match value {
        Value::Array(names) => {
            !names.is_empty() && names.iter().all(named) && first_duplicate(names).is_none()
        }
        single => named(single),
    }
}

/// `^[A-Za-z_][-A-Za-z0-9._]*$`
fn is_anchor(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

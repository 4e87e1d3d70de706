//! The strict schema profile, for MCP clients that hand the listed tools to OpenAI's strict tool
//! calling (`strict: true`), which accepts only a subset of JSON Schema: the root is an object
//! (not a union), every object lists all its properties as required and says
//! `"additionalProperties": false`, and only `type`, `properties`, `required`, `items`, `anyOf`,
//! `enum`, `$defs`/`$ref`, `description`, `pattern`, a few `format`s, number bounds and
//! `minItems`/`maxItems` may appear, at most [`MAX_DEPTH`] levels deep.
//!
//! [`strict`] turns an inlined listing schema (no references, see [`super::inline`]) into that
//! form, and [`arguments`] maps what a model sends in that form back to the tool's contract
//! before anything checks it, so the tool's contract does not change. Both read the schema
//! through the one [`shape`] of each subschema, so they cannot disagree:
//!
//! - an optional property is required and accepts `null`; a `null` it did not accept before is
//!   dropped on the way back (the property was left out);
//! - `allOf` is merged into one schema, `oneOf` becomes `anyOf`, `const` a one-value `enum`;
//! - an object whose keys are free but whose values share a schema (a map) is an array of
//!   `{key, value}` pairs, made an object again on the way back;
//! - what strict schemas cannot say (any value, a free-form object, several types at once,
//!   nesting past [`MAX_DEPTH`]) is a string of JSON text, parsed on the way back;
//! - other keywords are left out: the server still checks every call against the full contract.

use serde_json::{Map, Value, json};

/// The deepest nesting of objects and arrays a strict schema has (OpenAI's limit); deeper
/// parts are JSON text.
pub const MAX_DEPTH: usize = 10;

/// The string formats strict schemas may name.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The constraint keywords strict schemas keep (besides `type`, `enum` and `format`).
const CONSTRAINTS: [&str; 8] = [
    "pattern",
    "multipleOf",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// What the strict form of a schema is.
enum Kind {
    /// Any JSON value, or one strict schemas cannot describe: a string of JSON text.
    Json,
    /// An object with named properties (and whether each is required).
    Object(Vec<(String, Value, bool)>),
    /// An object of free keys whose values share a schema: an array of key/value pairs.
    Map(Value),
    /// An array of items of one schema.
    Array(Value),
    /// One of several schemas.
    AnyOf(Vec<Value>),
    /// A string, number, integer, boolean or null, or an enumeration.
    Scalar(Vec<String>),
}

/// One subschema as the strict profile sees it.
struct Shape {
    kind: Kind,
    /// Whether `null` is accepted besides what `kind` says.
    nullable: bool,
    /// The keywords kept as they are (`enum`, `format`, constraints, `description`).
    kept: Map<String, Value>,
}

/// The strict form of `schema`, an inlined (reference-free) input schema.
pub fn strict(schema: &Value) -> Value {
    match root(schema) {
        Some(shape) => listed(shape, 0),
        None => json!({
            "type": "object",
            "properties": {WRAPPED: {
                "type": "string",
                "description": "The arguments, as JSON text"
            }},
            "required": [WRAPPED],
            "additionalProperties": false
        }),
    }
}

/// Arguments sent in the strict form of `schema` (an inlined input schema), in the form the
/// contract describes.
pub fn arguments(arguments: Map<String, Value>, schema: &Value) -> Map<String, Value> {
    let value = match root(schema) {
        Some(shape) => back(Value::Object(arguments), shape, 0),
        None => match arguments.get(WRAPPED) {
            Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
            _ => Value::Object(arguments),
        },
    };
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The property holding the arguments as JSON text when the root is no object.
const WRAPPED: &str = "json";

/// The root's shape, when it is an object (a union of objects is merged into one whose
/// properties are required only where every branch requires them; an object that names no
/// property takes none); `None` otherwise.
fn root(schema: &Value) -> Option<Shape> {
    let shape = shape(schema, 0);
    let open = schema.get("additionalProperties");
    match shape.kind {
        Kind::Object(_) => Some(shape),
        Kind::Json if open.is_none_or(|open| *open == Value::Bool(false)) => Some(Shape {
            kind: Kind::Object(Vec::new()),
            ..shape
        }),
        Kind::AnyOf(branches) => {
            let mut merged: Vec<(String, Value, bool)> = Vec::new();
            let count = branches.len();
            let mut seen: Vec<usize> = Vec::new();
            for branch in &branches {
                let Kind::Object(properties) = self::shape(branch, 0).kind else {
                    return None;
                };
                for (name, schema, required) in properties {
                    match merged.iter().position(|(n, _, _)| *n == name) {
                        Some(i) => {
                            merged[i].2 &= required;
                            seen[i] += 1;
                        }
                        None => {
                            merged.push((name, schema, required));
                            seen.push(1);
                        }
                    }
                }
            }
            for (property, seen) in merged.iter_mut().zip(seen) {
                property.2 &= seen == count;
            }
            Some(Shape {
                kind: Kind::Object(merged),
                nullable: false,
                kept: shape.kept,
            })
        }
        _ => None,
    }
}

/// How the strict profile sees `schema` at `depth`.
fn shape(schema: &Value, depth: usize) -> Shape {
    let json = |kept| Shape {
        kind: Kind::Json,
        nullable: false,
        kept,
    };
    let Some(map) = schema.as_object() else {
        return json(Map::new());
    };
    let map = merged(map);
    let mut kept: Map<String, Value> = map
        .iter()
        .filter(|(key, value)| {
            CONSTRAINTS.contains(&key.as_str())
                || *key == "description"
                || *key == "enum"
                || (*key == "format" && value.as_str().is_some_and(|f| FORMATS.contains(&f)))
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if let Some(value) = map.get("const") {
        kept.insert("enum".into(), json!([value]));
    }
    if let Some(branches) = map
        .get("anyOf")
        .or_else(|| map.get("oneOf"))
        .and_then(Value::as_array)
    {
        // The union's siblings (`type: object` beside a `oneOf`) hold in every branch.
        let mut rest = map.clone();
        for key in ["anyOf", "oneOf", "description"] {
            rest.remove(key);
        }
        let mut nullable = false;
        let mut kept_branches = Vec::new();
        for branch in branches {
            if branch.get("type").and_then(Value::as_str) == Some("null") {
                nullable = true;
            } else if rest.is_empty() {
                kept_branches.push(branch.clone());
            } else {
                kept_branches.push(json!({"allOf": [Value::Object(rest.clone()), branch]}));
            }
        }
        let description = kept.remove("description");
        let mut shape = match <[Value; 1]>::try_from(kept_branches) {
            Ok([one]) => self::shape(&one, depth),
            Err(branches) if branches.is_empty() => json(Map::new()),
            Err(branches) => Shape {
                kind: Kind::AnyOf(branches),
                nullable: false,
                kept: Map::new(),
            },
        };
        shape.nullable |= nullable;
        if let Some(description) = description {
            shape.kept.insert("description".into(), description);
        }
        return shape;
    }
    let mut types: Vec<String> = match map.get("type") {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => implied_type(&map).into_iter().map(str::to_string).collect(),
    };
    let nullable = types.iter().any(|t| t == "null");
    types.retain(|t| t != "null");
    let kind = match types.as_slice() {
        [one] if one == "object" && depth < MAX_DEPTH => object(&map),
        [one] if one == "array" && depth < MAX_DEPTH => {
            match (map.get("items"), map.get("prefixItems")) {
                (Some(items), None) => Kind::Array(items.clone()),
                (None, None) => Kind::Array(Value::Bool(true)),
                _ => Kind::Json,
            }
        }
        [] if !kept.contains_key("enum") => Kind::Json,
        types
            if types
                .iter()
                .all(|t| ["string", "number", "integer", "boolean"].contains(&t.as_str())) =>
        {
            Kind::Scalar(types.to_vec())
        }
        _ => Kind::Json,
    };
    if !matches!(kind, Kind::Scalar(_)) {
        kept.retain(|key, _| {
            key == "description" || (key.ends_with("Items") && matches!(kind, Kind::Array(_)))
        });
    }
    Shape {
        kind,
        nullable,
        kept,
    }
}

/// The type an untyped schema's keywords imply, when they imply one.
fn implied_type(map: &Map<String, Value>) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&["properties", "additionalProperties", "required"]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        Some("array")
    } else if has(&["pattern", "format", "minLength", "maxLength"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

/// The kind of an object schema: named properties, a map, or (free keys of any value) JSON.
fn object(map: &Map<String, Value>) -> Kind {
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = map.get("properties").and_then(Value::as_object);
    match properties {
        Some(properties) if !properties.is_empty() => Kind::Object(
            properties
                .iter()
                // A property that takes no value (`false`: a request's `readOnly` one) is not
                // listed: strict mode would have to require it.
                .filter(|(_, schema)| **schema != Value::Bool(false))
                .map(|(name, schema)| {
                    (
                        name.clone(),
                        schema.clone(),
                        required.contains(&name.as_str()),
                    )
                })
                .collect(),
        ),
        _ => match map.get("additionalProperties") {
            Some(Value::Bool(false)) => Kind::Object(Vec::new()),
            Some(values @ Value::Object(schema)) if !schema.is_empty() => Kind::Map(values.clone()),
            _ => Kind::Json,
        },
    }
}

/// `map` with its `allOf` merged in: properties and `required` joined, other keywords the
/// first one's (a property two branches both describe keeps both, as an `allOf`).
fn merged(map: &Map<String, Value>) -> Map<String, Value> {
    let Some(branches) = map.get("allOf").and_then(Value::as_array) else {
        return map.clone();
    };
    let mut out = map.clone();
    out.remove("allOf");
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            continue;
        };
        for (key, value) in merged(branch) {
            match (key.as_str(), out.get_mut(&key), value) {
                ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                    for (name, schema) in theirs {
                        match mine.get_mut(&name) {
                            Some(existing) => {
                                *existing = json!({"allOf": [existing.take(), schema]});
                            }
                            None => {
                                mine.insert(name, schema);
                            }
                        }
                    }
                }
                ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                    for name in theirs {
                        if !mine.contains(&name) {
                            mine.push(name);
                        }
                    }
                }
                (_, Some(_), _) => {}
                (_, None, value) => {
                    out.insert(key, value);
                }
            }
        }
    }
    out
}

/// The strict schema of `shape` at `depth`.
fn listed(shape: Shape, depth: usize) -> Value {
    let Shape {
        kind,
        nullable,
        mut kept,
    } = shape;
    let description = kept.remove("description");
    let (mut schema, note) = match kind {
        Kind::Json => (json!({"type": "string"}), Some("JSON text of the value")),
        Kind::Object(properties) => {
            let names: Vec<Value> = properties.iter().map(|(n, _, _)| json!(n)).collect();
            let properties: Map<String, Value> = properties
                .into_iter()
                .map(|(name, schema, required)| {
                    let listed = listed(self::shape(&schema, depth + 1), depth + 1);
                    (name, if required { listed } else { or_null(listed) })
                })
                .collect();
            (
                json!({"type": "object", "properties": properties, "required": names, "additionalProperties": false}),
                None,
            )
        }
        Kind::Map(values) => {
            let value = listed(self::shape(&values, depth + 2), depth + 2);
            (
                json!({"type": "array", "items": {
                    "type": "object",
                    "properties": {"key": {"type": "string"}, "value": value},
                    "required": ["key", "value"],
                    "additionalProperties": false
                }}),
                Some("an object, as its key/value pairs"),
            )
        }
        Kind::Array(items) => {
            let items = listed(self::shape(&items, depth + 1), depth + 1);
            (json!({"type": "array", "items": items}), None)
        }
        Kind::AnyOf(branches) => {
            let branches: Vec<Value> = branches
                .iter()
                .map(|branch| listed(self::shape(branch, depth), depth))
                .collect();
            (json!({ "anyOf": branches }), None)
        }
        Kind::Scalar(types) => (
            match <[String; 1]>::try_from(types) {
                Ok([one]) => json!({ "type": one }),
                Err(types) if types.is_empty() => json!({}),
                Err(types) => json!({ "type": types }),
            },
            None,
        ),
    };
    if let Some(object) = schema.as_object_mut() {
        object.extend(kept);
        let text = match (description.as_ref().and_then(Value::as_str), note) {
            (Some(text), Some(note)) => Some(format!("{text} ({note})")),
            (Some(text), None) => Some(text.to_string()),
            (None, Some(note)) => Some(capitalized(note)),
            (None, None) => None,
        };
        if let Some(text) = text {
            object.insert("description".into(), Value::String(text));
        }
    }
    if nullable { or_null(schema) } else { schema }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `schema` accepting `null` too.
fn or_null(mut schema: Value) -> Value {
    let Some(map) = schema.as_object_mut() else {
        return schema;
    };
    if let Some(branches) = map.get_mut("anyOf").and_then(Value::as_array_mut) {
        if !branches
            .iter()
            .any(|b| b.get("type") == Some(&json!("null")))
        {
            branches.push(json!({"type": "null"}));
        }
        return schema;
    }
    match map.get_mut("type") {
        Some(Value::String(one)) if one != "null" => {
            let one = std::mem::take(one);
            map.insert("type".into(), json!([one, "null"]));
        }
        Some(Value::Array(many)) if !many.contains(&json!("null")) => many.push(json!("null")),
        _ => {}
    }
    if let Some(values) = map.get_mut("enum").and_then(Value::as_array_mut)
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    schema
}

/// `value`, sent in the strict form of `shape`, in the contract's form.
fn back(value: Value, shape: Shape, depth: usize) -> Value {
    match (shape.kind, value) {
        (Kind::Json, Value::String(text)) => {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        }
        (Kind::Object(properties), Value::Object(map)) => Value::Object(
            map.into_iter()
                .filter_map(|(key, value)| {
                    let Some((_, schema, required)) = properties.iter().find(|(n, _, _)| *n == key)
                    else {
                        return Some((key, value));
                    };
                    let inner = self::shape(schema, depth + 1);
                    if value.is_null() && !required && !admits_null(&inner, depth + 1) {
                        return None;
                    }
                    Some((key, back(value, inner, depth + 1)))
                })
                .collect(),
        ),
        (Kind::Map(values), Value::Array(pairs)) => {
            let mut map = Map::new();
            for pair in pairs {
                if let (Some(Value::String(key)), Some(value)) =
                    (pair.get("key"), pair.get("value"))
                {
                    let value = back(value.clone(), self::shape(&values, depth + 2), depth + 2);
                    map.insert(key.clone(), value);
                }
            }
            Value::Object(map)
        }
        (Kind::Array(items), Value::Array(values)) => Value::Array(
            values
                .into_iter()
                .map(|value| back(value, self::shape(&items, depth + 1), depth + 1))
                .collect(),
        ),
        (Kind::AnyOf(branches), value) => {
            let shapes = branches.iter().map(|b| self::shape(b, depth));
            let fitting: Vec<Shape> = shapes.filter(|s| fits(&value, s, depth)).collect();
            // Of several object branches, the one that names every key sent.
            let best = fitting
                .iter()
                .position(|s| match (&s.kind, &value) {
                    (Kind::Object(properties), Value::Object(map)) => map
                        .keys()
                        .all(|key| properties.iter().any(|(n, _, _)| n == key)),
                    _ => true,
                })
                .unwrap_or(0);
            match fitting.into_iter().nth(best) {
                Some(shape) => back(value, shape, depth),
                None => value,
            }
        }
        (_, value) => value,
    }
}

/// Whether `value` has the strict form of `shape`.
fn fits(value: &Value, shape: &Shape, depth: usize) -> bool {
    if value.is_null() {
        return admits_null(shape, depth);
    }
    match &shape.kind {
        Kind::Json => value.is_string(),
        Kind::Object(_) => value.is_object(),
        Kind::Map(_) | Kind::Array(_) => value.is_array(),
        Kind::AnyOf(branches) => branches
            .iter()
            .any(|b| fits(value, &self::shape(b, depth), depth)),
        Kind::Scalar(types) => {
            let listed = shape.kept.get("enum").and_then(Value::as_array);
            listed.is_none_or(|values| values.contains(value))
                && (types.is_empty()
                    || types.iter().any(|t| match t.as_str() {
                        "string" => value.is_string(),
                        "number" => value.is_number(),
                        "integer" => value.is_i64() || value.is_u64(),
                        "boolean" => value.is_boolean(),
                        _ => false,
                    }))
        }
    }
}

/// Whether the contract accepts `null` where `shape` stands.
fn admits_null(shape: &Shape, depth: usize) -> bool {
    shape.nullable
        || match &shape.kind {
            Kind::Json => true,
            Kind::AnyOf(branches) => branches
                .iter()
                .any(|b| admits_null(&self::shape(b, depth), depth)),
            Kind::Scalar(_) => shape
                .kept
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.contains(&Value::Null)),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of OpenAI's strict mode this profile promises (a checker for tests).
    pub(crate) fn violations(schema: &Value) -> Vec<String> {
        let mut found = Vec::new();
        if schema.get("type") != Some(&json!("object")) {
            found.push("the root is not an object".to_string());
        }
        check(schema, "", 0, &mut found);
        found
    }

    fn check(schema: &Value, at: &str, depth: usize, found: &mut Vec<String>) {
        const ALLOWED: [&str; 17] = [
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "anyOf",
            "enum",
            "description",
            "pattern",
            "format",
            "multipleOf",
            "maximum",
            "minimum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "minItems",
            "maxItems",
        ];
        let Some(map) = schema.as_object() else {
            found.push(format!("{at}: not an object schema"));
            return;
        };
        if depth > MAX_DEPTH {
            found.push(format!("{at}: deeper than {MAX_DEPTH}"));
        }
        for key in map.keys() {
            if !ALLOWED.contains(&key.as_str()) {
                found.push(format!("{at}: keyword {key}"));
            }
        }
        if map.get("type").is_none() && map.get("anyOf").is_none() && map.get("enum").is_none() {
            found.push(format!("{at}: no type"));
        }
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            let required = map.get("required").and_then(Value::as_array);
            for (name, property) in properties {
                if !required.is_some_and(|r| r.contains(&json!(name))) {
                    found.push(format!("{at}/{name}: not required"));
                }
                check(
                    property,
                    &format!("{at}/properties/{name}"),
                    depth + 1,
                    found,
                );
            }
        }
        let is_object = map.get("type") == Some(&json!("object"))
            || map
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|t| t.contains(&json!("object")));
        if is_object && map.get("additionalProperties") != Some(&json!(false)) {
            found.push(format!("{at}: additionalProperties is not false"));
        }
        if let Some(items) = map.get("items") {
            check(items, &format!("{at}/items"), depth + 1, found);
        }
        for (i, branch) in map
            .get("anyOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            check(branch, &format!("{at}/anyOf/{i}"), depth, found);
        }
    }

    fn strict_ok(schema: &Value) -> Value {
        let strict = strict(schema);
        assert_eq!(violations(&strict), Vec::<String>::new(), "{strict:#}");
        strict
    }

    fn mapped(schema: &Value, sent: Value) -> Value {
        let Value::Object(sent) = sent else { panic!() };
        Value::Object(arguments(sent, schema))
    }

    #[test]
    fn optional_properties_are_required_and_nullable_and_a_null_is_left_out_again() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "tag": {"type": "string", "enum": ["a", "b"]},
                "note": {"type": ["string", "null"]}
            },
            "required": ["name"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(strict["required"], json!(["name", "tag", "note"]));
        assert_eq!(strict["properties"]["name"], json!({"type": "string"}));
        assert_eq!(
            strict["properties"]["tag"],
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
        let sent = json!({"name": "Rex", "tag": null, "note": null});
        // `tag` was left out; `note` accepts null, so its null is meant.
        assert_eq!(mapped(&schema, sent), json!({"name": "Rex", "note": null}));
    }

    #[test]
    fn all_of_is_merged_and_one_of_is_any_of() {
        let schema = json!({
            "type": "object",
            "properties": {"pet": {
                "oneOf": [
                    {"allOf": [
                        {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                        {"properties": {"bark": {"type": "boolean"}}}
                    ]},
                    {"type": "object", "properties": {"meow": {"type": "string"}}}
                ]
            }},
            "required": ["pet"]
        });
        let strict = strict_ok(&schema);
        let dog = &strict["properties"]["pet"]["anyOf"][0];
        assert_eq!(dog["required"], json!(["id", "bark"]));
        assert_eq!(
            dog["properties"]["bark"]["type"],
            json!(["boolean", "null"])
        );
        let sent = json!({"pet": {"id": 7, "bark": null}});
        assert_eq!(mapped(&schema, sent), json!({"pet": {"id": 7}}));
        let sent = json!({"pet": {"meow": "loud"}});
        assert_eq!(mapped(&schema, sent), json!({"pet": {"meow": "loud"}}));
    }

    #[test]
    fn maps_are_key_value_pairs_and_free_values_are_json_text() {
        let schema = json!({
            "type": "object",
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "extra": {},
                "metadata": {"type": "object"}
            },
            "required": ["labels", "extra"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(strict["properties"]["labels"]["type"], "array");
        assert_eq!(strict["properties"]["extra"]["type"], "string");
        let sent = json!({
            "labels": [{"key": "team", "value": "core"}],
            "extra": "[1, {\"a\": true}]",
            "metadata": "{\"k\": 1}"
        });
        assert_eq!(
            mapped(&schema, sent),
            json!({"labels": {"team": "core"}, "extra": [1, {"a": true}], "metadata": {"k": 1}})
        );
    }

    #[test]
    fn keywords_strict_mode_lacks_are_left_out_and_nesting_is_bounded() {
        let mut deep = json!({"type": "string", "minLength": 2, "format": "uri", "default": "x"});
        for _ in 0..(MAX_DEPTH + 3) {
            deep = json!({"type": "object", "properties": {"down": deep}, "required": ["down"]});
        }
        let strict = strict_ok(&deep);
        let mut level = &strict;
        let mut levels = 0;
        while let Some(down) = level.get("properties").and_then(|p| p.get("down")) {
            level = down;
            levels += 1;
        }
        assert_eq!(levels, MAX_DEPTH);
        assert_eq!(level["type"], "string", "the cut is JSON text: {level}");
    }

    #[test]
    fn a_root_without_properties_takes_none_and_a_free_root_is_json_text() {
        let none = strict_ok(&json!({"type": "object"}));
        assert_eq!(none["properties"], json!({}));
        let free = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        let strict = strict_ok(&free);
        assert_eq!(strict["required"], json!([WRAPPED]));
        let sent = json!({ WRAPPED: "{\"a\": 1}" });
        assert_eq!(mapped(&free, sent), json!({"a": 1}));
    }

    #[test]
    fn a_union_of_objects_at_the_root_is_one_object() {
        let schema = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}, "both": {"type": "integer"}}, "required": ["a", "both"]},
            {"type": "object", "properties": {"b": {"type": "string"}, "both": {"type": "integer"}}, "required": ["b", "both"]}
        ]});
        let strict = strict_ok(&schema);
        assert_eq!(strict["properties"]["both"], json!({"type": "integer"}));
        assert_eq!(strict["properties"]["a"]["type"], json!(["string", "null"]));
        let sent = json!({"a": null, "b": "x", "both": 1});
        assert_eq!(mapped(&schema, sent), json!({"b": "x", "both": 1}));
    }
}

//! Inputs built from the document: its examples, else small valid instances; and the credentials
//! its security schemes take.

use std::collections::BTreeMap;

use harness_gen_runtime::http::{Credential, Scheme, Secret};
use serde_json::{Map, Value, json};

/// The document's security schemes as the runtime's client takes them, each with a credential
/// (a bearer token for OAuth 2 and OpenID Connect).
pub(super) fn schemes(doc: &Value) -> Vec<(String, Scheme, Credential)> {
    let Some(Value::Object(schemes)) = doc.pointer("/components/securitySchemes") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, scheme) in schemes {
        let kind = scheme
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let http = scheme
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let (scheme, credential) = match kind {
            "http" if http == "basic" => (
                Scheme::Basic,
                Credential::Basic {
                    username: "user".into(),
                    password: Secret::new("password"),
                },
            ),
            "http" | "oauth2" | "openIdConnect" => {
                (Scheme::Bearer, Credential::Token(Secret::new("token")))
            }
            "apiKey" => {
                let location = match scheme.get("in").and_then(Value::as_str) {
                    Some("query") => harness_gen_runtime::binding::ParamIn::Query,
                    Some("cookie") => harness_gen_runtime::binding::ParamIn::Cookie,
                    _ => harness_gen_runtime::binding::ParamIn::Header,
                };
                let key = scheme.get("name").and_then(Value::as_str).unwrap_or("key");
                (
                    Scheme::ApiKey {
                        location,
                        name: key.to_string(),
                    },
                    Credential::ApiKey(Secret::new("key-value")),
                )
            }
            _ => continue,
        };
        out.push((name.clone(), scheme, credential));
    }
    out
}

/// A catalog's component schemas as plain JSON, by name.
pub(crate) fn component_values(
    schemas: Option<&BTreeMap<String, harness_gen_runtime::catalog::SchemaDoc>>,
) -> Map<String, Value> {
    schemas
        .into_iter()
        .flatten()
        .map(|(name, schema)| (name.clone(), schema.as_value().clone()))
        .collect()
}

/// Builds inputs from schemas: the document's examples where it gives them, else a small valid
/// instance (required properties, formats, enums, bounds).
pub(crate) struct Sampler<'a> {
    pub(crate) components: &'a Map<String, Value>,
    pub(crate) examples: bool,
    /// Every property of each object down to four levels, not only the required ones (the
    /// second call, with nested values).
    pub(crate) every_property: bool,
}

impl Sampler<'_> {
    pub(super) fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        let mut current = schema;
        for _ in 0..16 {
            let Some(name) = current
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            else {
                break;
            };
            match self
                .components
                .get(&harness_gen_runtime::schema::unescape(name))
            {
                Some(next) => current = next,
                None => break,
            }
        }
        current
    }

    pub(crate) fn sample(&self, schema: &Value, depth: usize) -> Value {
        let schema = self.resolve(schema);
        if depth > 12 {
            return Value::Null;
        }
        if let Some(v) = schema
            .get("const")
            .or_else(|| schema.get("enum").and_then(|e| e.get(0)))
        {
            return v.clone();
        }
        if self.examples
            && let Some(v) = schema
                .get("examples")
                .and_then(|e| e.get(0))
                .or_else(|| schema.get("example"))
                .or_else(|| schema.get("default"))
        {
            return v.clone();
        }
        for k in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = schema.get(k) {
                // The first branch that is not only `null`.
                let branch = branches
                    .iter()
                    .find(|b| self.resolve(b).get("type") != Some(&json!("null")))
                    .or(branches.first());
                if let Some(branch) = branch {
                    // The branch with what stands beside the union (a `type`, `properties`,
                    // `required` that apply too): GitHub's `anyOf` of `required` lists.
                    let mut merged: Map<String, Value> = schema
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(key, _)| *key != k)
                        .map(|(key, v)| (key.clone(), v.clone()))
                        .collect();
                    if let Some(own) = self.resolve(branch).as_object() {
                        for (key, v) in own {
                            match (merged.get_mut(key), v) {
                                (Some(Value::Object(mine)), Value::Object(theirs))
                                    if key == "properties" =>
                                {
                                    mine.extend(theirs.clone())
                                }
                                (Some(Value::Array(mine)), Value::Array(theirs))
                                    if key == "required" =>
                                {
                                    mine.extend(theirs.iter().cloned())
                                }
                                _ => {
                                    merged.insert(key.clone(), v.clone());
                                }
                            }
                        }
                    }
                    return self.sample(&Value::Object(merged), depth + 1);
                }
            }
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            let mut out = Map::new();
            for part in parts {
                match self.sample(part, depth + 1) {
                    Value::Object(m) => out.extend(m),
                    // A part that is not an object (nexus's `allOf: [{$ref: Name}]`) is the
                    // value.
                    other => return other,
                }
            }
            // What stands beside the parts (a `required` list alone) fills only what the
            // parts left out: a part's property keeps its schema's value.
            if let Value::Object(m) = self.object(schema, depth) {
                for (key, value) in m {
                    out.entry(key).or_insert(value);
                }
            }
            return Value::Object(out);
        }
        let ty = match schema.get("type") {
            Some(Value::Array(t)) => t
                .iter()
                .find(|t| *t != "null")
                .and_then(Value::as_str)
                .unwrap_or("null")
                .to_string(),
            Some(Value::String(t)) => t.clone(),
            _ if schema.get("properties").is_some() => "object".into(),
            _ if schema.get("items").is_some() => "array".into(),
            _ => "string".into(),
        };
        match ty.as_str() {
            "object" => self.object(schema, depth),
            "array" => {
                let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1);
                let item = self.sample(schema.get("items").unwrap_or(&json!({})), depth + 1);
                // Unique items of one value cannot be more than one.
                let count = if schema.get("uniqueItems") == Some(&json!(true)) {
                    count.min(1)
                } else {
                    count
                };
                Value::Array((0..count.max(1)).map(|_| item.clone()).collect())
            }
            "integer" => json!(number(schema) as i64),
            "number" => json!(number(schema)),
            "boolean" => json!(true),
            "null" => Value::Null,
            _ => json!(string(schema)),
        }
    }

    fn object(&self, schema: &Value, depth: usize) -> Value {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        let properties = schema.get("properties").and_then(Value::as_object);
        if self.every_property && depth < 4 {
            // A property whose schema is `false` (a request's `readOnly` one) takes no value.
            let allowed = properties
                .into_iter()
                .flatten()
                .filter(|(_, p)| **p != false);
            for (name, property) in allowed {
                let value = self.sample(property, depth + 1);
                if !value.is_null() {
                    out.insert(name.clone(), value);
                }
            }
        }
        for name in &required {
            let property = properties
                .and_then(|p| p.get(*name))
                .unwrap_or(&Value::Null);
            let property = if property.is_null() {
                &json!({})
            } else {
                property
            };
            out.insert(name.to_string(), self.sample(property, depth + 1));
        }
        Value::Object(out)
    }
}

/// A number within the schema's bounds, a multiple of its `multipleOf`, integral where it can be.
fn number(schema: &Value) -> f64 {
    let get = |k: &str| schema.get(k).and_then(Value::as_f64);
    let step = get("multipleOf").unwrap_or(1.0);
    let mut low = get("minimum").unwrap_or(1.0_f64.min(get("maximum").unwrap_or(1.0)));
    if let Some(x) = get("exclusiveMinimum") {
        low = low.max(x + step);
    }
    let mut value = (low / step).ceil() * step;
    if let Some(max) = get("maximum").or(get("exclusiveMaximum").map(|m| m - step)) {
        value = value.min(max);
    }
    value
}

/// A string of the schema's format and length.
fn string(schema: &Value) -> String {
    let text = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => "2024-01-02T03:04:05Z",
        Some("date") => "2024-01-02",
        Some("time") => "03:04:05Z",
        Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
        Some("email") => "a@example.com",
        Some("uri" | "url" | "iri") => "https://example.com/x",
        Some("hostname") => "example.com",
        Some("ipv4") => "10.0.0.1",
        Some("ipv6") => "fd00::1",
        Some("byte" | "binary") => "aGk=",
        Some("duration") => "P1D",
        Some("json-pointer") => "/a",
        Some("relative-json-pointer") => "0/a",
        Some("uri-reference" | "iri-reference") => "/x",
        Some("regex") => "a+",
        _ if schema.get("contentEncoding").is_some() => "aGk=",
        _ => "sample",
    };
    let mut text = text.to_string();
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    while text.chars().count() < min {
        text.push('x');
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        text = text.chars().take(max as usize).collect();
    }
    text
}

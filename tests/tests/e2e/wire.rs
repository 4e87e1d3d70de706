//! The wire-conformance harness: every operation of a document called with an input built from
//! the document (its examples first, else a small valid instance of each schema), through a
//! registry whose handlers send each call with the runtime's HTTP client as the catalog's
//! binding says, against Stoplight Prism, which validates every request against the document
//! and names each violation in its `sl-violations` reply header. Any request Prism rejects fails
//! the test with the operation and Prism's violation.
//!
//! In CI: the purpose-written `specs/wire.yaml` (every parameter style × explode × location
//! Prism can parse, form and multipart bodies with `encoding`, `readOnly`/`writeOnly`, nullable,
//! binary and text bodies) and small corpus documents. The whole corpus, the large documents
//! included, runs in the heavy checks (`scripts/wire-conformance.sh`, an ignored test here),
//! which print the summary table. Byte-exact checks of every style row, including those Prism
//! cannot parse, are the unit tests of `runtime/client/src/encode.rs`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use harness_gen_runtime::http::{
    CallOptions, ClientBuilder, Credential, HttpClient, Replies, Scheme, Secret,
};
use harness_gen_runtime::{Audience, Catalog, Handler, Thrown, ToolError, ToolRegistry};
use serde_json::{Map, Value, json};

use super::prism::{prism, start};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What one document's run found.
#[derive(Debug, Default)]
pub struct Tally {
    /// The document, as given.
    pub document: String,
    /// Operations in its catalog.
    pub operations: usize,
    /// Requests Prism found conforming.
    pub accepted: usize,
    /// Requests Prism rejected: (tool, Prism's violations).
    pub rejected: Vec<(String, String)>,
    /// Calls that never left the process: (tool, why).
    pub not_sent: Vec<(String, String)>,
    /// Requests Prism rejected for a reason of its own or of the document, each violation
    /// explained by one of the rules of [`excuse`]: (tool, the rule's reason).
    pub excused: Vec<(String, String)>,
    /// Operations no judge could look at (not form bodies, without Prism).
    pub unjudged: usize,
    /// Second calls, with every optional property set, that were accepted.
    pub full: usize,
    /// Whether Prism judged the requests; without it (a document Prism cannot load) only form
    /// bodies are judged, by the form judge, and nothing is sent.
    pub prism: bool,
}

impl Tally {
    /// One row of the summary table.
    pub fn row(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.document,
            self.operations,
            self.accepted,
            self.full,
            self.rejected.len(),
            self.excused.len(),
            self.not_sent.len(),
            self.unjudged,
            if self.prism {
                "Prism + form judge"
            } else {
                "form judge only (Prism could not load it)"
            }
        )
    }
}

/// The document's security schemes as the runtime's client takes them, each with a credential
/// (a bearer token for OAuth 2 and OpenID Connect).
fn schemes(doc: &Value) -> Vec<(String, Scheme, Credential)> {
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
pub(super) fn component_values(
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
pub(super) struct Sampler<'a> {
    pub(super) components: &'a Map<String, Value>,
    pub(super) examples: bool,
    /// Every property of each object down to four levels, not only the required ones (the
    /// second call, with nested values).
    pub(super) every_property: bool,
}

impl Sampler<'_> {
    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
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

    pub(super) fn sample(&self, schema: &Value, depth: usize) -> Value {
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
            for (name, property) in properties.into_iter().flatten() {
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

/// The second judge, for form bodies (Prism reads their `deepObject` properties loosely, and
/// never loads Stripe's document): the body's pairs decoded as the document's `encoding` says,
/// written here independently of the runtime's encoder, must give back exactly the value sent.
mod form_judge {
    use harness_gen_runtime::binding::{BodyBinding, Style};
    use serde_json::{Map, Value};

    use super::Sampler;

    pub(super) fn percent_decoded(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'%' if i + 2 < bytes.len() => {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                    match u8::from_str_radix(hex, 16) {
                        Ok(b) => {
                            out.push(b);
                            i += 3;
                            continue;
                        }
                        Err(_) => out.push(b'%'),
                    }
                }
                b'+' => out.push(b' '),
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// `a[b][0]` as `a` and `[b, 0]`.
    fn key_path(key: &str) -> (String, Vec<String>) {
        match key.find('[') {
            Some(open) if key.ends_with(']') => {
                let inner = &key[open + 1..key.len() - 1];
                (
                    key[..open].to_string(),
                    inner.split("][").map(str::to_string).collect(),
                )
            }
            _ => (key.to_string(), Vec::new()),
        }
    }

    /// The schema of an object's property or an array's items, through references and unions.
    pub(super) fn below<'s>(sampler: &'s Sampler, schema: &'s Value, segment: &str) -> &'s Value {
        let schema = sampler.resolve(schema);
        for k in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = schema.get(k) {
                for branch in branches {
                    let found = below(sampler, branch, segment);
                    if !found.is_null() {
                        return found;
                    }
                }
            }
        }
        if let Some(found) = schema.get("properties").and_then(|p| p.get(segment)) {
            return found;
        }
        if segment.is_empty() || segment.parse::<usize>().is_ok() {
            if let Some(items) = schema.get("items") {
                return items;
            }
        }
        schema
            .get("additionalProperties")
            .filter(|a| a.is_object())
            .unwrap_or(&Value::Null)
    }

    fn types(sampler: &Sampler, schema: &Value, out: &mut Vec<String>) {
        let schema = sampler.resolve(schema);
        match schema.get("type") {
            Some(Value::String(t)) => out.push(t.clone()),
            Some(Value::Array(ts)) => {
                out.extend(ts.iter().filter_map(Value::as_str).map(String::from))
            }
            _ if schema.get("properties").is_some() => out.push("object".into()),
            _ => {}
        }
        for k in ["anyOf", "oneOf", "allOf"] {
            for branch in schema
                .get(k)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                types(sampler, branch, out);
            }
        }
    }

    /// A decoded text as the JSON value the schema there says it is.
    pub(super) fn typed(sampler: &Sampler, schema: &Value, text: String) -> Value {
        let mut kinds = Vec::new();
        types(sampler, schema, &mut kinds);
        let has = |t: &str| kinds.iter().any(|k| k == t);
        if has("string") || kinds.is_empty() {
            return Value::String(text);
        }
        if (has("integer") || has("number"))
            && let Ok(n) = text.parse::<f64>()
        {
            return serde_json::Number::from_f64(n).map_or(Value::String(text), Value::Number);
        }
        if has("boolean") && (text == "true" || text == "false") {
            return Value::Bool(text == "true");
        }
        Value::String(text)
    }

    fn insert(sampler: &Sampler, slot: &mut Value, schema: &Value, path: &[String], text: String) {
        let Some((first, rest)) = path.split_first() else {
            *slot = typed(sampler, schema, text);
            return;
        };
        let inner = below(sampler, schema, first);
        let is_index = first.is_empty() || first.parse::<usize>().is_ok();
        if is_index {
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            let items = slot.as_array_mut().expect("an array");
            let at = match first.parse::<usize>() {
                Ok(i) => i,
                // `a[]=x`, or `a[][k]=x` continuing the last item unless it has `k` already.
                Err(_) => match (rest.first(), items.last()) {
                    (Some(k), Some(Value::Object(last))) if !last.contains_key(k) => {
                        items.len() - 1
                    }
                    _ => items.len(),
                },
            };
            while items.len() <= at {
                items.push(Value::Null);
            }
            insert(sampler, &mut items[at], inner, rest, text);
        } else {
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let fields = slot.as_object_mut().expect("an object");
            let field = fields.entry(first.clone()).or_insert(Value::Null);
            insert(sampler, field, inner, rest, text);
        }
    }

    /// The value a form body's text stands for, read by the encoding `body` records.
    pub fn decode(sampler: &Sampler, body: &BodyBinding, schema: &Value, text: &str) -> Value {
        let mut out = Map::new();
        for pair in text.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (key, value) = (percent_decoded(key), value.to_string());
            let (base, path) = key_path(&key);
            let declared = below(sampler, schema, &base);
            let part = body.part(&base);
            let style = part.map_or(Style::Form, |p| p.style());
            let explode = part.is_none_or(|p| p.explode());
            let mut kinds = Vec::new();
            types(sampler, declared, &mut kinds);
            let array = kinds.iter().any(|k| k == "array");
            let object = kinds.iter().any(|k| k == "object");
            let slot = out.entry(base.clone()).or_insert(Value::Null);
            if !path.is_empty() {
                insert(sampler, slot, declared, &path, percent_decoded(&value));
            } else if !explode && (array || object) {
                let delimiter = match style {
                    Style::SpaceDelimited => ' ',
                    Style::PipeDelimited => '|',
                    _ => ',',
                };
                let pieces: Vec<String> = percent_decoded(&value)
                    .split(delimiter)
                    .map(str::to_string)
                    .collect();
                if array {
                    let items = below(sampler, declared, "0");
                    *slot = Value::Array(
                        pieces
                            .into_iter()
                            .map(|p| typed(sampler, items, p))
                            .collect(),
                    );
                } else {
                    let mut fields = Map::new();
                    for pair in pieces.chunks(2) {
                        if let [k, v] = pair {
                            fields.insert(
                                k.clone(),
                                typed(sampler, below(sampler, declared, k), v.clone()),
                            );
                        }
                    }
                    *slot = Value::Object(fields);
                }
            } else if array {
                let items = below(sampler, declared, "0");
                let item = typed(sampler, items, percent_decoded(&value));
                match slot {
                    Value::Array(list) => list.push(item),
                    _ => *slot = Value::Array(vec![item]),
                }
            } else {
                *slot = typed(sampler, declared, percent_decoded(&value));
            }
        }
        Value::Object(out)
    }

    /// Whether two values are the same JSON (numbers compared by value: `1` and `1.0` are one).
    pub fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            // Form text has no types: where the schema allows a string or a number (or a
            // boolean), the text `1` (or `true`) is either.
            (Value::String(t), Value::Number(n)) | (Value::Number(n), Value::String(t)) => {
                t.parse::<f64>().ok() == n.as_f64()
            }
            (Value::String(t), Value::Bool(b)) | (Value::Bool(b), Value::String(t)) => {
                *t == b.to_string()
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
            }
            (Value::Object(x), Value::Object(y)) => {
                // Null, an empty array and an empty object are not written in a form (RFC
                // 6570's undefined): each is one with absent.
                fn undefined(v: &Value) -> bool {
                    match v {
                        Value::Null => true,
                        Value::Array(items) => items.iter().all(undefined),
                        Value::Object(fields) => fields.values().all(undefined),
                        _ => false,
                    }
                }
                let present = |m: &Map<String, Value>| m.values().filter(|v| !undefined(v)).count();
                present(x) == present(y)
                    && x.iter()
                        .filter(|(_, v)| !undefined(v))
                        .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
            }
            _ => a == b,
        }
    }
}

/// What Prism said of each request, by tool: its `sl-violations` header, if any.
pub(super) type Verdicts = Arc<Mutex<BTreeMap<String, Option<String>>>>;

/// A registry of `catalog` whose handlers send each call with `client` as its binding says,
/// keeping Prism's verdict on the request.
pub(super) fn registry(
    catalog: Catalog,
    client: &HttpClient,
    verdicts: &Verdicts,
    components: &Arc<Map<String, Value>>,
    sends: bool,
) -> ToolRegistry {
    let mut handlers = BTreeMap::new();
    for entry in &catalog.tools {
        let Some(binding) = entry
            .source
            .as_ref()
            .and_then(|s| s.openapi_binding())
            .cloned()
        else {
            continue;
        };
        let (client, verdicts, components) = (client.clone(), verdicts.clone(), components.clone());
        let client_sends = sends;
        let name = entry.name.to_string();
        let body_schema = binding
            .body
            .as_ref()
            .and_then(|b| {
                entry
                    .input_schema
                    .as_value()
                    .pointer(&format!("/properties/{}", b.property))
            })
            .cloned()
            .unwrap_or(Value::Null);
        handlers.insert(
            name.clone(),
            Handler::new(move |input: Value| {
                let (client, verdicts, binding, name, components, body_schema) = (
                    client.clone(),
                    verdicts.clone(),
                    binding.clone(),
                    name.clone(),
                    components.clone(),
                    body_schema.clone(),
                );
                async move {
                    let judged = form_mismatch(&binding, &input, &components, &body_schema)
                        .or_else(|| {
                            multipart_mismatch(&binding, &input, &components, &body_schema)
                        });
                    match (judged, client_sends) {
                        (Some(Err(wrong)), _) => {
                            verdicts.lock().unwrap().insert(name, Some(wrong));
                            return Ok(Value::Null);
                        }
                        (Some(Ok(())), false) => {
                            verdicts.lock().unwrap().insert(name, None);
                            return Ok(Value::Null);
                        }
                        // Without Prism, only form bodies are judged.
                        (None, false) => return Ok(Value::Null),
                        (_, true) => {}
                    }
                    let replies = Replies::new();
                    let sent = client
                        .with(CallOptions::new().record(&replies))
                        .send(&binding, &input)
                        .await;
                    // Prism names violations in `sl-violations` (those of the request; it
                    // lists its own example reply's there too, which are the document's), and
                    // otherwise in a 4xx problem body of its own
                    // (`…/prism/errors#UNPROCESSABLE_ENTITY`, `#NO_PATH_MATCHED_ERROR`,
                    // `#UNAUTHORIZED`, …); its 5xx problems are about the document's responses.
                    let violations = replies.last().and_then(|reply| {
                        reply
                            .header("sl-violations")
                            .and_then(request_violations)
                            .or_else(|| {
                                reply.body.clone().filter(|body| {
                                    (400..500).contains(&reply.status)
                                        && body.contains("stoplight.io/prism/errors#")
                                })
                            })
                    });
                    verdicts.lock().unwrap().insert(name, violations);
                    match sent {
                        // The reply's shape is Prism's; only the request is judged here.
                        Ok(_) => Ok(Value::Null),
                        Err(error) => Err(error_thrown(error)),
                    }
                }
            }),
        );
    }
    // Replies are Prism's examples, not judged here: outputs are left unchecked.
    let mut catalog = catalog;
    for entry in &mut catalog.tools {
        entry.output_schema = None;
        entry.error_schema = None;
    }
    ToolRegistry::publish(catalog, handlers).unwrap()
}

/// The request's violations among those of an `sl-violations` header (a JSON list, each with
/// a `location` whose first word says what it judged), or `None` when there are none.
fn request_violations(header: &str) -> Option<String> {
    // Past a count Prism writes the list after a sentence, cut short: then each violation's
    // first location word is read from the text.
    let list = header
        .trim_start_matches("Too many violations!")
        .trim_start();
    let Ok(Value::Array(all)) = serde_json::from_str::<Value>(list) else {
        let judged_request = list
            .split("\"location\":[\"")
            .skip(1)
            .any(|rest| !rest.starts_with("response\""));
        return judged_request.then(|| header.to_string());
    };
    // Prism's warnings (a security scheme it does not support, `mutualTLS`) judge nothing.
    let request: Vec<Value> = all
        .into_iter()
        .filter(|v| v.pointer("/location/0").and_then(Value::as_str) != Some("response"))
        .filter(|v| v["severity"].as_str().is_none_or(|s| s == "Error"))
        .collect();
    (!request.is_empty()).then(|| Value::Array(request).to_string())
}

/// For a form body: `Err` with how the pairs the runtime encodes for `input` differ from the
/// value given, read back by [`form_judge`]; `None` when the body is not a form.
fn form_mismatch(
    binding: &harness_gen_runtime::binding::Binding,
    input: &Value,
    components: &Map<String, Value>,
    schema: &Value,
) -> Option<Result<(), String>> {
    let (body, value, payload) =
        match encoded(binding, input, harness_gen_runtime::binding::Encoding::Form)? {
            Ok(encoded) => encoded,
            Err(why) => return Some(Err(why)),
        };
    let text = String::from_utf8(payload.in_memory()?.to_vec()).ok()?;
    let sampler = Sampler {
        components,
        examples: false,
        every_property: false,
    };
    let read = form_judge::decode(&sampler, body, schema, &text);
    if form_judge::same(&read, value) {
        Some(Ok(()))
    } else {
        Some(Err(format!(
            "the form body `{text}` reads as {read}, not {value}"
        )))
    }
}

/// The body of `binding` when it is of `encoding`, its value in `input`, and the payload the
/// runtime encodes it as (`Err`: the encoder refused it); `None` for another body or none.
fn encoded<'a>(
    binding: &'a harness_gen_runtime::binding::Binding,
    input: &'a Value,
    encoding: harness_gen_runtime::binding::Encoding,
) -> Option<
    Result<
        (
            &'a harness_gen_runtime::binding::BodyBinding,
            &'a Value,
            harness_gen_runtime::http::encode::Payload,
        ),
        String,
    >,
> {
    let body = binding.body.as_ref().filter(|b| b.encoding == encoding)?;
    let value = input.get(body.property.as_ref())?;
    let encoded = harness_gen_runtime::http::encode::body(
        body,
        value,
        &Default::default(),
        binding.deep_object_arrays,
    );
    Some(
        encoded
            .map(|payload| (body, value, payload))
            .map_err(|refused| format!("not encoded: {}", refused.0)),
    )
}

/// For a multipart body: `Err` with how the parts the runtime encodes for `input` differ from
/// the value given, read back part by part (a JSON part parsed, a text part typed by the
/// schema, repeated parts of one name an array); `None` when the body is not multipart or is
/// not all in memory.
fn multipart_mismatch(
    binding: &harness_gen_runtime::binding::Binding,
    input: &Value,
    components: &Map<String, Value>,
    schema: &Value,
) -> Option<Result<(), String>> {
    let (body, value, payload) = match encoded(
        binding,
        input,
        harness_gen_runtime::binding::Encoding::Multipart,
    )? {
        Ok(encoded) => encoded,
        Err(why) => return Some(Err(why)),
    };
    let bytes = payload.in_memory()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let boundary = payload.content_type.split("boundary=").nth(1)?.to_string();
    let sampler = Sampler {
        components,
        examples: false,
        every_property: false,
    };
    let mut read = Map::new();
    let delimiter = format!("--{boundary}");
    for part in text.split(&delimiter).skip(1) {
        if part.starts_with("--") {
            break;
        }
        let Some((head, content)) = part.trim_start_matches("\r\n").split_once("\r\n\r\n") else {
            return Some(Err(format!("a part without a head: {part:?}")));
        };
        let content = content.strip_suffix("\r\n").unwrap_or(content).to_string();
        let name = head.split("name=\"").nth(1)?.split('"').next()?.to_string();
        let kind = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Type: "))
            .unwrap_or("text/plain");
        let property = form_judge::below(&sampler, schema, &name);
        let resolved = sampler.resolve(property);
        // An array is a part per item unless the document declares the part JSON: the parts
        // of one name are gathered into an array when the value given was one.
        let declared_json = body.part_type(&name).is_some_and(|t| t.contains("json"));
        let repeated = value.get(&name).is_some_and(Value::is_array) && !declared_json;
        let item_schema = if repeated {
            &resolved["items"]
        } else {
            property
        };
        let value = if kind.contains("json") {
            match serde_json::from_str(&content) {
                Ok(value) => value,
                Err(e) => return Some(Err(format!("the JSON part `{name}` does not parse: {e}"))),
            }
        } else {
            form_judge::typed(&sampler, item_schema, content)
        };
        if repeated {
            let slot = read.entry(name).or_insert_with(|| json!([]));
            slot.as_array_mut()?.push(value);
        } else {
            read.insert(name, value);
        }
    }
    let read = Value::Object(read);
    if form_judge::same(&read, value) {
        Some(Ok(()))
    } else {
        Some(Err(format!(
            "the multipart body reads as {read}, not {value}"
        )))
    }
}

fn error_thrown(error: harness_gen_runtime::http::Error<std::convert::Infallible>) -> Thrown {
    use harness_gen_runtime::http::Error;
    match error {
        Error::InvalidValue { pointer, .. } => {
            Thrown::InvalidInput(vec![harness_gen_runtime::Issue {
                pointer,
                keyword: "format".into(),
            }])
        }
        other => Thrown::Fault(other.category()),
    }
}

/// A registry of `catalog` whose handlers send to `base` with the runtime's client (no
/// retries), keeping no verdicts: for the checks that look at one call.
pub(super) fn sending_registry(
    catalog: Catalog,
    base: &str,
    components: &Arc<Map<String, Value>>,
) -> ToolRegistry {
    let client = ClientBuilder::new(base).max_retries(0).build().unwrap();
    registry(catalog, &client, &Verdicts::default(), components, true)
}

/// Runs the harness over `spec` (a path under the repository or `../shared`).
pub async fn conformance(spec: &Path) -> Tally {
    conformance_with(spec, |_| {}).await
}

/// [`conformance`] with the catalog changed by `tamper` first (to show the judge has teeth).
async fn conformance_with(spec: &Path, tamper: impl FnOnce(&mut Catalog)) -> Tally {
    let prism = prism().expect("Prism is installed by scripts/test.sh");
    let mut diags = harness_gen::diag::Diagnostics::default();
    let mut catalog =
        harness_gen::generate_catalog(spec, None, &mut diags).expect("the document generates");
    tamper(&mut catalog);
    let document = harness_gen::load::Document::load(spec, &mut diags).expect("it was read");
    let components = Arc::new(component_values(
        catalog.components.as_ref().map(|c| &c.schemas),
    ));
    let judge = start(&prism, spec, std::time::Duration::from_secs(120));
    let base = judge
        .as_ref()
        .map_or("http://127.0.0.1:9".to_string(), |(_, base)| base.clone());
    let mut builder = ClientBuilder::new(&base).max_retries(0);
    for (name, scheme, credential) in schemes(document.root()) {
        builder = builder.scheme(&name, scheme).credential(&name, credential);
    }
    let client = builder.build().unwrap();
    let verdicts: Verdicts = Arc::default();
    let entries: Vec<_> = catalog.tools.clone();
    let doc = document.root();
    let sends = judge.is_some();
    let registry = registry(catalog, &client, &verdicts, &components, sends);
    let mut tally = Tally {
        document: spec
            .strip_prefix(root())
            .unwrap_or(spec)
            .display()
            .to_string(),
        operations: entries.len(),
        prism: sends,
        ..Tally::default()
    };
    for entry in entries {
        let name = entry.name.to_string();
        let schema = entry.input_schema.as_value();
        let binding = entry.source.as_ref().and_then(|s| s.openapi_binding());
        if let Some(body) = binding.and_then(|b| b.body.as_ref())
            && sends
            && is_xml(&body.content_type)
        {
            let why = format!("the harness builds no XML instance ({})", body.content_type);
            tally.not_sent.push((name, why));
            continue;
        }
        let mut outcome = None;
        // The document's examples, else a minimal instance; without Prism, then every property
        // (nested values for the form judge).
        let passes: &[(bool, bool)] = if sends {
            &[(true, false), (false, false)]
        } else {
            &[(false, true), (false, false)]
        };
        for &(examples, every_property) in passes {
            let input = Sampler {
                components: &components,
                examples,
                every_property,
            }
            .sample(schema, 0);
            verdicts.lock().unwrap().remove(&name);
            let result = registry.invoke(Audience::Catalog, &name, input).await;
            let refused = matches!(result, Err(ToolError::InvalidInput { .. }));
            outcome = Some(result);
            if !refused {
                break;
            }
        }
        let verdict = verdicts.lock().unwrap().remove(&name);
        let judged = |violations: String, tally: &mut Tally, name: String| match binding
            .and_then(|b| excuse(doc, b, &violations))
        {
            Some(reason) => tally.excused.push((name, reason)),
            None => tally.rejected.push((name, violations)),
        };
        let sent = verdict.is_some();
        match (verdict, outcome.expect("tried")) {
            (Some(None), _) => tally.accepted += 1,
            (Some(Some(violations)), _) => judged(violations, &mut tally, name.clone()),
            (None, Err(error)) => tally.not_sent.push((name.clone(), format!("{error}"))),
            (None, Ok(_)) if !sends => tally.unjudged += 1,
            (None, Ok(_)) => tally
                .not_sent
                .push((name.clone(), "no request was made".into())),
        }
        // A second call with every optional property set (nested values too), judged alike;
        // one the sampler cannot make valid is not counted.
        if sends && sent {
            let input = Sampler {
                components: &components,
                examples: false,
                every_property: true,
            }
            .sample(schema, 0);
            let _ = registry.invoke(Audience::Catalog, &name, input).await;
            match verdicts.lock().unwrap().remove(&name) {
                Some(None) => tally.full += 1,
                Some(Some(violations)) => judged(
                    violations,
                    &mut tally,
                    format!("{name} (every property set)"),
                ),
                None => {}
            }
        }
    }
    tally
}

/// Whether every value `schema` allows leaves nothing on the wire: `null`, or an array of
/// such items (RFC 6570 leaves undefined values out).
fn only_null(doc: &Value, schema: &Value) -> bool {
    let schema = resolved(doc, schema);
    schema["enum"] == json!([null])
        || schema.get("const") == Some(&Value::Null)
        || schema["type"] == "null"
        || schema["type"] == "array" && only_null(doc, &schema["items"])
}

/// Whether a media type is XML.
fn is_xml(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    essence.ends_with("/xml") || essence.ends_with("+xml")
}

/// Why Prism's `violations` of a request of `binding` are Prism's or the document's fault and
/// not the request's, when every one of them is explained by a rule; `None` otherwise. Each rule
/// reads the document, never a list of operations:
///
/// - a header parameter named `Accept`, `Content-Type` or `Authorization`, which OpenAPI says
///   to ignore (the binding sets those headers), that Prism still requires;
/// - a parameter name with characters a URL escapes (`string with num`), which Prism looks
///   for still escaped;
/// - a path parameter the path template does not name: no request can carry it;
/// - a required parameter whose only value is `null` (or an array of nulls): RFC 6570 sends
///   no undefined value;
/// - a parameter (or a property of one) whose `oneOf`/`anyOf` branches are different scalar
///   types: Prism reads the text as each of them, so it matches more than one;
/// - a query parameter whose `type` lists `array` with another type (or is a nullable
///   array): Prism splits the text into an array only for `array` alone;
/// - a form body property the schema requires but does not declare: Prism reads only
///   declared fields;
/// - a multipart body Prism reads part by part as text, which the multipart judge read back
///   whole before it was sent;
/// - a path key holding a query or a fragment (`/{Key}#uploads`), which OpenAPI forbids and
///   Prism routes no request to.
fn excuse(
    doc: &Value,
    binding: &harness_gen_runtime::binding::Binding,
    violations: &str,
) -> Option<String> {
    let path = binding.path.as_ref();
    if path.contains(['?', '#']) {
        return Some(format!(
            "the path key `{path}` holds a query or fragment, which OpenAPI forbids; Prism routes no request to it"
        ));
    }
    let method = binding.method.as_str().to_ascii_lowercase();
    let item = doc.get("paths")?.get(path)?;
    let op = item.get(&method)?;
    let resolve = |param: &Value| -> Value {
        match param.get("$ref").and_then(Value::as_str) {
            Some(reference) => doc
                .pointer(reference.trim_start_matches('#'))
                .cloned()
                .unwrap_or(Value::Null),
            None => param.clone(),
        }
    };
    let declared: Vec<Value> = [item, op]
        .iter()
        .filter_map(|o| o.get("parameters").and_then(Value::as_array))
        .flatten()
        .map(resolve)
        .collect();
    let parsed: Value = serde_json::from_str(violations).ok()?;
    let list = match &parsed {
        Value::Array(list) => list.clone(),
        Value::Object(problem) => problem.get("validation")?.as_array()?.clone(),
        _ => return None,
    };
    let multipart = binding
        .body
        .as_ref()
        .is_some_and(|b| b.encoding == harness_gen_runtime::binding::Encoding::Multipart);
    let mut reasons = Vec::new();
    for violation in &list {
        let location = violation["location"].as_array();
        let in_body = location.is_some_and(|l| l.iter().any(|w| w == "body"));
        if multipart && in_body {
            // The request was sent only after the multipart judge read every part back as the
            // (validated) input gave it: the harness sends no uploads, so every multipart body
            // is in memory and judged.
            reasons.push(
                "Prism reads each multipart part as text (a JSON or file part is no object to it); the multipart judge read every part back as given".to_string(),
            );
            continue;
        }
        reasons.push(excused_violation(doc, op, &declared, path, violation)?);
    }
    reasons.dedup();
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// The rule of [`excuse`] that explains one violation, if one does.
fn excused_violation(
    doc: &Value,
    op: &Value,
    declared: &[Value],
    path: &str,
    violation: &Value,
) -> Option<String> {
    let location: Vec<&str> = violation["location"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let code = violation["code"].as_str().unwrap_or_default();
    let message = violation["message"].as_str().unwrap_or_default();
    if location.contains(&"body") && code == "required" {
        let property = message.split('\'').nth(1)?;
        return (!form_declares(doc, op, property)).then(|| {
            format!(
                "Prism reads only the form fields the schema declares, and `{property}` is required without being declared (it was sent)"
            )
        });
    }
    let place = ["path", "query", "header", "cookie"]
        .into_iter()
        .find(|p| location.contains(p))?;
    let named = |name: &str| {
        declared
            .iter()
            .find(|p| p["in"] == place && p["name"].as_str().is_some_and(|n| n == name))
    };
    if code == "required" {
        let property = message.split('\'').nth(1)?;
        let ignored = ["accept", "content-type", "authorization"];
        if place == "header" && ignored.contains(&property.to_ascii_lowercase().as_str()) {
            return Some(format!(
                "Prism requires the header parameter `{property}`, which OpenAPI says to ignore"
            ));
        }
        let decoded = form_judge::percent_decoded(property);
        if decoded != property && named(&decoded).is_some() {
            return Some(format!(
                "Prism looks for the parameter `{decoded}` by its escaped name `{property}`"
            ));
        }
        let in_path = declared.iter().find(|p| {
            p["in"] == "path"
                && p["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(property))
        });
        if place == "path"
            && let Some(name) = in_path.and_then(|p| p["name"].as_str())
            && !path.contains(&format!("{{{name}}}"))
        {
            return Some(format!(
                "the path parameter `{name}` is not in the template `{path}`: no request can carry it"
            ));
        }
        if only_null(doc, &named(property)?["schema"]) {
            return Some(format!(
                "the required parameter `{property}` has no value but null, which RFC 6570 leaves out"
            ));
        }
        return None;
    }
    let after: Vec<&str> = location
        .iter()
        .skip_while(|w| **w != place)
        .skip(1)
        .copied()
        .collect();
    let (name, nested) = after.split_first()?;
    let mut schema = resolved(doc, &named(name)?["schema"]);
    // Several types: a list, or (OpenAPI 3.0) one and `nullable`.
    let types: Vec<&Value> = match &schema["type"] {
        Value::Array(types) => types.iter().collect(),
        one if schema["nullable"] == true => vec![one, &Value::Null],
        one => vec![one],
    };
    if code == "type"
        && place == "query"
        && nested.is_empty()
        && types.len() > 1
        && types.iter().any(|t| *t == "array")
    {
        return Some(format!(
            "Prism reads the query parameter `{name}` as an array only when its type is `array` alone, not nullable"
        ));
    }
    for word in nested {
        schema = resolved(doc, &schema["properties"][*word]);
    }
    let branches = schema["oneOf"].as_array().or(schema["anyOf"].as_array())?;
    let scalar = ["string", "integer", "number", "boolean"];
    let all_scalar = branches.len() > 1
        && branches.iter().all(|b| {
            let b = resolved(doc, b);
            let enumerated = b["enum"]
                .as_array()
                .is_some_and(|values| values.iter().all(|v| !v.is_object() && !v.is_array()));
            b["type"].as_str().is_some_and(|t| scalar.contains(&t)) || enumerated
        });
    all_scalar.then(|| {
        format!(
            "Prism reads the parameter `{}` as every scalar type of its union, so the text matches more than one branch",
            after.join(".")
        )
    })
}

/// The schema `schema` refers to when it is a `$ref` into the document, else itself.
fn resolved<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => doc
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(&Value::Null),
        None => schema,
    }
}

/// Whether a form body's schema (of operation `op`) declares `property`, in its own
/// `properties` or an `allOf` part's.
fn form_declares(doc: &Value, op: &Value, property: &str) -> bool {
    let body = resolved(doc, &op["requestBody"]);
    let Some(content) = body["content"].as_object() else {
        return true;
    };
    content
        .iter()
        .filter(|(media, _)| media.starts_with("application/x-www-form-urlencoded"))
        .any(|(_, media)| {
            let schema = resolved(doc, &media["schema"]);
            let parts = schema["allOf"].as_array().into_iter().flatten();
            std::iter::once(schema)
                .chain(parts.map(|p| resolved(doc, p)))
                .any(|s| s["properties"].get(property).is_some())
        })
}

/// Fails with every rejected request (tool and Prism's violations) and every call that was not
/// sent.
fn assert_conforms(tally: &Tally) {
    assert!(
        tally.rejected.is_empty() && tally.not_sent.is_empty() && tally.accepted > 0,
        "{}\nrejected by Prism:\n{}\nnot sent:\n{}",
        tally.row(),
        tally
            .rejected
            .iter()
            .map(|(tool, why)| format!("  {tool}: {why}"))
            .collect::<Vec<_>>()
            .join("\n"),
        tally
            .not_sent
            .iter()
            .map(|(tool, why)| format!("  {tool}: {why}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_serialization_of_the_wire_document_conforms() {
    if prism().is_none() {
        return;
    }
    let tally = conformance(&root().join("specs/wire.yaml")).await;
    assert_conforms(&tally);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_judge_rejects_a_form_body_that_ignores_its_encoding() {
    if prism().is_none() {
        return;
    }
    // The form body's encoding forgotten: `address` spreads into `city=X&line1=…`.
    let tally = conformance_with(&root().join("specs/wire.yaml"), |catalog| {
        for entry in &mut catalog.tools {
            if let Some(harness_gen_runtime::catalog::SourceBinding::OpenApi(binding)) =
                entry.source.as_mut().and_then(|s| s.binding.as_mut())
                && let Some(body) = &mut binding.body
            {
                body.parts = Default::default();
            }
        }
    })
    .await;
    let rejected: Vec<&str> = tally.rejected.iter().map(|(t, _)| t.as_str()).collect();
    // Both calls: the minimal one and the one with every property set.
    assert_eq!(
        rejected,
        ["form_body", "form_body (every property set)"],
        "{tally:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn small_corpus_documents_conform_on_the_wire() {
    if prism().is_none() {
        return;
    }
    for document in [
        "examples/oai-learn_v3.0_petstore-expanded.yaml",
        "examples/oai-learn_v3.1_tictactoe.yaml",
        "examples/readme-oas-examples_3.1_schema-encoding-style.json",
        "apisguru/xkcd.com_1.0.0.openapi.yaml",
        "apisguru/extendsclass.com_json-storage_0.1.openapi.yaml",
    ] {
        let tally = conformance(&root().join("../shared/corpus").join(document)).await;
        assert_conforms(&tally);
    }
}

/// The heavy check: every document of the corpus that generates, the large ones included, with
/// the summary table on standard output (`scripts/wire-conformance.sh`).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "heavy: the whole corpus against Prism; run by scripts/wire-conformance.sh"]
async fn every_corpus_document_conforms_on_the_wire() {
    let corpus = root().join("../shared/corpus");
    let only = std::env::var("WIRE_ONLY").ok();
    let mut documents: Vec<PathBuf> = Vec::new();
    for dir in [
        "examples",
        "apisguru",
        "codegen-tests",
        "large",
        "progenitor",
        "oai-tests/pass",
    ] {
        let Ok(read) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        for file in read.flatten() {
            let path = file.path();
            let name = path.display().to_string();
            if only.as_deref().is_some_and(|o| !name.contains(o)) {
                continue;
            }
            documents.push(path);
        }
    }
    documents.sort();
    let mut failed = Vec::new();
    println!(
        "| document | operations | accepted | accepted with every property | rejected | excused | not sent | not judged | judged by |\n|---|---|---|---|---|---|---|---|---|"
    );
    for spec in documents {
        let mut diags = harness_gen::diag::Diagnostics::default();
        let generates = harness_gen::generate_catalog(&spec, None, &mut diags)
            .is_some_and(|c| !c.tools.is_empty())
            && !diags.has_errors();
        if !generates {
            continue;
        }
        let tally = conformance(&spec).await;
        println!("{}", tally.row());
        for (kind, list) in [
            ("rejected", &tally.rejected),
            ("excused", &tally.excused),
            ("not sent", &tally.not_sent),
        ] {
            for (tool, why) in list {
                eprintln!("{}: {kind}: {tool}: {why}", tally.document);
            }
        }
        // A call the sampler could not make valid is listed, not failed: the harness, not the
        // product, lacks an instance (a regular expression, an XML body).
        if !tally.rejected.is_empty() {
            failed.push(tally.document);
        }
    }
    assert!(failed.is_empty(), "not conforming: {failed:?}");
}

/// The catalog of a corpus document and the binding of its tool `name`.
fn binding_of(document: &str, name: &str) -> harness_gen_runtime::binding::Binding {
    entry_of(&root().join("../shared/corpus").join(document), name).0
}

/// The binding of tool `name` of the document at `spec`, and its body's input schema.
fn entry_of(spec: &Path, name: &str) -> (harness_gen_runtime::binding::Binding, Value) {
    let mut diags = harness_gen::diag::Diagnostics::default();
    let catalog = harness_gen::generate_catalog(spec, None, &mut diags).expect("it generates");
    let entry = catalog
        .tools
        .iter()
        .find(|e| e.name.as_str() == name)
        .unwrap_or_else(|| panic!("{} has no tool {name}", spec.display()));
    let binding = entry
        .source
        .as_ref()
        .and_then(|s| s.openapi_binding())
        .cloned()
        .expect("an OpenAPI binding");
    let body = entry.input_schema.as_value()["properties"]["body"].clone();
    (binding, body)
}

/// The form body `value` is sent as.
fn form_text(binding: &harness_gen_runtime::binding::Binding, value: &Value) -> String {
    let body = binding.body.as_ref().expect("a body");
    let payload = harness_gen_runtime::http::encode::body(
        body,
        value,
        &Default::default(),
        binding.deep_object_arrays,
    )
    .unwrap();
    String::from_utf8(payload.in_memory().unwrap().to_vec()).unwrap()
}

#[test]
fn stripe_creates_are_sent_as_stripe_documents_them() {
    let stripe = "large/spec3.2023-09-12.yaml";
    let customers = binding_of(stripe, "post_customers");
    assert_eq!(
        form_text(
            &customers,
            &json!({
                "address": {"line1": "1 Main", "city": "X"},
                "metadata": {"k": "v"},
                "expand": ["default_source", "tax"]
            })
        ),
        "address[line1]=1%20Main&address[city]=X&metadata[k]=v&expand[0]=default_source&expand[1]=tax"
    );
    let intents = binding_of(stripe, "post_payment_intents");
    assert_eq!(
        form_text(
            &intents,
            &json!({
                "amount": 2000,
                "currency": "usd",
                "automatic_payment_methods": {"enabled": true},
                "payment_method_types": ["card", "link"],
                "metadata": {"order_id": "6735"}
            })
        ),
        "amount=2000&currency=usd&automatic_payment_methods[enabled]=true\
         &payment_method_types[0]=card&payment_method_types[1]=link&metadata[order_id]=6735"
    );
    let checkout = binding_of(stripe, "post_checkout_sessions");
    assert_eq!(
        form_text(
            &checkout,
            &json!({
                "mode": "payment",
                "success_url": "https://example.com/success?session_id={CHECKOUT_SESSION_ID}",
                "line_items": [
                    {"price": "price_1", "quantity": 2},
                    {"price_data": {"currency": "usd", "unit_amount": 500, "product_data": {"name": "T-shirt"}}, "quantity": 1}
                ]
            })
        ),
        "mode=payment&success_url=https%3A%2F%2Fexample.com%2Fsuccess%3Fsession_id%3D%7BCHECKOUT_SESSION_ID%7D\
         &line_items[0][price]=price_1&line_items[0][quantity]=2\
         &line_items[1][price_data][currency]=usd&line_items[1][price_data][unit_amount]=500\
         &line_items[1][price_data][product_data][name]=T-shirt&line_items[1][quantity]=1"
    );
}

#[test]
fn vimeo_numbers_go_into_the_path_as_given() {
    let binding = binding_of("apisguru/vimeo.com_3.4.openapi.yaml", "get_channel");
    let param = binding
        .parameters
        .iter()
        .find(|p| p.name == "channel_id")
        .expect("channel_id");
    assert_eq!(
        harness_gen_runtime::http::encode::path_value(param, &json!(927.0)).unwrap(),
        "927"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nexus_ip_range_bodies_pass_input_validation_and_are_sent() {
    let mut diags = harness_gen::diag::Diagnostics::default();
    let spec = root().join("../shared/corpus/progenitor/nexus.json");
    let catalog = harness_gen::generate_catalog(&spec, None, &mut diags).unwrap();
    // Nothing listens on port 9: a call that passes validation fails as transport.
    let registry = sending_registry(catalog, "http://127.0.0.1:9", &Arc::default());
    for (first, last) in [("10.0.0.1", "10.0.0.9"), ("fd00::1", "fd00::9")] {
        let input = json!({"pool_name": "pool", "body": {"first": first, "last": last}});
        let outcome = registry
            .invoke(Audience::Catalog, "ip_pool_range_add", input)
            .await;
        assert!(
            matches!(outcome, Err(ToolError::Runtime { .. })),
            "{first}: {outcome:?}"
        );
    }
    let outcome = registry
        .invoke(
            Audience::Catalog,
            "ip_pool_range_add",
            json!({"pool_name": "pool", "body": {"first": "nowhere", "last": "10.0.0.9"}}),
        )
        .await;
    assert!(
        matches!(outcome, Err(ToolError::InvalidInput { .. })),
        "{outcome:?}"
    );
}

/// The catalog entry `name` of `specs/wire.yaml`: its binding and its body's schema.
fn wire_entry(name: &str) -> (harness_gen_runtime::binding::Binding, Value) {
    entry_of(&root().join("specs/wire.yaml"), name)
}

#[test]
fn the_multipart_judge_reads_parts_back_and_sees_what_was_left_out() {
    let (binding, schema) = wire_entry("multipart_body");
    let components = Map::new();
    let given = json!({"body": {"file": "iVBORw0KGgo=", "note": "hi", "count": 3}});
    let judged = multipart_mismatch(&binding, &given, &components, &schema);
    assert_eq!(judged, Some(Ok(())));
    // A value the parts do not carry (a null item, left out of the wire) reads back as
    // another one.
    let lossy = json!({"body": {"file": "iVBORw0KGgo=", "note": ["a", null], "count": 3}});
    let judged = multipart_mismatch(&binding, &lossy, &components, &schema);
    assert!(matches!(judged, Some(Err(_))), "{judged:?}");
}

#[test]
fn only_violations_a_rule_explains_are_excused() {
    let (binding, _) = wire_entry("multipart_body");
    let doc: Value = yaml_doc(&root().join("specs/wire.yaml"));
    let body = json!([{"location": ["request", "body", "count"], "severity": "Error",
                       "code": "type", "message": "Request body property count must be object"}]);
    let excused = excuse(&doc, &binding, &body.to_string());
    assert!(excused.is_some_and(|why| why.contains("multipart judge")));
    // A violation no rule explains leaves the request rejected, even beside an explained one.
    let (json_binding, _) = wire_entry("json_body");
    let unexplained = json!([{"location": ["request", "body", "name"], "severity": "Error",
                              "code": "type", "message": "Request body property name must be string"}]);
    assert_eq!(excuse(&doc, &json_binding, &unexplained.to_string()), None);
    let header = json!([
        {"location": ["request", "header"], "severity": "Error", "code": "required",
         "message": "Request header must have required property 'x-unknown'"}
    ]);
    assert_eq!(excuse(&doc, &json_binding, &header.to_string()), None);
}

fn yaml_doc(path: &Path) -> Value {
    let mut diags = harness_gen::diag::Diagnostics::default();
    harness_gen::load::Document::load(path, &mut diags)
        .unwrap()
        .root()
        .clone()
}

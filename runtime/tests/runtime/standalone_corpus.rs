//! The standalone-schema projection on real schemas: for every component schema of every
//! OpenAPI 3.1 document in the shared corpus, the projected schema accepts exactly the
//! instances the original (validated in place, inside its document) accepts, and its listing
//! form (bounded by the default budget, and by a tiny one that forces stubs, cuts and merges)
//! is a standalone 2020-12 schema accepting at least those. Instances are the documents' own
//! examples plus instances generated from each schema, valid and invalid.

use crate::corpus;

use harness_gen_runtime::ErrorCode;
use harness_gen_runtime::schema::listing::{Budget, Lister, Prepared, Role};
use harness_gen_runtime::schema::standalone;
use serde_json::{Map, Value, json};

/// Instances generated per schema are capped to keep the suite fast.
const MAX_INSTANCES: usize = 60;

#[derive(Default, Debug)]
struct Tally {
    schemas: usize,
    refused: usize,
    instances: usize,
    accepted: usize,
}

#[test]
fn projected_component_schemas_accept_exactly_what_the_originals_accept() {
    let mut total = Tally::default();
    let mut documents = 0;
    for listed in corpus::listed() {
        if !listed.openapi.starts_with("3.1") {
            continue;
        }
        let doc = corpus::load(&listed.path);
        let tally = check_document(&listed.path, &doc);
        documents += 1;
        total.schemas += tally.schemas;
        total.refused += tally.refused;
        total.instances += tally.instances;
        total.accepted += tally.accepted;
    }
    eprintln!("{documents} documents: {total:?}");
    assert!(
        documents >= 60,
        "expected the whole 3.1 corpus, saw {documents}"
    );
    assert!(total.schemas > 700, "{total:?}");
    // The comparison is only meaningful if instances fall on both sides of the line.
    assert!(total.accepted > total.instances / 10, "{total:?}");
    assert!(total.accepted < total.instances, "{total:?}");
}

fn check_document(path: &str, doc: &Value) -> Tally {
    let mut tally = Tally::default();
    let Some(schemas) = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return tally;
    };
    let mut components = doc.get("components").cloned().unwrap_or(Value::Null);
    // The original is judged with each `required` naming a property once, as the projection
    // writes it: jsonschema reports a name listed twice as missing even when it is present
    // (OpenAI's `ContainerResource`), while 2020-12 gives the repeat no meaning.
    if let Some(Value::Object(all)) = components.get_mut("schemas") {
        for schema in all.values_mut() {
            harness_gen_runtime::schema::visit_mut(schema, &mut |map| {
                if let Some(Value::Array(names)) = map.get_mut("required") {
                    let mut seen = std::collections::HashSet::new();
                    names.retain(|name| seen.insert(name.to_string()));
                }
            });
        }
    }
    let lookup = |name: &str| schemas.get(name);
    let prepared = Prepared::new(schemas.keys().map(String::as_str));
    let tiny = Budget {
        depth: 1,
        bytes: 64,
    };
    let listers = [
        Lister::new(&lookup, &prepared, Budget::DEFAULT),
        Lister::new(&lookup, &prepared, tiny),
    ];
    for (name, schema) in schemas {
        let at = format!("{path} components.schemas.{name}");
        let escaped = harness_gen_runtime::schema::escape(name);
        let original_doc = json!({
            "$ref": format!("#/components/schemas/{}", harness_gen_runtime::schema::percent_encode_fragment(&escaped)),
            "components": components,
        });
        let Ok(original) = jsonschema::draft202012::options().build(&original_doc) else {
            // A schema its own document cannot compile (an invalid schema, an external
            // reference) must not become usable by projecting it.
            if let Ok(projected) = standalone::project(schema, &lookup, &at) {
                assert!(jsonschema::draft202012::new(&projected).is_err(), "{at}");
            }
            tally.refused += 1;
            continue;
        };
        tally.schemas += 1;
        let projected = match standalone::project(schema, &lookup, &at) {
            Ok(projected) => projected,
            Err(error) => {
                assert!(
                    matches!(
                        error.code,
                        ErrorCode::UnsafeSchemaMove | ErrorCode::ExternalReference
                    ),
                    "{at}: {error}"
                );
                tally.refused += 1;
                continue;
            }
        };
        assert_standalone(&projected, &at);
        let projected_validator = jsonschema::draft202012::new(&projected)
            .unwrap_or_else(|e| panic!("{at}: projected schema does not compile: {e}"));
        let listed: Vec<_> = listers
            .iter()
            .map(|lister| {
                let listed = lister.list(schema, &at, Role::Input);
                assert_standalone(&listed, &at);
                jsonschema::draft202012::new(&listed)
                    .unwrap_or_else(|e| panic!("{at}: listed schema does not compile: {e}"))
            })
            .collect();
        for instance in instances(schema, schemas) {
            let expected = original.is_valid(&instance);
            let actual = projected_validator.is_valid(&instance);
            assert_eq!(
                expected, actual,
                "{at}: the original says {expected}, the projection {actual}, for {instance}"
            );
            for listed in &listed {
                assert!(
                    !expected || listed.is_valid(&instance),
                    "{at}: the listing refuses {instance}, which the original accepts"
                );
            }
            tally.instances += 1;
            tally.accepted += usize::from(expected);
        }
    }
    tally
}

/// A standalone schema references nothing outside itself.
fn assert_standalone(schema: &Value, at: &str) {
    harness_gen_runtime::schema::visit(schema, &mut |pointer, map| {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            assert!(
                reference == "#" || reference.starts_with("#/"),
                "{at}#{pointer}: {reference}"
            );
            assert!(
                !reference.starts_with("#/components/"),
                "{at}#{pointer}: {reference}"
            );
            let decoded = harness_gen_runtime::schema::percent_decode(&reference[1..]);
            assert!(
                harness_gen_runtime::schema::resolve(schema, &decoded).is_some(),
                "{at}#{pointer}: {reference} does not resolve"
            );
        }
    });
}

/// The schema's own examples, then generated instances: one per alternative, and mutations of
/// each (missing required properties, extra properties, wrong types, other JSON types).
fn instances(schema: &Value, schemas: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(example) = schema.get("example") {
        out.push(example.clone());
    }
    if let Some(Value::Array(examples)) = schema.get("examples") {
        out.extend(examples.iter().cloned());
    }
    let samples = Sampler { schemas }.alternatives(schema, 0);
    for sample in &samples {
        out.push(sample.clone());
        out.extend(mutations(sample));
    }
    out.extend([
        json!(null),
        json!(""),
        json!(0),
        json!(1.5),
        json!([]),
        json!({}),
        json!(true),
    ]);
    out.truncate(MAX_INSTANCES);
    out
}

fn mutations(sample: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match sample {
        Value::Object(map) => {
            for key in map.keys() {
                let mut dropped = map.clone();
                dropped.remove(key);
                out.push(Value::Object(dropped));
                for wrong in [json!("wrong"), json!(-7), json!(null), json!({"x": 1})] {
                    let mut changed = map.clone();
                    changed.insert(key.clone(), wrong);
                    out.push(Value::Object(changed));
                }
            }
            let mut extra = map.clone();
            extra.insert("unexpected_property".into(), json!(1));
            out.push(Value::Object(extra));
        }
        Value::Array(items) => {
            out.push(json!([]));
            let mut more = items.clone();
            more.extend(items.iter().cloned());
            out.push(Value::Array(more));
            out.push(json!([null, "x", 1]));
        }
        Value::String(s) => out.extend([json!(format!("{s}{s}")), json!("")]),
        Value::Number(_) => out.extend([json!(-1), json!(1e12), json!(0.5)]),
        _ => {}
    }
    out
}

/// Builds plausible instances from a schema, following references to a bounded depth.
struct Sampler<'a> {
    schemas: &'a Map<String, Value>,
}

impl Sampler<'_> {
    /// One instance per top-level alternative (`oneOf`/`anyOf` variant, enum value).
    fn alternatives(&self, schema: &Value, depth: usize) -> Vec<Value> {
        let schema = self.deref(schema);
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(variants)) = schema.get(keyword) {
                return variants.iter().map(|v| self.sample(v, depth)).collect();
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return values.clone();
        }
        vec![self.sample(schema, depth)]
    }

    fn deref<'s>(&'s self, schema: &'s Value) -> &'s Value {
        let mut current = schema;
        for _ in 0..8 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(name) = reference.strip_prefix("#/components/schemas/") else {
                break;
            };
            let (name, rest) = name.split_once('/').map_or((name, ""), |(n, r)| (n, r));
            let name = harness_gen_runtime::schema::unescape(
                &harness_gen_runtime::schema::percent_decode(name),
            );
            let Some(target) = self.schemas.get(&name) else {
                break;
            };
            let rest = if rest.is_empty() {
                String::new()
            } else {
                format!("/{rest}")
            };
            match harness_gen_runtime::schema::resolve(
                target,
                &harness_gen_runtime::schema::percent_decode(&rest),
            ) {
                Some(next) => current = next,
                None => break,
            }
        }
        current
    }

    fn sample(&self, schema: &Value, depth: usize) -> Value {
        let schema = self.deref(schema);
        let Some(map) = schema.as_object() else {
            return json!({});
        };
        if depth > 6 {
            return Value::Null;
        }
        if let Some(value) = map.get("const") {
            return value.clone();
        }
        if let Some(value) = map.get("default") {
            return value.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && let Some(first) = values.first()
        {
            return first.clone();
        }
        if let Some(example) = map.get("example") {
            return example.clone();
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(first) = map.get(keyword).and_then(|v| v.get(0)) {
                return self.sample(first, depth + 1);
            }
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let mut merged = Map::new();
            let mut other = None;
            for part in parts {
                match self.sample(part, depth + 1) {
                    Value::Object(fields) => merged.extend(fields),
                    value => other = Some(value),
                }
            }
            if let Some(value) = other.filter(|_| merged.is_empty()) {
                return value;
            }
            if map.get("properties").is_none() {
                return Value::Object(merged);
            }
        }
        let ty = match map.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null"),
            _ if map.contains_key("properties") => "object",
            _ if map.contains_key("items") => "array",
            _ => "string",
        };
        match ty {
            "object" => {
                let mut out = Map::new();
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for (name, sub) in properties {
                        out.insert(name.clone(), self.sample(sub, depth + 1));
                    }
                }
                Value::Object(out)
            }
            "array" => match map.get("items") {
                Some(items) => json!([self.sample(items, depth + 1)]),
                None => json!([]),
            },
            "integer" => map.get("minimum").cloned().unwrap_or(json!(1)),
            "number" => map.get("minimum").cloned().unwrap_or(json!(1.5)),
            "boolean" => json!(true),
            "null" => Value::Null,
            _ => json!(match map.get("format").and_then(Value::as_str) {
                Some("date-time") => "2024-01-02T03:04:05Z",
                Some("date") => "2024-01-02",
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
                Some("email") => "a@example.com",
                Some("uri") | Some("url") => "https://example.com/x",
                _ => "sample",
            }),
        }
    }
}

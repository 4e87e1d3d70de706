//! The second judge, for form bodies (Prism reads their `deepObject` properties loosely, and
//! never loads Stripe's document): the body's pairs decoded as the document's `encoding` says,
//! written here independently of the runtime's encoder, must give back exactly the value sent.

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
    if (segment.is_empty() || segment.parse::<usize>().is_ok())
        && let Some(items) = schema.get("items")
    {
        return items;
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
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(String::from)),
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
                (Some(k), Some(Value::Object(last))) if !last.contains_key(k) => items.len() - 1,
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

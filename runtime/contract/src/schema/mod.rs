//! JSON Schema (Draft 2020-12) document plumbing shared by validation and projection: which
//! keywords hold subschemas, a walker over every subschema with its JSON pointer, and JSON
//! pointer escaping and resolution.

pub mod inline;
pub mod listing;
pub mod meta;
pub mod standalone;
pub mod strict;

use serde_json::{Map, Value};

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "additionalItems",
];

/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Keywords whose value is a list of subschemas.
const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Calls `visit(pointer, schema)` for `schema` and every subschema below it, depth first, in
/// document order. `pointer` is relative to `schema`'s root (`""` for the root itself).
pub fn visit<'a>(schema: &'a Value, visit: &mut impl FnMut(&str, &'a Map<String, Value>)) {
    let mut pointer = String::new();
    walk(schema, &mut pointer, visit);
}

fn walk<'a>(
    schema: &'a Value,
    pointer: &mut String,
    visit: &mut impl FnMut(&str, &'a Map<String, Value>),
) {
    let Some(map) = schema.as_object() else {
        return;
    };
    visit(pointer, map);
    for (key, value) in map {
        let keyword = key.as_str();
        let base = pointer.len();
        if SINGLE.contains(&keyword) && (value.is_object() || value.is_boolean()) {
            push_segment(pointer, keyword);
            walk(value, pointer, visit);
        } else if MAPS.contains(&keyword) {
            if let Some(entries) = value.as_object() {
                push_segment(pointer, keyword);
                for (name, sub) in entries {
                    let inner = pointer.len();
                    push_segment(pointer, name);
                    walk(sub, pointer, visit);
                    pointer.truncate(inner);
                }
            }
        } else if LISTS.contains(&keyword)
            && let Some(items) = value.as_array()
        {
            push_segment(pointer, keyword);
            for (index, sub) in items.iter().enumerate() {
                let inner = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                walk(sub, pointer, visit);
                pointer.truncate(inner);
            }
        }
        pointer.truncate(base);
    }
}

/// Like [`visit`], with mutable access to each subschema object. The pointer is not tracked.
pub fn visit_mut(schema: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    visit(map);
    children_mut(map, &mut |_, _, child| visit_mut(child, visit));
}

/// Calls `f(keyword, member, child)` for each direct subschema of `map`: `member` is the
/// property name or list index for keywords that hold several (`properties/x`, `allOf/0`).
pub fn children_mut(
    map: &mut Map<String, Value>,
    f: &mut impl FnMut(&str, Option<&str>, &mut Value),
) {
    for (key, value) in map.iter_mut() {
        let keyword = key.as_str();
        if SINGLE.contains(&keyword) && (value.is_object() || value.is_boolean()) {
            f(keyword, None, value);
        } else if MAPS.contains(&keyword) {
            if let Some(entries) = value.as_object_mut() {
                for (name, sub) in entries.iter_mut() {
                    if sub.is_object() || sub.is_boolean() {
                        f(keyword, Some(name), sub);
                    }
                }
            }
        } else if LISTS.contains(&keyword)
            && let Some(items) = value.as_array_mut()
        {
            for (index, sub) in items.iter_mut().enumerate() {
                if sub.is_object() || sub.is_boolean() {
                    f(keyword, Some(&index.to_string()), sub);
                }
            }
        }
    }
}

/// The length of `value` as compact JSON, counted without writing it anywhere.
pub fn serialized_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Calls `f(keyword, child)` for each direct subschema of `map`, in document order.
pub fn children(map: &Map<String, Value>, f: &mut impl FnMut(&str, &Value)) {
    for (key, value) in map {
        let keyword = key.as_str();
        let is_schema = |v: &Value| v.is_object() || v.is_boolean();
        if SINGLE.contains(&keyword) && is_schema(value) {
            f(keyword, value);
        } else if MAPS.contains(&keyword) {
            for sub in value.as_object().into_iter().flat_map(|m| m.values()) {
                if is_schema(sub) {
                    f(keyword, sub);
                }
            }
        } else if LISTS.contains(&keyword) {
            for sub in value.as_array().into_iter().flatten() {
                if is_schema(sub) {
                    f(keyword, sub);
                }
            }
        }
    }
}

fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

pub use crate::pointer::{escape, unescape};

/// Decodes the percent-encoding that a URI fragment may carry (`%25` → `%`), leaving invalid
/// sequences as they are.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(byte) = hex {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Percent-encodes what a URI fragment may not hold as is, so that a pointer to a schema with
/// any name is a valid `$ref`.
pub fn percent_encode_fragment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Resolves a JSON pointer (already percent-decoded, without the leading `#`) inside `root`.
pub fn resolve<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let rest = pointer.strip_prefix('/')?;
    let mut current = root;
    for raw in rest.split('/') {
        let segment = unescape(raw);
        current = match current {
            Value::Object(map) => map.get(&segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// The keywords whose presence makes a schema's meaning depend on where it sits.
pub const LOCATION_SENSITIVE: &[&str] = &[
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveRef",
    "$recursiveAnchor",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walker_reaches_every_subschema_with_its_pointer() {
        let schema = json!({
            "properties": {"a/b": {"items": {"type": "string"}}},
            "allOf": [{"not": true}, {"$defs": {"x": {}}}],
            "enum": [{"properties": {"not-a-schema": {}}}]
        });
        let mut seen = Vec::new();
        visit(&schema, &mut |pointer, _| seen.push(pointer.to_string()));
        assert_eq!(
            seen,
            [
                "",
                "/properties/a~1b",
                "/properties/a~1b/items",
                "/allOf/0",
                "/allOf/1",
                "/allOf/1/$defs/x"
            ]
        );
    }

    #[test]
    fn pointers_resolve_through_objects_and_arrays() {
        let doc = json!({"a": [{"b~c": {"d/e": 1}}]});
        assert_eq!(resolve(&doc, "/a/0/b~0c/d~1e"), Some(&json!(1)));
        assert_eq!(resolve(&doc, "/a/1"), None);
        assert_eq!(resolve(&doc, ""), Some(&doc));
    }

    #[test]
    fn fragments_are_percent_decoded() {
        assert_eq!(percent_decode("/a%20b/%7E"), "/a b/~");
        assert_eq!(percent_decode("%zz%"), "%zz%");
    }
}

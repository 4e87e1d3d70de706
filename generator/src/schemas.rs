//! Schema normalization: every schema taken from a document becomes a JSON Schema 2020-12
//! document whose only references are `#/components/schemas/...` of the main document.
//!
//! - 3.0 meaning becomes 2020-12 meaning: `nullable: true` adds a null alternative, boolean
//!   `exclusiveMinimum`/`exclusiveMaximum` become numeric; `example` stays as an annotation.
//!   Real 3.1 documents use the same idioms and get the same treatment. `format: binary`
//!   gains `contentEncoding: base64`, the form binary data has in JSON tool inputs and outputs.
//! - References anywhere else (another part of the document, a local file) are inlined;
//!   a reference cycle through inlined schemas is cut with a warning.
//! - What is still not valid 2020-12 is dropped, keyword by keyword, with a warning naming
//!   where: one bad keyword never costs the whole API.

use serde_json::{Map, Value, json};

use crate::diag::{Code, Diagnostics, Severity};
use crate::load::{Document, Loc};

/// The prefix under which references are kept as references.
const COMPONENTS: &str = "/components/schemas/";

/// Normalizes schemas of one document, reporting into `diags`.
pub struct Normalizer<'a> {
    doc: &'a Document,
    diags: &'a mut Diagnostics,
    inlining: Vec<Loc>,
}

impl<'a> Normalizer<'a> {
    /// A normalizer for `doc`.
    pub fn new(doc: &'a Document, diags: &'a mut Diagnostics) -> Self {
        Self {
            doc,
            diags,
            inlining: Vec::new(),
        }
    }

    /// The normalized form of `schema`, found at `loc`.
    pub fn normalize(&mut self, schema: &Value, loc: &Loc) -> Value {
        let mut out = self.convert(schema.clone(), loc, 0);
        self.drop_invalid(&mut out, loc);
        out
    }

    fn warn(&mut self, code: Code, loc: &Loc, message: String) {
        self.diags
            .push(self.doc.diag(code, Severity::Warning, loc, message));
    }

    fn convert(&mut self, schema: Value, loc: &Loc, depth: usize) -> Value {
        let mut map =
            match schema {
                Value::Object(map) => map,
                Value::Bool(_) => return schema,
                _ => {
                    self.diags.push(self.doc.diag(
                    Code::InvalidSchema,
                    Severity::Error,
                    loc,
                    "a schema must be an object or a boolean: write `{}` to accept anything"
                        .to_string(),
                ));
                    return json!({});
                }
            };
        if depth > 200 {
            self.warn(
                Code::Lossy,
                loc,
                "schema nested too deeply; this part accepts any value".to_string(),
            );
            return json!({});
        }
        self.rebind(&mut map, loc);
        if let Some(Value::String(reference)) = map.get("$ref").cloned() {
            return self.reference(&reference, map, loc, depth);
        }
        if let Some(dialect) = map.remove("$schema") {
            self.dialect(&dialect, &loc.at("$schema"));
        }
        let nullable = matches!(map.remove("nullable"), Some(Value::Bool(true)));
        // `required` naming a property twice (invalid 2020-12) means it once.
        if let Some(Value::Array(names)) = map.get_mut("required") {
            let mut seen = std::collections::HashSet::new();
            names.retain(|name| seen.insert(name.clone()));
        }
        // The nullable-reference idiom of 3.0 documents, `allOf: [{$ref: X}, {nullable: true}]`:
        // OpenAPI 3.0.3 gives such a `nullable` no effect (it has no `type` beside it), but every
        // document that writes it means "X or null", and APIs send the null.
        let null_part = match map.get_mut("allOf") {
            Some(Value::Array(parts)) => {
                let before = parts.len();
                parts.retain(|part| !only_nullable(part));
                parts.len() < before && !parts.is_empty()
            }
            _ => false,
        };
        for (exclusive, inclusive) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if let Some(Value::Bool(flag)) = map.get(exclusive).cloned() {
                map.remove(exclusive);
                if flag && let Some(limit) = map.remove(inclusive) {
                    map.insert(exclusive.to_string(), limit);
                }
            }
        }
        // Binary data travels in JSON (tool inputs and outputs, over MCP and in the catalog) as
        // base64 text: said where the document says only `format: binary`, so a client knows
        // what to send (the SDK's `Upload` sends the bytes themselves).
        if map.get("format").and_then(Value::as_str) == Some("binary")
            && !map.contains_key("contentEncoding")
        {
            map.insert("contentEncoding".to_string(), json!("base64"));
        }
        let doc_loc = loc.clone();
        let mut children: Vec<(Loc, String, Option<String>)> = Vec::new();
        harness_gen_contract::schema::children_mut(&mut map, &mut |keyword, member, _| {
            let mut child_loc = doc_loc.at(keyword);
            if let Some(member) = member {
                child_loc = child_loc.at(member);
            }
            children.push((child_loc, keyword.to_string(), member.map(str::to_string)));
        });
        for (child_loc, keyword, member) in children {
            let slot = match &member {
                None => map.get_mut(&keyword),
                Some(m) => match map.get_mut(&keyword) {
                    Some(Value::Object(entries)) => entries.get_mut(m),
                    Some(Value::Array(items)) => {
                        m.parse::<usize>().ok().and_then(|i| items.get_mut(i))
                    }
                    _ => None,
                },
            };
            if let Some(slot) = slot {
                let child = std::mem::take(slot);
                *slot = self.convert(child, &child_loc, depth + 1);
            }
        }
        if null_part {
            return or_null(map);
        }
        let mut out = Value::Object(map);
        if nullable {
            add_null(&mut out);
        }
        out
    }

    /// Location-bound references whose meaning is clear become ordinary component references
    /// (HG0506), so the schema can be moved (standalone projection): inside component `C`,
    /// `$recursiveRef: "#"` (draft 2019-09, which OpenAPI 3.1 documents still use) means `C`, and
    /// `$dynamicRef: "#a"` means `C` when `C` declares `$dynamicAnchor: a` at its root. The
    /// anchors themselves (`$recursiveAnchor`, `$dynamicAnchor`) are dropped from that component
    /// root. Anything else is left for the projection to refuse.
    fn rebind(&mut self, map: &mut Map<String, Value>, loc: &Loc) {
        let Some(component) = loc
            .pointer
            .strip_prefix("/components/schemas/")
            .filter(|_| loc.file == 0)
            .map(|rest| rest.split('/').next().unwrap_or_default().to_string())
        else {
            return;
        };
        let at_root = loc.pointer == format!("/components/schemas/{component}");
        if at_root {
            for anchor in ["$recursiveAnchor", "$dynamicAnchor"] {
                map.remove(anchor);
            }
        }
        let root_anchor = self
            .doc
            .root()
            .pointer(&format!("/components/schemas/{component}/$dynamicAnchor"))
            .and_then(Value::as_str)
            .map(|anchor| format!("#{anchor}"));
        let (keyword, means_component) = match (map.get("$recursiveRef"), map.get("$dynamicRef")) {
            (Some(Value::String(target)), _) => ("$recursiveRef", target == "#"),
            (_, Some(Value::String(target))) => (
                "$dynamicRef",
                root_anchor.as_deref() == Some(target.as_str()),
            ),
            _ => return,
        };
        if !means_component || map.contains_key("$ref") {
            return;
        }
        map.remove(keyword);
        let pointer = format!("/components/schemas/{component}");
        map.insert(
            "$ref".to_string(),
            format!(
                "#{}",
                harness_gen_contract::schema::percent_encode_fragment(&pointer)
            )
            .into(),
        );
        self.diags.push(self.doc.diag(
            Code::Rebound,
            Severity::Warning,
            &loc.at(keyword),
            format!(
                "`{keyword}` here means the component it is in; it is read as `$ref: #/components/schemas/{component}` so tools using it can be listed on their own"
            ),
        ));
    }

    /// A `$schema` inside a document: OpenAPI's own dialects and 2020-12 go without saying;
    /// another draft is read as 2020-12, with a warning.
    fn dialect(&mut self, dialect: &Value, loc: &Loc) {
        let uri = dialect.as_str().unwrap_or_default();
        let known = uri.trim_end_matches('#') == "https://json-schema.org/draft/2020-12/schema"
            || uri.starts_with("https://spec.openapis.org/oas/");
        if !known {
            self.warn(
                Code::Lossy,
                loc,
                "this schema declares another JSON Schema dialect; it is read as Draft 2020-12, where a few keywords differ in meaning".to_string(),
            );
        }
    }

    /// A `$ref`: kept when it names a component schema of the main document, inlined otherwise.
    fn reference(
        &mut self,
        reference: &str,
        mut map: Map<String, Value>,
        loc: &Loc,
        depth: usize,
    ) -> Value {
        let ref_loc = loc.at("$ref");
        let nullable = matches!(map.remove("nullable"), Some(Value::Bool(true)));
        let target = match self.doc.target(reference, loc.file) {
            Ok(target) => target,
            Err(diagnostic) => {
                let diagnostic = diagnostic(self.doc, &ref_loc);
                self.diags.push(diagnostic);
                return json!({});
            }
        };
        // Copied only where it is inlined: a reference to a component (most of them) stays
        // a reference.
        let Some(resolved) = self.doc.get(&target) else {
            self.diags.push(self.doc.unresolved(&ref_loc));
            return json!({});
        };
        let mut result = if target.file == 0 && target.pointer.starts_with(COMPONENTS) {
            json!({ "$ref": format!("#{}", harness_gen_contract::schema::percent_encode_fragment(&target.pointer)) })
        } else if self.inlining.contains(&target) {
            self.warn(
                Code::RefCycle,
                &ref_loc,
                "this reference cycles back through a schema outside #/components/schemas, so it cannot be kept as a reference; the cycle accepts any value here. Move the schema under #/components/schemas to keep it exact".to_string(),
            );
            json!({})
        } else {
            self.inlining.push(target.clone());
            let inlined = self.convert(resolved.clone(), &target, depth + 1);
            self.inlining.pop();
            inlined
        };
        map.remove("$ref");
        if !map.is_empty() {
            // Keywords beside `$ref` apply too (2020-12 meaning).
            if let Value::Object(mut siblings) = self.convert(Value::Object(map), loc, depth + 1) {
                match result.get("$ref").cloned() {
                    Some(kept) => {
                        siblings.insert("$ref".to_string(), kept);
                    }
                    None => match siblings.get_mut("allOf") {
                        Some(Value::Array(parts)) => parts.push(result),
                        _ => {
                            siblings.insert("allOf".to_string(), json!([result]));
                        }
                    },
                }
                result = Value::Object(siblings);
            }
        }
        if nullable {
            add_null(&mut result);
        }
        result
    }

    /// Drops, keyword by keyword, whatever is still not valid JSON Schema 2020-12.
    fn drop_invalid(&mut self, schema: &mut Value, loc: &Loc) {
        for _ in 0..64 {
            let Some(path) =
                harness_gen_contract::schema::meta::first_violation(schema).map(|v| v.pointer)
            else {
                return;
            };
            let at = Loc {
                file: loc.file,
                pointer: format!("{}{path}", loc.pointer),
            };
            if path.is_empty() || !remove_at(schema, &path) {
                *schema = json!({});
                self.warn(
                    Code::InvalidSchema,
                    &at,
                    "not a valid JSON Schema 2020-12; this schema accepts any value".to_string(),
                );
                return;
            }
            let keyword = path.rsplit('/').next().unwrap_or_default().to_string();
            self.warn(
                Code::InvalidSchema,
                &at,
                format!(
                    "`{}` here is not valid JSON Schema 2020-12 and was dropped: fix its value to keep the constraint",
                    harness_gen_contract::schema::unescape(&keyword)
                ),
            );
        }
        *schema = json!({});
    }
}

/// The keywords that say nothing of which values a schema accepts.
const ANNOTATIONS: [&str; 9] = [
    "description",
    "title",
    "example",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Whether `part` says only `nullable: true` (and annotations).
fn only_nullable(part: &Value) -> bool {
    part.as_object().is_some_and(|part| {
        part.get("nullable") == Some(&Value::Bool(true))
            && part
                .keys()
                .all(|k| k == "nullable" || ANNOTATIONS.contains(&k.as_str()))
    })
}

/// `map` or `null`: `{anyOf: [map's constraints, {type: null}]}` with its annotations beside
/// (an `allOf` of one part left is that part).
fn or_null(map: Map<String, Value>) -> Value {
    let (mut outer, mut inner): (Map<String, Value>, Map<String, Value>) = map
        .into_iter()
        .partition(|(k, _)| ANNOTATIONS.contains(&k.as_str()));
    let inner = match inner.remove("allOf") {
        Some(Value::Array(mut parts)) if parts.len() == 1 && inner.is_empty() => parts.remove(0),
        Some(parts) => {
            inner.insert("allOf".to_string(), parts);
            Value::Object(inner)
        }
        None => Value::Object(inner),
    };
    outer.insert("anyOf".to_string(), json!([inner, {"type": "null"}]));
    Value::Object(outer)
}

/// Lets `schema` also accept `null`.
fn add_null(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            if t != "null" {
                map.insert("type".to_string(), json!([t, "null"]));
            }
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
        }
        _ => {
            if ["$ref", "allOf", "oneOf", "anyOf", "enum", "const", "not"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                let mut outer = Map::new();
                for annotation in [
                    "title",
                    "description",
                    "default",
                    "deprecated",
                    "readOnly",
                    "writeOnly",
                    "example",
                    "examples",
                ] {
                    if let Some(value) = map.remove(annotation) {
                        outer.insert(annotation.to_string(), value);
                    }
                }
                let inner = Value::Object(std::mem::take(map));
                outer.insert("anyOf".to_string(), json!([inner, {"type": "null"}]));
                *map = outer;
                return;
            }
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

/// Removes the member or item at `pointer` (relative, non-empty).
fn remove_at(root: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = harness_gen_contract::schema::unescape(last);
    let Some(parent) = root.pointer_mut(parent) else {
        return false;
    };
    match parent {
        Value::Object(map) => map.remove(&last).is_some(),
        Value::Array(items) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_adds_a_null_alternative() {
        let mut s = json!({"type": "string"});
        add_null(&mut s);
        assert_eq!(s, json!({"type": ["string", "null"]}));
        let mut s = json!({"type": "string", "enum": ["a"]});
        add_null(&mut s);
        assert_eq!(s, json!({"type": ["string", "null"], "enum": ["a", null]}));
        let mut s = json!({"$ref": "#/components/schemas/A", "description": "d"});
        add_null(&mut s);
        assert_eq!(
            s,
            json!({"description": "d", "anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]})
        );
    }

    #[test]
    fn members_and_items_are_removed_by_pointer() {
        let mut v = json!({"a": {"b": [1, 2, 3]}});
        assert!(remove_at(&mut v, "/a/b/1"));
        assert_eq!(v, json!({"a": {"b": [1, 3]}}));
        assert!(remove_at(&mut v, "/a/b"));
        assert!(!remove_at(&mut v, "/a/b"));
    }
}

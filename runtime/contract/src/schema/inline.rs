//! The inlined schema profile, for MCP clients that reject `$ref` and `$defs`: a standalone
//! listing schema (its references all `#/$defs/…` or `#`) with every reference replaced by what
//! it names. A schema that reaches itself again (a tree, a linked list) is expanded down to
//! [`RECURSION_DEPTH`] levels and then cut to the permissive `{}`, which accepts every value:
//! real values still validate, and the call is checked against the full contract anyway.

use serde_json::{Map, Value};

use super::children_mut;

/// How many times one definition is expanded inside itself before the cut.
pub const RECURSION_DEPTH: usize = 2;

/// How many references are expanded along one path in all, recursive or not (a bound on size
/// for interconnected schemas).
const MAX_NESTING: usize = 8;

/// `schema` with no `$ref` and no `$defs` anywhere (see the module docs).
pub fn inlined(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut root = schema.clone();
    if let Some(map) = root.as_object_mut() {
        map.remove("$defs");
    }
    let base = root.clone();
    let mut stack = Vec::new();
    expand(
        &mut root,
        &Context {
            defs: &defs,
            root: &base,
        },
        &mut stack,
    );
    root
}

struct Context<'a> {
    defs: &'a Map<String, Value>,
    /// The root without `$defs`, for `$ref: "#"`.
    root: &'a Value,
}

/// Replaces the references in `schema`; `stack` holds the references being expanded above.
fn expand(schema: &mut Value, cx: &Context, stack: &mut Vec<String>) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_string) {
        map.remove("$ref");
        let target = target(cx, &reference);
        let repeats = stack.iter().filter(|r| **r == reference).count();
        let replacement = match target {
            Some(target) if repeats < RECURSION_DEPTH && stack.len() < MAX_NESTING => {
                let mut target = target.clone();
                stack.push(reference);
                expand(&mut target, cx, stack);
                stack.pop();
                target
            }
            // Too deep, or a reference to nothing: anything goes.
            _ => Value::Object(Map::new()),
        };
        // The reference's siblings are expanded where they stand, then joined to the
        // (already expanded) target.
        let mut siblings = std::mem::take(map);
        children_mut(&mut siblings, &mut |_, _, child| expand(child, cx, stack));
        *schema = merged(replacement, siblings);
        return;
    }
    children_mut(map, &mut |_, _, child| expand(child, cx, stack));
}

fn target<'a>(cx: &'a Context, reference: &str) -> Option<&'a Value> {
    if reference == "#" {
        return Some(cx.root);
    }
    let name = reference.strip_prefix("#/$defs/")?;
    cx.defs.get(&super::unescape(&super::percent_decode(name)))
}

/// The referenced schema with the reference's sibling keywords: annotations (a description, a
/// title) override the target's, and constraints the target also has are kept apart in an
/// `allOf` so neither is lost.
fn merged(target: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return target;
    }
    let Value::Object(mut target) = target else {
        // A boolean schema: `true` adds nothing to the siblings, `false` refuses all.
        return if target == Value::Bool(false) {
            target
        } else {
            Value::Object(siblings)
        };
    };
    const ANNOTATIONS: [&str; 5] = ["description", "title", "examples", "default", "$comment"];
    let clash = siblings
        .keys()
        .any(|k| !ANNOTATIONS.contains(&k.as_str()) && target.contains_key(k));
    if clash {
        let mut outer = siblings;
        outer.insert("allOf".into(), Value::Array(vec![Value::Object(target)]));
        return Value::Object(outer);
    }
    target.extend(siblings);
    Value::Object(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refs(schema: &Value) -> bool {
        let text = schema.to_string();
        text.contains("$ref") || text.contains("$defs")
    }

    #[test]
    fn references_become_what_they_name_with_their_annotations() {
        let schema = json!({
            "type": "object",
            "properties": {
                "species": {"$ref": "#/$defs/Species", "description": "What it is"},
                "owner": {"$ref": "#/$defs/Person"}
            },
            "$defs": {
                "Species": {"type": "string", "enum": ["dog", "cat"], "description": "A kind"},
                "Person": {"type": "object", "properties": {"pet": {"$ref": "#/$defs/Species"}}}
            }
        });
        let inlined = inlined(&schema);
        assert!(!refs(&inlined), "{inlined}");
        assert_eq!(
            inlined["properties"]["species"],
            json!({"type": "string", "enum": ["dog", "cat"], "description": "What it is"})
        );
        assert_eq!(
            inlined["properties"]["owner"]["properties"]["pet"]["enum"][1],
            "cat"
        );
    }

    #[test]
    fn recursion_is_cut_to_a_schema_that_accepts_anything() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {"type": "object", "properties": {
                "next": {"$ref": "#/$defs/Node"},
                "value": {"type": "integer"}
            }}}
        });
        let inlined = inlined(&schema);
        assert!(!refs(&inlined), "{inlined}");
        let mut level = &inlined;
        for _ in 0..RECURSION_DEPTH {
            assert_eq!(level["properties"]["value"]["type"], "integer", "{inlined}");
            level = &level["properties"]["next"];
        }
        assert_eq!(level, &json!({}));
        // A real value several levels deeper than the cut still validates.
        let value =
            json!({"value": 1, "next": {"value": 2, "next": {"value": 3, "next": {"value": 4}}}});
        assert!(jsonschema::draft202012::is_valid(&inlined, &value));
    }

    #[test]
    fn constraints_beside_a_reference_are_kept_apart() {
        let schema = json!({
            "properties": {"n": {"$ref": "#/$defs/N", "maximum": 5}},
            "$defs": {"N": {"type": "integer", "maximum": 10}}
        });
        let inlined = inlined(&schema);
        assert_eq!(
            inlined["properties"]["n"],
            json!({"maximum": 5, "allOf": [{"type": "integer", "maximum": 10}]})
        );
    }
}

//! A request body's top-level fields as options of a tool's command (`--model gpt-4o`), named
//! alike by the generator, which reports the renamed ones, and by the CLI, which builds them.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{RESERVED_LONG, default_long};

/// The option that sets any value of a body by assignment (`--field messages.0.role=user`,
/// `--field 'metadata:={"a":1}'`), repeatable; `--body-field` where a tool's option takes it.
pub const ASSIGN: &str = "field";

/// How deep [`fields`] follows references and `allOf` members.
const DEPTH: usize = 8;

/// One top-level field of a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<'a> {
    /// Its name in the body.
    pub name: &'a str,
    /// Its schema, a top-level reference followed.
    pub schema: &'a Value,
    /// Whether the body requires it.
    pub required: bool,
}

/// The schema `schema` refers to, when it is a reference `resolve` knows (`resolve` takes a
/// component's name, unescaped), followed to [`DEPTH`] levels; else `schema`.
pub fn resolved<'a>(schema: &'a Value, resolve: &dyn Fn(&str) -> Option<&'a Value>) -> &'a Value {
    let mut current = schema;
    for _ in 0..DEPTH {
        let Some(target) = current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .and_then(|name| resolve(&harness_gen_wire::pointer::unescape(name)))
        else {
            break;
        };
        current = target;
    }
    current
}

/// The top-level fields of a body of schema `schema`: its `properties` and those of its `allOf`
/// members (OpenAI's chat request is an `allOf`), references followed, in order of first
/// appearance, each required when any part requires it. A body that is a choice (`oneOf`,
/// `anyOf`) has no fields every shape shares: none, and `--body` or `--field` give it.
pub fn fields<'a>(
    schema: &'a Value,
    resolve: &dyn Fn(&str) -> Option<&'a Value>,
) -> Vec<Field<'a>> {
    let mut out = Vec::new();
    let mut required = BTreeSet::new();
    gather(schema, resolve, 0, &mut out, &mut required);
    for field in &mut out {
        field.required = required.contains(field.name);
    }
    out
}

fn gather<'a>(
    schema: &'a Value,
    resolve: &dyn Fn(&str) -> Option<&'a Value>,
    depth: usize,
    out: &mut Vec<Field<'a>>,
    required: &mut BTreeSet<&'a str>,
) {
    if depth > DEPTH {
        return;
    }
    let schema = resolved(schema, resolve);
    if let Some(Value::Object(properties)) = schema.get("properties") {
        // A property whose schema is `false` (a request's `readOnly` one) takes no value: no
        // option.
        let allowed = properties.iter().filter(|(_, p)| **p != Value::Bool(false));
        for (name, property) in allowed {
            if !out.iter().any(|f: &Field| f.name == name) {
                out.push(Field {
                    name,
                    schema: resolved(property, resolve),
                    required: false,
                });
            }
        }
    }
    if let Some(Value::Array(names)) = schema.get("required") {
        required.extend(names.iter().filter_map(Value::as_str));
    }
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        gather(part, resolve, depth + 1, out, required);
    }
}

/// The body's options: for each field, its long option, and whether it had to be renamed. A
/// field's option is its name in kebab-case ([`default_long`]); where the CLI's own options,
/// the tool's other options (`taken`) or an earlier field have it, `body-` and the name, then
/// numbered. `taken` gains the names given, and the assignment option's ([`assign_long`]) is
/// kept free.
pub fn options(fields: &[Field], taken: &mut BTreeSet<String>) -> Vec<(String, bool)> {
    taken.extend(RESERVED_LONG.iter().map(|s| s.to_string()));
    let assign = assign_long(taken);
    taken.insert(assign);
    fields
        .iter()
        .map(|field| {
            let long = default_long(field.name);
            if taken.insert(long.clone()) {
                return (long, false);
            }
            let prefixed = format!("body-{long}");
            let mut candidate = prefixed.clone();
            let mut n = 2;
            while !taken.insert(candidate.clone()) {
                candidate = format!("{prefixed}-{n}");
                n += 1;
            }
            (candidate, true)
        })
        .collect()
}

/// The assignment option's long name where `taken` holds the tool's other options: [`ASSIGN`],
/// else `body-field`, then numbered.
pub fn assign_long(taken: &BTreeSet<String>) -> String {
    let mut candidate = ASSIGN.to_string();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("body-{ASSIGN}");
        if n > 2 {
            candidate.push_str(&format!("-{n}"));
        }
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_all_of_body_has_the_fields_of_its_parts_with_references_followed() {
        let base = json!({"properties": {"model": {"type": "string"}}, "required": ["model"]});
        let body = json!({"allOf": [
            {"$ref": "#/components/schemas/Base"},
            {"properties": {"messages": {"type": "array"}, "stream": {"type": "boolean"}},
             "required": ["messages"]}
        ]});
        let resolve = |name: &str| (name == "Base").then_some(&base);
        let fields = fields(&body, &resolve);
        let named: Vec<(&str, bool)> = fields.iter().map(|f| (f.name, f.required)).collect();
        assert_eq!(
            named,
            [("model", true), ("messages", true), ("stream", false)]
        );
        assert_eq!(fields[0].schema["type"], "string");
    }

    #[test]
    fn a_choice_of_bodies_has_no_fields() {
        let body = json!({"oneOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]});
        assert!(fields(&body, &|_| None).is_empty());
    }

    #[test]
    fn a_field_named_like_another_option_is_prefixed_with_body() {
        let body = json!({"properties": {"id": {}, "output": {}, "field": {}, "limit": {}}});
        let fields = fields(&body, &|_| None);
        let mut taken: BTreeSet<String> = ["id".to_string()].into();
        let options = options(&fields, &mut taken);
        assert_eq!(
            options,
            [
                ("body-id".to_string(), true),
                ("body-output".to_string(), true),
                ("body-field".to_string(), true),
                ("limit".to_string(), false),
            ]
        );
        assert!(
            taken.contains("field"),
            "the assignment option keeps its name"
        );
    }
}

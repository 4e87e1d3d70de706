//! The standalone-schema projection (tool-contract.md §6): one tool schema made self-contained
//! by copying every component it reaches, transitively, under its own `$defs`.
//!
//! References to `#/components/schemas/<name>[/rest]` become `#/$defs/<new name>[/rest]`;
//! inside a moved component, references local to it (`#` and `#/...`) are rebased under its new
//! home. A copied component keeps its name unless the schema already has a `$defs` entry of that
//! name; then it gets the first free `<name>_<n>` (n = 2, 3, …), components taken in name order.
//! The move is refused when a keyword ties the schema's meaning to its location (`$id`,
//! `$anchor`, `$dynamicAnchor`, `$dynamicRef`, `$recursiveRef`, `$recursiveAnchor`) or when a
//! reference leaves the document.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Map, Value};

use super::{
    LOCATION_SENSITIVE, escape, percent_decode, percent_encode_fragment, resolve, unescape,
};
use crate::error::{ContractError, ErrorCode};

/// The prefix of a reference to a named component.
pub const COMPONENT_PREFIX: &str = "#/components/schemas/";

/// What a `$ref` points at.
#[derive(Debug, PartialEq, Eq)]
pub enum RefTarget {
    /// `#/components/schemas/<name><rest>`; `rest` is a pointer inside the component.
    Component {
        /// The component's name, unescaped.
        name: String,
        /// The pointer below the component (`""` or `/...`), decoded.
        rest: String,
    },
    /// `#<pointer>` inside the document the reference sits in.
    Local(String),
    /// Anything else: another document, or a plain-name fragment (`#anchor`).
    External,
}

/// Classifies a `$ref` value.
pub fn classify(reference: &str) -> RefTarget {
    let Some(fragment) = reference.strip_prefix('#') else {
        return RefTarget::External;
    };
    let pointer = percent_decode(fragment);
    if !(pointer.is_empty() || pointer.starts_with('/')) {
        return RefTarget::External;
    }
    let component_prefix = &COMPONENT_PREFIX[1..];
    if let Some(after) = pointer.strip_prefix(component_prefix) {
        let (raw_name, rest) = match after.find('/') {
            Some(at) => (&after[..at], &after[at..]),
            None => (after, ""),
        };
        return RefTarget::Component {
            name: unescape(raw_name),
            rest: rest.to_string(),
        };
    }
    RefTarget::Local(pointer)
}

/// Projects `schema` so that it stands alone. `components` looks a component up by name.
///
/// `at` names the schema in errors (e.g. `tools[2].inputSchema`).
pub fn project<'c>(
    schema: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: &str,
) -> Result<Value, ContractError> {
    check_movable(schema, at)?;
    let reached = reachable(schema, components, at)?;
    let Value::Object(root) = schema else {
        // A boolean schema has no references, so it reaches nothing.
        return Ok(schema.clone());
    };
    if reached.is_empty() {
        let mut own = schema.clone();
        unique_required(&mut own);
        return Ok(own);
    }
    let homes = assign_homes(reached.keys(), defined_names(schema));
    let mut projected = Value::Object(root.clone());
    rewrite_refs(&mut projected, &homes, None);
    let copies = reached
        .into_iter()
        .map(|(name, component)| {
            let home = &homes[&name];
            let mut copy = component.clone();
            rewrite_refs(&mut copy, &homes, Some(home));
            (home.clone(), copy)
        })
        .collect();
    add_defs(&mut projected, copies);
    unique_required(&mut projected);
    Ok(projected)
}

/// Each `required` that names a property twice (OpenAI's `ContainerResource`) names it once: the
/// same constraint, in a schema the 2020-12 meta-schema accepts (a component is not checked
/// against it where it lies in its document, but a copy in `$defs` is), and one the validator
/// reads right (jsonschema reports every repeated name as missing even when it is present).
pub(super) fn unique_required(schema: &mut Value) {
    super::visit_mut(schema, &mut |map| {
        if let Some(Value::Array(names)) = map.get_mut("required") {
            let mut seen = std::collections::HashSet::new();
            names.retain(|name| seen.insert(name.to_string()));
        }
    });
}

/// The names `schema`'s own `$defs` already takes.
pub(crate) fn defined_names(schema: &Value) -> BTreeSet<String> {
    schema
        .get("$defs")
        .and_then(Value::as_object)
        .map(|defs| defs.keys().cloned().collect())
        .unwrap_or_default()
}

/// Adds `copies` to `schema`'s `$defs` (creating it when absent).
pub(crate) fn add_defs(schema: &mut Value, copies: Map<String, Value>) {
    if let Value::Object(map) = schema {
        match map.get_mut("$defs").and_then(Value::as_object_mut) {
            Some(defs) => defs.extend(copies),
            None => {
                map.insert("$defs".to_string(), Value::Object(copies));
            }
        }
    }
}

/// Refuses a schema whose meaning depends on where it sits (a location-bound keyword anywhere in
/// it): what makes [`project`] refuse a schema that reaches it.
pub fn check_movable(schema: &Value, at: &str) -> Result<(), ContractError> {
    let mut found = None;
    super::visit(schema, &mut |pointer, map| {
        if found.is_none()
            && let Some(keyword) = LOCATION_SENSITIVE.iter().find(|k| map.contains_key(**k))
        {
            found = Some((pointer.to_string(), *keyword));
        }
    });
    match found {
        Some((pointer, keyword)) => Err(ContractError::new(
            ErrorCode::UnsafeSchemaMove,
            format!("{at}#{pointer}"),
            format!(
                "`{keyword}` ties this schema to its location, so it cannot be made standalone; \
                 replace it with a `$ref` to a component under #/components/schemas"
            ),
        )),
        None => Ok(()),
    }
}

/// The components `doc` (at `at`) references directly, in document order without repeats,
/// each reference checked ([`check_reference`]).
pub(crate) fn references<'c>(
    doc: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: &str,
) -> Result<Vec<String>, ContractError> {
    let mut names: Vec<String> = Vec::new();
    let mut failure = None;
    super::visit(doc, &mut |pointer, map| {
        if failure.is_some() {
            return;
        }
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return;
        };
        let where_ = || format!("{at}#{pointer}/$ref");
        match check_reference(reference, doc, components, where_) {
            Ok(Some(name)) if !names.contains(&name) => names.push(name),
            Ok(_) => {}
            Err(error) => failure = Some(error),
        }
    });
    failure.map_or(Ok(names), Err)
}

/// Every component `schema` reaches, transitively, by name; each one checked movable.
fn reachable<'c>(
    schema: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: &str,
) -> Result<BTreeMap<String, &'c Value>, ContractError> {
    let mut reached: BTreeMap<String, &'c Value> = BTreeMap::new();
    let mut queue: VecDeque<String> = references(schema, components, at)?.into();
    while let Some(name) = queue.pop_front() {
        if reached.contains_key(&name) {
            continue;
        }
        let Some(component) = components(&name) else {
            continue;
        };
        let component_at = format!("components.schemas.{name}");
        check_movable(component, &component_at)?;
        queue.extend(references(component, components, &component_at)?);
        reached.insert(name, component);
    }
    Ok(reached)
}

/// Checks one `$ref` found in `doc` (at `at()`, only called for an error): it must reach a
/// component that exists (and the pointer below it must resolve) or a location inside `doc`.
/// Returns the component reached.
pub(crate) fn check_reference<'c>(
    reference: &str,
    doc: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: impl FnOnce() -> String,
) -> Result<Option<String>, ContractError> {
    match classify(reference) {
        RefTarget::Component { name, rest } => match components(&name) {
            Some(target) if resolve(target, &rest).is_some() => Ok(Some(name)),
            _ => Err(unresolved(at(), &name)),
        },
        RefTarget::Local(local) if resolve(doc, &local).is_some() => Ok(None),
        RefTarget::Local(_) => Err(ContractError::new(
            ErrorCode::UnresolvedReference,
            at(),
            "this local reference points at nothing in its schema: fix the JSON pointer",
        )),
        RefTarget::External => Err(external(at())),
    }
}

fn unresolved(at: String, name: &str) -> ContractError {
    ContractError::new(
        ErrorCode::UnresolvedReference,
        at,
        format!(
            "references component `{name}`, which is not under components.schemas (or the pointer \
             below it does not resolve): add the component or fix the reference"
        ),
    )
}

fn external(at: String) -> ContractError {
    ContractError::new(
        ErrorCode::ExternalReference,
        at,
        "this reference leaves the document; only `#/components/schemas/...` and local `#/...` \
         references are resolved (never over the network): inline the schema or add it as a component",
    )
}

/// Gives each component a unique `$defs` name, in name order: its own, or when `taken` holds
/// that, the first free `<name>_<n>` (n = 2, 3, …).
pub(crate) fn assign_homes<'a>(
    names: impl Iterator<Item = &'a String>,
    mut taken: BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut homes = BTreeMap::new();
    for name in names {
        let mut home = name.clone();
        let mut n = 2;
        while taken.contains(&home) {
            home = format!("{name}_{n}");
            n += 1;
        }
        taken.insert(home.clone());
        homes.insert(name.clone(), home);
    }
    homes
}

/// The reference to `rest` (a decoded pointer, `""` for the root) inside the `$defs` entry
/// `home`.
pub(crate) fn defs_pointer(home: &str, rest: &str) -> String {
    format!(
        "#{}",
        percent_encode_fragment(&format!("/$defs/{}{rest}", escape(home)))
    )
}

/// Rewrites every `$ref` in `doc`: a component reference to the component's home under `$defs`
/// (`homes`; references to components without one stay); a local one, when `doc` is a
/// component whose home is `own_home`, under that home.
pub(crate) fn rewrite_refs(
    doc: &mut Value,
    homes: &BTreeMap<String, String>,
    own_home: Option<&str>,
) {
    super::visit_mut(doc, &mut |map| {
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return;
        };
        let rewritten = match classify(reference) {
            RefTarget::Component { name, rest } => {
                homes.get(&name).map(|home| defs_pointer(home, &rest))
            }
            RefTarget::Local(pointer) => own_home.map(|home| defs_pointer(home, &pointer)),
            RefTarget::External => None,
        };
        if let Some(rewritten) = rewritten {
            map.insert("$ref".to_string(), Value::String(rewritten));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: Value, components: Value) -> Result<Value, ContractError> {
        let lookup = |name: &str| components.get(name);
        project(&schema, &lookup, "test")
    }

    #[test]
    fn reached_components_are_copied_under_defs() {
        let out = check(
            json!({"type": "object", "properties": {"p": {"$ref": "#/components/schemas/Pet"}}}),
            json!({
                "Pet": {"properties": {"owner": {"$ref": "#/components/schemas/Owner"}}},
                "Owner": {"type": "string"},
                "Unused": {}
            }),
        )
        .unwrap();
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {"p": {"$ref": "#/$defs/Pet"}},
                "$defs": {
                    "Owner": {"type": "string"},
                    "Pet": {"properties": {"owner": {"$ref": "#/$defs/Owner"}}}
                }
            })
        );
    }

    #[test]
    fn names_clashing_with_existing_defs_get_a_suffix() {
        let out = check(
            json!({"$defs": {"Pet": {"type": "null"}}, "anyOf": [{"$ref": "#/$defs/Pet"}, {"$ref": "#/components/schemas/Pet"}]}),
            json!({"Pet": {"type": "object"}}),
        )
        .unwrap();
        assert_eq!(out["anyOf"][0]["$ref"], "#/$defs/Pet");
        assert_eq!(out["anyOf"][1]["$ref"], "#/$defs/Pet_2");
        assert_eq!(out["$defs"]["Pet_2"], json!({"type": "object"}));
    }

    #[test]
    fn references_local_to_a_moved_component_are_rebased() {
        let out = check(
            json!({"$ref": "#/components/schemas/Tree"}),
            json!({"Tree": {"properties": {
                "kids": {"items": {"$ref": "#"}},
                "leaf": {"$ref": "#/$defs/Leaf"},
                "deep": {"$ref": "#/components/schemas/Tree/properties/leaf"}
            }, "$defs": {"Leaf": {}}}}),
        )
        .unwrap();
        let tree = &out["$defs"]["Tree"]["properties"];
        assert_eq!(tree["kids"]["items"]["$ref"], "#/$defs/Tree");
        assert_eq!(tree["leaf"]["$ref"], "#/$defs/Tree/$defs/Leaf");
        assert_eq!(tree["deep"]["$ref"], "#/$defs/Tree/properties/leaf");
    }

    #[test]
    fn component_names_are_escaped_and_encoded_in_references() {
        let out = check(
            json!({"$ref": "#/components/schemas/a~1b%20c"}),
            json!({"a/b c": {"type": "string"}}),
        )
        .unwrap();
        assert_eq!(out["$ref"], "#/$defs/a~1b%20c");
        assert_eq!(out["$defs"]["a/b c"], json!({"type": "string"}));
    }

    #[test]
    fn location_sensitive_keywords_are_refused() {
        for keyword in LOCATION_SENSITIVE {
            let err = check(json!({"properties": {"x": {*keyword: "y"}}}), json!({})).unwrap_err();
            assert_eq!(err.code, ErrorCode::UnsafeSchemaMove, "{keyword}");
            assert_eq!(err.path, "test#/properties/x");
            assert!(err.message.contains(keyword));
        }
        let err = check(
            json!({"$ref": "#/components/schemas/A"}),
            json!({"A": {"$id": "https://example.com/a"}}),
        )
        .unwrap_err();
        assert_eq!(err.path, "components.schemas.A#");
    }

    #[test]
    fn external_references_are_refused() {
        for reference in ["other.json#/x", "https://example.com/s.json", "#anchor"] {
            let err = check(json!({"$ref": reference}), json!({})).unwrap_err();
            assert_eq!(err.code, ErrorCode::ExternalReference, "{reference}");
        }
    }

    #[test]
    fn dangling_references_are_refused() {
        let err = check(json!({"$ref": "#/components/schemas/Nope"}), json!({})).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnresolvedReference);
        let err = check(json!({"$ref": "#/properties/nope"}), json!({})).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnresolvedReference);
    }
}

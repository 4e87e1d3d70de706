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

use std::borrow::Cow;
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
    project_to(schema, components, at, None)
}

/// The projection copying components up to `depth` hops away (all when `None`) and stubbing
/// the next ring.
fn project_to<'c>(
    schema: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: &str,
    depth: Option<usize>,
) -> Result<Value, ContractError> {
    let (reached, stubbed) = reachable(schema, components, at, depth)?;
    if reached.is_empty() && stubbed.is_empty() {
        return Ok(schema.clone());
    }
    let Value::Object(root) = schema else {
        // A boolean schema has no references, so it reaches nothing.
        return Ok(schema.clone());
    };

    let taken: BTreeSet<String> = root
        .get("$defs")
        .and_then(Value::as_object)
        .map(|defs| defs.keys().cloned().collect())
        .unwrap_or_default();
    let homes = assign_homes(reached.keys().chain(stubbed.keys()), taken);
    let stubs: BTreeSet<&String> = stubbed.keys().collect();

    let mut projected = Value::Object(root.clone());
    rewrite_refs(&mut projected, &homes, None, &stubs);
    let mut copies = Map::new();
    for (name, component) in &reached {
        let home = &homes[name];
        let mut copy = component.clone().into_owned();
        rewrite_refs(&mut copy, &homes, Some(home), &stubs);
        copies.insert(home.clone(), copy);
    }
    for (name, component) in &stubbed {
        let stub = permissive(
            component,
            "it is nested deeper than listings show (HARNESS_LISTING_DEPTH, HARNESS_LISTING_BYTES).",
        );
        copies.insert(homes[name].clone(), stub);
    }
    if let Value::Object(map) = &mut projected {
        match map.get_mut("$defs").and_then(Value::as_object_mut) {
            Some(defs) => defs.extend(copies),
            None => {
                map.insert("$defs".to_string(), Value::Object(copies));
            }
        }
    }
    Ok(projected)
}

/// How much of the components a listed schema carries: components up to `depth` references
/// away from the tool's schema are copied whole, those one step further become permissive stubs
/// (type, title, description); when the result is still over `bytes`, the depth shrinks until
/// it fits or reaches 0. Validation never uses this: only what clients are shown is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Reference hops copied whole.
    pub depth: usize,
    /// Serialized size a listed schema aims to stay under.
    pub bytes: usize,
}

impl Budget {
    /// Depth 2, 8 KiB: on Stripe's 468 tools a 3.5 MB listing (from about 550 MB unbounded),
    /// while small APIs keep their schemas whole.
    pub const DEFAULT: Budget = Budget {
        depth: 2,
        bytes: 8 * 1024,
    };

    /// The default, with `HARNESS_LISTING_DEPTH` and `HARNESS_LISTING_BYTES` applied when they
    /// are set to numbers.
    pub fn from_env() -> Budget {
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse().ok());
        Budget {
            depth: number("HARNESS_LISTING_DEPTH").unwrap_or(Budget::DEFAULT.depth),
            bytes: number("HARNESS_LISTING_BYTES").unwrap_or(Budget::DEFAULT.bytes),
        }
    }
}

/// [`project`] within `budget`: the listing form of a schema.
pub fn project_bounded<'c>(
    schema: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: &str,
    budget: Budget,
) -> Result<Value, ContractError> {
    check_movable(schema, at)?;
    let mut depth = budget.depth;
    loop {
        let projected = project_to(schema, components, at, Some(depth))?;
        let size = serde_json::to_string(&projected).map_or(0, |text| text.len());
        if depth == 0 || size <= budget.bytes {
            return Ok(projected);
        }
        depth -= 1;
    }
}

/// Replaces each expandable union (`anyOf`/`oneOf` of a string form and a `$ref` to the object
/// it stands for, as Stripe writes expandable fields) by its string form: past a tool's own
/// schema, listings show the id, not the object it can be expanded to.
fn collapse_expandables(schema: &mut Value) {
    super::visit_mut(schema, &mut |map| {
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(variants)) = map.get(keyword) else {
                continue;
            };
            let is_string = |v: &Value| {
                v.get("type") == Some(&Value::from("string")) && v.get("$ref").is_none()
            };
            let is_reference = |v: &Value| v.get("$ref").is_some();
            let string = match variants.as_slice() {
                [a, b] if is_string(a) && is_reference(b) => a.clone(),
                [a, b] if is_reference(a) && is_string(b) => b.clone(),
                _ => continue,
            };
            map.remove(keyword);
            if let Value::Object(string) = string {
                for (key, value) in string {
                    map.entry(key).or_insert(value);
                }
            }
            break;
        }
    });
}

/// The documented fallback for a schema [`project`] refuses (a location-bound keyword, a
/// reference out of the document): a schema that accepts at least everything the original
/// does, keeping the root's `type` (when it is one name), `title` and `description`, and saying
/// in the description why the rest is not shown. Listings use it so that one schema never takes
/// a whole listing down; validation inside the server still uses the full contract.
pub fn permissive(schema: &Value, why: &str) -> Value {
    let Value::Object(map) = schema else {
        // A boolean schema has nothing to move.
        return schema.clone();
    };
    let mut out = Map::new();
    if let Some(kind @ Value::String(_)) = map.get("type") {
        out.insert("type".to_string(), kind.clone());
    }
    if let Some(title) = map.get("title") {
        out.insert("title".to_string(), title.clone());
    }
    let note = format!(
        "(Shown without its full schema: {why} The server checks calls against the full contract.)"
    );
    let description = match map.get("description").and_then(Value::as_str) {
        Some(text) => format!("{text}\n\n{note}"),
        None => note,
    };
    out.insert("description".to_string(), description.into());
    Value::Object(out)
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

/// The components a projection carries, by name: those reached from `schema` within `depth`
/// reference hops (transitively when `None`), copied whole; and those one hop further, stubbed.
/// In a bounded projection each copied component has its expandable unions collapsed
/// ([`collapse_expandables`]), so it is owned.
type Reached<'c> = (
    BTreeMap<String, Cow<'c, Value>>,
    BTreeMap<String, &'c Value>,
);

fn reachable<'c>(
    schema: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: &str,
    depth: Option<usize>,
) -> Result<Reached<'c>, ContractError> {
    let mut reached: BTreeMap<String, Cow<'c, Value>> = BTreeMap::new();
    let mut stubbed: BTreeMap<String, &'c Value> = BTreeMap::new();
    let mut queue: VecDeque<(String, usize)> = VecDeque::new();
    let scan = |doc: &Value, doc_at: &str, hops: usize, queue: &mut VecDeque<(String, usize)>| {
        let mut failure = None;
        super::visit(doc, &mut |pointer, map| {
            if failure.is_some() {
                return;
            }
            let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
                return;
            };
            let where_ = format!("{doc_at}#{pointer}/$ref");
            match check_reference(reference, doc, components, where_) {
                Ok(Some(name)) => queue.push_back((name, hops)),
                Ok(None) => {}
                Err(error) => failure = Some(error),
            }
        });
        failure.map_or(Ok(()), Err)
    };
    scan(schema, at, 1, &mut queue)?;
    // Breadth first, so each component is taken at its fewest hops.
    while let Some((name, hops)) = queue.pop_front() {
        if reached.contains_key(&name) || stubbed.contains_key(&name) {
            continue;
        }
        let Some(component) = components(&name) else {
            continue;
        };
        if depth.is_some_and(|depth| hops > depth) {
            stubbed.insert(name, component);
            continue;
        }
        let component_at = format!("components.schemas.{name}");
        check_movable(component, &component_at)?;
        let component = match depth {
            Some(_) => {
                let mut collapsed = component.clone();
                collapse_expandables(&mut collapsed);
                Cow::Owned(collapsed)
            }
            None => Cow::Borrowed(component),
        };
        scan(&component, &component_at, hops + 1, &mut queue)?;
        reached.insert(name, component);
    }
    Ok((reached, stubbed))
}

/// Checks one `$ref` found in `doc` (at `at`): it must reach a component that exists (and the
/// pointer below it must resolve) or a location inside `doc`. Returns the component reached.
pub(crate) fn check_reference<'c>(
    reference: &str,
    doc: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
    at: String,
) -> Result<Option<String>, ContractError> {
    match classify(reference) {
        RefTarget::Component { name, rest } => match components(&name) {
            Some(target) if resolve(target, &rest).is_some() => Ok(Some(name)),
            _ => Err(unresolved(at, &name)),
        },
        RefTarget::Local(local) if resolve(doc, &local).is_some() => Ok(None),
        RefTarget::Local(_) => Err(ContractError::new(
            ErrorCode::UnresolvedReference,
            at,
            "this local reference points at nothing in its schema: fix the JSON pointer",
        )),
        RefTarget::External => Err(external(at)),
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

/// Gives each component a unique `$defs` name, in name order.
fn assign_homes<'a>(
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

/// Rewrites every `$ref` in `doc`. `own_home` is the new name of the component `doc` is, if any;
/// a reference below a stubbed component's root points at the stub (which has no inside).
fn rewrite_refs(
    doc: &mut Value,
    homes: &BTreeMap<String, String>,
    own_home: Option<&String>,
    stubs: &BTreeSet<&String>,
) {
    let defs_pointer = |home: &str, rest: &str| {
        format!(
            "#{}",
            percent_encode_fragment(&format!("/$defs/{}{rest}", escape(home)))
        )
    };
    super::visit_mut(doc, &mut |map| {
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return;
        };
        let rewritten = match classify(reference) {
            RefTarget::Component { name, rest } => {
                let rest = if stubs.contains(&name) {
                    ""
                } else {
                    rest.as_str()
                };
                homes.get(&name).map(|home| defs_pointer(home, rest))
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
mod permissive_tests {
    use super::*;
    use serde_json::json;

    /// A chain A → B → C → D of components, each with a description.
    fn chain() -> BTreeMap<&'static str, Value> {
        let mut out = BTreeMap::new();
        for (name, next) in [
            ("A", Some("B")),
            ("B", Some("C")),
            ("C", Some("D")),
            ("D", None),
        ] {
            let mut schema = json!({"type": "object", "description": format!("{name} doc"),
                "properties": {"pad": {"type": "string", "description": "x".repeat(200)}}});
            if let Some(next) = next {
                schema["properties"]["next"] =
                    json!({"$ref": format!("#/components/schemas/{next}")});
                schema["properties"]["inside"] =
                    json!({"$ref": format!("#/components/schemas/{next}/properties/pad")});
            }
            out.insert(name, schema);
        }
        out
    }

    #[test]
    fn a_bounded_projection_copies_to_its_depth_and_stubs_the_next_ring() {
        let components = chain();
        let lookup = |name: &str| components.get(name);
        let root = json!({"$ref": "#/components/schemas/A"});
        let budget = Budget {
            depth: 2,
            bytes: usize::MAX,
        };
        let listed = project_bounded(&root, &lookup, "t", budget).unwrap();
        let defs = listed["$defs"].as_object().unwrap();
        assert_eq!(defs.keys().collect::<Vec<_>>(), ["A", "B", "C"]);
        assert!(
            defs["B"].get("properties").is_some(),
            "B is within the depth"
        );
        assert_eq!(defs["C"]["type"], "object");
        assert!(defs["C"].get("properties").is_none(), "C is a stub");
        assert!(
            defs["C"]["description"]
                .as_str()
                .unwrap()
                .starts_with("C doc")
        );
        // A reference into the stub points at the stub itself.
        assert_eq!(defs["B"]["properties"]["inside"]["$ref"], "#/$defs/C");
        // The listed schema is a valid 2020-12 schema whose references all resolve.
        jsonschema::draft202012::new(&listed).expect("valid");
        let unbounded = project(&root, &lookup, "t").unwrap();
        assert_eq!(unbounded["$defs"].as_object().unwrap().len(), 4);
    }

    #[test]
    fn expandable_unions_past_the_tool_schema_keep_only_their_id_form() {
        let components: BTreeMap<&str, Value> = BTreeMap::from([
            (
                "Charge",
                json!({"type": "object", "properties": {
                "customer": {"description": "Who paid.", "anyOf": [
                    {"type": "string", "maxLength": 5000},
                    {"$ref": "#/components/schemas/Customer"}]}}}),
            ),
            (
                "Customer",
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            ),
        ]);
        let lookup = |name: &str| components.get(name);
        let root = json!({"type": "object", "properties": {
            "charge": {"$ref": "#/components/schemas/Charge"},
            "customer": {"anyOf": [{"type": "string"}, {"$ref": "#/components/schemas/Customer"}]}}});
        let listed = project_bounded(&root, &lookup, "t", Budget::DEFAULT).unwrap();
        assert_eq!(
            listed["$defs"]["Charge"]["properties"]["customer"],
            json!({"description": "Who paid.", "type": "string", "maxLength": 5000})
        );
        // In the tool's own schema the object form stays, and what it references is copied.
        assert!(listed["properties"]["customer"].get("anyOf").is_some());
        assert!(listed["$defs"].get("Customer").is_some());
        // The unbounded projection (used for validation) keeps every union.
        let full = project(&root, &lookup, "t").unwrap();
        assert!(
            full["$defs"]["Charge"]["properties"]["customer"]
                .get("anyOf")
                .is_some()
        );
    }

    #[test]
    fn a_bounded_projection_shrinks_its_depth_to_fit_the_size_budget() {
        let components = chain();
        let lookup = |name: &str| components.get(name);
        let root = json!({"$ref": "#/components/schemas/A"});
        let budget = Budget {
            depth: 3,
            bytes: 900,
        };
        let listed = project_bounded(&root, &lookup, "t", budget).unwrap();
        assert!(
            serde_json::to_string(&listed).unwrap().len() <= 900,
            "{listed}"
        );
        let tiny = project_bounded(&root, &lookup, "t", Budget { depth: 3, bytes: 1 }).unwrap();
        let defs = tiny["$defs"].as_object().unwrap();
        assert_eq!(
            defs.keys().collect::<Vec<_>>(),
            ["A"],
            "depth 0: the root's references are stubs"
        );
        assert!(defs["A"].get("properties").is_none());
    }

    #[test]
    fn a_refused_schema_falls_back_to_one_that_accepts_more_and_says_why() {
        let schema = json!({"type": "object", "title": "T", "description": "D",
            "properties": {"x": {"$recursiveRef": "#"}}, "required": ["x"]});
        let refused = project(&schema, &|_| None, "t").unwrap_err();
        let fallback = permissive(&schema, &refused.message);
        assert_eq!(fallback["type"], "object");
        assert_eq!(fallback["title"], "T");
        let description = fallback["description"].as_str().unwrap();
        assert!(description.starts_with("D\n\n(Shown without its full schema: "));
        assert!(description.contains("$recursiveRef"), "{description}");
        assert!(fallback.get("required").is_none() && fallback.get("properties").is_none());
        project(&fallback, &|_| None, "t").expect("the fallback stands alone");
    }
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

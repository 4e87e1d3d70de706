//! The listing projection (tool-contract.md §6): what MCP clients and agent providers are shown
//! of a tool's schemas. The exact standalone projection ([`super::standalone::project`]) copies
//! every component a schema reaches; on big interconnected APIs that is most of the document
//! for nearly every tool (Stripe: about 550 MB for one listing), so a listed schema is bounded.
//!
//! A tool's listed schemas share a byte budget ([`Budget`]: 3/4 for the input schema, 3/16 for
//! the output schema, 1/16 for the error schema). Each schema is shown at the most detailed of
//! these levels that fits its share, tried in order:
//!
//! 1. components up to `depth` references away copied whole, the next ring as stubs;
//! 2. the same without prose (`description`, `examples`, `$comment`, `x-…`) below each copied
//!    component's root and below the schema's own first level of nesting;
//! 3. that, with the depth lowered one step at a time to 0 (every referenced component a stub);
//! 4. that, with the schema's own nesting cut one level at a time down to its first level
//!    (deeper values become stubs).
//!
//! The last level is used when none fits. A stub keeps its `type`, `enum`, `const`, `title` and
//! `description` and accepts everything else, so a listed schema never refuses what the full one
//! accepts. Inside copied components, expandable unions (`anyOf` of a string id and a `$ref` to
//! the object it stands for, as Stripe writes them) show the id and a bare `{"type": "object"}`
//! in place of the reference, so they copy nothing and still accept an expanded object. A schema that cannot
//! be moved at all is shown in its [`permissive`] form; a component that cannot is copied in
//! that form. Validation never uses any of this: `invoke` checks calls against the full contract.
//!
//! The work per component (its copies, their sizes, the components they reference) is done once
//! per [`Prepared`] and shared by every schema listed from it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::standalone::{
    add_defs, assign_homes, check_movable, defined_names, defs_pointer, references, rewrite_refs,
};
use super::{children_mut, percent_decode, resolve, serialized_len, unescape, visit, visit_mut};
use crate::error::ContractError;

/// How much of the components a tool's listed schemas carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Reference hops copied whole (before the byte budget lowers it).
    pub depth: usize,
    /// Serialized bytes a tool's listed schemas aim to stay under, together: 3/4 of it for
    /// the input schema, 3/16 for the output schema, 1/16 for the error schema.
    pub bytes: usize,
}

/// Which of a tool's schemas is listed; each has its share of the [`Budget`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `inputSchema` (and the agent providers' parameters): 3/4.
    Input,
    /// `outputSchema`: 3/16.
    Output,
    /// The error schema in `_meta`: 1/16.
    Error,
}

impl Budget {
    /// Depth 2, 8 KiB per tool: Stripe's 468 tools list in about 1.6 MB (from about 550 MB
    /// whole), while small APIs keep their schemas whole.
    pub const DEFAULT: Budget = Budget {
        depth: 2,
        bytes: 8 * 1024,
    };

    /// This budget with `HARNESS_LISTING_DEPTH` and `HARNESS_LISTING_BYTES` applied where they
    /// are set to numbers (read once per process).
    pub fn with_env(self) -> Budget {
        static ENV: OnceLock<(Option<usize>, Option<usize>)> = OnceLock::new();
        let (depth, bytes) = *ENV.get_or_init(|| {
            let number = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse().ok());
            (
                number("HARNESS_LISTING_DEPTH"),
                number("HARNESS_LISTING_BYTES"),
            )
        });
        Budget {
            depth: depth.unwrap_or(self.depth),
            bytes: bytes.unwrap_or(self.bytes),
        }
    }

    /// The bytes the schema in `role` aims to stay under.
    pub fn share(self, role: Role) -> usize {
        match role {
            Role::Input => self.bytes / 4 * 3,
            Role::Output => self.bytes / 16 * 3,
            Role::Error => self.bytes / 16,
        }
    }
}

/// The documented fallback for a schema that cannot be moved (a location-bound keyword, a
/// reference out of the document): a schema that accepts at least everything the original
/// does, keeping the root's `type`, `title` and `description`, and saying in the description
/// why the rest is not shown. Listings use it so that one schema never takes a whole listing
/// down; validation inside the server still uses the full contract.
pub fn permissive(schema: &Value, why: &str) -> Value {
    summary(
        schema,
        &format!(
            "(Shown without its full schema: {why} The server checks calls against the full contract.)"
        ),
    )
}

/// The note a stub's description ends with.
const STUB_NOTE: &str = "(Abbreviated.)";

/// What a listing shows of a schema past its bounds: [`summary`] with a short note.
fn stub(schema: &Value) -> Value {
    summary(schema, STUB_NOTE)
}

/// Whether `map` is a stub or a permissive summary: a schema that accepts more than the one it
/// stands for.
fn is_summary(map: &Map<String, Value>) -> bool {
    map.get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.ends_with(STUB_NOTE) || d.contains("(Shown without its full schema:"))
}

/// The `$defs` name a local reference points into (`#/$defs/Name/…`).
fn def_name(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix("#/$defs/")?;
    let segment = rest.split('/').next()?;
    Some(unescape(&percent_decode(segment)))
}

/// Whether `node` holds a summary, or reaches one through a reference to a weakened `$defs`
/// entry.
fn reaches_summary(node: &Value, weak: &HashSet<String>) -> bool {
    let mut found = false;
    visit(node, &mut |_, map| {
        found = found
            || is_summary(map)
            || map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(def_name)
                .is_some_and(|name| weak.contains(&name));
    });
    found
}

/// Whether no two of `branches` can match one value whatever their other keywords say: each
/// requires a property that every one pins to a `const` of its own (an error envelope's `kind`).
fn discriminated(branches: &[Value]) -> bool {
    let pinned = |branch: &Value, name: &str| -> Option<Value> {
        let required = branch.get("required")?.as_array()?;
        if !required.iter().any(|r| r == name) {
            return None;
        }
        branch.get("properties")?.get(name)?.get("const").cloned()
    };
    let Some(first) = branches
        .first()
        .and_then(|b| b.get("properties")?.as_object())
    else {
        return false;
    };
    first.keys().any(|name| {
        let values: Option<Vec<Value>> = branches.iter().map(|b| pinned(b, name)).collect();
        values.is_some_and(|values| {
            values
                .iter()
                .enumerate()
                .all(|(i, v)| !values[..i].contains(v))
        })
    })
}

/// Each `oneOf` of `doc` with a branch that reaches a summary becomes an `anyOf`. That branch
/// accepts more than it did and can now overlap another, where a `oneOf` would refuse a value
/// that matched exactly one branch of the original (OpenAI's `AssistantStreamEvent`, whose
/// stubbed `DoneEvent` matched every event): `anyOf` accepts whatever `oneOf` did. With
/// `everywhere`, every `oneOf` does (a dropped reference leaves no mark to follow). A `oneOf`
/// whose branches a `const` tells apart stays one.
fn loosen_one_ofs(doc: &mut Value, everywhere: bool) {
    let mut weak: HashSet<String> = HashSet::new();
    if let Some(Value::Object(defs)) = doc.get("$defs") {
        loop {
            let before = weak.len();
            for (name, def) in defs {
                if !weak.contains(name) && reaches_summary(def, &weak) {
                    weak.insert(name.clone());
                }
            }
            if weak.len() == before {
                break;
            }
        }
    }
    visit_mut(doc, &mut |map| {
        let loosen = match map.get("oneOf") {
            Some(Value::Array(branches)) => {
                !discriminated(branches)
                    && (everywhere || branches.iter().any(|b| reaches_summary(b, &weak)))
            }
            _ => false,
        };
        if !loosen {
            return;
        }
        let Some(branches) = map.remove("oneOf") else {
            return;
        };
        if map.contains_key("anyOf") {
            // Both at once: the value must match one of each, so the loosened one becomes an
            // `allOf` member.
            if let Value::Array(all) = map
                .entry("allOf")
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                all.push(serde_json::json!({ "anyOf": branches }));
            }
        } else {
            map.insert("anyOf".to_string(), branches);
        }
    });
}

/// The root's `type`, `enum`, `const`, `title` and `description` (with `note` after it): every
/// keyword kept is one the schema itself asserts, so the summary accepts at least what it does.
fn summary(schema: &Value, note: &str) -> Value {
    let Value::Object(map) = schema else {
        // A boolean schema is its own summary.
        return schema.clone();
    };
    let mut out = Map::new();
    for keyword in ["type", "enum", "const", "title"] {
        if let Some(value) = map.get(keyword) {
            out.insert(keyword.to_string(), value.clone());
        }
    }
    // A description that only repeats the title says nothing more.
    let description = match map.get("description").and_then(Value::as_str) {
        Some(text)
            if !text.trim().is_empty()
                && Some(text) != map.get("title").and_then(Value::as_str) =>
        {
            format!("{text}\n\n{note}")
        }
        _ => note.to_string(),
    };
    out.insert("description".to_string(), description.into());
    Value::Object(out)
}

/// One listed form of a component and its serialized size.
#[derive(Clone)]
struct Form {
    value: Value,
    size: usize,
}

impl Form {
    fn new(value: Value) -> Form {
        let size = serialized_len(&value);
        Form { value, size }
    }
}

/// A component as listings copy it: expandable unions collapsed, references rewritten for a
/// home under `$defs` of its own name.
struct Copies {
    /// With all its prose.
    full: Form,
    /// Without prose below its root.
    terse: Form,
    /// The components the copies reference, in document order.
    refs: Vec<String>,
    /// Whether the copies hold local references or references below a component's root,
    /// which may not resolve in a listing (their target stubbed or collapsed).
    deep: bool,
}

/// A component's lazily computed forms.
#[derive(Default)]
struct Slot {
    copies: OnceLock<Copies>,
    stub: OnceLock<Form>,
}

/// Per-component work shared by every schema listed over one set of components, each piece
/// done on first use.
pub struct Prepared {
    slots: HashMap<String, Slot>,
}

impl Prepared {
    /// Room for the components named `names`.
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> Prepared {
        Prepared {
            slots: names
                .into_iter()
                .map(|name| (name.to_string(), Slot::default()))
                .collect(),
        }
    }
}

/// Lists schemas over one set of components within one budget.
pub struct Lister<'a> {
    components: &'a dyn Fn(&str) -> Option<&'a Value>,
    prepared: &'a Prepared,
    budget: Budget,
}

/// How much prose a level shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prose {
    All,
    Top,
}

/// The tool's own schema at one level of detail, with what it references.
struct Own {
    value: Value,
    size: usize,
    refs: Vec<String>,
    deep: bool,
}

impl<'a> Lister<'a> {
    /// A lister over `components` (looked up by name), reusing `prepared`.
    pub fn new(
        components: &'a dyn Fn(&str) -> Option<&'a Value>,
        prepared: &'a Prepared,
        budget: Budget,
    ) -> Lister<'a> {
        Lister {
            components,
            prepared,
            budget,
        }
    }

    /// `schema` (named `at` in notes) as a listing shows it in `role`: standalone, within
    /// that role's share of the budget, or in its [`permissive`] form when it cannot move.
    pub fn list(&self, schema: &Value, at: &str, role: Role) -> Value {
        let mut listed = self
            .bounded(schema, at, self.budget.share(role))
            .unwrap_or_else(|refused| permissive(schema, &refused.message));
        loosen_one_ofs(&mut listed, false);
        super::standalone::unique_required(&mut listed);
        listed
    }

    fn bounded(&self, schema: &Value, at: &str, bytes: usize) -> Result<Value, ContractError> {
        check_movable(schema, at)?;
        if !schema.is_object() {
            return Ok(schema.clone());
        }
        let own = self.own(schema.clone(), at)?;
        let rings = self.rings(&own.refs);
        let depth = self.budget.depth;
        if self.estimate(&own, &rings, depth, Prose::All) <= bytes {
            return Ok(self.build(own, &rings, depth, Prose::All));
        }
        let mut terse = schema.clone();
        strip_prose(&mut terse, 2);
        merge_variants(&mut terse);
        let own = self.own(terse, at)?;
        for depth in (0..=depth).rev() {
            if self.estimate(&own, &rings, depth, Prose::Top) <= bytes {
                return Ok(self.build(own, &rings, depth, Prose::Top));
            }
        }
        // Cut the schema's own nesting at the deepest level that fits, down to its first.
        let savings = cut_savings(&own.value);
        let ring_stubs = self.estimate(&own, &rings, 0, Prose::Top) - own.size;
        let Some(keep) = (1..savings.len())
            .rev()
            .find(|&keep| own.size.saturating_sub(savings[keep]) + ring_stubs <= bytes)
            .or((savings.len() > 1).then_some(1))
        else {
            return Ok(self.build(own, &rings, 0, Prose::Top));
        };
        let mut cut = own.value;
        cut_below(&mut cut, keep);
        let own = self.own(cut, at)?;
        let rings = self.rings(&own.refs);
        Ok(self.build(own, &rings, 0, Prose::Top))
    }

    fn own(&self, value: Value, at: &str) -> Result<Own, ContractError> {
        let refs = references(&value, self.components, at)?;
        let mut deep = false;
        visit(&value, &mut |_, map| {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                deep |= is_deep(reference, true);
            }
        });
        Ok(Own {
            size: serialized_len(&value),
            value,
            refs,
            deep,
        })
    }

    /// The components reached from `refs` (at 1 hop) by breadth, each with its fewest hops, up
    /// to one hop past the budget's depth.
    fn rings(&self, refs: &[String]) -> Vec<(String, usize)> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut rings: Vec<(String, usize)> = Vec::new();
        for name in refs {
            if seen.insert(name) {
                rings.push((name.clone(), 1));
            }
        }
        let mut next = 0;
        while next < rings.len() {
            let (name, hops) = rings[next].clone();
            next += 1;
            if hops > self.budget.depth {
                continue;
            }
            let Some(copies) = self.copies(&name) else {
                continue;
            };
            for reached in &copies.refs {
                if seen.insert(reached) {
                    rings.push((reached.clone(), hops + 1));
                }
            }
        }
        rings
    }

    fn copies(&self, name: &str) -> Option<&Copies> {
        let slot = self.prepared.slots.get(name)?;
        let component = (self.components)(name)?;
        Some(
            slot.copies
                .get_or_init(|| copies_of(name, component, self.components)),
        )
    }

    fn stub(&self, name: &str) -> Option<&Form> {
        let slot = self.prepared.slots.get(name)?;
        let component = (self.components)(name)?;
        Some(slot.stub.get_or_init(|| Form::new(stub(component))))
    }

    /// The form of `name` shown at `depth` when it is `hops` away; `None` past the stubs.
    fn form(&self, name: &str, hops: usize, depth: usize, prose: Prose) -> Option<&Form> {
        if hops <= depth {
            self.copies(name).map(|copies| match prose {
                Prose::All => &copies.full,
                Prose::Top => &copies.terse,
            })
        } else if hops == depth + 1 {
            self.stub(name)
        } else {
            None
        }
    }

    /// The serialized size of [`Lister::build`]'s result, from sizes measured once (an upper
    /// bound: rewritten references are shorter than the originals).
    fn estimate(&self, own: &Own, rings: &[(String, usize)], depth: usize, prose: Prose) -> usize {
        let defs: usize = rings
            .iter()
            .filter_map(|(name, hops)| {
                let form = self.form(name, *hops, depth, prose)?;
                Some(form.size + name.len() + 4)
            })
            .sum();
        own.size + defs + "\"$defs\":{},".len()
    }

    fn build(&self, own: Own, rings: &[(String, usize)], depth: usize, prose: Prose) -> Value {
        let shown: Vec<(&String, &Form)> = rings
            .iter()
            .filter_map(|(name, hops)| Some((name, self.form(name, *hops, depth, prose)?)))
            .collect();
        let mut doc = own.value;
        if shown.is_empty() {
            return doc;
        }
        let mut names: Vec<&String> = shown.iter().map(|(name, _)| *name).collect();
        names.sort();
        let homes = assign_homes(names.into_iter(), defined_names(&doc));
        rewrite_refs(&mut doc, &homes, None);
        let renamed = homes.iter().any(|(name, home)| name != home);
        let deep = own.deep
            || rings.iter().any(|(name, hops)| {
                *hops <= depth && self.copies(name).is_some_and(|copies| copies.deep)
            });
        let mut copies: Vec<(String, Value)> = shown
            .into_iter()
            .map(|(name, form)| {
                let mut value = form.value.clone();
                if renamed {
                    rename_homes(&mut value, &homes);
                }
                (homes[name].clone(), value)
            })
            .collect();
        copies.sort_by(|a, b| a.0.cmp(&b.0));
        add_defs(&mut doc, copies.into_iter().collect());
        if deep && drop_dangling_refs(&mut doc) {
            loosen_one_ofs(&mut doc, true);
        }
        doc
    }
}

/// The listed copies of one component (`name`, found as `component`).
fn copies_of<'c>(
    name: &str,
    component: &Value,
    components: &dyn Fn(&str) -> Option<&'c Value>,
) -> Copies {
    let at = format!("components.schemas.{name}");
    let checked = check_movable(component, &at)
        .and_then(|()| references(component, components, &at).map(|_| ()));
    if let Err(refused) = checked {
        let fallback = Form::new(permissive(component, &refused.message));
        return Copies {
            full: fallback.clone(),
            terse: fallback,
            refs: Vec::new(),
            deep: false,
        };
    }
    let mut copy = component.clone();
    collapse_expandables(&mut copy, components);
    // Collapsing only removes references, so what is left was checked above.
    let refs = references(&copy, components, &at).unwrap_or_default();
    let mut deep = false;
    visit(&copy, &mut |_, map| {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            deep |= is_deep(reference, false);
        }
    });
    let homes = refs.iter().map(|n| (n.clone(), n.clone())).collect();
    rewrite_refs(&mut copy, &homes, Some(name));
    let mut terse = copy.clone();
    strip_prose(&mut terse, 1);
    Copies {
        full: Form::new(copy),
        terse: Form::new(terse),
        refs,
        deep,
    }
}

/// Whether `reference` may dangle once listed: a local one (in a component; a tool's own local
/// references stay as they are) or one below a component's root.
fn is_deep(reference: &str, own: bool) -> bool {
    match super::standalone::classify(reference) {
        super::standalone::RefTarget::Component { rest, .. } => !rest.is_empty(),
        super::standalone::RefTarget::Local(_) => !own,
        super::standalone::RefTarget::External => false,
    }
}

/// Points references written for homes named after their components (`#/$defs/<name>…`) at
/// the homes `homes` gives them.
fn rename_homes(doc: &mut Value, homes: &BTreeMap<String, String>) {
    visit_mut(doc, &mut |map| {
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return;
        };
        let pointer = percent_decode(reference.strip_prefix('#').unwrap_or(reference));
        let Some(after) = pointer.strip_prefix("/$defs/") else {
            return;
        };
        let (raw, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
        if let Some(home) = homes.get(&unescape(raw)) {
            let rewritten = defs_pointer(home, rest);
            map.insert("$ref".to_string(), Value::String(rewritten));
        }
    });
}

/// Removes every local `$ref` that does not resolve in `doc` (a pointer into a stub, or into a
/// union a copy collapsed): the subschema then accepts more, never less.
fn drop_dangling_refs(doc: &mut Value) -> bool {
    let mut dangling = Vec::new();
    visit(doc, &mut |pointer, map| {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str)
            && let Some(fragment) = reference.strip_prefix('#')
            && resolve(doc, &percent_decode(fragment)).is_none()
        {
            dangling.push(pointer.to_string());
        }
    });
    let dropped = !dangling.is_empty();
    for pointer in dangling {
        if let Some(Value::Object(map)) = doc.pointer_mut(&pointer) {
            map.remove("$ref");
        }
    }
    dropped
}

/// Keywords whose subschemas describe a value inside the instance: one level of nesting down.
const NESTED: &[&str] = &[
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Calls `f(subschema, level)` for `schema` (at `level`) and, while `f` says so, the
/// subschemas below it; the level counts nesting ([`NESTED`]), not combinators.
fn each_level(schema: &mut Value, level: usize, f: &mut impl FnMut(&mut Value, usize) -> bool) {
    if !f(schema, level) {
        return;
    }
    if let Value::Object(map) = schema {
        children_mut(map, &mut |keyword, _, child| {
            let level = if NESTED.contains(&keyword) {
                level + 1
            } else {
                level
            };
            each_level(child, level, f);
        });
    }
}

/// Removes prose (`description`, `examples`, `example`, `$comment`, and vendor extensions
/// `x-…`, which no client acts on) from every subschema at nesting level `from` or deeper.
fn strip_prose(schema: &mut Value, from: usize) {
    each_level(schema, 0, &mut |node, level| {
        if level >= from
            && let Value::Object(map) = node
        {
            map.retain(|keyword, _| {
                !(keyword.starts_with("x-")
                    || matches!(
                        keyword.as_str(),
                        "description" | "examples" | "example" | "$comment"
                    ))
            });
        }
        true
    });
}

/// Merges the variants of each `oneOf` / `anyOf` in `schema` that differ only in the `const`
/// of some properties (an error envelope's `http_404` and `http_409` variants with the same
/// body) into one variant listing those values as an `enum`. The merge accepts combinations
/// the variants did not, so a merged `oneOf` becomes an `anyOf`: it accepts more, never less.
fn merge_variants(schema: &mut Value) {
    visit_mut(schema, &mut |map| {
        for keyword in ["oneOf", "anyOf"] {
            if keyword == "oneOf" && map.contains_key("anyOf") {
                continue;
            }
            let Some(Value::Array(variants)) = map.get(keyword) else {
                continue;
            };
            let merged = merge_consts(variants);
            if merged.len() < variants.len() {
                map.remove(keyword);
                map.insert("anyOf".to_string(), Value::Array(merged));
            }
        }
    });
}

/// `variants` with those differing only in property `const`s merged, in first-seen order.
fn merge_consts(variants: &[Value]) -> Vec<Value> {
    // Each group: the shape shared (consts blanked), then per property the values seen.
    let mut groups: Vec<(Value, Value, BTreeMap<String, Vec<Value>>)> = Vec::new();
    for variant in variants {
        let mut shape = variant.clone();
        let mut consts = BTreeMap::new();
        if let Some(Value::Object(properties)) = shape.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if let Value::Object(property) = property
                    && let Some(value) = property.remove("const")
                {
                    consts.insert(name.clone(), value);
                }
            }
        }
        match groups.iter_mut().find(|(seen, _, _)| *seen == shape) {
            Some((_, _, values)) if !consts.is_empty() => {
                for (name, value) in consts {
                    let seen = values.entry(name).or_default();
                    if !seen.contains(&value) {
                        seen.push(value);
                    }
                }
            }
            _ => {
                let values = consts.into_iter().map(|(n, v)| (n, vec![v])).collect();
                groups.push((shape, variant.clone(), values));
            }
        }
    }
    groups
        .into_iter()
        .map(|(mut shape, first, values)| {
            if values.values().all(|seen| seen.len() == 1) {
                return first;
            }
            if let Some(Value::Object(properties)) = shape.get_mut("properties") {
                for (name, seen) in values {
                    if let Some(Value::Object(property)) = properties.get_mut(&name) {
                        match <[Value; 1]>::try_from(seen) {
                            Ok([one]) => property.insert("const".to_string(), one),
                            Err(many) => property.insert("enum".to_string(), Value::Array(many)),
                        };
                    }
                }
            }
            shape
        })
        .collect()
}

/// What cutting `schema` below each level saves, by level kept (index 0 is the root, never
/// cut): for each subschema that is the first at its level on its path, the bytes its stub
/// saves.
fn cut_savings(schema: &Value) -> Vec<usize> {
    fn walk(node: &Value, level: usize, parent: usize, savings: &mut Vec<usize>) {
        if level > parent {
            if savings.len() < level {
                savings.resize(level, 0);
            }
            let whole = serialized_len(node);
            savings[level - 1] += whole.saturating_sub(serialized_len(&stub(node)));
        }
        if let Value::Object(map) = node {
            super::children(map, &mut |keyword, child| {
                let below = level + usize::from(NESTED.contains(&keyword));
                walk(child, below, level, savings);
            });
        }
    }
    let mut savings = vec![0];
    if let Value::Object(map) = schema {
        super::children(map, &mut |keyword, child| {
            walk(
                child,
                usize::from(NESTED.contains(&keyword)),
                0,
                &mut savings,
            );
        });
    }
    savings
}

/// Replaces every subschema nested deeper than `keep` levels by its stub, where that is
/// smaller.
fn cut_below(schema: &mut Value, keep: usize) {
    each_level(schema, 0, &mut |node, level| {
        if level <= keep {
            return true;
        }
        let stubbed = stub(node);
        if serialized_len(&stubbed) < serialized_len(node) {
            *node = stubbed;
        }
        false
    });
}

/// Shows each expandable union (`anyOf`/`oneOf` of a string form and a `$ref` to the object
/// it stands for, as Stripe writes expandable fields) with the object as a bare summary of
/// the component (its `type` and `title`) instead of a reference: past a tool's own schema,
/// listings show the id, and that an object may stand in its place, without copying the
/// object's schema. The union still accepts everything it did.
fn collapse_expandables<'c>(schema: &mut Value, components: &dyn Fn(&str) -> Option<&'c Value>) {
    visit_mut(schema, &mut |map| {
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(variants)) = map.get_mut(keyword) else {
                continue;
            };
            let is_string = |v: &Value| {
                v.get("type") == Some(&Value::from("string")) && v.get("$ref").is_none()
            };
            let reference = match variants.as_slice() {
                [a, b] if is_string(a) && b.get("$ref").is_some() => 1,
                [a, b] if a.get("$ref").is_some() && is_string(b) => 0,
                _ => continue,
            };
            let target = variants[reference]
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| match super::standalone::classify(r) {
                    super::standalone::RefTarget::Component { name, rest } if rest.is_empty() => {
                        components(&name)
                    }
                    _ => None,
                });
            let mut summary = Map::new();
            for keyword in ["type", "title"] {
                if let Some(value) = target.and_then(|t| t.get(keyword)) {
                    summary.insert(keyword.to_string(), value.clone());
                }
            }
            variants[reference] = Value::Object(summary);
            break;
        }
    });
}

#[cfg(test)]
mod tests;

//! Operation groups: the cargo features a generated crate compiles its operations behind, so a
//! user of a big API compiles the part they call (openapi.md §4, "pay only for what you use").
//!
//! The rule, in order: a tag named in `x-harn.features` belongs to that group; any other tag is
//! its own group, named by the one kebab-case rule; an operation without tags belongs to the
//! group of its path's first segment that is neither a parameter nor a version
//! (`/v1/customers/{id}` → `customers`; a note says so, once per document with several groups);
//! an operation with neither is in no group and always compiled. An operation with several tags is compiled when any of its groups
//! is enabled. Names the crate already uses are suffixed `-ops` (a note each).

use std::collections::BTreeMap;

use serde_json::Value;

use super::Cx;
use crate::diag::{Code, Severity};
use crate::load::Loc;
use crate::model::Group;
use crate::names;
use crate::xharn::DocumentExt;

/// Features a generated crate defines itself, and names of its dependencies (an optional
/// dependency would be a feature of that name).
pub const RESERVED_FEATURES: &[&str] = &[
    "default",
    "all-operations",
    "compare",
    "registry",
    "cli",
    "mcp",
    "dashboard",
    "dates",
    "redis",
    "harness-gen-runtime",
    "serde",
    "serde-json",
    "serde_json",
];

/// What crates.io accepts at most.
const MAX_FEATURES: usize = 300;

/// What grouping needs of one operation.
pub struct Grouped<'a> {
    /// Its tags, in document order.
    pub tags: &'a [String],
    /// Its path template.
    pub path: &'a str,
}

/// The groups, sorted by feature name, and each operation's groups (indexes into them).
pub fn assign(cx: &mut Cx, ext: &DocumentExt, ops: &[Grouped]) -> (Vec<Group>, Vec<Vec<usize>>) {
    let (declared, mut features) = declared_groups(cx, ext, ops);
    // Feature name → description; a BTreeMap keeps Cargo.toml sorted. The declared groups are
    // in it already, so a tag's own group never takes a declared group's description.
    let mut keys_per_op: Vec<Vec<String>> = Vec::with_capacity(ops.len());
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    let mut by_path = 0usize;
    for op in ops {
        let mut keys = Vec::new();
        for tag in op.tags {
            let feature = match declared.get(tag.as_str()) {
                Some(group) => group.clone(),
                None => {
                    let feature = feature_name(tag, &mut renamed);
                    features
                        .entry(feature.clone())
                        .or_insert_with(|| tag_description(cx, tag));
                    feature
                }
            };
            keys.push(feature);
        }
        if op.tags.is_empty()
            && let Some(segment) = first_segment(op.path)
        {
            by_path += 1;
            let feature = feature_name(segment, &mut renamed);
            features
                .entry(feature.clone())
                .or_insert_with(|| format!("Operations under `/{segment}`."));
            keys.push(feature);
        }
        keys_per_op.push(keys);
    }
    // With one group there is nothing to choose between: no note.
    if by_path > 0 && features.len() > 1 {
        report(
            cx,
            Severity::Note,
            "/paths",
            format!(
                "{by_path} operation(s) have no tag: each is compiled behind the cargo feature named after its path's first segment that is not a parameter or version; tag them, or group tags with x-harn.features, to choose otherwise"
            ),
        );
    }
    for (name, feature) in &renamed {
        report(
            cx,
            Severity::Note,
            "/paths",
            format!(
                "the operations of `{name}` are behind the cargo feature `{feature}`: `{}` is taken by the crate or cargo",
                names::kebab(name)
            ),
        );
    }
    if features.len() > MAX_FEATURES {
        report(
            cx,
            Severity::Warning,
            "/x-harn",
            format!(
                "the crate gets {} operation features, and crates.io refuses a crate with more than {MAX_FEATURES}: group tags with x-harn.features",
                features.len()
            ),
        );
    }
    let index: BTreeMap<&str, usize> = features
        .keys()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let of_op = keys_per_op
        .iter()
        .map(|keys| {
            let mut at: Vec<usize> = keys.iter().map(|k| index[k.as_str()]).collect();
            at.sort_unstable();
            at.dedup();
            at
        })
        .collect();
    let groups = features
        .into_iter()
        .map(|(feature, description)| Group {
            feature,
            description,
        })
        .collect();
    (groups, of_op)
}

/// Reports how operations were grouped (HG0507) at `pointer`.
fn report(cx: &mut Cx, severity: Severity, pointer: &str, message: String) {
    cx.diags.push(
        cx.doc
            .diag(Code::Grouped, severity, &Loc::main(pointer), message),
    );
}

/// The groups `x-harn.features` declares: each tag's group, and each valid group's
/// description. A group name must be a feature name cargo accepts and the crate does not use;
/// a tag may be in one group only and should be used by some operation.
fn declared_groups<'a>(
    cx: &mut Cx,
    ext: &'a DocumentExt,
    ops: &[Grouped],
) -> (BTreeMap<&'a str, String>, BTreeMap<String, String>) {
    let mut out: BTreeMap<&str, String> = BTreeMap::new();
    let mut groups = BTreeMap::new();
    for (group, tags) in ext.features.iter().flatten() {
        let at = Loc::main("/x-harn/features").at(group);
        if let Some(problem) = feature_name_problem(group) {
            cx.diags.push(cx.doc.diag(
                Code::XHarnInvalid,
                Severity::Error,
                &at,
                format!("{problem}: name the group with ASCII letters, digits, `-` and `_`, not one of {}", RESERVED_FEATURES.join(", ")),
            ));
            continue;
        }
        let named: Vec<String> = tags.iter().map(|t| format!("`{t}`")).collect();
        groups.insert(
            group.clone(),
            format!("Operations tagged {}.", named.join(", ")),
        );
        for (i, tag) in tags.iter().enumerate() {
            let at = at.at(&i.to_string());
            if let Some(first) = out.get(tag.as_str()) {
                cx.diags.push(cx.doc.diag(
                    Code::XHarnInvalid,
                    Severity::Error,
                    &at,
                    format!("tag `{tag}` is already in group `{first}`: an operation's tag belongs to one group"),
                ));
                continue;
            }
            if !ops.iter().any(|op| op.tags.contains(tag)) {
                cx.diags.push(cx.doc.diag(
                    Code::XHarnInvalid,
                    Severity::Warning,
                    &at,
                    format!(
                        "no operation has tag `{tag}`: the group `{group}` does not compile it"
                    ),
                ));
            }
            out.insert(tag, group.clone());
        }
    }
    (out, groups)
}

/// Why `name` cannot be a group's feature, if it cannot.
fn feature_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the group name is empty".into());
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
    {
        return Some(format!(
            "`{}` is not a cargo feature name",
            crate::diag::printable(name)
        ));
    }
    RESERVED_FEATURES
        .contains(&name)
        .then(|| format!("`{name}` is a feature the crate defines itself"))
}

/// The feature of a tag or path segment: its kebab-case form (the CLI's rule), `-ops` appended
/// when the crate or cargo uses that name (recorded in `renamed`).
fn feature_name(text: &str, renamed: &mut BTreeMap<String, String>) -> String {
    let kebab = names::kebab(text);
    if !RESERVED_FEATURES.contains(&kebab.as_str()) {
        return kebab;
    }
    let feature = format!("{kebab}-ops");
    renamed.insert(text.to_string(), feature.clone());
    feature
}

/// The first segment of `path` that is neither a parameter (`{id}`) nor a version (`v1`,
/// `2023-10-16`, `1.0`).
pub fn first_segment(path: &str) -> Option<&str> {
    path.split('/').find(|segment| {
        !segment.is_empty()
            && !segment.contains('{')
            && !is_version(segment)
            && segment.bytes().any(|b| b.is_ascii_alphanumeric())
    })
}

fn is_version(segment: &str) -> bool {
    let digits = segment.strip_prefix(['v', 'V']).unwrap_or(segment);
    !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_'))
}

/// A tag's group description: the first line of its description in the document's `tags`,
/// else a sentence naming it.
fn tag_description(cx: &Cx, tag: &str) -> String {
    cx.doc
        .root()
        .get("tags")
        .and_then(Value::as_array)
        .and_then(|tags| {
            tags.iter()
                .find(|t| t.get("name").and_then(Value::as_str) == Some(tag))
        })
        .and_then(|t| t.get("description"))
        .and_then(Value::as_str)
        .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(str::to_string)
        .unwrap_or_else(|| format!("Operations tagged `{tag}`."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untagged_operation_is_grouped_by_its_first_segment_past_versions_and_parameters() {
        assert_eq!(
            first_segment("/v1/customers/{id}/sources"),
            Some("customers")
        );
        assert_eq!(
            first_segment("/2023-10-16/payment_intents"),
            Some("payment_intents")
        );
        assert_eq!(first_segment("/{tenant}/v2.1/items"), Some("items"));
        assert_eq!(first_segment("/vaults/v1"), Some("vaults"));
        assert_eq!(first_segment("/"), None);
        assert_eq!(first_segment("/v1/{id}"), None);
    }

    #[test]
    fn a_group_named_like_a_feature_of_the_crate_gets_an_ops_suffix() {
        let mut renamed = BTreeMap::new();
        assert_eq!(feature_name("Registry", &mut renamed), "registry-ops");
        assert_eq!(feature_name("Code Scanning", &mut renamed), "code-scanning");
        assert_eq!(feature_name("CLI", &mut renamed), "cli-ops");
        assert_eq!(renamed.len(), 2);
    }
}

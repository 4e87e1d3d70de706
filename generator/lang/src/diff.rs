//! `harness-gen harness diff OLD NEW`: what changed between two `.harness` programs (or two
//! compiled bundles) for the people reviewing it, per harness and per agent rather than per
//! line, and with `--harness` what changed in the resolved revision on a runtime.
//!
//! Every change is one [`Change`]: where it is (`harness standard-coding` › `agent verifier`),
//! what it is (`require tool process.exec`), whether it was added, removed or changed, and the
//! IR of both sides. The text groups changes by where they are, in a stable order (the order
//! of the new program, removed items where they were); `--format json` prints the same list.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use harness_gen_contract::harness::ir::{
    Agent, Bundle, CapabilityKind, Harness, Realization, Requirement, Revision, Setting,
    SettingValue, Workflow,
};
use serde::Serialize;
use serde_json::Value;

/// Whether an item is new, gone or different.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum What {
    /// Only in the new program.
    Added,
    /// Only in the old program.
    Removed,
    /// In both, different.
    Changed,
}

/// One change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// Where it is, outermost first (`["harness standard-coding", "agent verifier"]`).
    pub path: Vec<String>,
    /// The item (`require tool process.exec`, `edge author -> verifier`, `skill impact-analysis`).
    pub item: String,
    /// Added, removed or changed.
    pub what: What,
    /// For a change, what differs, in words (`minimum advisory → wired`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The old side's IR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The new side's IR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

/// Compares two items with the same key in more detail, adding what differs.
type Inner<'a, T> = &'a mut dyn FnMut(&mut Changes, &T, &T);

/// Everything that differs, in order.
#[derive(Debug, Default)]
pub struct Changes(pub Vec<Change>);

impl Changes {
    fn push(
        &mut self,
        path: &[String],
        item: String,
        what: What,
        old: Option<Value>,
        new: Option<Value>,
    ) {
        let detail = match (&old, &new, what) {
            (Some(old), Some(new), What::Changed) => Some(differences(old, new)),
            _ => None,
        };
        self.0.push(Change {
            path: path.to_vec(),
            item,
            what,
            detail,
            old,
            new,
        });
    }

    /// The changes between two keyed lists: added and changed items in the new list's order,
    /// each removed one where it stood in the old list. `inner` compares two items with the
    /// same key in more detail; without it, a differing item is one change.
    fn keyed<T: Serialize>(
        &mut self,
        path: &[String],
        old: &[T],
        new: &[T],
        key: impl Fn(&T) -> String,
        item: impl Fn(&T) -> String,
        mut inner: Option<Inner<'_, T>>,
    ) {
        let new_keys: BTreeSet<String> = new.iter().map(&key).collect();
        for gone in old.iter().filter(|o| !new_keys.contains(&key(o))) {
            self.push(path, item(gone), What::Removed, Some(ir(gone)), None);
        }
        for now in new {
            let k = key(now);
            match old.iter().find(|o| key(o) == k) {
                None => self.push(path, item(now), What::Added, None, Some(ir(now))),
                Some(before) if ir(before) != ir(now) => match inner.as_mut() {
                    Some(inner) => inner(self, before, now),
                    None => self.push(
                        path,
                        item(now),
                        What::Changed,
                        Some(ir(before)),
                        Some(ir(now)),
                    ),
                },
                Some(_) => {}
            }
        }
    }
}

fn ir<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// What differs between two IR objects, in words: `field old → new` for scalar fields, the
/// field's name alone for others.
fn differences(old: &Value, new: &Value) -> String {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return format!("{} → {}", scalar(old), scalar(new));
    };
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let parts: Vec<String> = keys
        .into_iter()
        .filter(|k| old.get(*k) != new.get(*k))
        .map(|k| match (old.get(k), new.get(k)) {
            (Some(a), Some(b))
                if !a.is_object() && !a.is_array() && !b.is_object() && !b.is_array() =>
            {
                format!("{k} {} → {}", scalar(a), scalar(b))
            }
            (None, Some(b)) if !b.is_object() && !b.is_array() => {
                format!("{k} (none) → {}", scalar(b))
            }
            (Some(a), None) if !a.is_object() && !a.is_array() => {
                format!("{k} {} → (none)", scalar(a))
            }
            _ => k.clone(),
        })
        .collect();
    parts.join(", ")
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The changes from `old` to `new`, bundle against bundle.
pub fn bundles(old: &Bundle, new: &Bundle) -> Changes {
    let mut changes = Changes::default();
    let top: &[String] = &[];
    changes.keyed(
        top,
        &old.skills,
        &new.skills,
        |s| s.id.clone(),
        |s| format!("skill {}", s.id),
        None,
    );
    changes.keyed(
        top,
        &old.tools,
        &new.tools,
        |t| t.id.clone(),
        |t| format!("tool {}", t.id),
        None,
    );
    changes.keyed(
        top,
        &old.mcps,
        &new.mcps,
        |m| m.id.clone(),
        |m| format!("mcp {}", m.id),
        None,
    );
    changes.keyed(
        top,
        &old.workflows,
        &new.workflows,
        |w| w.id.clone(),
        |w| format!("workflow {}", w.id),
        Some(&mut |changes: &mut Changes, a: &Workflow, b: &Workflow| workflow(changes, a, b)),
    );
    changes.keyed(
        top,
        &old.runtimes,
        &new.runtimes,
        |r| r.id.clone(),
        |r| format!("runtime {}", r.id),
        None,
    );
    changes.keyed(
        top,
        &old.harnesses,
        &new.harnesses,
        |h| h.id.clone(),
        |h| format!("harness {}", h.id),
        Some(&mut |changes: &mut Changes, a: &Harness, b: &Harness| harness(changes, a, b)),
    );
    changes.keyed(
        top,
        &old.bindings,
        &new.bindings,
        |b| format!("{} for {}", b.capability_id, b.runtime),
        |b| format!("binding {} for {}", b.capability_id, b.runtime),
        None,
    );
    changes.keyed(
        top,
        &old.targets,
        &new.targets,
        |t| t.runtime.clone(),
        |t| format!("target {}", t.runtime),
        None,
    );
    changes
}

fn workflow(changes: &mut Changes, old: &Workflow, new: &Workflow) {
    let path = [format!("workflow {}", new.id)];
    if old.mode != new.mode || old.program != new.program {
        let shape =
            |w: &Workflow| serde_json::json!({"mode": ir(&w.mode), "program": ir(&w.program)});
        changes.push(
            &path,
            "mode and program".into(),
            What::Changed,
            Some(shape(old)),
            Some(shape(new)),
        );
    }
    let edge = |e: &harness_gen_contract::harness::ir::Edge| format!("edge {} -> {}", e.from, e.to);
    changes.keyed(&path, &old.edges, &new.edges, edge, edge, None);
    let event = |e: &harness_gen_contract::harness::ir::Event| {
        format!("on {}.{} -> {}", e.agent, e.outcome, e.to)
    };
    changes.keyed(&path, &old.events, &new.events, event, event, None);
    let stop = |s: &harness_gen_contract::harness::ir::Stop| {
        format!("stop when {}.{}", s.agent, s.outcome)
    };
    changes.keyed(&path, &old.stops, &new.stops, stop, stop, None);
}

fn harness(changes: &mut Changes, old: &Harness, new: &Harness) {
    let path = [format!("harness {}", new.id)];
    if old.workflow != new.workflow {
        changes.push(
            &path,
            "workflow".into(),
            What::Changed,
            Some(Value::from(old.workflow.clone())),
            Some(Value::from(new.workflow.clone())),
        );
    }
    changes.keyed(
        &path,
        &old.agents,
        &new.agents,
        |a| a.id.clone(),
        |a| format!("agent {}", a.id),
        Some(&mut |changes: &mut Changes, a: &Agent, b: &Agent| {
            let path = [path[0].clone(), format!("agent {}", b.id)];
            changes.keyed(
                &path,
                &a.requirements,
                &b.requirements,
                |r| r.capability_id.clone(),
                requirement,
                None,
            );
        }),
    );
    changes.keyed(
        &path,
        &old.settings,
        &new.settings,
        |s| s.key.clone(),
        |s| format!("{} = {}", s.key, setting(s)),
        // A setting's change says its value as written, not the IR's fields.
        Some(&mut |changes: &mut Changes, a: &Setting, b: &Setting| {
            changes.0.push(Change {
                path: path.to_vec(),
                item: b.key.clone(),
                what: What::Changed,
                detail: Some(format!("{} → {}", setting(a), setting(b))),
                old: Some(ir(a)),
                new: Some(ir(b)),
            })
        }),
    );
}

fn requirement(r: &Requirement) -> String {
    capability(&r.capability_kind, &r.capability_id)
}

/// A capability as an agent asks for it: `use skill x`, `require tool y`, `connect mcp z`.
fn capability(kind: &CapabilityKind, id: &str) -> String {
    let verb = match kind {
        CapabilityKind::Skill => "use skill",
        CapabilityKind::Tool => "require tool",
        CapabilityKind::Mcp => "connect mcp",
    };
    format!("{verb} {id}")
}

/// A setting's value as written.
fn setting(s: &Setting) -> String {
    match &s.value {
        SettingValue::String { value } => format!("{value:?}"),
        SettingValue::Int { value } => value.to_string(),
        SettingValue::Boolean { value } => value.to_string(),
        SettingValue::Duration { value, .. } => value.clone(),
    }
}

/// The changes from one resolved revision to another: the revision id, the target, and per
/// agent each capability's realization (declared and materialized strength, mechanisms, what
/// resolution did), then the merged permissions.
pub fn revisions(old: &Revision, new: &Revision) -> Changes {
    let mut changes = Changes::default();
    let path = [format!(
        "revision of {} on {}",
        new.harness.id, new.target.runtime
    )];
    if old.revision_id != new.revision_id {
        changes.push(
            &path,
            "revision id".into(),
            What::Changed,
            Some(Value::from(old.revision_id.clone())),
            Some(Value::from(new.revision_id.clone())),
        );
    }
    if old.target != new.target {
        changes.push(
            &path,
            "target".into(),
            What::Changed,
            Some(ir(&old.target)),
            Some(ir(&new.target)),
        );
    }
    let agents: Vec<String> = new
        .agents
        .iter()
        .chain(&old.agents)
        .map(|a| a.id.clone())
        .collect::<Vec<_>>();
    let mut seen = BTreeSet::new();
    for agent in agents.iter().filter(|a| seen.insert(a.as_str())) {
        let of = |revision: &Revision| -> Vec<Realization> {
            revision
                .realization
                .iter()
                .filter(|r| &r.agent_id == agent)
                .cloned()
                .collect()
        };
        let path = [path[0].clone(), format!("agent {agent}")];
        changes.keyed(
            &path,
            &of(old),
            &of(new),
            |r| r.capability_id.clone(),
            |r| capability(&r.capability_kind, &r.capability_id),
            None,
        );
    }
    let permission = |p: &harness_gen_contract::harness::ir::Permission| {
        format!(
            "permission {} {}",
            scalar(&ir(&p.domain)),
            scalar(&ir(&p.access))
        )
    };
    changes.keyed(
        &path,
        &old.permissions,
        &new.permissions,
        permission,
        permission,
        None,
    );
    changes
}

impl Changes {
    /// The changes for people: grouped by where they are, `+` added, `-` removed, `~` changed
    /// with what differs.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut open: Vec<String> = Vec::new();
        for change in &self.0 {
            let common = open
                .iter()
                .zip(&change.path)
                .take_while(|(a, b)| a == b)
                .count();
            open.truncate(common);
            for (depth, part) in change.path.iter().enumerate().skip(common) {
                let _ = writeln!(out, "{}{part}", "  ".repeat(depth));
                open.push(part.clone());
            }
            let sign = match change.what {
                What::Added => '+',
                What::Removed => '-',
                What::Changed => '~',
            };
            let indent = "  ".repeat(change.path.len());
            match &change.detail {
                Some(detail) if !detail.is_empty() => {
                    let _ = writeln!(out, "{indent}{sign} {}: {detail}", change.item);
                }
                _ => {
                    let _ = writeln!(out, "{indent}{sign} {}", change.item);
                }
            }
        }
        out
    }
}

//! What an executor is handed for a revision (spec §5b): the run preamble, and the Pi package.

use serde::{Deserialize, Serialize};

use super::canonical::content_hash;
use super::ir::*;

/// The prompt text and warnings for one revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preamble {
    /// The text to put before the agent's prompt (empty when nothing is advisory).
    pub preamble: String,
    /// One per degraded realization.
    pub warnings: Vec<String>,
}

/// The preamble of `revision`, whose capabilities and workflow are looked up in `bundle`.
pub fn preamble(bundle: &Bundle, revision: &Revision) -> Preamble {
    let mut warnings = Vec::new();
    let mut lines = Vec::new();
    for realization in &revision.realization {
        match realization.action {
            Action::Failed => continue,
            Action::Degraded => warnings.push(format!(
                "Realization '{}' for agent '{}' is degraded: {}.",
                realization.capability_id,
                realization.agent_id,
                realization.reason.as_deref().unwrap_or_default()
            )),
            Action::Satisfied => {}
        }
        if realization.realized == Strength::Advisory {
            lines.push(format!(
                "- [{}/{}] {}",
                realization.agent_id,
                realization.capability_id,
                guidance(
                    bundle,
                    realization.capability_kind,
                    &realization.capability_id
                )
            ));
        }
    }
    if lines.is_empty() {
        return Preamble {
            preamble: String::new(),
            warnings,
        };
    }
    let mut text = vec![format!(
        "You are running under harness revision {}.",
        revision.revision_id
    )];
    let workflow = bundle.workflow(&revision.workflow.id);
    if let Some(workflow) = workflow.filter(|w| w.mode == Mode::Declarative) {
        text.push(workflow_line(workflow));
    }
    text.push("Follow these harness policies:".to_owned());
    text.extend(lines);
    Preamble {
        preamble: text.join("\n"),
        warnings,
    }
}

fn workflow_line(workflow: &Workflow) -> String {
    let edges = workflow
        .edges
        .iter()
        .map(|e| format!("{} -> {}", e.from, e.to));
    let events = workflow
        .events
        .iter()
        .map(|e| format!("on {}.{} -> {}", e.agent, e.outcome, e.to));
    let stops = workflow
        .stops
        .iter()
        .map(|s| format!("stop when {}.{}", s.agent, s.outcome));
    let steps: Vec<String> = edges.chain(events).chain(stops).collect();
    format!("Workflow '{}': {}.", workflow.id, steps.join("; "))
}

/// The line of guidance for one advisory capability.
pub fn guidance(bundle: &Bundle, kind: CapabilityKind, id: &str) -> String {
    match kind {
        CapabilityKind::Skill => {
            let skill = bundle.skill(id);
            match skill {
                Some(Skill {
                    description: Some(text),
                    ..
                }) => text.clone(),
                Some(Skill {
                    source: Some(source),
                    ..
                }) => format!("Apply the '{id}' skill from '{source}'."),
                _ => format!("Apply the '{id}' skill."),
            }
        }
        CapabilityKind::Tool => {
            let tool = bundle.tool(id);
            match tool.and_then(|t| t.description.as_ref()) {
                Some(text) => text.clone(),
                None => format!("Use the '{id}' tool when applicable."),
            }
        }
        CapabilityKind::Mcp => {
            let transport = bundle
                .mcp(id)
                .map_or("its transport", |m| m.transport.as_str());
            format!("Connect to the '{id}' MCP server over {transport}.")
        }
    }
}

/// The runtime id of the Pi coding agent.
pub const PI_HOST: &str = "pi";

/// One file of a Pi package: a relative path and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageFile {
    /// Relative, `/`-separated.
    pub path: String,
    /// The text.
    pub contents: String,
}

/// The Pi package of `revision`: `package.json` and one `skills/<id>/SKILL.md` per skill
/// realized as advisory guidance. Refused when the revision targets another runtime.
pub fn pi_package(bundle: &Bundle, revision: &Revision) -> Result<Vec<PackageFile>, String> {
    if revision.target.runtime != PI_HOST {
        return Err(format!(
            "revision {} targets runtime '{}', not '{PI_HOST}'; resolve the harness with --runtime {PI_HOST}",
            revision.revision_id, revision.target.runtime
        ));
    }
    let mut skills: Vec<&Skill> = Vec::new();
    for realization in &revision.realization {
        let advisory_skill = realization.capability_kind == CapabilityKind::Skill
            && realization.realized == Strength::Advisory
            && realization.action != Action::Failed;
        if !advisory_skill || skills.iter().any(|s| s.id == realization.capability_id) {
            continue;
        }
        if let Some(skill) = bundle.skill(&realization.capability_id) {
            skills.push(skill);
        }
    }
    let manifest = serde_json::json!({
        "name": format!("harness-{}", revision.harness.id),
        "version": "0.0.0",
        "private": true,
        "description": format!(
            "Skills of harness '{}', materialized from revision {}.",
            revision.harness.id, revision.revision_id
        ),
        "keywords": ["pi-package"],
        "pi": {"skills": ["./skills"]},
        "harness": {
            "revisionId": revision.revision_id,
            "harness": revision.harness,
        },
    });
    let mut files = vec![PackageFile {
        path: "package.json".to_owned(),
        contents: format!(
            "{}\n",
            serde_json::to_string_pretty(&manifest).unwrap_or_default()
        ),
    }];
    for skill in skills {
        let description = guidance(bundle, CapabilityKind::Skill, &skill.id);
        let provenance = format!(
            "harness revision {}, skill content {}",
            revision.revision_id,
            content_hash(skill)
        );
        // JSON strings are valid YAML double-quoted scalars.
        let quote = |text: &str| serde_json::Value::from(text).to_string();
        files.push(PackageFile {
            path: format!("skills/{}/SKILL.md", skill.id),
            contents: format!(
                "---\nname: {}\ndescription: {}\nmetadata:\n  provenance: {}\n---\n\n{description}\n",
                quote(&skill.id),
                quote(&description),
                quote(&provenance),
            ),
        });
    }
    Ok(files)
}

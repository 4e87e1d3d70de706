//! Resolution of one harness against one runtime (spec §5): runtime choice, deployability,
//! realization of every requirement on the strength ladder, permission merging, and the
//! content-addressed revision.

use std::collections::{BTreeMap, BTreeSet};

use super::canonical::{content_hash, revision_id};
use super::ir::*;

/// The mechanism every v0.2 executor materializes: guidance in the prompt.
pub const PROMPT_PREAMBLE: &str = "prompt-preamble";

/// Resolves `harness_id` against `runtime` (or the one runtime the bundle makes deployable).
/// A failed resolution yields the report of every error found and no revision.
pub fn resolve(bundle: &Bundle, harness_id: &str, runtime: Option<&str>) -> Resolution {
    let report = |runtime, realizations, errors| {
        ResolutionReport::failed(harness_id, runtime, realizations, errors)
    };
    let Some(harness) = bundle.harnesses.iter().find(|h| h.id == harness_id) else {
        let known = id_list(bundle.harnesses.iter().map(|h| h.id.as_str()));
        return Err(report(
            runtime.map(str::to_owned),
            Vec::new(),
            vec![format!(
                "harness '{harness_id}' is not declared (declared: {known}); pass one of those with --harness"
            )],
        ));
    };
    let runtime_id = choose_runtime(bundle, runtime).map_err(|e| report(None, vec![], vec![e]))?;
    let target = target_runtime(bundle, &runtime_id)
        .map_err(|e| report(Some(runtime_id.clone()), vec![], vec![e]))?;

    let mut errors = Vec::new();
    let workflow = bundle.workflow(&harness.workflow);
    match workflow {
        None => errors.push(format!(
            "harness '{}' uses workflow '{}', which the bundle does not declare; declare it",
            harness.id, harness.workflow
        )),
        Some(workflow) => {
            if let Some(error) = deployability(workflow, &runtime_id, &target.execution) {
                errors.push(error);
            }
        }
    }

    let mut realizations = Vec::new();
    for agent in &harness.agents {
        for requirement in &agent.requirements {
            let realization = realize(bundle, agent, requirement, &runtime_id);
            if realization.action == Action::Failed {
                errors.push(failure_message(&realization, requirement));
            }
            realizations.push(realization);
        }
    }
    realizations.sort_by(|a, b| {
        (a.agent_id.as_bytes(), a.capability_id.as_bytes())
            .cmp(&(b.agent_id.as_bytes(), b.capability_id.as_bytes()))
    });

    let mut capabilities: BTreeMap<&str, ResolvedCapability> = BTreeMap::new();
    let mut grants = Vec::new();
    for requirement in harness.agents.iter().flat_map(|a| &a.requirements) {
        let id = requirement.capability_id.as_str();
        if capabilities.contains_key(id) {
            continue;
        }
        match capability(bundle, requirement) {
            Some((hash, granted)) => {
                grants.extend(granted);
                capabilities.insert(
                    id,
                    ResolvedCapability {
                        id: id.to_owned(),
                        kind: requirement.capability_kind,
                        content_hash: hash,
                    },
                );
            }
            None => errors.push(format!(
                "agent requirement names {} '{id}', which the bundle does not declare; declare it",
                requirement.capability_kind.as_str()
            )),
        }
    }

    let (Some(workflow), true) = (workflow, errors.is_empty()) else {
        return Err(report(Some(runtime_id), realizations, errors));
    };
    let mut revision = Revision {
        ir_version: IrVersion::Value,
        kind: RevisionKind::Value,
        harness: HashedRef {
            id: harness.id.clone(),
            content_hash: content_hash(harness),
        },
        target,
        workflow: RevisionWorkflow {
            id: workflow.id.clone(),
            mode: workflow.mode,
            content_hash: content_hash(workflow),
        },
        resolved: Resolved {
            capabilities: capabilities.into_values().collect(),
        },
        agents: harness
            .agents
            .iter()
            .map(|agent| {
                let mut ids: Vec<String> = agent
                    .requirements
                    .iter()
                    .map(|r| r.capability_id.clone())
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                RevisionAgent {
                    id: agent.id.clone(),
                    capabilities: ids,
                }
            })
            .collect(),
        realization: realizations,
        permissions: merge_permissions(grants),
        settings: harness.settings.clone(),
        revision_id: String::new(),
    };
    revision.revision_id = revision_id_of(&revision);
    Ok(revision)
}

/// The outcome of resolving one harness.
pub type Resolution = Result<Revision, Box<ResolutionReport>>;

/// Every harness of `bundle` resolved against the default runtime and against each declared
/// runtime and target: `(harness, runtime asked for, outcome)`, for checking a whole bundle.
pub fn resolve_all(bundle: &Bundle) -> Vec<(&str, Option<&str>, Resolution)> {
    let mut runtimes: Vec<Option<&str>> = vec![None];
    runtimes.extend(bundle.runtimes.iter().map(|r| Some(r.id.as_str())));
    runtimes.extend(bundle.targets.iter().map(|t| Some(t.runtime.as_str())));
    runtimes.dedup();
    bundle
        .harnesses
        .iter()
        .flat_map(|h| {
            runtimes
                .iter()
                .map(move |&runtime| (h.id.as_str(), runtime, resolve(bundle, &h.id, runtime)))
        })
        .collect()
}

/// The id a revision's content gives it (its `revisionId` field is not part of the hash).
pub fn revision_id_of(revision: &Revision) -> String {
    let mut value = serde_json::to_value(revision).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.shift_remove("revisionId");
    }
    revision_id(&value)
}

fn id_list<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    let ids: Vec<String> = ids.map(|id| format!("'{id}'")).collect();
    if ids.is_empty() {
        "none".to_owned()
    } else {
        ids.join(", ")
    }
}

fn choose_runtime(bundle: &Bundle, explicit: Option<&str>) -> Result<String, String> {
    if let Some(id) = explicit {
        return Ok(id.to_owned());
    }
    match (bundle.targets.as_slice(), bundle.runtimes.as_slice()) {
        ([target], _) => Ok(target.runtime.clone()),
        ([], [runtime]) => Ok(runtime.id.clone()),
        ([], []) => Err(
            "nothing is deployable: the bundle declares no target and no runtime; add `target <runtime>` or a `runtime` declaration".to_owned(),
        ),
        ([], runtimes) => Err(format!(
            "several runtimes are declared ({}); choose one with --runtime",
            id_list(runtimes.iter().map(|r| r.id.as_str()))
        )),
        (targets, _) => Err(format!(
            "several targets are declared ({}); choose one with --runtime",
            id_list(targets.iter().map(|t| t.runtime.as_str()))
        )),
    }
}

fn target_runtime(bundle: &Bundle, id: &str) -> Result<RevisionTarget, String> {
    if let Some(runtime) = bundle.runtimes.iter().find(|r| r.id == id) {
        return Ok(RevisionTarget {
            runtime: runtime.id.clone(),
            adapter: runtime.adapter.clone(),
            execution: runtime.execution.clone(),
        });
    }
    let Some(target) = bundle.targets.iter().find(|t| t.runtime == id) else {
        return Err(format!(
            "runtime '{id}' is neither declared nor targeted (runtimes: {}; targets: {}); add `target {id}` or declare `runtime {id}`",
            id_list(bundle.runtimes.iter().map(|r| r.id.as_str())),
            id_list(bundle.targets.iter().map(|t| t.runtime.as_str())),
        ));
    };
    Ok(RevisionTarget {
        runtime: id.to_owned(),
        adapter: format!(
            "@harness/adapter-{}",
            target.adapter.as_deref().unwrap_or(id)
        ),
        execution: Execution::ToolCalling,
    })
}

fn deployability(workflow: &Workflow, runtime: &str, execution: &Execution) -> Option<String> {
    let program = workflow.program.as_ref()?;
    let wanted = &program.language;
    match execution {
        Execution::ToolCalling => Some(format!(
            "workflow '{}' is a {wanted} program but runtime '{runtime}' executes by tool calling; declare a runtime with `execution programmatic.{wanted}`, or drive the workflow externally over ACP with a tool-calling runtime",
            workflow.id
        )),
        Execution::Programmatic { language, .. } if language != wanted => Some(format!(
            "workflow '{}' is a {wanted} program but runtime '{runtime}' executes {language} programs; author the workflow in {language}, or restrict the targets to runtimes that execute {wanted}",
            workflow.id
        )),
        Execution::Programmatic { .. } => None,
    }
}

fn realize(
    bundle: &Bundle,
    agent: &Agent,
    requirement: &Requirement,
    runtime: &str,
) -> Realization {
    let binding = bundle
        .bindings
        .iter()
        .find(|b| b.capability_id == requirement.capability_id && b.runtime == runtime);
    let (declared_strength, declared_mechanism, notes) = match binding {
        Some(b) => (b.strength, b.mechanism.clone(), b.notes.as_deref()),
        None => (Strength::Advisory, PROMPT_PREAMBLE.to_owned(), None),
    };
    // v0.2 executors only inject prompt guidance.
    let (realized, materialized_mechanism) = if declared_strength == Strength::Unsupported {
        (Strength::Unsupported, None)
    } else {
        (Strength::Advisory, Some(PROMPT_PREAMBLE.to_owned()))
    };
    let minimum = requirement.minimum;
    let preferred = requirement.preferred.unwrap_or(minimum);
    let action = if realized < minimum {
        Action::Failed
    } else if realized < preferred {
        match requirement.on_degrade {
            OnDegrade::Fail => Action::Failed,
            OnDegrade::Report => Action::Degraded,
        }
    } else {
        Action::Satisfied
    };
    let reason = (action != Action::Satisfied).then(|| {
        let mut text = format!(
            "runtime '{runtime}' declares '{}' via '{declared_mechanism}', but the v0.2 executor materializes prompt guidance at 'advisory' strength",
            declared_strength.as_str()
        );
        if let Some(notes) = notes {
            text.push_str(": ");
            text.push_str(notes);
        }
        text
    });
    Realization {
        agent_id: agent.id.clone(),
        capability_id: requirement.capability_id.clone(),
        capability_kind: requirement.capability_kind,
        requested_minimum: minimum,
        requested_preferred: requirement.preferred,
        declared_strength,
        declared_mechanism: Some(declared_mechanism),
        realized,
        materialized_mechanism,
        action,
        reason,
    }
}

fn failure_message(realization: &Realization, requirement: &Requirement) -> String {
    let Realization {
        agent_id,
        capability_id,
        realized,
        ..
    } = realization;
    let reason = realization.reason.as_deref().unwrap_or_default();
    if *realized < requirement.minimum {
        format!(
            "agent '{agent_id}' needs '{capability_id}' at least '{}', but it is realized at '{}' ({reason}); lower `minimum`, or bind the capability on a runtime that realizes it",
            requirement.minimum.as_str(),
            realized.as_str()
        )
    } else {
        format!(
            "agent '{agent_id}' prefers '{capability_id}' at '{}' with `on-degrade fail`, but it is realized at '{}' ({reason}); use `on-degrade report` or lower `preferred`",
            requirement
                .preferred
                .unwrap_or(requirement.minimum)
                .as_str(),
            realized.as_str()
        )
    }
}

/// The content hash of the capability a requirement names and the grants it brings.
fn capability(bundle: &Bundle, requirement: &Requirement) -> Option<(String, Vec<Permission>)> {
    let id = requirement.capability_id.as_str();
    match requirement.capability_kind {
        CapabilityKind::Skill => bundle
            .skill(id)
            .map(|s| (content_hash(s), s.permissions.clone())),
        CapabilityKind::Tool => bundle
            .tool(id)
            .map(|t| (content_hash(t), t.permissions.clone())),
        CapabilityKind::Mcp => bundle.mcp(id).map(|m| {
            let domain = match m.transport {
                Transport::Stdio => Domain::Process,
                Transport::Http | Transport::Sse => Domain::Network,
            };
            let grant = Permission {
                domain,
                access: Access::Allow,
            };
            (content_hash(m), vec![grant])
        }),
    }
}

/// Groups grants by domain (a `deny` is then the domain's only grant), deduplicates them and
/// sorts them by domain, then access.
pub fn merge_permissions(grants: impl IntoIterator<Item = Permission>) -> Vec<Permission> {
    let mut by_domain: BTreeMap<Domain, BTreeSet<Access>> = BTreeMap::new();
    for grant in grants {
        by_domain
            .entry(grant.domain)
            .or_default()
            .insert(grant.access);
    }
    by_domain
        .into_iter()
        .flat_map(|(domain, accesses)| {
            let accesses: Vec<Access> = if accesses.contains(&Access::Deny) {
                vec![Access::Deny]
            } else {
                accesses.into_iter().collect()
            };
            accesses
                .into_iter()
                .map(move |access| Permission { domain, access })
        })
        .collect()
}

//! Resolution (spec §5), the revision, permissions, the preamble and the Pi package (§5b):
//! one small program per rule, compiled by the generator and resolved by the runtime.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_gen::harness::compile_sources;
use harness_gen::harness::diag::Sources;
use harness_gen_runtime::harness::ir::*;
use harness_gen_runtime::harness::{self, Bundle, ResolutionReport, Revision};

fn compile(text: &str) -> Bundle {
    let sources = Sources {
        files: vec![("t.harness".to_owned(), text.to_owned())],
    };
    compile_sources(&sources).unwrap_or_else(|d| panic!("{}", sources.render(&d)))
}

/// A harness `h` with one agent `a` holding `requirements`, over a one-stop workflow.
fn program(requirements: &str, rest: &str) -> String {
    format!(
        "workflow w {{\n  stop when a.done\n}}\nharness h {{\n  workflow w\n  agent a {{\n{requirements}\n  }}\n}}\n{rest}"
    )
}

fn ok(text: &str, runtime: Option<&str>) -> Revision {
    harness::resolve(&compile(text), "h", runtime).unwrap_or_else(|r| panic!("{r:#?}"))
}

fn failed(text: &str, runtime: Option<&str>) -> ResolutionReport {
    *harness::resolve(&compile(text), "h", runtime).expect_err("resolved")
}

const SKILL: &str = "skill s { description \"Be careful.\" }\n";

#[test]
fn an_unknown_harness_fails() {
    let report =
        *harness::resolve(&compile(&program("", "target pi\n")), "nope", None).unwrap_err();
    assert_eq!(report.harness_id, "nope");
    assert!(report.errors[0].contains("harness 'nope' is not declared"));
}

#[test]
fn an_explicit_runtime_wins_over_the_single_target() {
    let text = program("", "target pi\nruntime other { adapter \"x\" }\n");
    assert_eq!(ok(&text, Some("other")).target.runtime, "other");
}

#[test]
fn a_single_target_selects_itself() {
    let revision = ok(
        &program("", "target qoder\nruntime r { adapter \"x\" }\n"),
        None,
    );
    assert_eq!(revision.target.runtime, "qoder");
}

#[test]
fn without_targets_a_single_declared_runtime_is_chosen() {
    let revision = ok(&program("", "runtime r { adapter \"my-adapter\" }\n"), None);
    assert_eq!(revision.target.adapter, "my-adapter");
}

#[test]
fn nothing_deployable_fails() {
    let report = failed(&program("", ""), None);
    assert!(
        report.errors[0].contains("nothing is deployable"),
        "{report:?}"
    );
    assert_eq!(report.runtime, None);
}

#[test]
fn several_targets_ask_for_a_runtime() {
    let report = failed(&program("", "target pi\ntarget qoder\n"), None);
    assert!(report.errors[0].contains("--runtime"), "{report:?}");
}

#[test]
fn several_runtimes_without_targets_ask_for_a_runtime() {
    let report = failed(
        &program(
            "",
            "runtime a { adapter \"a\" }\nruntime b { adapter \"b\" }\n",
        ),
        None,
    );
    assert!(report.errors[0].contains("several runtimes"), "{report:?}");
}

#[test]
fn a_declared_runtime_wins_over_a_target_of_the_same_id() {
    let text = program(
        "",
        "runtime pi {\n  adapter \"@acme/pi\"\n  execution programmatic.ts { mode fast }\n}\ntarget pi\n",
    );
    let target = ok(&text, None).target;
    assert_eq!(target.adapter, "@acme/pi");
    assert_eq!(
        target.execution,
        Execution::Programmatic {
            language: "ts".into(),
            options: vec![KeyValue {
                key: "mode".into(),
                value: "fast".into()
            }]
        }
    );
}

#[test]
fn a_runtime_neither_declared_nor_targeted_fails() {
    let report = failed(&program("", "target pi\n"), Some("qoder"));
    assert!(report.errors[0].contains("neither declared nor targeted"));
    assert_eq!(report.runtime.as_deref(), Some("qoder"));
}

#[test]
fn a_targeted_runtime_is_synthesized_with_the_conventional_adapter() {
    let with_adapter = ok(&program("", "target pi uses adapter.pi-next\n"), None).target;
    assert_eq!(with_adapter.adapter, "@harness/adapter-pi-next");
    assert_eq!(with_adapter.execution, Execution::ToolCalling);
    let without = ok(&program("", "target qoder\n"), None).target;
    assert_eq!(without.adapter, "@harness/adapter-qoder");
}

fn programmatic(runtime: &str, requirement: &str) -> String {
    format!(
        "{SKILL}workflow w {{\n  program python \"flow.py\"\n}}\nharness h {{\n  workflow w\n  agent a {{ {requirement} }}\n}}\n{runtime}"
    )
}

#[test]
fn a_programmatic_workflow_needs_a_programmatic_runtime_and_errors_keep_collecting() {
    let report = failed(
        &programmatic("target pi\n", "use skill s { minimum wired }"),
        None,
    );
    assert_eq!(report.errors.len(), 2, "{report:#?}");
    assert!(report.errors[0].contains("execution programmatic.python"));
    assert!(report.errors[0].contains("ACP"));
    assert_eq!(report.realizations.len(), 1);
}

#[test]
fn a_programmatic_workflow_needs_the_runtime_language() {
    let runtime = "runtime r {\n  adapter \"x\"\n  execution programmatic.typescript\n}\n";
    let report = failed(&programmatic(runtime, ""), None);
    assert!(
        report.errors[0].contains("author the workflow in typescript"),
        "{report:?}"
    );
}

#[test]
fn a_programmatic_workflow_deploys_on_a_runtime_of_its_language() {
    let runtime = "runtime r {\n  adapter \"x\"\n  execution programmatic.python\n}\n";
    let revision = ok(&programmatic(runtime, ""), None);
    assert_eq!(revision.workflow.mode, Mode::Programmatic);
}

#[test]
fn without_a_binding_a_capability_is_advisory_via_the_prompt_preamble() {
    let r = &ok(
        &program("use skill s", &format!("{SKILL}target pi\n")),
        None,
    )
    .realization[0];
    assert_eq!(r.declared_strength, Strength::Advisory);
    assert_eq!(r.declared_mechanism.as_deref(), Some("prompt-preamble"));
    assert_eq!(r.materialized_mechanism.as_deref(), Some("prompt-preamble"));
    assert_eq!(r.action, Action::Satisfied);
    assert_eq!(r.reason, None);
}

#[test]
fn a_declared_unsupported_binding_stays_unsupported_without_a_mechanism() {
    let rest = format!("{SKILL}target pi\nbinding s for pi {{ strength unsupported }}\n");
    let r = &ok(&program("use skill s { minimum unsupported }", &rest), None).realization[0];
    assert_eq!(r.realized, Strength::Unsupported);
    assert_eq!(r.materialized_mechanism, None);
    assert_eq!(r.action, Action::Satisfied);
    let value = serde_json::to_value(r).unwrap();
    assert!(value["materializedMechanism"].is_null());
}

#[test]
fn realized_below_minimum_fails_even_under_on_degrade_report() {
    let rest = format!("{SKILL}target pi\nbinding s for pi {{ strength enforced }}\n");
    let report = failed(
        &program("use skill s { minimum wired on-degrade report }", &rest),
        None,
    );
    assert_eq!(report.realizations[0].action, Action::Failed);
    assert_eq!(report.errors.len(), 1);
}

#[test]
fn between_minimum_and_preferred_is_degraded_under_report() {
    let rest = format!("{SKILL}target pi\n");
    let r = &ok(&program("use skill s { preferred wired }", &rest), None).realization[0];
    assert_eq!(r.action, Action::Degraded);
    assert_eq!(
        r.reason.as_deref(),
        Some(
            "runtime 'pi' declares 'advisory' via 'prompt-preamble', but the v0.2 executor materializes prompt guidance at 'advisory' strength"
        )
    );
}

#[test]
fn between_minimum_and_preferred_fails_under_on_degrade_fail() {
    let rest = format!("{SKILL}target pi\n");
    let report = failed(
        &program("use skill s { preferred wired on-degrade fail }", &rest),
        None,
    );
    assert_eq!(report.realizations[0].action, Action::Failed);
}

#[test]
fn preferred_defaults_to_minimum() {
    let rest = format!("{SKILL}target pi\nbinding s for pi {{ strength enforced }}\n");
    let r = &ok(&program("use skill s { minimum advisory }", &rest), None).realization[0];
    assert_eq!(r.action, Action::Satisfied);
    assert_eq!(r.requested_preferred, None);
}

#[test]
fn a_reason_ends_with_the_binding_notes() {
    let rest = format!(
        "{SKILL}target pi\nbinding s for pi {{\n  mechanism pi.hook\n  strength wired\n  notes \"No hook yet.\"\n}}\n"
    );
    let r = &ok(&program("use skill s { preferred enforced }", &rest), None).realization[0];
    assert_eq!(
        r.reason.as_deref(),
        Some(
            "runtime 'pi' declares 'wired' via 'pi.hook', but the v0.2 executor materializes prompt guidance at 'advisory' strength: No hook yet."
        )
    );
}

#[test]
fn realizations_are_sorted_by_agent_then_capability() {
    let text = "workflow w {\n  b -> a\n}\nharness h {\n  workflow w\n  agent b {\n    require tool z\n    require tool Y\n  }\n  agent a {\n    require tool z\n  }\n}\ntarget pi\n";
    let revision = ok(text, None);
    let order: Vec<(&str, &str)> = revision
        .realization
        .iter()
        .map(|r| (r.agent_id.as_str(), r.capability_id.as_str()))
        .collect();
    assert_eq!(order, [("a", "z"), ("b", "Y"), ("b", "z")]);
    // Agents keep declaration order; their capabilities are sorted.
    assert_eq!(revision.agents[0].id, "b");
    assert_eq!(revision.agents[0].capabilities, ["Y", "z"]);
    // The capability union is sorted by id.
    let ids: Vec<&str> = revision
        .resolved
        .capabilities
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(ids, ["Y", "z"]);
}

#[test]
fn a_failed_resolution_is_a_report_and_no_revision() {
    let rest = format!("{SKILL}target pi\n");
    let report = failed(&program("use skill s { minimum enforced }", &rest), None);
    let value = serde_json::to_value(&report).unwrap();
    assert_eq!(value["kind"], "resolution-report");
    assert_eq!(value["status"], "failed");
    assert_eq!(value["runtime"], "pi");
    assert_eq!(value["harnessId"], "h");
}

#[test]
fn the_revision_id_is_the_hash_of_everything_else() {
    let text = program("use skill s", &format!("{SKILL}target pi\n"));
    let revision = ok(&text, None);
    assert!(revision.revision_id.starts_with("hr_") && revision.revision_id.len() == 35);
    assert_eq!(revision.revision_id, harness::revision_id_of(&revision));
    let mut changed = revision.clone();
    changed.settings.push(Setting {
        key: "k".into(),
        value: SettingValue::Boolean { value: true },
    });
    assert_ne!(harness::revision_id_of(&changed), revision.revision_id);
    // A changed skill description changes the capability hash and so the revision.
    let other = ok(&text.replace("Be careful.", "Be very careful."), None);
    assert_ne!(other.revision_id, revision.revision_id);
}

#[test]
fn settings_are_kept_verbatim_with_typed_values() {
    let text = format!(
        "{OK}harness h {{\n  workflow w\n  agent a {{ }}\n  configure {{\n    n = 0\n    s = \"a\\tb\"\n    b = false\n    t = 10m\n    q = 250ms\n  }}\n}}\ntarget pi\n",
        OK = "workflow w {\n  stop when a.done\n}\n"
    );
    let settings = serde_json::to_value(ok(&text, None).settings).unwrap();
    assert_eq!(
        settings,
        serde_json::json!([
            {"key": "n", "value": {"type": "int", "value": 0}},
            {"key": "s", "value": {"type": "string", "value": "a\tb"}},
            {"key": "b", "value": {"type": "boolean", "value": false}},
            {"key": "t", "value": {"type": "duration", "value": "10m", "ms": 600000}},
            {"key": "q", "value": {"type": "duration", "value": "250ms", "ms": 250}},
        ])
    );
}

#[test]
fn mcp_transports_grant_process_or_network_and_deny_dominates_its_domain() {
    let rest = "skill s {\n  source \"x\"\n  permissions { network deny workspace write workspace read }\n}\n\
        tool t.x { permissions { workspace read model allow } }\n\
        mcp local { transport stdio command \"srv\" }\n\
        mcp remote { transport http url env.REMOTE_URL }\n\
        target pi\n";
    let text = program(
        "    use skill s\n    require tool t.x\n    connect mcp local\n    connect mcp remote",
        rest,
    );
    let permissions: Vec<(Domain, Access)> = ok(&text, None)
        .permissions
        .iter()
        .map(|p| (p.domain, p.access))
        .collect();
    assert_eq!(
        permissions,
        [
            (Domain::Model, Access::Allow),
            (Domain::Network, Access::Deny),
            (Domain::Process, Access::Allow),
            (Domain::Workspace, Access::Read),
            (Domain::Workspace, Access::Write),
        ]
    );
}

#[test]
fn the_preamble_has_a_line_per_advisory_realization_with_kind_specific_guidance() {
    let rest = "skill s { source \"skills/s.md\" }\ntool t { description \"Reads files.\" }\nmcp m { transport sse url \"https://x\" }\ntarget pi\n";
    let text = program(
        "    use skill s\n    require tool t\n    require tool u\n    connect mcp m",
        rest,
    );
    let bundle = compile(&text);
    let revision = harness::resolve(&bundle, "h", None).unwrap();
    let preamble = harness::preamble(&bundle, &revision);
    assert_eq!(
        preamble.preamble,
        format!(
            "You are running under harness revision {}.\nWorkflow 'w': stop when a.done.\nFollow these harness policies:\n\
             - [a/m] Connect to the 'm' MCP server over sse.\n\
             - [a/s] Apply the 's' skill from 'skills/s.md'.\n\
             - [a/t] Reads files.\n\
             - [a/u] Use the 'u' tool when applicable.",
            revision.revision_id
        )
    );
    assert!(preamble.warnings.is_empty());
}

#[test]
fn the_preamble_is_empty_without_advisory_lines_and_programmatic_workflows_have_no_workflow_line() {
    let unsupported = program(
        "use skill s { minimum unsupported }",
        &format!("{SKILL}target pi\nbinding s for pi {{ strength unsupported }}\n"),
    );
    let bundle = compile(&unsupported);
    let revision = harness::resolve(&bundle, "h", None).unwrap();
    assert_eq!(harness::preamble(&bundle, &revision).preamble, "");

    let runtime = "runtime r {\n  adapter \"x\"\n  execution programmatic.python\n}\n";
    let bundle = compile(&programmatic(runtime, "use skill s"));
    let revision = harness::resolve(&bundle, "h", None).unwrap();
    let text = harness::preamble(&bundle, &revision).preamble;
    assert!(!text.contains("Workflow"), "{text}");
    assert!(text.ends_with("- [a/s] Be careful."));
}

#[test]
fn the_pi_package_has_a_manifest_and_a_skill_file_per_advisory_skill() {
    let text = program(
        "    use skill s\n    require tool t",
        &format!("{SKILL}target pi\n"),
    );
    let bundle = compile(&text);
    let revision = harness::resolve(&bundle, "h", None).unwrap();
    let files = harness::pi_package(&bundle, &revision).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["package.json", "skills/s/SKILL.md"]);
    let skill = &files[1].contents;
    assert!(
        skill.starts_with("---\nname: \"s\"\ndescription: \"Be careful.\"\n"),
        "{skill}"
    );
    assert!(skill.contains(&revision.revision_id));
    let hash = &revision.resolved.capabilities[0].content_hash;
    assert!(skill.contains(hash.as_str()), "{skill}");
    let manifest: serde_json::Value = serde_json::from_str(&files[0].contents).unwrap();
    assert_eq!(
        manifest["harness"]["revisionId"],
        revision.revision_id.as_str()
    );
}

#[test]
fn the_pi_package_is_refused_for_another_runtime() {
    let bundle = compile(&program("use skill s", &format!("{SKILL}target qoder\n")));
    let revision = harness::resolve(&bundle, "h", None).unwrap();
    let error = harness::pi_package(&bundle, &revision).unwrap_err();
    assert!(error.contains("--runtime pi"), "{error}");
}

#[test]
fn resolve_all_tries_every_harness_on_the_default_and_each_declared_runtime_and_target() {
    let bundle = compile(&program("", "runtime r { adapter \"x\" }\ntarget pi\n"));
    let asked: Vec<(&str, Option<&str>, bool)> = harness::resolve_all(&bundle)
        .iter()
        .map(|(h, runtime, outcome)| (*h, *runtime, outcome.is_ok()))
        .collect();
    assert_eq!(
        asked,
        [
            ("h", None, true),
            ("h", Some("r"), true),
            ("h", Some("pi"), true)
        ]
    );
}

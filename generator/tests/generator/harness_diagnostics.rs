//! Every rejection of the `.harness` spec §6: one small program each, asserting the stable
//! code, the line, and that it is reported exactly once (and nothing else is).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_gen::harness::compile_sources;
use harness_gen::harness::diag::{Code, Diagnostic, Sources};

fn sources(files: &[&str]) -> Sources {
    Sources {
        files: files
            .iter()
            .enumerate()
            .map(|(i, text)| (format!("f{i}.harness"), (*text).to_owned()))
            .collect(),
    }
}

fn diagnostics(files: &[&str]) -> Vec<Diagnostic> {
    match compile_sources(&sources(files)) {
        Ok(bundle) => panic!("accepted: {bundle:?}"),
        Err(diags) => diags,
    }
}

/// Exactly one diagnostic, with `code`, at `line` of file `file`.
fn rejects_in(files: &[&str], code: Code, file: usize, line: u32) -> Diagnostic {
    let diags = diagnostics(files);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = diags.into_iter().next().unwrap();
    assert_eq!(
        (d.code, d.file.as_str(), d.line),
        (code, format!("f{file}.harness").as_str(), line),
        "{d:#?}"
    );
    assert!(d.column >= 1);
    d
}

fn rejects(text: &str, code: Code, line: u32) -> Diagnostic {
    rejects_in(&[text], code, 0, line)
}

const OK_TAIL: &str = "workflow w {\n  a -> a\n}\n";

#[test]
fn a_token_out_of_place_is_a_parse_error_at_that_token() {
    let d = rejects("skill s {\n  description\n}\n", Code::Syntax, 3);
    assert!(
        d.message
            .contains("expected the skill's description as a string"),
        "{}",
        d.message
    );
}

#[test]
fn plugin_is_a_retired_word() {
    rejects("plugin p {}\n", Code::Retired, 1);
}

#[test]
fn composition_is_a_retired_word() {
    rejects(
        "skill s { description \"d\" }\ncomposition c {}\n",
        Code::Retired,
        2,
    );
}

#[test]
fn members_out_of_order_are_refused_with_the_order() {
    let d = rejects(
        "skill s {\n  description \"d\"\n  source \"x\"\n}\n",
        Code::Syntax,
        3,
    );
    assert!(
        d.message
            .contains("in the order `source`, `description`, `permissions`"),
        "{}",
        d.message
    );
}

#[test]
fn a_keyword_cannot_be_a_plain_name() {
    let d = rejects("skill report { description \"d\" }\n", Code::Syntax, 1);
    assert!(d.message.contains("keywords are reserved"), "{}", d.message);
}

#[test]
fn an_unclosed_string_is_a_lexical_error() {
    rejects(
        "skill s {\n  description \"never closed\n}\n",
        Code::Lexical,
        2,
    );
}

#[test]
fn an_unknown_character_is_a_lexical_error() {
    rejects("skill s { description \"d\" } ;\n", Code::Lexical, 1);
}

#[test]
fn an_integer_above_two_to_the_53_is_refused() {
    let program = format!(
        "{OK_TAIL}harness h {{\n  workflow w\n  agent a {{ }}\n  configure {{\n    n = 9007199254740993\n  }}\n}}\n"
    );
    rejects(&program, Code::IntegerTooLarge, 8);
}

#[test]
fn a_duration_above_two_to_the_53_milliseconds_is_refused() {
    let program = format!(
        "{OK_TAIL}harness h {{\n  workflow w\n  agent a {{ }}\n  configure {{ t = 2501999792984h }}\n}}\n"
    );
    rejects(&program, Code::IntegerTooLarge, 7);
}

#[test]
fn a_harness_naming_an_undeclared_workflow_is_refused() {
    rejects(
        "harness h {\n  workflow nowhere\n}\n",
        Code::UnresolvedWorkflow,
        2,
    );
}

#[test]
fn capability_ids_are_unique_across_skills_tools_and_mcps() {
    rejects(
        "skill x { description \"d\" }\nmcp x { transport stdio command \"run\" }\n",
        Code::DuplicateCapability,
        2,
    );
}

#[test]
fn duplicate_capabilities_are_found_across_files() {
    rejects_in(
        &["tool t.x { }\n", "\n\ntool t.x { }\n"],
        Code::DuplicateCapability,
        1,
        3,
    );
}

#[test]
fn workflow_ids_are_unique() {
    rejects(&format!("{OK_TAIL}{OK_TAIL}"), Code::DuplicateWorkflow, 4);
}

#[test]
fn runtime_ids_are_unique() {
    rejects(
        "runtime r { adapter \"a\" }\nruntime r { adapter \"b\" }\n",
        Code::DuplicateRuntime,
        2,
    );
}

#[test]
fn harness_ids_are_unique() {
    let h = "harness h {\n  workflow w\n  agent a { }\n}\n";
    rejects(&format!("{OK_TAIL}{h}{h}"), Code::DuplicateHarness, 8);
}

#[test]
fn a_runtime_is_targeted_once() {
    rejects(
        "target pi\ntarget pi uses adapter.pi\n",
        Code::DuplicateTarget,
        2,
    );
}

#[test]
fn a_capability_is_bound_once_per_runtime() {
    rejects(
        "skill s { description \"d\" }\nbinding s for pi { }\nbinding s for [qoder, pi] { }\n",
        Code::DuplicateBinding,
        3,
    );
}

#[test]
fn duplicate_bindings_are_found_across_files() {
    rejects_in(
        &[
            "skill s { description \"d\" }\nbinding s for pi { }\n",
            "binding s for pi { }\n",
        ],
        Code::DuplicateBinding,
        1,
        1,
    );
}

#[test]
fn a_binding_list_cannot_repeat_a_runtime() {
    let d = rejects(
        "skill s { description \"d\" }\nbinding s for [pi, pi] { }\n",
        Code::DuplicateBinding,
        2,
    );
    assert_eq!(d.column, 20);
}

#[test]
fn agents_of_a_harness_are_unique() {
    rejects(
        &format!("{OK_TAIL}harness h {{\n  workflow w\n  agent a {{ }}\n  agent a {{ }}\n}}\n"),
        Code::DuplicateAgent,
        7,
    );
}

#[test]
fn an_agent_requires_a_capability_once() {
    rejects(
        &format!(
            "{OK_TAIL}harness h {{\n  workflow w\n  agent a {{\n    require tool t\n    require tool t\n  }}\n}}\n"
        ),
        Code::DuplicateRequirement,
        8,
    );
}

#[test]
fn a_tool_lists_an_input_once() {
    rejects(
        "tool t {\n  input { path path }\n}\n",
        Code::DuplicateToolField,
        2,
    );
}

#[test]
fn a_tool_lists_an_output_once() {
    rejects(
        "tool t {\n  input { a }\n  output { b\n b }\n}\n",
        Code::DuplicateToolField,
        4,
    );
}

#[test]
fn an_execution_option_is_set_once() {
    rejects(
        "runtime r {\n  adapter \"a\"\n  execution programmatic.ts {\n    mode fast\n    mode slow\n  }\n}\n",
        Code::DuplicateOption,
        5,
    );
}

#[test]
fn a_configuration_key_is_set_once() {
    rejects(
        &format!(
            "{OK_TAIL}harness h {{\n  workflow w\n  agent a {{ }}\n  configure {{\n    x.y = 1\n    x.y = 2\n  }}\n}}\n"
        ),
        Code::DuplicateSetting,
        9,
    );
}

fn with_requirement(declarations: &str, requirement: &str) -> String {
    format!(
        "{declarations}{OK_TAIL}harness h {{\n  workflow w\n  agent a {{\n    {requirement}\n  }}\n}}\n"
    )
}

#[test]
fn use_skill_on_a_tool_is_a_verb_kind_mismatch() {
    let d = rejects(
        &with_requirement("tool t { }\n", "use skill t"),
        Code::VerbKindMismatch,
        8,
    );
    assert!(
        d.message.contains("write `require tool t`"),
        "{}",
        d.message
    );
}

#[test]
fn require_tool_on_an_mcp_is_a_verb_kind_mismatch() {
    rejects(
        &with_requirement(
            "mcp m { transport stdio command \"m\" }\n",
            "require tool m",
        ),
        Code::VerbKindMismatch,
        8,
    );
}

#[test]
fn connect_mcp_on_a_skill_is_a_verb_kind_mismatch() {
    rejects(
        &with_requirement("skill s { source \"s\" }\n", "connect mcp s"),
        Code::VerbKindMismatch,
        8,
    );
}

#[test]
fn an_undeclared_skill_is_refused() {
    rejects(
        &with_requirement("", "use skill ghost"),
        Code::UndeclaredCapability,
        7,
    );
}

#[test]
fn an_undeclared_mcp_is_refused() {
    rejects(
        &with_requirement("", "connect mcp ghost"),
        Code::UndeclaredCapability,
        7,
    );
}

#[test]
fn an_undeclared_tool_is_implicit_not_an_error() {
    let program = with_requirement("", "require tool ghost.tool");
    let bundle = compile_sources(&sources(&[&program])).unwrap();
    assert!(bundle.tools[0].implicit);
}

#[test]
fn a_binding_of_an_unknown_capability_is_refused() {
    rejects(
        "binding ghost for pi { }\n",
        Code::UnknownBindingCapability,
        1,
    );
}

#[test]
fn a_binding_of_an_implicit_tool_is_accepted() {
    let program = format!(
        "{}binding fs.read for pi {{ strength wired }}\n",
        with_requirement("", "require tool fs.read")
    );
    assert!(compile_sources(&sources(&[&program])).is_ok());
}

#[test]
fn a_skill_needs_a_source_or_a_description() {
    rejects(
        "skill s {\n  permissions { workspace read }\n}\n",
        Code::EmptySkill,
        1,
    );
}

#[test]
fn a_stdio_mcp_needs_a_command() {
    rejects("mcp m {\n  transport stdio\n}\n", Code::IncompleteMcp, 1);
}

#[test]
fn an_http_mcp_needs_a_url() {
    rejects(
        "mcp m { transport http command \"x\" }\n",
        Code::IncompleteMcp,
        1,
    );
}

#[test]
fn an_sse_mcp_needs_a_url() {
    rejects("mcp m { transport sse }\n", Code::IncompleteMcp, 1);
}

#[test]
fn a_workflow_cannot_mix_a_program_with_graph_statements() {
    rejects(
        "workflow w {\n  program python \"main.py\"\n  a -> b\n}\n",
        Code::MixedWorkflow,
        1,
    );
}

#[test]
fn an_empty_workflow_is_refused() {
    rejects("\nworkflow w { }\n", Code::EmptyWorkflow, 2);
}

#[test]
fn a_workflow_naming_an_agent_the_harness_lacks_is_refused_once_per_agent() {
    let d = rejects(
        "workflow w {\n  a -> b\n  on b.done -> a\n}\nharness h {\n  workflow w\n  agent a { }\n}\n",
        Code::UndeclaredAgent,
        6,
    );
    assert!(d.message.contains("agent 'b'"), "{}", d.message);
}

#[test]
fn a_target_adapter_must_agree_with_the_declared_runtime() {
    rejects(
        "runtime pi { adapter \"@harness/adapter-pi\" }\ntarget pi uses adapter.qoder\n",
        Code::AdapterMismatch,
        2,
    );
    let agreeing = "runtime pi { adapter \"@harness/adapter-pi\" }\ntarget pi uses adapter.pi\n";
    assert!(compile_sources(&sources(&[agreeing])).is_ok());
}

#[test]
fn a_preferred_strength_below_the_minimum_is_refused() {
    rejects(
        &with_requirement(
            "skill s { source \"s\" }\n",
            "use skill s { preferred advisory minimum wired }",
        ),
        Code::PreferredBelowMinimum,
        8,
    );
}

#[test]
fn a_preferred_strength_below_the_default_minimum_is_refused() {
    rejects(
        &with_requirement(
            "skill s { source \"s\" }\n",
            "use skill s { preferred unsupported }",
        ),
        Code::PreferredBelowMinimum,
        8,
    );
}

#[test]
fn a_declaration_that_failed_to_parse_causes_no_cascade() {
    // The skill fails to parse; the requirement naming it is not reported again.
    rejects(
        &with_requirement("skill s { description }\n", "use skill s"),
        Code::Syntax,
        1,
    );
}

#[test]
fn independent_problems_are_all_reported_in_one_run() {
    let diags = diagnostics(&[
        "skill a { description }\nskill b { }\nworkflow w { }\nmcp m { transport http }\n",
    ]);
    let codes: Vec<(Code, u32)> = diags.iter().map(|d| (d.code, d.line)).collect();
    assert_eq!(
        codes,
        [
            (Code::Syntax, 1),
            (Code::EmptySkill, 2),
            (Code::EmptyWorkflow, 3),
            (Code::IncompleteMcp, 4)
        ]
    );
}

#[test]
fn the_human_format_renders_the_line_with_a_caret() {
    let sources = sources(&["skill s {\n  description 42\n}\n"]);
    let diags = compile_sources(&sources).unwrap_err();
    let text = sources.render(&diags);
    assert!(
        text.contains("  --> f0.harness:2:15\n  |\n2 |   description 42\n  |               ^\n"),
        "{text}"
    );
}

#[test]
fn the_json_format_lists_code_severity_message_file_line_column() {
    let diags = diagnostics(&["skill s { }\n"]);
    let value: serde_json::Value = serde_json::from_str(&Sources::render_json(&diags)).unwrap();
    let item = &value["diagnostics"][0];
    let mut keys: Vec<&str> = item
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["code", "column", "file", "line", "message", "severity"]
    );
    assert_eq!(item["code"], "HL0404");
    assert_eq!(item["severity"], "error");
}

#[test]
fn a_missing_end_is_reported_just_after_the_last_token() {
    let d = rejects(
        "skill s {\n  description \"x\"\n\n// trailing comment\n",
        Code::Syntax,
        2,
    );
    assert_eq!(d.column, 18);
    assert!(
        d.message.contains("found the end of the file"),
        "{}",
        d.message
    );
}

#[test]
fn rendered_diagnostics_escape_control_characters_and_bidi_overrides_from_the_files() {
    // A file name, a string in the source line and the message all carry hostile characters.
    let sources = Sources {
        files: vec![(
            "evil\u{1b}[2J\u{202e}.harness".to_owned(),
            "skill s { description \"a\u{202e}b\u{7}\" }\n\tskill s { description \"x\u{1b}[31m\" }\n"
                .to_owned(),
        )],
    };
    let diags = compile_sources(&sources).unwrap_err();
    let rendered = sources.render(&diags);
    assert!(rendered.contains("HL"), "{rendered}");
    assert!(rendered.contains("\\u{1b}"), "{rendered}");
    for c in rendered.chars() {
        assert!(
            c == '\n' || c == '\t' || !harness_gen::diag::is_unprintable(c),
            "{:?} reached the terminal: {rendered:?}",
            c
        );
    }
    // The caret still sits under the reported column of the (tab-indented) line.
    let lines: Vec<&str> = rendered.lines().collect();
    let caret = lines
        .iter()
        .position(|l| l.trim_end().ends_with('^'))
        .unwrap();
    assert!(lines[caret - 1].contains("| \tskill s"), "{rendered}");
}

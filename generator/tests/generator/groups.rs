//! Operation groups, the cargo features a generated crate compiles its operations behind: one
//! per tag, per `x-harn.features` group, or per first path segment of untagged operations.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use crate::common::*;
use harness_gen::diag::Code;

fn groups(out: &Out) -> Vec<(&str, Vec<&str>)> {
    out.groups
        .iter()
        .map(|(g, ops)| (g.as_str(), ops.iter().map(String::as_str).collect()))
        .collect()
}

#[test]
fn each_tag_is_a_group_in_kebab_case_and_an_operation_with_two_tags_is_in_both() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: a, tags: [Code Scanning, repos], responses: {}}\n  /b:\n    get: {operationId: b, tags: [repos], responses: {}}\n",
    ));
    assert_eq!(
        groups(&out),
        [("code-scanning", vec!["a"]), ("repos", vec!["a", "b"])]
    );
    assert!(!out.diags.contains("HG0507"), "{}", out.diags);
}

#[test]
fn untagged_operations_are_grouped_by_their_first_path_segment_said_by_one_note() {
    let out = check(&paths(
        "  /v1/customers/{id}:\n    get: {operationId: a, responses: {}}\n  /v1/customers:\n    post: {operationId: b, responses: {}}\n  /2023-10-16/payment_intents:\n    get: {operationId: c, responses: {}}\n  /:\n    get: {operationId: root, responses: {}}\n",
    ));
    assert_eq!(
        groups(&out),
        [
            ("customers", vec!["a", "b"]),
            ("payment-intents", vec!["c"])
        ],
        "`GET /` is in no group: always compiled"
    );
    assert!(out.has_note(Code::Grouped, "/paths"), "{}", out.diags);
    assert_eq!(out.diags.matches("HG0507").count(), 1, "{}", out.diags);
    assert!(!out.has_any_error());
}

#[test]
fn x_harn_features_puts_several_tags_behind_one_feature() {
    let out = check(&format!(
        "{HEADER}x-harn:\n  features:\n    core: [repos, issues]\npaths:\n  /a:\n    get: {{operationId: a, tags: [repos], responses: {{}}}}\n  /b:\n    get: {{operationId: b, tags: [issues], responses: {{}}}}\n  /c:\n    get: {{operationId: c, tags: [actions], responses: {{}}}}\n"
    ));
    assert_eq!(
        groups(&out),
        [("actions", vec!["c"]), ("core", vec!["a", "b"])]
    );
    assert!(!out.has_any_error(), "{}", out.diags);
}

#[test]
fn x_harn_features_refuses_a_reserved_name_and_a_tag_in_two_groups_and_warns_of_an_unused_tag() {
    let out = check(&format!(
        "{HEADER}x-harn:\n  features:\n    registry: [repos]\n    core: [repos, nowhere]\n    more: [repos]\npaths:\n  /a:\n    get: {{operationId: a, tags: [repos], responses: {{}}}}\n"
    ));
    assert!(
        out.has_error(Code::XHarnInvalid, "/x-harn/features/registry"),
        "{}",
        out.diags
    );
    assert!(
        out.has_error(Code::XHarnInvalid, "/x-harn/features/more/0"),
        "{}",
        out.diags
    );
    assert!(
        out.has(Code::XHarnInvalid, "/x-harn/features/core/1")
            && !out.has_error(Code::XHarnInvalid, "/x-harn/features/core/1"),
        "an unused tag is a warning: {}",
        out.diags
    );
    assert!(out.diags.contains("tag `repos` is already in group `core`"));
}

#[test]
fn a_tag_named_like_a_feature_of_the_crate_gets_an_ops_suffix_and_a_note() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: a, tags: [Registry], responses: {}}\n  /b:\n    get: {operationId: b, tags: [all operations], responses: {}}\n",
    ));
    assert_eq!(
        groups(&out),
        [
            ("all-operations-ops", vec!["b"]),
            ("registry-ops", vec!["a"])
        ]
    );
    assert_eq!(out.diags.matches("HG0507").count(), 2, "{}", out.diags);
    assert!(!out.has_any_error());
}

#[test]
fn strict_mode_leaves_notes_as_notes() {
    let mut diags = harness_gen::diag::Diagnostics::default();
    diags.push(harness_gen::diag::Diagnostic {
        code: Code::Grouped,
        severity: harness_gen::diag::Severity::Note,
        file: "t.yaml".into(),
        pointer: "/paths".into(),
        position: None,
        message: "grouped".into(),
    });
    diags.make_strict();
    assert!(!diags.has_errors());
    assert!(diags.to_string().starts_with("note[HG0507]"), "{diags}");
}

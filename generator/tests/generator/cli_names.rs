//! How operations become commands people type: a name that repeats its group drops the
//! repetition wherever it stands, and path parameters are positional in path order.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use crate::common::*;
use harness_gen::diag::Code;
use serde_json::{Value, json};

fn command(out: &Out, i: usize) -> &Value {
    &out.tool(i)["cli"]["command"]
}

#[test]
fn a_name_that_repeats_its_group_drops_the_repetition_in_every_spelling() {
    // GitHub's `group/verb`, snake_case `group_verb`, camelCase `groupVerb`.
    let out = check(&paths(
        "  /a:\n    get: {operationId: repos/get, tags: [repos], responses: {}}\n  /b:\n    get: {operationId: meta_root, tags: [meta], responses: {}}\n  /c:\n    post: {operationId: petsCreate, tags: [pets], responses: {}}\n  /d:\n    get: {operationId: listPets, tags: [pets], responses: {}}\n",
    ));
    assert_eq!(*command(&out, 0), json!(["repos", "get"]));
    assert_eq!(*command(&out, 1), json!(["meta", "root"]));
    assert_eq!(*command(&out, 2), json!(["pets", "create"]));
    // The group's name after a lone verb, plural or singular: `models list`, `pets get`.
    assert_eq!(*command(&out, 3), json!(["pets", "list"]));
    // Tool names do not change.
    assert_eq!(out.tool(0)["name"], "repos_get");
    assert!(!out.diags.contains("HG0501"), "{}", out.diags);
}

#[test]
fn a_shortened_command_that_is_another_operations_keeps_its_whole_name_with_a_note() {
    // `repos get` is the whole command of the second operation, whichever comes first.
    let out = check(&paths(
        "  /a:\n    get: {operationId: repos_get, tags: [repos], responses: {}}\n  /b:\n    get: {operationId: get, tags: [repos], responses: {}}\n",
    ));
    assert_eq!(*command(&out, 0), json!(["repos", "repos-get"]));
    assert_eq!(*command(&out, 1), json!(["repos", "get"]));
    assert!(
        out.has_note(Code::Renamed, "/paths/~1a/get"),
        "{}",
        out.diags
    );
    harness_gen_runtime::Catalog::from_value(out.catalog.clone()).unwrap();
}

#[test]
fn a_name_that_is_only_its_group_stays_whole_and_an_explicit_command_wins() {
    let out = check(&paths(
        "  /a:\n    get: {operationId: repos, tags: [repos], responses: {}}\n  /b:\n    get: {operationId: repos_list, tags: [repos], x-harn: {cli: {command: [repos, repos-list]}}, responses: {}}\n",
    ));
    assert_eq!(*command(&out, 0), json!(["repos", "repos"]));
    assert_eq!(*command(&out, 1), json!(["repos", "repos-list"]));
}

#[test]
fn path_parameters_are_positional_in_path_order_named_after_the_parameter() {
    let out = check(&op(
        "get",
        "/repos/{owner}/{repoName}",
        "operationId: repos/get\ntags: [repos]\nparameters:\n  - {name: repoName, in: path, required: true, schema: {type: string}}\n  - {name: owner, in: path, required: true, schema: {type: string}}\n  - {name: page, in: query, schema: {type: integer}}\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["cli"]["arguments"],
        json!({
            "owner": {"position": 0, "value_name": "OWNER"},
            "repo_name": {"position": 1, "value_name": "REPO_NAME"}
        })
    );
    harness_gen_runtime::Catalog::from_value(out.catalog.clone()).unwrap();
}

#[test]
fn x_harn_arguments_override_the_positions() {
    // A position of its own: the layout is the document's.
    let out = check(&op(
        "get",
        "/repos/{owner}/{repo}",
        "operationId: get\nparameters:\n  - {name: owner, in: path, required: true, schema: {type: string}}\n  - {name: repo, in: path, required: true, schema: {type: string}}\nx-harn: {cli: {arguments: {repo: {position: 0}}}}\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["cli"]["arguments"],
        json!({"repo": {"position": 0}})
    );
    // An option name for one: that one stays an option, the other is positional.
    let out = check(&op(
        "get",
        "/repos/{owner}/{repo}",
        "operationId: get\nparameters:\n  - {name: owner, in: path, required: true, schema: {type: string}}\n  - {name: repo, in: path, required: true, schema: {type: string}}\nx-harn: {cli: {arguments: {owner: {long: org}}}}\nresponses: {}",
    ));
    assert_eq!(
        out.tool(0)["cli"]["arguments"],
        json!({"owner": {"long": "org"}, "repo": {"position": 0, "value_name": "REPO"}})
    );
}

#[test]
fn a_body_field_named_like_a_parameter_is_a_body_option_with_a_note() {
    // A body whose `username` field meets a query parameter's name (a path parameter is
    // positional, so takes no option name).
    let out = check(&paths(
        "  /user:\n    put:\n      operationId: updateUser\n      parameters: [{name: username, in: query, schema: {type: string}}]\n      requestBody: {content: {application/json: {schema: {type: object, properties: {username: {type: string}, email: {type: string}}}}}}\n      responses: {}\n",
    ));
    assert!(
        out.has_note(Code::Renamed, "/paths/~1user/put"),
        "{}",
        out.diags
    );
    assert!(
        out.diags
            .contains("body field `username` is the CLI option `--body-username`"),
        "{}",
        out.diags
    );
    assert!(!out.diags.contains("`email`"), "{}", out.diags);
}

#[test]
fn the_groups_name_is_dropped_from_the_middle_and_after_a_lone_verb_singular_or_plural() {
    let out = check(&paths(
        "  /a:\n    post: {operationId: createChatCompletion, tags: [chat], responses: {}}\n  /b:\n    get: {operationId: retrieveModel, tags: [models], responses: {}}\n  /c:\n    post: {operationId: createFile, tags: [files], responses: {}}\n  /d:\n    post: {operationId: createBookingPayment, tags: [payments], responses: {}}\n  /e:\n    get: {operationId: listPolicies, tags: [policy], responses: {}}\n",
    ));
    assert_eq!(*command(&out, 0), json!(["chat", "create-completion"]));
    assert_eq!(*command(&out, 1), json!(["models", "retrieve"]));
    assert_eq!(*command(&out, 2), json!(["files", "create"]));
    // After more than a verb, the name says what is made: kept whole.
    assert_eq!(
        *command(&out, 3),
        json!(["payments", "create-booking-payment"])
    );
    assert_eq!(*command(&out, 4), json!(["policy", "list"]));
}

#[test]
fn in_a_document_without_tags_commands_are_a_resource_and_a_verb() {
    let untagged = "  /v1/customers:\n    get: {operationId: GetCustomers, responses: {}}\n    post: {operationId: PostCustomers, responses: {}}\n  /v1/customers/{customer}:\n    get: {operationId: GetCustomersCustomer, parameters: [{name: customer, in: path, required: true, schema: {type: string}}], responses: {}}\n    delete: {operationId: DeleteCustomersCustomer, parameters: [{name: customer, in: path, required: true, schema: {type: string}}], responses: {}}\n";
    let out = check(&paths(untagged));
    assert_eq!(*command(&out, 0), json!(["customers", "list"]));
    assert_eq!(*command(&out, 1), json!(["customers", "create"]));
    assert_eq!(*command(&out, 2), json!(["customers", "retrieve"]));
    assert_eq!(*command(&out, 3), json!(["customers", "delete"]));
    // One tag anywhere and the untagged operations keep their names.
    let tagged = format!(
        "{untagged}  /ping:\n    get: {{operationId: ping, tags: [meta], responses: {{}}}}\n"
    );
    let out = check(&paths(&tagged));
    assert_eq!(*command(&out, 0), json!(["get-customers"]));
}

//! The environment variables a generated client reads credentials from
//! (`emit::client::credential_env`): named for what the credential is, told apart by the
//! scheme's name only when needed, or named exactly by `x-harn.env`.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::path::Path;

use harness_gen::diag::Diagnostics;
use harness_gen::load::Document;

use crate::common::HEADER;

/// (scheme, variables) of a document whose `components.securitySchemes` are `schemes` (YAML,
/// indented by four) and whose own `security` is `security`, for a crate named `prefix`.
fn env(schemes: &str, security: &str, prefix: &str) -> (Vec<(String, Vec<String>)>, String) {
    let text = format!(
        "{HEADER}security: {security}\npaths: {{}}\ncomponents:\n  securitySchemes:\n{schemes}"
    );
    let mut diags = Diagnostics::default();
    let doc = Document::from_text(Path::new("t.yaml"), text, &mut diags).unwrap();
    let (api, _) = harness_gen::catalog::from_document(&doc, None, &mut diags);
    diags.finish();
    (
        harness_gen::emit::client::credential_env(&api, prefix),
        diags.to_string(),
    )
}

fn vars(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn a_bearer_scheme_that_carries_a_key_reads_prefix_api_key() {
    // OpenAI's: the scheme's name says it is a key; the usual scheme keeps the plain name,
    // the other adds what its name says besides its kind.
    let (found, _) = env(
        "    ApiKeyAuth: {type: http, scheme: bearer}\n    AdminApiKeyAuth: {type: http, scheme: bearer}\n",
        "[{ApiKeyAuth: []}]",
        "OPENAI",
    );
    assert_eq!(
        found,
        [
            (
                "AdminApiKeyAuth".to_string(),
                vars(&["OPENAI_ADMIN_API_KEY"])
            ),
            ("ApiKeyAuth".to_string(), vars(&["OPENAI_API_KEY"])),
        ]
    );
    // Stripe's: the description says so.
    let (found, _) = env(
        "    basicAuth: {type: http, scheme: basic}\n    bearerAuth: {type: http, scheme: bearer, description: 'Authorization: Bearer <api_key>'}\n",
        "[{basicAuth: []}, {bearerAuth: []}]",
        "STRIPE",
    );
    assert_eq!(
        found,
        [
            (
                "basicAuth".to_string(),
                vars(&["STRIPE_USERNAME", "STRIPE_PASSWORD"])
            ),
            ("bearerAuth".to_string(), vars(&["STRIPE_API_KEY"])),
        ]
    );
}

#[test]
fn another_bearer_token_reads_prefix_token_and_a_prefix_ending_in_api_is_not_repeated() {
    let (found, _) = env(
        "    oauth: {type: oauth2, flows: {}}\n    key: {type: apiKey, in: header, name: X-Key}\n",
        "[]",
        "SHOP_API",
    );
    assert_eq!(
        found,
        [
            ("key".to_string(), vars(&["SHOP_API_KEY"])),
            ("oauth".to_string(), vars(&["SHOP_API_TOKEN"])),
        ]
    );
}

#[test]
fn x_harn_env_names_the_variables_exactly_and_a_wrong_count_is_an_error() {
    let (found, diags) = env(
        "    gh: {type: http, scheme: bearer, x-harn: {env: GITHUB_TOKEN}}\n    pair: {type: http, scheme: basic, x-harn: {env: [GH_USER, GH_PASS]}}\n",
        "[{gh: []}]",
        "GHES",
    );
    assert_eq!(
        found,
        [
            ("gh".to_string(), vars(&["GITHUB_TOKEN"])),
            ("pair".to_string(), vars(&["GH_USER", "GH_PASS"])),
        ]
    );
    assert!(diags.is_empty(), "{diags}");
    let (_, diags) = env(
        "    pair: {type: http, scheme: basic, x-harn: {env: ONLY_ONE}}\n",
        "[]",
        "X",
    );
    assert!(
        diags.contains("/components/securitySchemes/pair/x-harn/env"),
        "{diags}"
    );
}

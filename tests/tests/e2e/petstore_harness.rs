//! §8 of the `.harness` spec on the generated sample: `generated/petstore` embeds the bundle of
//! `specs/petstore.harness`, resolves it at run time, and narrows the agent surface to the tools
//! one role requires; calls through a role's surface reach the API.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use harness_e2e::{TOKEN, serve};
use harness_gen_runtime::http::{Credential, Secret};
use harness_gen_runtime::{Audience, ToolError};
use serde_json::json;

fn registry(base: &str) -> harness_gen_runtime::ToolRegistry {
    let client = petstore::Client::from_builder(
        petstore::Client::builder()
            .base_url(base)
            .credential("bearerAuth", Credential::Token(Secret::new(TOKEN))),
    )
    .unwrap();
    petstore::registry(client).unwrap()
}

fn names(registry: &harness_gen_runtime::ToolRegistry) -> Vec<String> {
    registry
        .list(Audience::Agent)
        .map(|e| e.name.to_string())
        .collect()
}

#[test]
fn the_embedded_bundle_is_the_compiled_program() {
    let bundle = petstore::harness::bundle().unwrap();
    assert_eq!(bundle.harnesses[0].id, "pet-store");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../specs/petstore.harness"
    ))
    .unwrap();
    let sources = harness_gen::harness::diag::Sources {
        files: vec![("petstore.harness".into(), text)],
    };
    let compiled = harness_gen::harness::compile_sources(&sources).unwrap();
    assert_eq!(&compiled, bundle);
}

#[test]
fn the_single_target_resolves_at_run_time() {
    let revision = petstore::harness::resolve("pet-store", None).unwrap();
    assert_eq!(revision.target.runtime, "pi");
    assert!(revision.revision_id.starts_with("hr_"));
    let report = petstore::harness::resolve("pet-store", Some("qoder")).unwrap_err();
    assert_eq!(report.errors.len(), 1);
}

#[tokio::test]
async fn a_role_sees_only_the_agent_tools_it_requires() {
    let base = serve().await;
    let registry = registry(&base);
    let revision = petstore::harness::resolve("pet-store", None).unwrap();

    let clerk = petstore::harness::role_registry(&registry, &revision, "clerk").unwrap();
    // `pets.list_pets` names `list_pets` by namespace.
    assert_eq!(names(&clerk), ["list_pets", "get_pet"]);

    // `delete_pet` is required but outside the agent audience: never on the surface.
    let keeper = petstore::harness::role_registry(&registry, &revision, "keeper").unwrap();
    assert_eq!(names(&keeper), ["pets.create"]);
    assert!(petstore::harness::role_registry(&registry, &revision, "nobody").is_none());

    // The role's surface calls through the one invocation path; other tools do not exist.
    let pet = clerk
        .invoke(Audience::Agent, "get_pet", json!({"pet_id": 1}))
        .await
        .unwrap();
    assert_eq!(pet["name"], "Rex");
    let outside = keeper
        .invoke(Audience::Agent, "get_pet", json!({"pet_id": 1}))
        .await
        .unwrap_err();
    assert!(
        matches!(outside, ToolError::UnknownTool { .. }),
        "{outside:?}"
    );
}

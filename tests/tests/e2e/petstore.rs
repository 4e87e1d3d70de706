//! The generated `petstore` crate (from `specs/petstore.yaml`) against an axum server on
//! loopback that implements the sample API: the typed client, and the tool registry through the
//! runtime's one invocation path.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::time::Duration;

use harness_e2e::{API_KEY, TOKEN, serve};
use harness_gen_runtime::http::{Credential, Error, Secret};
use harness_gen_runtime::render::{McpFailure, cli_failure_envelope, mcp_failure};
use harness_gen_runtime::{Audience, RuntimeCategory, ToolError};
use petstore::types::*;
use serde_json::json;

pub(crate) fn client(base: &str) -> petstore::Client {
    petstore::Client::from_builder(
        petstore::Client::builder()
            .base_url(base)
            .credential("bearerAuth", Credential::Token(Secret::new(TOKEN)))
            .credential("apiKey", Credential::ApiKey(Secret::new(API_KEY)))
            .timeout(Duration::from_millis(800)),
    )
    .unwrap()
}

#[tokio::test]
async fn the_typed_client_sends_query_parameters_and_reads_typed_output() {
    let base = serve().await;
    let pets = client(&base)
        .list_pets(
            &ListPetsInput::new()
                .limit(2)
                .species(vec![Species::Dog, Species::Bird]),
        )
        .await
        .unwrap();
    assert_eq!(pets.len(), 2);
    assert_eq!(pets[0].name, "Rex");
    assert_eq!(pets[0].tag, Some(None), "null is kept apart from absent");
    assert_eq!(pets[1].species, Species::Bird);
    assert_eq!(pets[1].tag, None);
}

#[tokio::test]
async fn the_client_by_resource_calls_what_the_flat_methods_do() {
    // `pets list`, `pets add` and `store get-inventory` in the CLI: the same names here.
    let base = serve().await;
    let client = client(&base);
    let pets = client.pets().list().limit(2).await.unwrap();
    assert_eq!(pets.len(), 2);
    assert_eq!(pets[0].name, "Rex");
    let added = client
        .pets()
        .add(NewPet::new("Kit", "cat"))
        .send()
        .await
        .unwrap();
    assert_eq!(added.id, 42);
    let error = client.pets().get(5).await.unwrap_err();
    assert!(
        matches!(error, Error::Api(GetPetError::Http404 { .. })),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_json_body_round_trips() {
    let base = serve().await;
    let pet = client(&base)
        .pets_create(&PetsCreateInput::new(NewPet::new("Kit", Species::Cat)))
        .await
        .unwrap();
    assert_eq!(pet.id, 42);
    assert_eq!(pet.name, "Kit");
}

#[tokio::test]
async fn declared_errors_are_typed() {
    let base = serve().await;
    let error = client(&base)
        .get_pet(&GetPetInput::new(5))
        .await
        .unwrap_err();
    match error {
        Error::Api(GetPetError::Http404 { status, body }) => {
            assert_eq!(status, 404);
            assert_eq!(body.title, "no such pet");
        }
        other => panic!("{other:?}"),
    }
    let error = client(&base)
        .pets_create(&PetsCreateInput::new(NewPet::new("Rex", Species::Dog)))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Api(PetsCreateError::Http409 { status: 409, .. })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn undeclared_statuses_become_upstream_errors_without_the_body() {
    let base = serve().await;
    let error = client(&base)
        .pets_create(&PetsCreateInput::new(NewPet::new("Teapot", Species::Dog)))
        .await
        .unwrap_err();
    // 418 falls under the declared 4XX, but its body is not JSON: an upstream error.
    let Error::Api(PetsCreateError::UpstreamError { status, .. }) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*status, 418);
    assert!(!format!("{error:?} {error}").contains(TOKEN));
}

#[tokio::test]
async fn idempotent_calls_are_retried_on_429_and_api_keys_are_sent() {
    let base = serve().await;
    let counts = client(&base).get_inventory().await.unwrap();
    assert_eq!(counts["available"], 3);
    assert_eq!(counts["key_was_sent"], 1);
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let base = serve().await;
    let error = client(&base)
        .get_pet(&GetPetInput { pet_id: 9 })
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout), "{error:?}");
}

#[tokio::test]
async fn bytes_bodies_travel_as_raw_bytes() {
    let base = serve().await;
    let input: PutPetsPetIdPhotoInput =
        serde_json::from_value(json!({"pet_id": 1, "body": "iVBORw0KGgo="})).unwrap();
    client(&base).put_pets_pet_id_photo(&input).await.unwrap();
}

#[tokio::test]
async fn the_registry_calls_the_api_through_the_invocation_path() {
    let base = serve().await;
    let registry = petstore::registry(client(&base)).unwrap();
    let out = registry
        .invoke(Audience::Mcp, "get_pet", json!({"pet_id": 1}))
        .await
        .unwrap();
    assert_eq!(out, json!({"id": 1, "name": "Rex", "species": "dog"}));

    // A declared error response is an application error, typed data in every rendering.
    let error = registry
        .invoke(Audience::Cli, "get_pet", json!({"pet_id": 3}))
        .await
        .unwrap_err();
    let data =
        json!({"kind": "http_404", "status": 404, "body": {"title": "no such pet", "detail": "3"}});
    assert_eq!(
        error,
        ToolError::Application {
            tool: "get_pet".into(),
            data: data.clone()
        }
    );
    assert_eq!(cli_failure_envelope(&error)["error"]["data"], data);
    let McpFailure::ToolResult(result) = mcp_failure(&error) else {
        panic!()
    };
    assert_eq!(
        result["_meta"]["com.harnlang/toolContract"]["applicationError"]["data"],
        data
    );

    // Invalid input never reaches the server.
    let error = registry
        .invoke(Audience::Cli, "get_pet", json!({"pet_id": "x"}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::InvalidInput { .. }));

    // A transport failure is a runtime error by category.
    let error = registry
        .invoke(Audience::Cli, "get_pet", json!({"pet_id": 9}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::Runtime {
            tool: "get_pet".into(),
            category: RuntimeCategory::Timeout,
            hint: None,
        }
    );

    // An output that breaks the declared schema is caught, where it breaks it.
    let error = registry
        .invoke(Audience::Cli, "get_pet", json!({"pet_id": 7}))
        .await
        .unwrap_err();
    let ToolError::ContractViolation { phase, issues, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*phase, harness_gen_runtime::Phase::Output);
    assert_eq!(issues[0].pointer, "/id");
    // A value the schema allows but its format does not (a date that is none) too: the
    // registry's validator does not assert formats, the typed client does.
    let error = registry
        .invoke(Audience::Cli, "get_pet", json!({"pet_id": 8}))
        .await
        .unwrap_err();
    let ToolError::ContractViolation { issues, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (issues[0].pointer.as_str(), issues[0].keyword.as_str()),
        ("/born", "format")
    );
}

#[tokio::test]
async fn tools_outside_an_audience_and_unexposed_operations_cannot_be_called() {
    let base = serve().await;
    let registry = petstore::registry(client(&base)).unwrap();
    // deletePet is for cli and dashboard only.
    let error = registry
        .invoke(Audience::Mcp, "delete_pet", json!({"pet_id": 1}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::UnknownTool { .. }));
    assert!(
        registry
            .invoke(Audience::Cli, "delete_pet", json!({"pet_id": 1}))
            .await
            .is_ok()
    );
    // storeReport has x-harn.expose: false: an SDK method, no tool.
    assert!(registry.lookup(Audience::Cli, "store_report").is_none());
}

#[test]
fn constructors_take_the_required_fields_and_setters_the_optional_ones() {
    // `new` takes what converts into each required field; setters chain; an optional nullable
    // field's setter takes `None` for an explicit null.
    let pet = NewPet::new("Kit", Species::Cat).tag(None);
    assert_eq!((pet.name.as_str(), pet.tag), ("Kit", Some(None)));
    let pet = NewPet::new(String::from("Rex"), Species::Dog).tag(Some("good".to_string()));
    assert_eq!(pet.tag, Some(Some("good".to_string())));
    assert_eq!(
        serde_json::to_value(NewPet::new("Kit", Species::Cat)).unwrap(),
        serde_json::json!({"name": "Kit", "species": "cat"}),
        "an unset optional field is absent on the wire"
    );
    assert_eq!(
        serde_json::to_value(NewPet::new("Kit", Species::Cat).tag(None)).unwrap(),
        serde_json::json!({"name": "Kit", "species": "cat", "tag": null}),
        "an explicit null is null on the wire"
    );
    let all_optional = ListPetsInput::new().limit(3);
    assert_eq!((all_optional.limit, all_optional.species), (Some(3), None));
}

#[tokio::test]
async fn a_post_with_an_idempotency_key_is_retried_after_a_503_with_the_same_key() {
    let base = serve().await;
    let pet = client(&base)
        .pets_create(&PetsCreateInput::new(NewPet::new("Flaky", Species::Cat)))
        .await
        .unwrap();
    assert_eq!(pet.id, 43, "created on the second attempt");
    let tag = pet.tag.flatten().unwrap();
    let keys: Vec<&str> = tag.split(',').collect();
    assert_eq!(keys.len(), 2, "{tag}");
    assert_eq!(keys[0], keys[1], "one key for both attempts of the call");
    assert!(
        keys[0].len() == 36 && keys[0].as_bytes()[14] == b'4',
        "a random (version 4) UUID: {}",
        keys[0]
    );
}

#[tokio::test]
async fn a_generated_client_records_what_replies_said_per_handle() {
    let base = serve().await;
    let replies = petstore::client::Replies::new();
    let client = client(&base);
    let recorded = client.with(petstore::client::CallOptions::new().record(&replies));
    let error = recorded.get_pet(&GetPetInput::new(5)).await.unwrap_err();
    assert!(matches!(error, Error::Api(GetPetError::Http404 { .. })));
    assert_eq!(replies.last().unwrap().status, 404);
    recorded.get_inventory().await.unwrap();
    let info = replies.last().unwrap();
    assert_eq!(info.status, 200);
    assert!(info.header("content-type").is_some());
    client.get_pet(&GetPetInput::new(5)).await.unwrap_err();
    assert_eq!(
        replies.last().unwrap().status,
        200,
        "the client's own calls leave the record alone"
    );
}

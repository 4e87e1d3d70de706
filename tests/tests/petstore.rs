//! The generated `petstore` crate (from `specs/petstore.yaml`) against an axum server on
//! loopback that implements the sample API: the typed client, and the tool registry through the
//! runtime's one invocation path.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use harness_runtime::http::{Credential, Error, Secret};
use harness_runtime::render::{McpFailure, cli_failure_envelope, mcp_failure};
use harness_runtime::{Audience, RuntimeCategory, ToolError};
use petstore::types::*;
use serde_json::{Value, json};

const TOKEN: &str = "tok_petstore_e2e_31f9";

#[derive(Default)]
struct Server {
    inventory_hits: AtomicUsize,
}

async fn serve() -> String {
    let state = Arc::new(Server::default());
    let app = Router::new()
        .route("/pets", get(list_pets).post(create_pet))
        .route(
            "/pets/{id}",
            get(get_pet).delete(|| async { StatusCode::NO_CONTENT }),
        )
        .route(
            "/pets/{id}/photo",
            put(|body: axum::body::Bytes| async move { format!("{}", body.len()) }),
        )
        .route("/store/inventory", get(inventory))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {TOKEN}"))
}

async fn list_pets(headers: HeaderMap, Query(query): Query<Vec<(String, String)>>) -> Response {
    if !authorized(&headers) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"title": "who are you"})),
        )
            .into_response();
    }
    let limit: usize = query
        .iter()
        .find(|(k, _)| k == "limit")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(20);
    let species = query
        .iter()
        .find(|(k, _)| k == "species")
        .map(|(_, v)| v.clone());
    let pets = vec![
        json!({"id": 1, "name": "Rex", "species": "dog", "tag": null}),
        json!({"id": 2, "name": "Tom", "species": "cat"}),
        json!({"id": 3, "name": "Tweety", "species": "bird", "born": "2020-01-01"}),
    ];
    let pets: Vec<Value> = pets
        .into_iter()
        .filter(|p| {
            species
                .as_ref()
                .is_none_or(|s| s.split(',').any(|s| p["species"] == s))
        })
        .take(limit)
        .collect();
    axum::Json(pets).into_response()
}

async fn create_pet(headers: HeaderMap, axum::Json(body): axum::Json<Value>) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if body["name"] == "Rex" {
        return (
            StatusCode::CONFLICT,
            axum::Json(json!({"title": "Rex exists"})),
        )
            .into_response();
    }
    if body["name"] == "Teapot" {
        return (StatusCode::IM_A_TEAPOT, format!("leaked {TOKEN}")).into_response();
    }
    let mut pet = body;
    pet["id"] = json!(42);
    (StatusCode::CREATED, axum::Json(pet)).into_response()
}

async fn get_pet(Path(id): Path<String>) -> Response {
    match id.as_str() {
        "1" => axum::Json(json!({"id": 1, "name": "Rex", "species": "dog"})).into_response(),
        "7" => axum::Json(json!({"id": "not a number"})).into_response(),
        "9" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            StatusCode::OK.into_response()
        }
        _ => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"title": "no such pet", "detail": id})),
        )
            .into_response(),
    }
}

async fn inventory(State(state): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if state.inventory_hits.fetch_add(1, Ordering::SeqCst) == 0 {
        return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")]).into_response();
    }
    let key = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none");
    axum::Json(json!({"available": 3, "key_was_sent": i64::from(key == "k-123")})).into_response()
}

fn client(base: &str) -> petstore::Client {
    petstore::Client::from_builder(
        petstore::Client::builder()
            .base_url(base)
            .credential("bearerAuth", Credential::Token(Secret::new(TOKEN)))
            .credential("apiKey", Credential::ApiKey(Secret::new("k-123")))
            .timeout(Duration::from_millis(800)),
    )
    .unwrap()
}

#[tokio::test]
async fn the_typed_client_sends_query_parameters_and_reads_typed_output() {
    let base = serve().await;
    let pets = client(&base)
        .list_pets(&ListPetsInput {
            limit: Some(2),
            species: Some(vec![Species::Dog, Species::Bird]),
            x_request_id: None,
        })
        .await
        .unwrap();
    assert_eq!(pets.len(), 2);
    assert_eq!(pets[0].name, "Rex");
    assert_eq!(pets[0].tag, Some(None), "null is kept apart from absent");
    assert_eq!(pets[1].species, Species::Bird);
    assert_eq!(pets[1].tag, None);
}

#[tokio::test]
async fn a_json_body_round_trips() {
    let base = serve().await;
    let pet = client(&base)
        .pets_create(&PetsCreateInput {
            body: NewPet {
                name: "Kit".into(),
                species: Species::Cat,
                tag: None,
            },
        })
        .await
        .unwrap();
    assert_eq!(pet.id, 42);
    assert_eq!(pet.name, "Kit");
}

#[tokio::test]
async fn declared_errors_are_typed() {
    let base = serve().await;
    let error = client(&base)
        .get_pet(&GetPetInput { pet_id: 5 })
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
        .pets_create(&PetsCreateInput {
            body: NewPet {
                name: "Rex".into(),
                species: Species::Dog,
                tag: None,
            },
        })
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
        .pets_create(&PetsCreateInput {
            body: NewPet {
                name: "Teapot".into(),
                species: Species::Dog,
                tag: None,
            },
        })
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
    let counts = client(&base)
        .get_inventory(&Default::default())
        .await
        .unwrap();
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
            category: RuntimeCategory::Timeout
        }
    );

    // An output that breaks the declared schema is caught.
    let error = registry
        .invoke(Audience::Cli, "get_pet", json!({"pet_id": 7}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ToolError::Runtime { .. } | ToolError::ContractViolation { .. }
        ),
        "{error:?}"
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

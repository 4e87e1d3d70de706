//! `examples/composed`: the pet store and train travel generated crates mounted as `petstore`
//! and `travel` and tools written in Rust, in one registry, served by its CLI (`composed`) and
//! MCP server (`composed-mcp`) to the official Python MCP client in both eras, against a pet
//! store stand-in on loopback and Prism serving the train travel API.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::process::{Command, Output};

use axum::Router;
use axum::routing::get;
use harness_gen_runtime::{Audience, ToolRegistry};
use serde_json::{Value, json};

use crate::petstore_mcp::{drive, python, steps};
use crate::prism::train_travel_mock;

/// A pet store with dogs only (so a cat is a species it does not have), answering as the
/// document says.
async fn dogs_only() -> String {
    let app = Router::new()
        .route(
            "/pets",
            get(|| async {
                axum::Json(json!([
                    {"id": 1, "name": "Rex", "species": "dog"},
                    {"id": 2, "name": "Fido", "species": "dog"}
                ]))
            }),
        )
        .route(
            "/pets/{id}",
            get(|| async { axum::Json(json!({"id": 1, "name": "Rex", "species": "dog"})) }),
        );
    harness_e2e::listen(app).await
}

fn composed(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(harness_e2e::composed_binary("composed"))
        .args(args)
        .env_remove("PETSTORE_BASE_URL")
        .env_remove("TRAIN_TRAVEL_BASE_URL")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn its_help_shows_both_apis_groups_and_the_hand_written_commands_with_typed_options() {
    let top = stdout(&composed(&["--help"], &[]));
    for line in [
        "petstore         A pet store that exercises every x-harn extension.",
        "travel           API for finding and booking train trips across Europe.",
        "pets-by-species  The pets of one species in the store",
        "apis             The APIs this program serves",
    ] {
        assert!(top.contains(line), "{line:?} in:\n{top}");
    }
    let petstore = stdout(&composed(&["petstore", "pets", "--help"], &[]));
    assert!(petstore.contains("get "), "{petstore}");
    let travel = stdout(&composed(&["travel", "--help"], &[]));
    for group in ["stations", "trips", "bookings"] {
        assert!(travel.contains(group), "{group} in:\n{travel}");
    }
    let typed = stdout(&composed(&["pets-by-species", "--help"], &[]));
    assert!(typed.contains("--species <species>"), "{typed}");
    assert!(
        typed.contains("[possible values: dog, cat, bird]"),
        "{typed}"
    );
    assert!(typed.contains("--limit <limit>"), "{typed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn its_cli_calls_a_mounted_tool_and_a_hand_written_one_whose_declared_error_exits_3() {
    let base = dogs_only().await;
    let env = [
        ("PETSTORE_BASE_URL", base.as_str()),
        ("PETSTORE_TOKEN", "a-token"),
    ];
    let pet = composed(&["petstore", "pets", "get", "1"], &env);
    assert_eq!(pet.status.code(), Some(0), "{pet:?}");
    assert_eq!(
        serde_json::from_slice::<Value>(&pet.stdout).unwrap()["name"],
        "Rex"
    );

    let dogs = composed(
        &["pets-by-species", "--species", "dog", "--limit", "1"],
        &env,
    );
    assert_eq!(dogs.status.code(), Some(0), "{dogs:?}");
    assert_eq!(
        serde_json::from_slice::<Value>(&dogs.stdout).unwrap(),
        json!([{"id": 1, "name": "Rex", "species": "dog"}])
    );

    let cats = composed(&["pets-by-species", "--species", "cat"], &env);
    assert_eq!(cats.status.code(), Some(3), "{cats:?}");
    let envelope: Value = serde_json::from_slice(&cats.stdout).unwrap();
    assert_eq!(
        envelope["error"]["data"],
        json!({"species": "cat", "in_store": ["dog"]}),
        "{envelope}"
    );

    // Bad input is refused before the function runs (no call reaches the store: none is up).
    let bad = composed(
        &["pets-by-species", "--species", "dog", "--limit", "0"],
        &[
            ("PETSTORE_BASE_URL", "http://127.0.0.1:9"),
            ("PETSTORE_TOKEN", "a-token"),
        ],
    );
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");

    // `--base-url` names each API; a name the program does not mount is refused.
    let named = composed(
        &[
            "--base-url",
            &format!("petstore={base}"),
            "petstore",
            "pets",
            "get",
            "1",
        ],
        &[("PETSTORE_TOKEN", "a-token")],
    );
    assert_eq!(named.status.code(), Some(0), "{named:?}");
    let unknown = composed(&["--base-url", "shop=http://x", "apis"], &[]);
    assert_ne!(unknown.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("the APIs are: petstore, travel"),
        "{unknown:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn its_mcp_server_lists_and_calls_both_apis_and_the_hand_written_tools_in_both_eras() {
    let Some(python) = python() else { return };
    let Some((_prism, travel)) = train_travel_mock() else {
        return;
    };
    let pets = dogs_only().await;
    let program = harness_e2e::composed_binary("composed-mcp");
    let env = [
        ("PETSTORE_BASE_URL", pets.as_str()),
        ("PETSTORE_TOKEN", "a-token"),
        ("TRAIN_TRAVEL_BASE_URL", travel.as_str()),
        ("TRAIN_TRAVEL_TOKEN", "a-token"),
    ];
    let script = json!([
        {"list": true},
        {"call": "petstore_get_pet", "arguments": {"pet_id": 1}},
        {"call": "travel_get_stations", "arguments": {}},
        {"call": "pets_by_species", "arguments": {"species": "dog"}},
        {"call": "pets_by_species", "arguments": {"species": "cat"}},
        {"call": "apis", "arguments": {}},
    ]);
    for mode in ["legacy", "modern"] {
        let seen = drive(
            &python,
            mode,
            &script,
            &["--", program.to_str().unwrap()],
            &env,
        );
        let steps = steps(&seen);
        let names: Vec<&str> = steps[0]["list"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|page| page["tools"].as_array().unwrap())
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        for name in [
            "petstore_get_pet",
            "travel_get_stations",
            "pets_by_species",
            "apis",
        ] {
            assert!(names.contains(&name), "{mode}: {name} in {names:?}");
        }
        let [pet, stations, dogs, cats, apis] = [1, 2, 3, 4, 5].map(|i| &steps[i]["result"]);
        assert_eq!(pet["structuredContent"]["name"], "Rex", "{mode}: {pet}");
        assert_ne!(stations["isError"], true, "{mode}: {stations}");
        assert_ne!(dogs["isError"], true, "{mode}: {dogs}");
        assert!(dogs.to_string().contains("Fido"), "{mode}: {dogs}");
        assert_eq!(cats["isError"], true, "{mode}: {cats}");
        assert_eq!(
            cats["_meta"]["com.harnlang/toolContract"]["applicationError"]["data"]["in_store"],
            json!(["dog"]),
            "{mode}: {cats}"
        );
        assert!(apis.to_string().contains("train-travel"), "{mode}: {apis}");
    }
}

/// A pet store that answers only requests with the bearer token `pet-token`.
async fn guarded() -> String {
    use axum::response::{IntoResponse, Response};
    fn answer(headers: &axum::http::HeaderMap, body: Value) -> Response {
        let bearer = headers.get("authorization").and_then(|v| v.to_str().ok());
        if bearer != Some("Bearer pet-token") {
            let refusal = axum::Json(json!({"title": "who are you"}));
            return (axum::http::StatusCode::UNAUTHORIZED, refusal).into_response();
        }
        axum::Json(body).into_response()
    }
    let rex = || json!({"id": 1, "name": "Rex", "species": "dog"});
    let app =
        Router::new()
            .route(
                "/pets",
                get(move |headers: axum::http::HeaderMap| async move {
                    answer(&headers, json!([rex()]))
                }),
            )
            .route(
                "/pets/{id}",
                get(move |headers: axum::http::HeaderMap| async move { answer(&headers, rex()) }),
            );
    harness_e2e::listen(app).await
}

#[tokio::test(flavor = "multi_thread")]
async fn over_http_each_apis_tools_take_credentials_from_the_header_mapped_for_its_namespace() {
    let Some(python) = python() else { return };
    let pets = guarded().await;
    let (_server, url) = harness_e2e::start_composed_mcp(
        &[
            "--credential-header",
            "petstore.bearerAuth=X-Pet-Token",
            "--credential-header",
            "travel.OAuth2=X-Travel-Token",
        ],
        &[
            ("PETSTORE_BASE_URL", pets.as_str()),
            ("PETSTORE_TOKEN", "not-this-one"),
        ],
    );
    let script = json!([
        {"call": "petstore_get_pet", "arguments": {"pet_id": 1}},
        {"call": "pets_by_species", "arguments": {"species": "dog"}},
        {"call": "travel_get_stations", "arguments": {}},
    ]);
    let seen = drive(
        &python,
        "legacy",
        &script,
        &["--url", &url, "--header", "X-Pet-Token: pet-token"],
        &[],
    );
    let [pet, dogs, stations] = [0, 1, 2].map(|i| &steps(&seen)[i]["result"]);
    assert_eq!(pet["structuredContent"]["name"], "Rex", "{pet}");
    // The hand-written tool calls the pet store with the pet store's credentials.
    assert_ne!(dogs["isError"], true, "{dogs}");
    // Travel's tools read their own header, which this request lacks: named, never borrowed.
    assert_eq!(stations["isError"], true, "{stations}");
    assert!(
        stations.to_string().contains("x-travel-token"),
        "{stations}"
    );

    // Without the header, the pet store's tools say which one they need.
    let seen = drive(&python, "legacy", &script, &["--url", &url], &[]);
    let pet = &steps(&seen)[0]["result"];
    assert_eq!(pet["isError"], true, "{pet}");
    assert!(pet.to_string().contains("x-pet-token"), "{pet}");
}

fn registry() -> ToolRegistry {
    composed::registry(None, &|_| true).unwrap()
}

#[test]
fn the_composed_catalog_validates_against_the_published_schema() {
    let catalog = serde_json::to_value(registry().catalog()).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            harness_e2e::root().join("runtime/schema/harn-tools-v2.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&catalog)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let tools = catalog["tools"].as_array().unwrap();
    let typed = tools
        .iter()
        .find(|t| t["name"] == "pets_by_species")
        .unwrap();
    assert_eq!(typed["source"]["kind"], "rust");
    // The generated `Species` in the typed input points at the mounted pet store's component.
    assert_eq!(
        typed["inputSchema"]["properties"]["species"]["$ref"],
        "#/components/schemas/petstore.Species"
    );
}

#[test]
fn the_agent_projection_offers_the_hand_written_tools_beside_the_generated_ones() {
    let registry = registry();
    let agent: Vec<String> = registry
        .initial_tools(Audience::Agent)
        .map(|e| e.name.to_string())
        .collect();
    assert!(agent.contains(&"pets_by_species".to_string()), "{agent:?}");
    let found = registry.search(Audience::Agent, "species pets", 5);
    assert!(
        found.iter().any(|e| e.name.as_str() == "pets_by_species"),
        "{:?}",
        found.iter().map(|e| e.name.as_str()).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn its_dashboard_shows_the_hand_written_tool_with_a_form_from_its_types_and_on_its_harness_role()
 {
    let base = dogs_only().await;
    let (_server, dashboard) = harness_e2e::start_composed_dashboard(&base);
    let index = reqwest::get(&dashboard)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(index.contains("pets_by_species"), "{index}");
    assert!(index.contains("petstore_get_pet"), "{index}");
    let page = reqwest::get(format!("{dashboard}/tools/pets_by_species"))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    // The page's form is built from the input schema it serves: standalone, the generated
    // `Species` carried along.
    let schema = reqwest::get(format!("{dashboard}/tools/pets_by_species/schemas/input"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    assert!(
        properties.contains_key("species") && properties.contains_key("limit"),
        "{schema}"
    );
    assert!(!schema.to_string().contains("#/components/"), "{schema}");
    assert!(schema.to_string().contains("\"bird\""), "{schema}");

    // `composed.harness`'s clerk requires the hand-written tool: it is on the role's surface.
    let harness = reqwest::get(format!("{dashboard}/harness"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let clerk = text_between(&harness, "Agent clerk", "Agent planner");
    assert!(
        clerk.contains("Tools on its surface") && clerk.contains("pets_by_species"),
        "{clerk}"
    );
}

/// The page's text (tags left out, whitespace collapsed) from `start` to `end`.
fn text_between(html: &str, start: &str, end: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{start} in {text}"));
    let to = text[from..].find(end).map_or(text.len(), |to| from + to);
    text[from..to].to_string()
}

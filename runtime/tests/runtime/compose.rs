//! Many sources, one registry: tools written in Rust (their entries derived from their types),
//! generated registries mounted under a namespace, transforms, and every collision located.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use harness_gen_runtime::schemars::{self, JsonSchema};
use harness_gen_runtime::typed::{Failure, TypedTool, tool};
use harness_gen_runtime::{
    Audience, Composer, ContractErrors, ErrorCode, Handler, Phase, ToolError, ToolRegistry,
    catalog_ref, render,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::common::{Answer, entry_with};

/// Which species to list.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
struct BySpecies {
    /// The species, as the store spells it.
    species: String,
    /// At most this many.
    #[schemars(range(min = 1, max = 100))]
    limit: Option<u32>,
}

/// A pet.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
struct Pet {
    name: String,
    #[schemars(range(min = 0))]
    age: i32,
}

/// The species is not one the store keeps.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
struct UnknownSpecies {
    species: String,
    known: Vec<String>,
}

/// The pets of one species, oldest first.
///
/// Answers from the store's own list.
#[tool(
    cli = "pets by-species",
    read_only,
    idempotent,
    closed_world,
    audiences = "cli, mcp, agent"
)]
async fn pets_by_species(
    calls: &AtomicUsize,
    input: BySpecies,
) -> Result<Vec<Pet>, Failure<UnknownSpecies>> {
    calls.fetch_add(1, Ordering::SeqCst);
    let _at_most = input.limit.unwrap_or(100);
    match input.species.as_str() {
        "cat" => Ok(vec![Pet {
            name: "Tom".into(),
            age: 3,
        }]),
        // A pet of no age at all: outside the output schema.
        "ghost" => Ok(vec![Pet {
            name: "Casper".into(),
            age: -1,
        }]),
        _ => Err(Failure::Declared(UnknownSpecies {
            species: input.species,
            known: vec!["cat".into(), "ghost".into()],
        })),
    }
}

/// The tool through the macro-free builder, counting its calls where the test sees them.
fn shop(calls: Arc<AtomicUsize>) -> ToolRegistry {
    let tool = TypedTool::new("pets_by_species", move |input: BySpecies| {
        let calls = Arc::clone(&calls);
        async move { pets_by_species(&calls, input).await }
    });
    Composer::new("shop").typed(tool).publish().unwrap()
}

fn published(tool: TypedTool) -> ToolRegistry {
    Composer::new("shop").typed(tool).publish().unwrap()
}

#[test]
fn a_typed_tools_entry_is_derived_from_its_types_and_its_doc_comment() {
    let registry = published(pets_by_species_tool(AtomicUsize::new(0)));
    let catalog = serde_json::to_value(registry.catalog()).unwrap();
    insta::assert_json_snapshot!(catalog);
}

#[tokio::test]
async fn bad_input_is_refused_before_the_function_runs() {
    let calls = Arc::new(AtomicUsize::new(0));
    let registry = shop(Arc::clone(&calls));
    let error = registry
        .invoke(
            Audience::Mcp,
            "pets_by_species",
            json!({"species": "cat", "limit": 0}),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::InvalidInput { .. }), "{error:?}");
    let error = registry
        .invoke(Audience::Mcp, "pets_by_species", json!({}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::InvalidInput { .. }), "{error:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let pets = registry
        .invoke(Audience::Mcp, "pets_by_species", json!({"species": "cat"}))
        .await
        .unwrap();
    assert_eq!(pets, json!([{"name": "Tom", "age": 3}]));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_declared_error_is_an_application_error_with_its_typed_data() {
    let registry = shop(Arc::default());
    let error = registry
        .invoke(Audience::Cli, "pets_by_species", json!({"species": "dog"}))
        .await
        .unwrap_err();
    let ToolError::Application { data, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(data, &json!({"species": "dog", "known": ["cat", "ghost"]}));
    assert_eq!(render::cli_exit_code(&error), 3);
    let render::McpFailure::ToolResult(result) = render::mcp_failure(&error) else {
        panic!("not a tool result")
    };
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["_meta"]["com.harnlang/toolContract"]["applicationError"]["data"]["species"],
        "dog"
    );
}

#[tokio::test]
async fn an_output_outside_the_output_schema_is_a_contract_violation() {
    let registry = shop(Arc::default());
    let error = registry
        .invoke(
            Audience::Mcp,
            "pets_by_species",
            json!({"species": "ghost"}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ToolError::ContractViolation {
                phase: Phase::Output,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(render::cli_exit_code(&error), 5);
}

/// A generated-like registry: a component, a tool referencing it, parent-command metadata.
fn petstore() -> ToolRegistry {
    let catalog = harness_gen_runtime::Catalog::from_value(petstore_catalog()).unwrap();
    ToolRegistry::publish(catalog, petstore_handlers()).unwrap()
}

/// The catalog of [`petstore`].
pub(crate) fn petstore_catalog() -> Value {
    json!({
        "schema_version": "harn-tools/2.0",
        "info": {"name": "petstore", "description": "A pet store.\n\nMore text."},
        "cli": {"commands": [{"command": ["pets"], "title": "Pets"}]},
        "tools": [
            entry_with("get_pet", json!({
                "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                "outputSchema": {"$ref": "#/components/schemas/Pet"},
                "cli": {"command": ["pets", "get"], "hidden": false}
            })),
            entry_with("list_pets", json!({
                "inputSchema": {"type": "object", "properties": {
                    "species": {"$ref": "#/components/schemas/Species"},
                    "limit": {"type": "integer"}
                }, "required": ["species"]},
                "cli": {"command": ["pets", "list"], "hidden": false}
            })),
        ],
        "components": {"schemas": {
            "Pet": {"type": "object", "properties": {"name": {"type": "string"}, "species": {"$ref": "#/components/schemas/Species"}}},
            "Species": {"enum": ["cat", "dog"]}
        }}
    })
}

/// The handlers of [`petstore`]'s tools.
pub(crate) fn petstore_handlers() -> std::collections::BTreeMap<String, Handler> {
    let mut handlers = std::collections::BTreeMap::new();
    handlers.insert(
        "get_pet".to_string(),
        Answer::Return(json!({"name": "Tom", "species": "cat"})).into_handler(),
    );
    handlers.insert("list_pets".to_string(), Answer::Echo.into_handler());
    handlers
}

#[tokio::test]
async fn a_mounted_registry_is_prefixed_and_its_references_rewritten() {
    let registry = Composer::new("shop")
        .mount("petstore", &petstore())
        .publish()
        .unwrap();
    let catalog = serde_json::to_value(registry.catalog()).unwrap();
    insta::assert_json_snapshot!(catalog);
    let pet = registry
        .invoke(Audience::Mcp, "petstore_get_pet", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(pet["name"], "Tom");
    // The rewritten reference is followed when the input is validated.
    let error = registry
        .invoke(
            Audience::Mcp,
            "petstore_list_pets",
            json!({"species": "cow"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::InvalidInput { .. }), "{error:?}");
}

/// The species, as the generated petstore crate's `Species` says of itself with its
/// `schemars` feature.
#[derive(Deserialize)]
struct Species(#[allow(dead_code)] String);

impl JsonSchema for Species {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Species".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        catalog_ref("petstore", "Species").try_into().unwrap()
    }
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
struct Choose {
    #[allow(dead_code)] // Read by serde; the test looks at the schema.
    species: Species,
}

pub(crate) fn choose() -> TypedTool {
    TypedTool::new("choose", |_: Choose| async {
        Ok::<_, Failure<harness_gen_runtime::typed::NoError>>(true)
    })
}

#[tokio::test]
async fn a_generated_type_in_a_typed_signature_points_at_its_mounted_component() {
    let registry = Composer::new("shop")
        .mount("petstore", &petstore())
        .typed(choose())
        .publish()
        .unwrap();
    let entry = registry.lookup(Audience::Mcp, "choose").unwrap();
    assert_eq!(
        entry.input_schema.as_value()["properties"]["species"],
        json!({"$ref": "#/components/schemas/petstore.Species"})
    );
    assert!(entry.error_schema.is_none(), "NoError declares no error");
    registry
        .invoke(Audience::Mcp, "choose", json!({"species": "cat"}))
        .await
        .unwrap();
    let error = registry
        .invoke(Audience::Mcp, "choose", json!({"species": "cow"}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::InvalidInput { .. }), "{error:?}");
}

pub(crate) fn refused(composer: Composer) -> ContractErrors {
    match composer.publish() {
        Ok(registry) => panic!("published: {registry:?}"),
        Err(errors) => errors,
    }
}

pub(crate) fn assert_has(errors: &ContractErrors, code: ErrorCode, path: &str, says: &str) {
    let found = errors
        .as_slice()
        .iter()
        .any(|e| e.code == code && e.path == path && e.message.contains(says));
    assert!(
        found,
        "expected {code} at {path} saying {says:?}, got:\n{errors}"
    );
}

#[test]
fn a_generated_type_of_a_catalog_not_mounted_is_a_located_error() {
    let errors = refused(Composer::new("shop").typed(choose()));
    assert_has(
        &errors,
        ErrorCode::UnmountedCatalog,
        "tool `choose`.inputSchema",
        "`petstore`, which is not mounted",
    );
}

#[test]
fn two_tools_of_one_name_are_a_located_error_naming_both_sources() {
    let api = petstore();
    let errors = refused(
        Composer::new("shop")
            .mount("petstore", &api)
            .mount("petstore", &api),
    );
    assert_has(
        &errors,
        ErrorCode::DuplicateToolName,
        "mount `petstore` tools[0] (`get_pet`)",
        "is also mount `petstore` tools[0] (`get_pet`)'s",
    );
    let errors = refused(
        Composer::new("shop")
            .mount("petstore", &api)
            .typed(choose())
            .rename("choose", "petstore_get_pet"),
    );
    assert_has(
        &errors,
        ErrorCode::DuplicateToolName,
        "tool `choose` renamed by transforms[0] (`choose`)",
        "`petstore_get_pet` is also mount `petstore` tools[0]",
    );
}

#[test]
fn two_tools_at_one_command_path_are_a_located_error() {
    let errors = refused(
        Composer::new("shop")
            .mount("petstore", &petstore())
            .typed(choose().cli("petstore pets get")),
    );
    assert_has(
        &errors,
        ErrorCode::CliDuplicatePath,
        "tool `choose`",
        "the command `petstore pets get` is also mount `petstore` tools[0]",
    );
}

#[test]
fn one_component_name_with_two_schemas_is_a_located_error() {
    let other = ToolRegistry::builder()
        .component(
            "Pet",
            serde_json::from_value(json!({"type": "string"})).unwrap(),
        )
        .build()
        .unwrap();
    let errors = refused(
        Composer::new("shop")
            .typed(pets_by_species_tool(AtomicUsize::new(0)))
            .component(
                "Pet",
                serde_json::from_value(json!({"type": "string"})).unwrap(),
            )
            .mount("other", &other),
    );
    assert_has(
        &errors,
        ErrorCode::DuplicateComponent,
        "component `Pet`",
        "also given by tool `pets_by_species` component `Pet`",
    );
    // The same schema twice is one component, shared.
    Composer::new("shop")
        .typed(pets_by_species_tool(AtomicUsize::new(0)))
        .typed(
            pets_by_species_tool(AtomicUsize::new(0))
                .edit(|e| e.name = "again".try_into().unwrap())
                .cli("again"),
        )
        .publish()
        .unwrap();
}

#[test]
fn a_transform_of_no_tool_and_a_bad_namespace_are_located_errors() {
    let errors = refused(
        Composer::new("shop")
            .mount("Pet Store", &petstore())
            .rename("get_pet", "fetch"),
    );
    assert_has(
        &errors,
        ErrorCode::InvalidField,
        "mount `Pet Store`",
        "a namespace is a command word",
    );
    assert_has(
        &errors,
        ErrorCode::UnknownTool,
        "transforms[0] (`get_pet`)",
        "no tool is named `get_pet`",
    );
    let errors = refused(
        Composer::new("shop")
            .mount("petstore", &petstore())
            .audiences("petstore_get_pet", &[]),
    );
    assert_has(
        &errors,
        ErrorCode::InvalidField,
        "transforms[0] (`petstore_get_pet`)",
        "must list at least one audience",
    );
}

#[tokio::test]
async fn transforms_rename_remove_restrict_and_replace_tools() {
    let registry = Composer::new("shop")
        .mount("petstore", &petstore())
        .rename("petstore_get_pet", "pet")
        .remove("petstore_list_pets")
        .audiences("pet", &[Audience::Mcp])
        .edit("pet", |entry| {
            entry.description = Some("One pet.".try_into().unwrap())
        })
        .publish()
        .unwrap();
    let names: Vec<_> = registry.entries().map(|e| e.name.to_string()).collect();
    assert_eq!(names, ["pet"]);
    // `pet` is the MCP's alone now: no command is left under `petstore`, so neither group is.
    assert!(
        registry.cli_commands().is_empty(),
        "{:?}",
        registry.cli_commands()
    );
    assert!(registry.lookup(Audience::Cli, "pet").is_none());
    assert_eq!(
        registry
            .lookup(Audience::Mcp, "pet")
            .unwrap()
            .description
            .as_deref(),
        Some("One pet.")
    );

    let replaced = Composer::new("shop")
        .mount("petstore", &petstore())
        .replace(
            "petstore_get_pet",
            Handler::new(|_| async { Ok(json!({"name": "Replaced"})) }),
        )
        .publish()
        .unwrap();
    let pet = replaced
        .invoke(Audience::Mcp, "petstore_get_pet", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(pet["name"], "Replaced");
}

#[tokio::test]
async fn a_wrapped_handler_calls_the_original_and_changes_its_output() {
    let registry = Composer::new("shop")
        .mount("petstore", &petstore())
        .wrap("petstore_get_pet", |original| {
            Handler::paged(move |input: Value| {
                let call = original.call(input);
                async move {
                    let mut output = call.await?;
                    output.value["name"] = json!("Wrapped");
                    Ok(output)
                }
            })
        })
        .publish()
        .unwrap();
    let pet = registry
        .invoke(Audience::Mcp, "petstore_get_pet", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(pet, json!({"name": "Wrapped", "species": "cat"}));
}

#[tokio::test]
async fn a_fixed_argument_leaves_the_schema_and_reaches_every_call() {
    let registry = Composer::new("shop")
        .mount("petstore", &petstore())
        .fix_argument("petstore_list_pets", "species", json!("cat"))
        .publish()
        .unwrap();
    let entry = registry
        .lookup(Audience::Mcp, "petstore_list_pets")
        .unwrap();
    assert_eq!(
        entry.input_schema.as_value(),
        &json!({"type": "object", "properties": {"limit": {"type": "integer"}}, "required": []})
    );
    // The list tool echoes its input: the fixed value arrives with the caller's.
    let echoed = registry
        .invoke(Audience::Mcp, "petstore_list_pets", json!({"limit": 2}))
        .await
        .unwrap();
    assert_eq!(echoed, json!({"limit": 2, "species": "cat"}));

    let errors = refused(
        Composer::new("shop")
            .mount("petstore", &petstore())
            .fix_argument("petstore_list_pets", "species", json!("cow"))
            .fix_argument("petstore_list_pets", "colour", json!("red")),
    );
    assert_has(
        &errors,
        ErrorCode::InvalidField,
        "transforms[0] (`petstore_list_pets`)",
        "does not satisfy its schema",
    );
    assert_has(
        &errors,
        ErrorCode::InvalidField,
        "transforms[1] (`petstore_list_pets`)",
        "no input property `colour`",
    );
}

#[test]
fn the_composed_catalog_passes_every_publish_time_rule_and_round_trips() {
    let registry = Composer::new("shop")
        .mount("petstore", &petstore())
        .typed(pets_by_species_tool(AtomicUsize::new(0)))
        .typed(choose())
        .publish()
        .unwrap();
    let text = serde_json::to_string(&registry.catalog()).unwrap();
    let read =
        harness_gen_runtime::Catalog::from_value(serde_json::from_str(&text).unwrap()).unwrap();
    harness_gen_runtime::validate::validate_catalog(&read).unwrap();
    assert_eq!(read.tools.len(), 4);
}

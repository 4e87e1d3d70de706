//! Many sources, one registry: the generated `petstore` and `train-travel` crates mounted as
//! `petstore` and `travel`, and tools written in Rust beside them, one of which takes and
//! returns the pet store's generated types. The `composed` (CLI) and `composed-mcp` (MCP
//! server) programs serve [`registry`]; every projection sees one registry.
//!
//! Each API keeps its own client, configured as its generated crate's is: `PETSTORE_BASE_URL`
//! and `PETSTORE_API_KEY`/`PETSTORE_TOKEN`, `TRAIN_TRAVEL_BASE_URL` and `TRAIN_TRAVEL_TOKEN`, or
//! `--base-url petstore=URL,travel=URL`.

use harness_gen_runtime::schemars::JsonSchema;
use harness_gen_runtime::typed::{Failure, NoError, TypedTool, tool};
use harness_gen_runtime::{Composer, ToolRegistry, base_urls};
use petstore::types::{ListPetsInput, Pet, Species};
use serde::{Deserialize, Serialize};

/// The agent roles over this registry (`composed.harness`, compiled by the build script): the
/// MCP program's dashboard shows each role with its tools.
pub const HARNESS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/harness.json"));

/// The namespaces the APIs are mounted under, as `--base-url` names them.
pub const APIS: &[&str] = &["petstore", "travel"];

// ANCHOR: typed
/// Which pets to list.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
pub struct BySpecies {
    /// The species.
    pub species: Species,
    /// At most this many pets.
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
}

/// The store has no pet of the species asked for.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
pub struct UnknownSpecies {
    /// The species asked for.
    pub species: Species,
    /// The species the store has pets of.
    pub in_store: Vec<Species>,
}

/// The pets of one species in the store.
///
/// Lists the store's pets and keeps those of `species`; when it has none, says which species it
/// has.
#[tool(
    cli = "pets-by-species",
    read_only,
    idempotent,
    credentials = "petstore"
)]
pub async fn pets_by_species(
    client: &petstore::Client,
    input: BySpecies,
) -> Result<Vec<Pet>, Failure<UnknownSpecies>> {
    let pets = client.list_pets(&ListPetsInput::new().limit(100)).await?;
    let (mut matching, others): (Vec<Pet>, Vec<Pet>) = pets
        .into_iter()
        .partition(|pet| pet.species.as_str() == input.species.as_str());
    if matching.is_empty() {
        let mut in_store: Vec<Species> = Vec::new();
        for pet in others {
            if !in_store.iter().any(|s| s.as_str() == pet.species.as_str()) {
                in_store.push(pet.species);
            }
        }
        return Err(Failure::Declared(UnknownSpecies {
            species: input.species,
            in_store,
        }));
    }
    matching.truncate(input.limit.unwrap_or(usize::MAX));
    Ok(matching)
}
// ANCHOR_END: typed

/// No input.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
pub struct Nothing {}

/// One API this program serves.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(crate = "harness_gen_runtime::schemars")]
pub struct Api {
    /// Its namespace: the prefix of its tools and its command group.
    pub namespace: String,
    /// Its catalog's name.
    pub name: String,
    /// The version of its description.
    pub version: Option<String>,
}

/// The APIs this program serves, written without the macro: the builder the `#[tool]`
/// attribute expands to.
fn apis_tool(apis: Vec<Api>) -> TypedTool {
    let apis = std::sync::Arc::new(apis);
    TypedTool::new("apis", move |_: Nothing| {
        let apis = std::sync::Arc::clone(&apis);
        async move { Ok::<_, Failure<NoError>>(apis.to_vec()) }
    })
    .description("The APIs this program serves: their namespaces, names and versions.")
    .read_only()
    .idempotent()
    .open_world(false)
}

/// The program's composition (the `composer` of `cli::Composed`): both APIs mounted, each
/// with its own client, and the tools written in Rust. The APIs are mounted by their catalogs'
/// indexes, so the CLI lists their commands without reading an entry and reads only the
/// entries of the command it runs.
pub fn composer(base_url: Option<String>) -> Result<Composer, String> {
    let urls = base_urls(base_url.as_deref(), APIS)?;
    let mut pets = petstore::Client::env_builder();
    if let Some(url) = urls.get("petstore") {
        pets = pets.base_url(url);
    }
    let pets = petstore::Client::from_builder(pets).map_err(|e| e.to_string())?;
    let mut trains = train_travel::Client::env_builder();
    if let Some(url) = urls.get("travel") {
        trains = trains.base_url(url);
    }
    let trains = train_travel::Client::from_builder(trains).map_err(|e| e.to_string())?;
    // ANCHOR: compose
    let pet_client = pets.clone();
    let composer = Composer::new("composed")
        .mount_lazy(
            "petstore",
            petstore::CATALOG_JSON,
            &petstore::CATALOG_INDEX,
            move |keep| petstore::registry_of(pet_client, keep),
        )
        .mount_lazy(
            "travel",
            train_travel::CATALOG_JSON,
            &train_travel::CATALOG_INDEX,
            move |keep| train_travel::registry_of(trains, keep),
        );
    let apis = composer
        .mounts()
        .filter_map(|(namespace, info)| {
            let info = info?;
            Some(Api {
                namespace: namespace.to_string(),
                name: info.name.to_string(),
                version: info.version.as_ref().map(ToString::to_string),
            })
        })
        .collect();
    Ok(composer
        .typed(pets_by_species_tool(pets))
        .typed(apis_tool(apis)))
    // ANCHOR_END: compose
}

/// The program's registry (the `registry` of `mcp::Program`): the composition, published with
/// the tools `keep` keeps.
pub fn registry(
    base_url: Option<String>,
    keep: &dyn Fn(&str) -> bool,
) -> Result<ToolRegistry, String> {
    composer(base_url)?
        .publish_kept(keep)
        .map_err(|e| e.to_string())
}

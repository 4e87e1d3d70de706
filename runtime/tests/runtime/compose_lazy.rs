//! Generated registries mounted by their catalog's index (`Composer::mount_lazy`): the same
//! registry as a whole mount, reading only the tools a publication keeps, with collisions still
//! found among the tools it does not read; and a composed CLI that lists every command without
//! reading an entry and reads only the entry of the command it runs.

use std::sync::{Arc, Mutex, OnceLock};

use harness_gen_runtime::catalog::index::{
    CatalogIndex, IndexedCommand, IndexedGroup, IndexedTool, Layout,
};
use harness_gen_runtime::{Audience, Catalog, Composer, ErrorCode, ToolRegistry};
use serde_json::{Value, json};

use crate::common::entry_with;
use crate::compose::{assert_has, choose, petstore_catalog, petstore_handlers};

/// The test pet store's catalog, its `pets` group also spelled `animals`.
fn catalog() -> Value {
    let mut catalog = petstore_catalog();
    catalog["cli"]["commands"][0]["aliases"] = json!(["animals"]);
    catalog
}

/// [`catalog`]'s text and an index of it, leaked once, as a generated crate holds them.
fn indexed() -> (&'static str, &'static CatalogIndex) {
    static INDEXED: OnceLock<(&'static str, &'static CatalogIndex)> = OnceLock::new();
    *INDEXED.get_or_init(|| {
        let leak = |text: &str| -> &'static str { Box::leak(text.to_string().into_boxed_str()) };
        let text = leak(&serde_json::to_string_pretty(&catalog()).unwrap());
        let layout = Layout::of(text).unwrap();
        let parsed = Catalog::from_json(text).unwrap();
        let words = |words: Vec<&str>| -> &'static [&'static str] {
            Box::leak(
                words
                    .into_iter()
                    .map(leak)
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            )
        };
        let tools: Vec<IndexedTool> = parsed
            .tools
            .iter()
            .zip(&layout.tools)
            .map(|(entry, at)| IndexedTool {
                name: leak(entry.name.as_str()),
                at: *at,
                enabled: true,
                command: Some(IndexedCommand {
                    path: words(entry.cli.command.words().collect()),
                    aliases: &[],
                    hidden: false,
                    title: leak(entry.command_title()),
                }),
            })
            .collect();
        let groups: Vec<IndexedGroup> = parsed
            .cli
            .iter()
            .flat_map(|cli| &cli.commands)
            .filter(|spec| !spec.aliases.is_empty())
            .map(|spec| IndexedGroup {
                path: words(spec.command.words().collect()),
                aliases: words(spec.aliases.iter().map(|a| a.as_str()).collect()),
            })
            .collect();
        let components: Vec<(&'static str, (usize, usize))> = layout
            .components
            .iter()
            .map(|(name, at)| (leak(name), *at))
            .collect();
        let index: &'static CatalogIndex = Box::leak(Box::new(CatalogIndex {
            info: layout.info,
            cli: layout.cli,
            groups: Box::leak(groups.into_boxed_slice()),
            tools: Box::leak(tools.into_boxed_slice()),
            components: Box::leak(components.into_boxed_slice()),
        }));
        (text, index)
    })
}

/// The tools each build read, by their names in the mounted catalog.
type Reads = Arc<Mutex<Vec<String>>>;

/// `composer` with the pet store mounted lazily under `petstore`, its reads noted in `reads`.
fn mount(composer: Composer, reads: &Reads) -> Composer {
    let (text, index) = indexed();
    let reads = Arc::clone(reads);
    composer.mount_lazy("petstore", text, index, move |keep| {
        let kept = index
            .tools
            .iter()
            .map(|tool| tool.name)
            .filter(|name| keep(name));
        reads.lock().unwrap().extend(kept.map(str::to_string));
        let catalog = Catalog::from_generated_index(text, index, keep)?;
        ToolRegistry::publish_generated(catalog, petstore_handlers())
    })
}

fn read(reads: &Reads) -> Vec<String> {
    reads.lock().unwrap().clone()
}

fn names(registry: &ToolRegistry) -> Vec<&str> {
    registry
        .entries()
        .map(|entry| entry.name.as_str())
        .collect()
}

fn component_names(registry: &ToolRegistry) -> Vec<&str> {
    let components = registry.components().into_iter().flatten();
    components.map(|(name, _)| name.as_str()).collect()
}

#[test]
fn a_lazy_mount_publishes_what_a_whole_mount_does() {
    let whole = ToolRegistry::publish(Catalog::from_value(catalog()).unwrap(), petstore_handlers())
        .unwrap();
    let mounted = Composer::new("shop")
        .mount("petstore", &whole)
        .typed(choose())
        .publish()
        .unwrap();
    let reads = Reads::default();
    let lazy = mount(Composer::new("shop"), &reads)
        .typed(choose())
        .publish()
        .unwrap();
    assert_eq!(read(&reads), ["get_pet", "list_pets"]);
    assert_eq!(
        serde_json::to_value(lazy.catalog()).unwrap(),
        serde_json::to_value(mounted.catalog()).unwrap()
    );
}

#[tokio::test]
async fn a_lazy_mount_reads_only_the_kept_tools_and_the_components_others_name() {
    let reads = Reads::default();
    let registry = mount(Composer::new("shop"), &reads)
        .typed(choose())
        .publish_kept(&|name| name == "choose")
        .unwrap();
    assert_eq!(read(&reads), Vec::<String>::new());
    assert_eq!(names(&registry), ["choose"]);
    // The typed tool names the generated `Species`: read for it, without any tool.
    assert_eq!(component_names(&registry), ["petstore.Species"]);
    let refused = registry
        .invoke(Audience::Mcp, "choose", json!({"species": "cow"}))
        .await;
    assert!(refused.is_err(), "the mounted component is followed");

    let reads = Reads::default();
    let registry = mount(Composer::new("shop"), &reads)
        .typed(choose())
        .publish_kept(&|name| name == "petstore_get_pet")
        .unwrap();
    assert_eq!(read(&reads), ["get_pet"]);
    assert_eq!(names(&registry), ["petstore_get_pet", "choose"]);
    assert_eq!(
        component_names(&registry),
        ["petstore.Pet", "petstore.Species"]
    );
    let pet = registry
        .invoke(Audience::Mcp, "petstore_get_pet", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(pet["name"], "Tom");
}

#[test]
fn the_listing_replays_renames_and_removals_and_an_edited_tool_is_always_read() {
    let reads = Reads::default();
    let composer = mount(Composer::new("shop"), &reads)
        .rename("petstore_list_pets", "pets")
        .edit("petstore_get_pet", |entry| {
            entry.cli.command = serde_json::from_value(json!(["fetch"])).unwrap();
        });
    let listing = composer.listing();
    let listed: Vec<(&str, Option<Vec<&str>>)> = listing
        .tools
        .iter()
        .map(|tool| {
            let path = tool.command.as_ref();
            let path = path.map(|command| command.path.iter().map(String::as_str).collect());
            (tool.name.as_str(), path)
        })
        .collect();
    assert_eq!(
        listed,
        [
            // An edit may change anything of the entry: the listing leaves its command to it.
            ("petstore_get_pet", None),
            ("pets", Some(vec!["petstore", "pets", "list"])),
        ]
    );
    assert_eq!(
        listing.groups,
        [(
            vec!["petstore".to_string(), "pets".to_string()],
            vec!["animals".to_string()]
        )]
    );
    let registry = composer.publish_kept(&|_| false).unwrap();
    assert_eq!(read(&reads), ["get_pet"]);
    assert_eq!(names(&registry), ["petstore_get_pet"]);
    let fetch = registry.lookup(Audience::Cli, "petstore_get_pet").unwrap();
    assert_eq!(fetch.cli.command.words().collect::<Vec<_>>(), ["fetch"]);
    // `petstore pets` keeps its title: a tool not read (`pets`) is still under it.
    let parents: Vec<String> = registry
        .cli_commands()
        .iter()
        .map(|spec| spec.command.words().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(parents, ["petstore", "petstore pets"]);
}

#[test]
fn a_collision_with_a_tool_not_read_is_found_from_the_index() {
    let reads = Reads::default();
    let same_name = entry_with(
        "petstore_list_pets",
        json!({"cli": {"command": ["mine"], "hidden": false}}),
    );
    let same_path = entry_with(
        "mine",
        json!({"cli": {"command": ["petstore", "pets", "list"], "hidden": false}}),
    );
    let handler = || crate::common::Answer::Echo.into_handler();
    let composer = mount(Composer::new("shop"), &reads)
        .tool(serde_json::from_value(same_name).unwrap(), handler())
        .tool(serde_json::from_value(same_path).unwrap(), handler());
    let errors = composer.publish_kept(&|_| false).unwrap_err();
    assert_eq!(read(&reads), Vec::<String>::new());
    assert_has(
        &errors,
        ErrorCode::DuplicateToolName,
        "tool `petstore_list_pets`",
        "also mount `petstore` tools[1] (`list_pets`)'s",
    );
    assert_has(
        &errors,
        ErrorCode::CliDuplicatePath,
        "tool `mine`",
        "`petstore pets list` is also mount `petstore` tools[1] (`list_pets`)'s",
    );
}

#[test]
fn a_mounted_crate_whose_registry_cannot_be_built_is_refused_with_its_errors() {
    let (text, index) = indexed();
    let refused = Composer::new("shop")
        .mount_lazy("petstore", text, index, |_| {
            Err(harness_gen_runtime::ContractErrors::one(
                harness_gen_runtime::ContractError::new(
                    ErrorCode::InvalidField,
                    "tools[0]",
                    "a catalog this runtime cannot read",
                ),
            ))
        })
        .typed(choose())
        .publish_kept(&|name| name == "petstore_get_pet")
        .unwrap_err();
    assert_has(
        &refused,
        ErrorCode::InvalidField,
        "tools[0]",
        "a catalog this runtime cannot read",
    );
}

/// The composed CLI: the pet store mounted lazily beside a typed tool.
#[cfg(feature = "cli")]
mod cli {
    use super::*;

    fn run(args: &[&str], reads: &Reads) -> (i32, String, String) {
        let make = |_: Option<String>| Ok(mount(Composer::new("shop"), reads).typed(choose()));
        let program = harness_gen_runtime::cli::Composed {
            name: "shop",
            version: "1.0.0",
            composer: &make,
        };
        let mut argv = vec!["shop".into()];
        argv.extend(args.iter().map(|a| (*a).into()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code =
            harness_gen_runtime::cli::run_composed(&program, argv, &mut out, &mut err, false);
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
        (code, text(out), text(err))
    }

    #[test]
    fn a_composed_cli_lists_every_command_without_reading_a_mounted_entry() {
        let reads = Reads::default();
        let (code, out, err) = run(&["--help"], &reads);
        assert_eq!(code, 0, "{err}");
        for command in ["petstore", "choose"] {
            assert!(out.contains(command), "{command} in {out}");
        }
        let (code, out, err) = run(&["petstore", "animals", "--help"], &reads);
        assert_eq!(code, 0, "{err}");
        for command in ["get", "list"] {
            assert!(out.contains(command), "{command} in {out}");
        }
        assert_eq!(read(&reads), Vec::<String>::new());
    }

    #[test]
    fn a_composed_cli_reads_only_the_entry_of_the_command_it_runs() {
        let reads = Reads::default();
        let (code, out, err) = run(&["petstore", "animals", "get", "--id", "1"], &reads);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Tom"), "{out}");
        assert_eq!(read(&reads), ["get_pet"]);

        // A typed tool naming the generated type reads no mounted tool, only its component.
        let reads = Reads::default();
        let (code, out, err) = run(&["choose", "--species", "cat"], &reads);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.trim(), "true");
        let (code, _, err) = run(&["choose", "--species", "cow"], &reads);
        assert_eq!(code, 2, "{err}");
        assert_eq!(read(&reads), Vec::<String>::new());
    }

    #[test]
    fn completions_of_a_composed_cli_read_every_entry() {
        let reads = Reads::default();
        let (code, _, err) = run(&["--completions", "bash"], &reads);
        assert_eq!(code, 0, "{err}");
        assert_eq!(read(&reads), ["get_pet", "list_pets"]);
    }
}

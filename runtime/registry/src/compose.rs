//! One registry from several sources: generated registries mounted under a namespace, tools
//! written in Rust, and transforms applied before publishing. The result is a registry like
//! any other, so every projection (CLI, MCP server, dashboard, agent surface, catalog) serves
//! it; publishing runs every rule a generated catalog passed, and every collision between
//! sources (a tool name, a command path, a component) is a located error, never an overwrite.
//!
//! A mount under `petstore` prefixes each tool's name (`petstore_get_pet`), its command path
//! (`petstore pets get`), the API's parent commands (and adds `petstore` itself, titled from the
//! catalog's info) and its components (`petstore.Pet`, every `$ref` rewritten). Each mounted
//! registry keeps its handlers, so each API keeps its own client: its base URL and credentials.
//!
//! ```
//! use harness_gen_registry::{Composer, Handler, ToolRegistry};
//! use harness_gen_contract::catalog::Entry;
//! # use serde_json::json;
//! # fn entry(name: &str) -> Entry {
//! #     serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"},
//! #         "governance": {"audiences": ["cli", "mcp"]}, "cli": {"command": [name], "hidden": false},
//! #         "deferLoading": false})).unwrap()
//! # }
//! let handler = || Handler::new(|_| async { Ok(json!("ok")) });
//! let api = ToolRegistry::builder().tool(entry("status"), handler()).build()?;
//! let registry = Composer::new("ops")
//!     .mount("billing", &api)
//!     .mount("shipping", &api)
//!     .tool(entry("status"), handler())
//!     .rename("shipping_status", "parcels")
//!     .publish()?;
//! let names: Vec<_> = registry.entries().map(|e| e.name.as_str()).collect();
//! assert_eq!(names, ["billing_status", "parcels", "status"]);
//!
//! // The same API twice without a namespace of its own: refused, located.
//! let clash = Composer::new("ops").mount("billing", &api).mount("billing", &api).publish();
//! assert!(clash.unwrap_err().to_string().contains("HR0201"));
//! # Ok::<(), harness_gen_wire::ContractErrors>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::catalog::index::CatalogIndex;
use crate::catalog::{
    Audience, Audiences, Catalog, CliTree, CommandPath, CommandSegment, CommandSpec, Components,
    Entry, Info, NonBlank, SchemaDoc,
};
use crate::schema::standalone::{COMPONENT_PREFIX, RefTarget, classify};
use crate::schema::{escape, percent_encode_fragment, visit, visit_mut};
use crate::{Handler, ToolRegistry};
use harness_gen_wire::error::{ContractError, ContractErrors, ErrorCode};

/// The key beside a `$ref` that says which generated catalog the referenced component belongs
/// to (`{"$ref": "#/components/schemas/Pet", "x-harn-catalog": "petstore"}`): what a generated
/// crate's types say of themselves as schemas ([`catalog_ref`]), resolved when the catalog is
/// mounted in the same registry.
pub const CATALOG_REF_KEY: &str = "x-harn-catalog";

/// The schema of component `component` of the generated catalog named `catalog` (its
/// `info.name`): a reference that [`Composer::publish`] points at that component where the
/// catalog is mounted. Generated types' `JsonSchema` implementations return it.
pub fn catalog_ref(catalog: &str, component: &str) -> Value {
    let mut map = Map::new();
    map.insert("$ref".into(), component_ref(component).into());
    map.insert(CATALOG_REF_KEY.into(), catalog.into());
    Value::Object(map)
}

fn component_ref(name: &str) -> String {
    format!(
        "#{}",
        percent_encode_fragment(&format!("{}{}", &COMPONENT_PREFIX[1..], escape(name)))
    )
}

/// The base URLs a program that mounts several APIs is given with `--base-url`: `NAME=URL`
/// pairs separated by commas (`petstore=http://localhost:4010,travel=http://localhost:4011`),
/// each `NAME` one of `namespaces`; an API not named keeps its own (its environment variable,
/// else its description's server). `Err` says what is wrong, without the URLs.
pub fn base_urls(
    given: Option<&str>,
    namespaces: &[&str],
) -> Result<BTreeMap<String, String>, String> {
    let mut urls = BTreeMap::new();
    for pair in given.into_iter().flat_map(|given| given.split(',')) {
        let Some((name, url)) = pair.split_once('=').map(|(n, u)| (n.trim(), u.trim())) else {
            return Err(format!(
                "--base-url takes NAME=URL pairs separated by commas, NAME one of the APIs this program mounts: {}",
                namespaces.join(", ")
            ));
        };
        if !namespaces.contains(&name) {
            return Err(format!(
                "--base-url names `{name}`, which this program does not mount; the APIs are: {}",
                namespaces.join(", ")
            ));
        }
        if urls.insert(name.to_string(), url.to_string()).is_some() {
            return Err(format!("--base-url gives `{name}` twice"));
        }
    }
    Ok(urls)
}

/// Builds one registry from several sources; see the [module](self) documentation.
pub struct Composer {
    info: Option<Info>,
    tools: Vec<Part>,
    /// Generated registries mounted by their index, built when the composition is published
    /// (their tools go at `Lazy::at` among `tools`).
    lazy: Vec<Lazy>,
    components: BTreeMap<String, (Value, String)>,
    commands: Vec<CommandSpec>,
    /// Each mount's namespace and its catalog's info, in order.
    mounts: Vec<(String, Option<Info>)>,
    /// Generated catalog name → the namespace it is mounted under (`None`: under several).
    mounted: BTreeMap<String, Option<String>>,
    transforms: Vec<(String, Transform)>,
    problems: Vec<ContractError>,
}

/// How a lazily mounted registry is built, given which of its tools to read.
type Build = Box<dyn FnOnce(&dyn Fn(&str) -> bool) -> Result<ToolRegistry, ContractErrors>>;

/// A generated registry mounted by its catalog's index ([`Composer::mount_lazy`]).
struct Lazy {
    namespace: String,
    segment: CommandSegment,
    text: &'static str,
    index: &'static CatalogIndex,
    build: Build,
    /// How many tools of other sources come before its own.
    at: usize,
}

/// A tool of a composition as its command line lists it, known before its entry is read
/// ([`Composer::listing`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// Its name, as published.
    pub name: String,
    /// Its command. `None` when the CLI audience does not have it, or when a transform
    /// (`edit`, `audiences`) may change it: such a tool's entry is read whatever the command
    /// line names, and its command is the entry's.
    pub command: Option<ListedCommand>,
}

/// A command of a [`Listed`] tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedCommand {
    /// Its path.
    pub path: Vec<String>,
    /// Other spellings of its last segment.
    pub aliases: Vec<String>,
    /// Hidden from help.
    pub hidden: bool,
    /// The line lists show ([`Entry::command_title`]).
    pub title: String,
}

/// The tools of a composition and the parent commands with other spellings, known before any
/// lazily mounted entry is read: what a command line is matched against.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Listing {
    /// The tools, in order.
    pub tools: Vec<Listed>,
    /// Each parent command that has aliases: its path and its aliases.
    pub groups: Vec<(Vec<String>, Vec<String>)>,
}

/// A tool of the composition while the transforms are replayed on names alone.
struct Replayed {
    /// Its name now.
    name: String,
    /// Its command before any transform, when the CLI audience has it.
    command: Option<ListedCommand>,
    /// Where it came from (for errors).
    from: String,
    /// Its lazy mount and its name there, when it is a lazily mounted tool.
    lazy: Option<(usize, &'static str)>,
    removed: bool,
    /// A transform may change its entry beyond its name: it is always read.
    read: bool,
}

/// The composition's tools with every rename and removal replayed, and which tool each
/// transform applies to (`None`: no tool of its name at that point).
struct Replay {
    tools: Vec<Replayed>,
    targets: Vec<Option<usize>>,
}

/// One tool on its way into the registry, and where it came from (for errors).
struct Part {
    entry: Entry,
    handler: Handler,
    from: String,
}

enum Transform {
    Rename(String),
    Remove,
    Audiences(Vec<Audience>),
    Edit(Box<dyn FnOnce(&mut Entry)>),
    Fix(String, Value),
    Wrap(Box<dyn FnOnce(Handler) -> Handler>),
}

impl Composer {
    /// A registry named `name` (its catalog's `info.name`).
    pub fn new(name: &str) -> Self {
        let mut problems = Vec::new();
        let info = match NonBlank::new(name) {
            Ok(name) => Some(Info {
                name,
                version: None,
                description: None,
            }),
            Err(_) => {
                problems.push(ContractError::new(
                    ErrorCode::InvalidField,
                    "info.name",
                    "a registry's name must not be blank",
                ));
                None
            }
        };
        Self {
            info,
            tools: Vec::new(),
            lazy: Vec::new(),
            components: BTreeMap::new(),
            commands: Vec::new(),
            mounts: Vec::new(),
            mounted: BTreeMap::new(),
            transforms: Vec::new(),
            problems,
        }
    }

    /// Sets what the registry is (its name, version and description).
    pub fn info(mut self, info: Info) -> Self {
        self.info = Some(info);
        self
    }

    /// Mounts every tool of `registry` under `namespace` (a command word: lowercase letters,
    /// digits and `-`): names, command paths and components prefixed, references rewritten,
    /// handlers kept.
    pub fn mount(mut self, namespace: &str, registry: &ToolRegistry) -> Self {
        let Some(segment) = self.namespace(namespace) else {
            return self;
        };
        let renamed = renamed(
            namespace,
            registry
                .components()
                .into_iter()
                .flatten()
                .map(|(name, _)| name.as_str()),
        );
        let from = format!("mount `{namespace}`");
        let tools = self.mount_tools((namespace, &segment), registry, &renamed, |i, _| {
            format!("{from} tools[{i}]")
        });
        self.tools.extend(tools);
        let parents = registry.cli_commands().to_vec();
        self.mount_head(namespace, &segment, registry.info().cloned(), parents);
        self
    }

    /// Mounts the generated registry `build` makes under `namespace`, as [`Composer::mount`]
    /// does, reading only the tools publishing keeps ([`Composer::publish_kept`]): `text` and
    /// `index` are the generated crate's `CATALOG_JSON` and `CATALOG_INDEX`, and `build` is
    /// called once, with which tools (by their names in that catalog) to read, typically
    /// `|keep| petstore::registry_of(client, keep)`. The command line lists the mounted tools
    /// from the index, so a composed CLI, like a generated one, reads only the entry it runs.
    pub fn mount_lazy(
        mut self,
        namespace: &str,
        text: &'static str,
        index: &'static CatalogIndex,
        build: impl FnOnce(&dyn Fn(&str) -> bool) -> Result<ToolRegistry, ContractErrors> + 'static,
    ) -> Self {
        let Some(segment) = self.namespace(namespace) else {
            return self;
        };
        let Some((info, cli)) = index.read_head(text) else {
            // The text is not the one the index was made from (line endings converted by a
            // checkout, say): mounted whole, as its own registry reads it.
            return match build(&|_| true) {
                Ok(registry) => self.mount(namespace, &registry),
                Err(errors) => {
                    self.problems.extend(errors.as_slice().iter().cloned());
                    self
                }
            };
        };
        self.mount_head(
            namespace,
            &segment,
            info,
            cli.map(|cli| cli.commands).unwrap_or_default(),
        );
        self.lazy.push(Lazy {
            namespace: namespace.to_string(),
            segment,
            text,
            index,
            build: Box::new(build),
            at: self.tools.len(),
        });
        self
    }

    /// The namespaces mounted so far and their catalogs' info, in order.
    pub fn mounts(&self) -> impl Iterator<Item = (&str, Option<&Info>)> {
        self.mounts
            .iter()
            .map(|(namespace, info)| (namespace.as_str(), info.as_ref()))
    }

    /// `namespace` as a command word, or a located problem.
    fn namespace(&mut self, namespace: &str) -> Option<CommandSegment> {
        match CommandSegment::new(namespace) {
            Ok(segment)
                if namespace
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') =>
            {
                Some(segment)
            }
            _ => {
                self.problems.push(ContractError::new(
                    ErrorCode::InvalidField,
                    format!("mount `{namespace}`"),
                    "a namespace is a command word: lowercase letters, digits and `-`, starting with a letter or digit",
                ));
                None
            }
        }
    }

    /// A mount's parent commands (`namespace` itself, titled from the catalog's info, and the
    /// catalog's own below it) and its catalog's name.
    fn mount_head(
        &mut self,
        namespace: &str,
        segment: &CommandSegment,
        info: Option<Info>,
        parents: Vec<CommandSpec>,
    ) {
        self.commands.push(CommandSpec {
            command: CommandPath::new(vec![segment.clone()]).expect("one segment"),
            title: info.as_ref().map(|info| info.name.clone()),
            description: info
                .as_ref()
                .and_then(|info| info.description.as_ref())
                .and_then(|text| {
                    NonBlank::new(text.lines().next().unwrap_or_default().trim()).ok()
                }),
            aliases: Vec::new(),
            hidden: false,
            display_order: None,
        });
        for mut spec in parents {
            spec.command = prefixed(segment, &spec.command);
            self.commands.push(spec);
        }
        if let Some(info) = &info {
            self.mounted
                .entry(info.name.to_string())
                .and_modify(|namespace| *namespace = None)
                .or_insert_with(|| Some(namespace.to_string()));
        }
        self.mounts.push((namespace.to_string(), info));
    }

    /// `registry`'s tools and components under `namespace`: names, paths and components
    /// prefixed, references rewritten by `renamed`; `from(i, name)` says where tool `i` came
    /// from. The components go into the composition, the tools are returned.
    fn mount_tools(
        &mut self,
        (namespace, segment): (&str, &CommandSegment),
        registry: &ToolRegistry,
        renamed: &BTreeMap<String, String>,
        from: impl Fn(usize, &str) -> String,
    ) -> Vec<Part> {
        for (name, schema) in registry.components().into_iter().flatten() {
            let at = format!("mount `{namespace}` component `{name}`");
            self.add_component(
                renamed[name].clone(),
                rewritten(schema.as_value(), renamed),
                at,
            );
        }
        registry
            .live_tools()
            .enumerate()
            .map(|(i, tool)| {
                let mut entry = tool.entry.clone();
                let at = format!("{} (`{}`)", from(i, entry.name.as_str()), entry.name);
                entry.name =
                    NonBlank::new(format!("{namespace}_{}", entry.name)).expect("not blank");
                entry.cli.command = prefixed(segment, &entry.cli.command);
                let mount = match entry.mount() {
                    Some(inner) => format!("{namespace}.{inner}"),
                    None => namespace.to_string(),
                };
                entry.set_mount(&mount);
                entry.input_schema = rewritten(entry.input_schema.as_value(), renamed)
                    .try_into()
                    .expect("a renamed reference leaves an object schema an object schema");
                for schema in [&mut entry.output_schema, &mut entry.error_schema]
                    .into_iter()
                    .flatten()
                {
                    *schema = SchemaDoc::new(rewritten(schema.as_value(), renamed))
                        .expect("still a schema");
                }
                Part {
                    entry,
                    handler: tool.handler.clone(),
                    from: at,
                }
            })
            .collect()
    }

    /// Adds a tool with its handler; `$ref`s in its schemas point at components added with
    /// [`Composer::component`], or at a mounted catalog's ([`catalog_ref`]).
    pub fn tool(mut self, entry: Entry, handler: Handler) -> Self {
        let from = format!("tool `{}`", entry.name);
        self.tools.push(Part {
            entry,
            handler,
            from,
        });
        self
    }

    /// Adds a named component schema.
    pub fn component(mut self, name: &str, schema: SchemaDoc) -> Self {
        let at = format!("component `{name}`");
        self.add_component(name.to_string(), schema.into(), at);
        self
    }

    /// Adds a tool written in Rust, with the components its schemas reference.
    #[cfg(feature = "typed")]
    pub fn typed(mut self, tool: crate::typed::TypedTool) -> Self {
        let crate::typed::TypedTool {
            entry,
            handler,
            components,
            problems,
        } = tool;
        self.problems.extend(problems);
        for (name, schema) in components {
            let at = format!("tool `{}` component `{name}`", entry.name);
            self.add_component(name, schema, at);
        }
        self.tool(entry, handler)
    }

    /// Renames the tool `tool` (its name as composed so far) to `to`.
    pub fn rename(self, tool: &str, to: &str) -> Self {
        self.transform(tool, Transform::Rename(to.to_string()))
    }

    /// Leaves the tool `tool` out of the registry.
    pub fn remove(self, tool: &str) -> Self {
        self.transform(tool, Transform::Remove)
    }

    /// Sets the projections that may expose the tool `tool`.
    pub fn audiences(self, tool: &str, audiences: &[Audience]) -> Self {
        self.transform(tool, Transform::Audiences(audiences.to_vec()))
    }

    /// Changes the tool `tool`'s entry (its description, command path, annotations, …).
    /// Publishing checks the result like any entry.
    pub fn edit(self, tool: &str, edit: impl FnOnce(&mut Entry) + 'static) -> Self {
        self.transform(tool, Transform::Edit(Box::new(edit)))
    }

    /// Fixes the argument `argument` of the tool `tool` to `value`: it leaves the input schema
    /// (and the command line), and every call gets `value` for it. The value is checked against
    /// the argument's schema when the registry is published.
    pub fn fix_argument(self, tool: &str, argument: &str, value: Value) -> Self {
        self.transform(tool, Transform::Fix(argument.to_string(), value))
    }

    /// Wraps the handler of the tool `tool`: `wrap` receives it and returns the handler calls
    /// get (which may call the original, changing its input or output). Change the schemas with
    /// [`Composer::edit`] to match what the wrapper takes and returns.
    pub fn wrap(self, tool: &str, wrap: impl FnOnce(Handler) -> Handler + 'static) -> Self {
        self.transform(tool, Transform::Wrap(Box::new(wrap)))
    }

    /// Replaces the handler of the tool `tool`, keeping its entry.
    pub fn replace(self, tool: &str, handler: Handler) -> Self {
        self.wrap(tool, move |_| handler)
    }

    fn transform(mut self, tool: &str, transform: Transform) -> Self {
        self.transforms.push((tool.to_string(), transform));
        self
    }

    fn add_component(&mut self, name: String, schema: Value, from: String) {
        match self.components.get(&name) {
            Some((known, _)) if *known == schema => {}
            Some((_, first)) => self.problems.push(ContractError::new(
                ErrorCode::DuplicateComponent,
                from,
                format!("the component `{name}` is also given by {first}, with another schema: rename the type of one of them"),
            )),
            None => {
                self.components.insert(name, (schema, from));
            }
        }
    }

    /// The composition's tools as a command line lists them, every rename and removal
    /// applied, lazily mounted ones ([`Composer::mount_lazy`]) from their index: no entry is
    /// read. A command line matched against it names the tools [`Composer::publish_kept`]
    /// needs to read.
    pub fn listing(&self) -> Listing {
        let tools = self
            .replay()
            .tools
            .into_iter()
            .filter(|tool| !tool.removed)
            .map(|tool| Listed {
                name: tool.name,
                command: if tool.read { None } else { tool.command },
            })
            .collect();
        let groups = self
            .commands
            .iter()
            .filter(|spec| !spec.aliases.is_empty())
            .map(|spec| (owned_words(&spec.command), strings(&spec.aliases)))
            .collect();
        Listing { tools, groups }
    }

    /// Applies the transforms in order, checks that no two sources collide, and publishes
    /// the registry (every publish-time rule of [`ToolRegistry::publish`]).
    pub fn publish(self) -> Result<ToolRegistry, ContractErrors> {
        self.publish_kept(&|_| true)
    }

    /// Publishes as [`Composer::publish`] does, reading of each lazily mounted registry only
    /// the tools `keep` keeps (by their published names) and those a transform may change
    /// beyond their name: the registry has only those, and the others are checked for
    /// collisions from their index. Tools of other sources are always kept.
    pub fn publish_kept(
        mut self,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<ToolRegistry, ContractErrors> {
        let replay = self.replay();
        let read = |tool: &Replayed| !tool.removed && (tool.read || keep(&tool.name));
        if let Err(errors) = self.read_lazy(&replay, &read) {
            // A mounted crate's registry could not be built: what it would have added is not
            // there to check.
            let mut problems = std::mem::take(&mut self.problems);
            problems.extend(errors.as_slice().iter().cloned());
            return Err(ContractErrors::check(problems).err().unwrap_or(errors));
        }
        let transforms = std::mem::take(&mut self.transforms);
        for (i, ((name, transform), target)) in
            transforms.into_iter().zip(&replay.targets).enumerate()
        {
            // A lazily mounted tool that is not read has nothing for its transforms to change.
            let unread = target
                .map(|target| &replay.tools[target])
                .is_some_and(|tool| tool.lazy.is_some() && !read(tool));
            if !unread {
                self.apply(i, &name, transform);
            }
        }
        let not_read = |tool: &Replayed| tool.lazy.is_some() && !read(tool);
        let unread: Vec<&Replayed> = replay
            .tools
            .iter()
            .filter(|tool| !tool.removed && not_read(tool))
            .collect();
        self.resolve_catalog_refs();
        self.check_collisions(&replay, &not_read);
        ContractErrors::check(std::mem::take(&mut self.problems))?;
        // Parent commands left without a command under them (every tool of a group removed,
        // moved or taken out of the CLI audience) are left out, so the CLI shows no empty group.
        let paths: Vec<Vec<&str>> = self
            .tools
            .iter()
            .filter(|part| part.entry.allows(Audience::Cli))
            .map(|part| part.entry.cli.command.words().collect())
            .chain(unread.iter().filter_map(|tool| {
                let command = tool.command.as_ref()?;
                Some(command.path.iter().map(String::as_str).collect())
            }))
            .collect();
        self.commands.retain(|spec| {
            let parent: Vec<&str> = spec.command.words().collect();
            paths
                .iter()
                .any(|path| path.len() > parent.len() && path.starts_with(&parent))
        });
        let mut handlers = BTreeMap::new();
        let mut entries = Vec::with_capacity(self.tools.len());
        for part in self.tools {
            handlers.insert(part.entry.name.to_string(), part.handler);
            entries.push(part.entry);
        }
        let schemas = self
            .components
            .into_iter()
            .map(|(name, (schema, _))| SchemaDoc::new(schema).map(|doc| (name, doc)))
            .collect::<Result<BTreeMap<_, _>, _>>()
            .map_err(|why| {
                ContractErrors::one(ContractError::new(
                    ErrorCode::InvalidSchema,
                    "components",
                    why.to_string(),
                ))
            })?;
        let catalog = Catalog {
            info: self.info,
            cli: (!self.commands.is_empty()).then_some(CliTree {
                commands: self.commands,
            }),
            components: (!schemas.is_empty()).then_some(Components { schemas }),
            ..Catalog::new(entries)
        };
        ToolRegistry::publish(catalog, handlers)
    }

    /// The composition's tools in order, lazily mounted ones from their index, with the
    /// transforms replayed on their names.
    fn replay(&self) -> Replay {
        let listed = |entry: &Entry| {
            entry.allows(Audience::Cli).then(|| ListedCommand {
                path: owned_words(&entry.cli.command),
                aliases: strings(&entry.cli.aliases),
                hidden: entry.cli.hidden,
                title: entry.command_title().to_string(),
            })
        };
        let part = |part: &Part| Replayed {
            name: part.entry.name.to_string(),
            command: listed(&part.entry),
            from: part.from.clone(),
            lazy: None,
            removed: false,
            read: false,
        };
        let mut tools = Vec::new();
        let mut next = 0;
        for (m, lazy) in self.lazy.iter().enumerate() {
            tools.extend(self.tools[next..lazy.at].iter().map(part));
            next = lazy.at;
            for (i, tool) in lazy.index.tools.iter().enumerate() {
                if !tool.enabled {
                    continue;
                }
                let command = tool.command.as_ref().map(|command| ListedCommand {
                    path: std::iter::once(lazy.namespace.as_str())
                        .chain(command.path.iter().copied())
                        .map(str::to_string)
                        .collect(),
                    aliases: command.aliases.iter().map(|a| a.to_string()).collect(),
                    hidden: command.hidden,
                    title: command.title.to_string(),
                });
                tools.push(Replayed {
                    name: format!("{}_{}", lazy.namespace, tool.name),
                    command,
                    from: format!("mount `{}` tools[{i}] (`{}`)", lazy.namespace, tool.name),
                    lazy: Some((m, tool.name)),
                    removed: false,
                    read: false,
                });
            }
        }
        tools.extend(self.tools[next..].iter().map(part));
        let targets = self
            .transforms
            .iter()
            .map(|(name, transform)| {
                let target = tools
                    .iter()
                    .position(|tool| !tool.removed && tool.name == *name)?;
                let tool = &mut tools[target];
                match transform {
                    Transform::Rename(to) => tool.name.clone_from(to),
                    Transform::Remove => tool.removed = true,
                    Transform::Audiences(_) | Transform::Edit(_) => tool.read = true,
                    Transform::Fix(..) | Transform::Wrap(_) => {}
                }
                Some(target)
            })
            .collect();
        Replay { tools, targets }
    }

    /// Builds each lazily mounted registry with the tools `read` reads, and puts its tools in
    /// their place, its components (with those other sources reference) among the others.
    /// A build's failure ends it.
    fn read_lazy(
        &mut self,
        replay: &Replay,
        read: &dyn Fn(&Replayed) -> bool,
    ) -> Result<(), ContractErrors> {
        let lazy = std::mem::take(&mut self.lazy);
        let referenced = self.referenced(&lazy);
        // From the last, so that the places of the earlier ones stay where they were.
        for (m, (mount, referenced)) in lazy.into_iter().zip(referenced).enumerate().rev() {
            let reads: BTreeSet<&str> = replay
                .tools
                .iter()
                .filter(|tool| read(tool))
                .filter_map(|tool| tool.lazy.filter(|(k, _)| *k == m).map(|(_, name)| name))
                .collect();
            let registry = (mount.build)(&|name| reads.contains(name))?;
            let namespace = mount.namespace.as_str();
            let renamed = renamed(
                namespace,
                mount.index.components.iter().map(|(name, _)| *name),
            );
            let position = |name: &str| mount.index.tools.iter().position(|tool| tool.name == name);
            let tools = self.mount_tools(
                (namespace, &mount.segment),
                &registry,
                &renamed,
                |i, name| format!("mount `{namespace}` tools[{}]", position(name).unwrap_or(i)),
            );
            if !referenced.is_empty() {
                let schemas = mount
                    .index
                    .read_components(mount.text, referenced)
                    .or_else(|| {
                        let whole = Catalog::from_json(mount.text).ok()?;
                        Some(whole.components?.schemas)
                    })
                    .unwrap_or_default();
                for (name, schema) in schemas {
                    let at = format!("mount `{namespace}` component `{name}`");
                    let target = renamed
                        .get(&name)
                        .cloned()
                        .unwrap_or_else(|| format!("{namespace}.{name}"));
                    self.add_component(target, rewritten(schema.as_value(), &renamed), at);
                }
            }
            self.tools.splice(mount.at..mount.at, tools);
        }
        Ok(())
    }

    /// For each lazy mount, the components of its catalog that the other sources' schemas
    /// reference: through [`catalog_ref`], or as `namespace.Name`.
    fn referenced(&self, lazy: &[Lazy]) -> Vec<Vec<String>> {
        let mut referenced = vec![Vec::new(); lazy.len()];
        let mut note = |schema: &Value| {
            visit(schema, &mut |_, map| {
                let Some(RefTarget::Component { name, .. }) =
                    map.get("$ref").and_then(Value::as_str).map(classify)
                else {
                    return;
                };
                let (namespace, name) = match map.get(CATALOG_REF_KEY).and_then(Value::as_str) {
                    Some(catalog) => match self.mounted.get(catalog) {
                        Some(Some(namespace)) => (namespace.as_str(), name),
                        _ => return,
                    },
                    None => match name.split_once('.') {
                        Some((namespace, name)) => {
                            match lazy.iter().find(|mount| mount.namespace == namespace) {
                                Some(mount) => (mount.namespace.as_str(), name.to_string()),
                                None => return,
                            }
                        }
                        None => return,
                    },
                };
                if let Some(m) = lazy.iter().position(|mount| mount.namespace == namespace) {
                    referenced[m].push(name);
                }
            });
        };
        for part in &self.tools {
            note(part.entry.input_schema.as_value());
            for schema in [&part.entry.output_schema, &part.entry.error_schema]
                .into_iter()
                .flatten()
            {
                note(schema.as_value());
            }
        }
        for (schema, _) in self.components.values() {
            note(schema);
        }
        referenced
    }

    fn apply(&mut self, i: usize, name: &str, transform: Transform) {
        let at = format!("transforms[{i}] (`{name}`)");
        let Some(position) = self
            .tools
            .iter()
            .position(|part| part.entry.name.as_str() == name)
        else {
            self.problems.push(ContractError::new(
                ErrorCode::UnknownTool,
                at,
                format!("no tool is named `{name}` at this point: name tools as composed (a mounted tool with its namespace, `petstore_get_pet`; a renamed one by its new name)"),
            ));
            return;
        };
        let part = &mut self.tools[position];
        match transform {
            Transform::Rename(to) => match NonBlank::new(to) {
                Ok(to) => {
                    part.entry.name = to;
                    part.from = format!("{} renamed by {at}", part.from);
                }
                Err(_) => self.problems.push(ContractError::new(
                    ErrorCode::InvalidField,
                    at,
                    "a tool's new name must not be blank",
                )),
            },
            Transform::Remove => {
                self.tools.remove(position);
            }
            Transform::Audiences(audiences) => match Audiences::from_any(audiences) {
                Ok(audiences) => part.entry.governance.audiences = audiences,
                Err(why) => self.problems.push(ContractError::new(
                    ErrorCode::InvalidField,
                    at,
                    format!("the audiences {why}: name at least one of cli, mcp, catalog, dashboard, agent, or remove the tool"),
                )),
            },
            Transform::Edit(edit) => edit(&mut part.entry),
            Transform::Wrap(wrap) => {
                let original = part.handler.clone();
                part.handler = wrap(original);
            }
            Transform::Fix(argument, value) => {
                if let Err(why) = fix(part, &argument, value, &self.components) {
                    self.problems
                        .push(ContractError::new(ErrorCode::InvalidField, at, why));
                }
            }
        }
    }

    /// Points every reference to a generated catalog's component ([`catalog_ref`]) at that
    /// component where the catalog is mounted.
    fn resolve_catalog_refs(&mut self) {
        let mounted = &self.mounted;
        let mut problems = Vec::new();
        let mut resolve = |schema: &mut Value, at: &str| {
            visit_mut(schema, &mut |map| {
                let Some(catalog) = map.remove(CATALOG_REF_KEY) else {
                    return;
                };
                let catalog = catalog.as_str().unwrap_or_default().to_string();
                let reference = map.get("$ref").and_then(Value::as_str).map(classify);
                let (Some(RefTarget::Component { name, rest }), Some(Some(namespace))) =
                    (reference, mounted.get(&catalog))
                else {
                    let why = match mounted.get(&catalog) {
                        Some(None) => format!(
                            "it names a type of the catalog `{catalog}`, which is mounted more than once: which mount it means is ambiguous; mount it once, or write the schema yourself"
                        ),
                        _ => format!(
                            "it names a type of the generated catalog `{catalog}`, which is not mounted: mount that crate's registry in the same composition"
                        ),
                    };
                    problems.push(ContractError::new(
                        ErrorCode::UnmountedCatalog,
                        at.to_string(),
                        why,
                    ));
                    return;
                };
                let target = format!("{}{rest}", component_ref(&format!("{namespace}.{name}")));
                map.insert("$ref".into(), target.into());
            });
        };
        for part in &mut self.tools {
            let mut input = part.entry.input_schema.as_value().clone();
            resolve(&mut input, &format!("{}.inputSchema", part.from));
            part.entry.input_schema = input.try_into().expect("an object schema stays one");
            for (schema, slot) in [
                (&mut part.entry.output_schema, "outputSchema"),
                (&mut part.entry.error_schema, "errorSchema"),
            ] {
                if let Some(doc) = schema {
                    let mut value = doc.as_value().clone();
                    resolve(&mut value, &format!("{}.{slot}", part.from));
                    *doc = SchemaDoc::new(value).expect("still a schema");
                }
            }
        }
        for (name, (schema, from)) in &mut self.components {
            resolve(schema, &format!("{from} (`{name}`)"));
        }
        self.problems.extend(problems);
    }

    /// Two tools of one name, or of one command path: each a located error naming both
    /// sources, the later one where it is. `replay` is the whole composition in order; those
    /// of its tools `unread` says were not read are checked as their index lists them.
    fn check_collisions(&mut self, replay: &Replay, unread: &dyn Fn(&Replayed) -> bool) {
        let mut names: BTreeMap<&str, &str> = BTreeMap::new();
        let mut paths: BTreeMap<Vec<&str>, &str> = BTreeMap::new();
        // The tools read are `self.tools`, in the order of the composition.
        let mut parts = self.tools.iter();
        let tools = replay
            .tools
            .iter()
            .filter(|tool| !tool.removed)
            .filter_map(|tool| {
                if unread(tool) {
                    let path = tool
                        .command
                        .as_ref()
                        .map(|command| command.path.iter().map(String::as_str).collect());
                    return Some((tool.name.as_str(), path, tool.from.as_str()));
                }
                let part = parts.next()?;
                let path = part
                    .entry
                    .allows(Audience::Cli)
                    .then(|| part.entry.cli.command.words().collect::<Vec<_>>());
                Some((part.entry.name.as_str(), path, part.from.as_str()))
            });
        for (name, path, from) in tools {
            if let Some(first) = names.insert(name, from) {
                self.problems.push(ContractError::new(
                    ErrorCode::DuplicateToolName,
                    from.to_string(),
                    format!("the tool name `{name}` is also {first}'s: rename one of them (`Composer::rename`) or mount under another namespace"),
                ));
            }
            let Some(path) = path else {
                continue;
            };
            let shown = path.join(" ");
            if let Some(first) = paths.insert(path, from) {
                self.problems.push(ContractError::new(
                    ErrorCode::CliDuplicatePath,
                    from.to_string(),
                    format!("the command `{shown}` is also {first}'s: give one of them another path (`Composer::edit`, `entry.cli.command`)"),
                ));
            }
        }
    }
}

/// `path` below `namespace`.
fn prefixed(namespace: &CommandSegment, path: &CommandPath) -> CommandPath {
    let mut segments = vec![namespace.clone()];
    segments.extend(path.segments().iter().cloned());
    CommandPath::new(segments).expect("a longer path is still a path")
}

/// Each of `names` (a catalog's components) and its name mounted under `namespace`.
fn renamed<'a>(namespace: &str, names: impl Iterator<Item = &'a str>) -> BTreeMap<String, String> {
    names
        .map(|name| (name.to_string(), format!("{namespace}.{name}")))
        .collect()
}

/// `schema` with every reference to a component of `renamed` pointing at its new name.
fn rewritten(schema: &Value, renamed: &BTreeMap<String, String>) -> Value {
    let mut schema = schema.clone();
    rename_refs(&mut schema, renamed);
    schema
}

/// A command path's words.
fn owned_words(path: &CommandPath) -> Vec<String> {
    path.words().map(str::to_string).collect()
}

fn strings(segments: &[CommandSegment]) -> Vec<String> {
    segments.iter().map(|s| s.as_str().to_string()).collect()
}

/// Points every `$ref` to a component of `renamed` at its new name.
fn rename_refs(schema: &mut Value, renamed: &BTreeMap<String, String>) {
    visit_mut(schema, &mut |map| {
        let Some(RefTarget::Component { name, rest }) =
            map.get("$ref").and_then(Value::as_str).map(classify)
        else {
            return;
        };
        if let Some(new) = renamed.get(&name) {
            map.insert(
                "$ref".into(),
                format!("{}{}", component_ref(new), percent_encode_fragment(&rest)).into(),
            );
        }
    });
}

/// Fixes `argument` of `part`'s tool to `value`: out of its input schema and command line,
/// checked against its schema, merged into every call's input.
fn fix(
    part: &mut Part,
    argument: &str,
    value: Value,
    components: &BTreeMap<String, (Value, String)>,
) -> Result<(), String> {
    let mut input = part.entry.input_schema.as_value().clone();
    let Some(property) = input
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .and_then(|properties| properties.remove(argument))
    else {
        return Err(format!(
            "the tool has no input property `{argument}` to fix: name one of its `inputSchema.properties`"
        ));
    };
    let lookup = |name: &str| components.get(name).map(|(schema, _)| schema);
    let standalone =
        crate::schema::standalone::project(&property, &lookup, argument).map_err(|e| e.message)?;
    let valid = jsonschema::draft202012::options()
        .build(&standalone)
        .map_err(|_| {
            format!("the schema of `{argument}` cannot be compiled to check the fixed value")
        })?
        .is_valid(&value);
    if !valid {
        return Err(format!(
            "the value fixed for `{argument}` does not satisfy its schema: give a value the tool accepts"
        ));
    }
    if let Some(required) = input.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|name| name != argument);
    }
    part.entry.input_schema = input.try_into().map_err(|why| format!("{why}"))?;
    part.entry.cli.arguments.remove(argument);
    let original = part.handler.clone();
    let argument = argument.to_string();
    part.handler = Handler::paged(move |mut input: Value| {
        if let Value::Object(map) = &mut input {
            map.insert(argument.clone(), value.clone());
        }
        original.call(input)
    });
    Ok(())
}

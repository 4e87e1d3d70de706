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

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::catalog::{
    Audience, Audiences, Catalog, CliTree, CommandPath, CommandSegment, CommandSpec, Components,
    Entry, Info, NonBlank, SchemaDoc,
};
use crate::schema::standalone::{COMPONENT_PREFIX, RefTarget, classify};
use crate::schema::{escape, percent_encode_fragment, visit_mut};
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
    components: BTreeMap<String, (Value, String)>,
    commands: Vec<CommandSpec>,
    /// Generated catalog name → the namespace it is mounted under (`None`: under several).
    mounted: BTreeMap<String, Option<String>>,
    transforms: Vec<(String, Transform)>,
    problems: Vec<ContractError>,
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
            components: BTreeMap::new(),
            commands: Vec::new(),
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
        let from = format!("mount `{namespace}`");
        let segment = match CommandSegment::new(namespace) {
            Ok(segment)
                if namespace
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') =>
            {
                segment
            }
            _ => {
                self.problems.push(ContractError::new(
                    ErrorCode::InvalidField,
                    from,
                    "a namespace is a command word: lowercase letters, digits and `-`, starting with a letter or digit",
                ));
                return self;
            }
        };
        let renamed: BTreeMap<String, String> = registry
            .components()
            .into_iter()
            .flatten()
            .map(|(name, _)| (name.clone(), format!("{namespace}.{name}")))
            .collect();
        let rewrite = |schema: &Value| {
            let mut schema = schema.clone();
            rename_refs(&mut schema, &renamed);
            schema
        };
        for (name, schema) in registry.components().into_iter().flatten() {
            let at = format!("{from} component `{name}`");
            self.add_component(renamed[name].clone(), rewrite(schema.as_value()), at);
        }
        for (i, tool) in registry.live_tools().enumerate() {
            let mut entry = tool.entry.clone();
            let at = format!("{from} tools[{i}] (`{}`)", entry.name);
            entry.name = NonBlank::new(format!("{namespace}_{}", entry.name)).expect("not blank");
            entry.cli.command = prefixed(&segment, &entry.cli.command);
            let mount = match entry.mount() {
                Some(inner) => format!("{namespace}.{inner}"),
                None => namespace.to_string(),
            };
            entry.set_mount(&mount);
            entry.input_schema = rewrite(entry.input_schema.as_value())
                .try_into()
                .expect("a renamed reference leaves an object schema an object schema");
            for schema in [&mut entry.output_schema, &mut entry.error_schema]
                .into_iter()
                .flatten()
            {
                *schema = SchemaDoc::new(rewrite(schema.as_value())).expect("still a schema");
            }
            self.tools.push(Part {
                entry,
                handler: tool.handler.clone(),
                from: at,
            });
        }
        let info = registry.info();
        self.commands.push(CommandSpec {
            command: CommandPath::new(vec![segment.clone()]).expect("one segment"),
            title: info.map(|info| info.name.clone()),
            description: info
                .and_then(|info| info.description.as_ref())
                .and_then(|text| {
                    NonBlank::new(text.lines().next().unwrap_or_default().trim()).ok()
                }),
            aliases: Vec::new(),
            hidden: false,
            display_order: None,
        });
        for spec in registry.cli_commands() {
            let mut spec = spec.clone();
            spec.command = prefixed(&segment, &spec.command);
            self.commands.push(spec);
        }
        if let Some(info) = info {
            self.mounted
                .entry(info.name.to_string())
                .and_modify(|namespace| *namespace = None)
                .or_insert_with(|| Some(namespace.to_string()));
        }
        self
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

    /// Applies the transforms in order, checks that no two sources collide, and publishes
    /// the registry (every publish-time rule of [`ToolRegistry::publish`]).
    pub fn publish(mut self) -> Result<ToolRegistry, ContractErrors> {
        let transforms = std::mem::take(&mut self.transforms);
        for (i, (name, transform)) in transforms.into_iter().enumerate() {
            self.apply(i, &name, transform);
        }
        self.resolve_catalog_refs();
        self.check_collisions();
        ContractErrors::check(std::mem::take(&mut self.problems))?;
        // Parent commands left without a command under them (every tool of a group removed,
        // moved or taken out of the CLI audience) are left out, so the CLI shows no empty group.
        let tools = &self.tools;
        self.commands.retain(|spec| {
            let parent = spec.command.segments();
            tools
                .iter()
                .filter(|part| part.entry.allows(Audience::Cli))
                .any(|part| {
                    let path = part.entry.cli.command.segments();
                    path.len() > parent.len() && path.starts_with(parent)
                })
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

    /// Two tools of one name, or of one command path: each a located error naming both sources.
    fn check_collisions(&mut self) {
        let mut names: BTreeMap<&str, &str> = BTreeMap::new();
        let mut paths: BTreeMap<Vec<&str>, &str> = BTreeMap::new();
        for part in &self.tools {
            if let Some(first) = names.insert(part.entry.name.as_str(), &part.from) {
                self.problems.push(ContractError::new(
                    ErrorCode::DuplicateToolName,
                    part.from.clone(),
                    format!("the tool name `{}` is also {first}'s: rename one of them (`Composer::rename`) or mount under another namespace", part.entry.name),
                ));
            }
            if !part.entry.allows(Audience::Cli) {
                continue;
            }
            let path: Vec<&str> = part.entry.cli.command.words().collect();
            let shown = path.join(" ");
            if let Some(first) = paths.insert(path, &part.from) {
                self.problems.push(ContractError::new(
                    ErrorCode::CliDuplicatePath,
                    part.from.clone(),
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

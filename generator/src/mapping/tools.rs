//! The document-wide part of the mapping: tool names and CLI paths made unique, hints checked
//! against methods, and each operation's contract assembled into a catalog entry.

use std::collections::BTreeMap;

use harness_gen_contract::catalog::{
    ArgumentSpec, Audience, Audiences, BooleanStyle, CommandPath, CommandSpec,
    DESCRIPTIONS_META_KEY, Entry, Governance, MetaKey, NonBlank, ObjectSchema, Policy, PolicyKind,
    SchemaDoc, SideEffectLevel, Source, SourceBinding, TAGS_META_KEY, ToolCli,
};
use harness_gen_contract::cli_names::{self, ArgumentName};
use harness_gen_wire::binding::{Binding, Method, ParamIn};
use serde_json::Value;

use super::operation::{self, Parts};
use super::{Cx, commands, events, groups, pagination};
use crate::diag::{Code, Severity};
use crate::load::Loc;
use crate::model::{Group, Operation};
use crate::names::{self, Unique};
use crate::xharn::{self, DocumentExt, MethodHints, OperationExt};

pub struct Tools {
    pub operations: Vec<Operation>,
    pub cli_commands: Vec<CommandSpec>,
    pub groups: Vec<Group>,
}

/// One operation before names are settled.
struct Draft {
    loc: Loc,
    operation_id: Option<String>,
    method: Method,
    path: String,
    ext: OperationExt,
    parts: Parts,
    /// Its tags, in document order.
    tags: Vec<String>,
    summary: Option<String>,
    description: Option<String>,
}

pub fn build(cx: &mut Cx, ext: &DocumentExt, components: &BTreeMap<String, Value>) -> Tools {
    let drafts = drafts(cx);
    let names = tool_names(cx, &drafts);
    let open_world = ext
        .annotation_defaults
        .as_ref()
        .and_then(|d| d.open_world_hint)
        .unwrap_or(true);
    let mut operations = Vec::with_capacity(drafts.len());
    // Every operation's command as its tag and whole name, which a shortened command of
    // another operation never takes.
    let mut paths = CliPaths {
        whole: drafts
            .iter()
            .zip(&names)
            .filter_map(|(draft, name)| Some(whole_command(draft, name.as_deref()?)))
            .collect(),
        by_resource: drafts.iter().all(|d| d.tags.is_empty()),
        ..CliPaths::default()
    };
    let mut used_tags = Vec::new();
    // Each kept operation's tags, for grouping (its path is in its binding).
    let mut tags = Vec::with_capacity(drafts.len());
    let document_key = ext
        .idempotency_key
        .as_ref()
        .and_then(|name| operation::checked_header(cx, name, &Loc::main("/x-harn/idempotencyKey")));
    let mut paginated = pagination::Found::default();
    for (draft, name) in drafts.into_iter().zip(names) {
        let Some(name) = name else { continue };
        let idempotency_key = operation::idempotency_key(
            cx,
            draft.method,
            &draft.parts,
            draft
                .ext
                .idempotency_key
                .as_deref()
                .map(|name| (name, draft.loc.at("x-harn").at("idempotency_key"))),
            document_key.as_deref(),
        );
        let pagination = pagination::of_operation(
            cx,
            &mut paginated,
            (&name, &draft.loc),
            draft.method,
            draft.ext.pagination.as_ref(),
            &draft.parts,
            components,
        );
        let events = events::of_operation(
            cx,
            (&name, &draft.loc),
            draft.ext.events.as_ref(),
            &draft.parts,
            components,
        );
        let mut binding = operation::binding(
            draft.method,
            &draft.path,
            &draft.parts,
            idempotency_key,
            pagination,
            events,
        );
        binding.deep_object_arrays = ext.deep_object_arrays.unwrap_or_default();
        let entry = entry(
            cx,
            &draft,
            name,
            open_world,
            &mut paths,
            (&binding, components),
        );
        if entry.allows(Audience::Cli)
            && let (Some(tag), true) = (
                draft.tags.first(),
                draft
                    .ext
                    .cli
                    .as_ref()
                    .and_then(|c| c.command.as_ref())
                    .is_none(),
            )
            && !used_tags.contains(tag)
        {
            used_tags.push(tag.clone());
        }
        tags.push(draft.tags);
        let said = |text: &Option<String>| text.as_deref().is_some_and(|t| !t.trim().is_empty());
        let described = said(&draft.summary) || said(&draft.description);
        operations.push(Operation {
            described,
            loc: draft.loc,
            expose: draft.ext.expose.unwrap_or(true),
            binding,
            events: draft.parts.output.as_ref().and_then(|o| o.events.clone()),
            output: draft.parts.output.map(|o| o.schema),
            error_bodies: draft.parts.errors.into_iter().map(|e| e.schema).collect(),
            entry,
            groups: Vec::new(),
        });
    }
    paginated.report(cx);
    let grouped: Vec<groups::Grouped> = tags
        .iter()
        .zip(&operations)
        .map(|(tags, op)| groups::Grouped {
            tags,
            path: &op.binding.path,
        })
        .collect();
    let (groups, of_operation) = groups::assign(cx, ext, &grouped);
    for (operation, groups) in operations.iter_mut().zip(of_operation) {
        operation.groups = groups;
    }
    Tools {
        operations,
        cli_commands: cli_commands(cx, ext, &used_tags),
        groups,
    }
}

fn drafts(cx: &mut Cx) -> Vec<Draft> {
    let mut out = Vec::new();
    let Some(Value::Object(paths)) = cx.doc.root().get("paths") else {
        return out;
    };
    for (path, raw_item) in paths {
        if path.starts_with("x-") {
            continue;
        }
        let item_loc = Loc::main("/paths").at(path);
        let Some((item, item_loc)) = cx.doc.deref(raw_item, &item_loc, cx.diags) else {
            continue;
        };
        for method in Method::ALL {
            let Some(op) = item.get(method.path_item_key()).filter(|op| op.is_object()) else {
                continue;
            };
            let loc = item_loc.at(method.path_item_key());
            let operation_id = op
                .get("operationId")
                .and_then(Value::as_str)
                .map(str::to_string);
            let what = match &operation_id {
                Some(id) => format!("operation `{id}`"),
                None => format!("operation `{method} {path}`"),
            };
            let ext: OperationExt = match op.get("x-harn") {
                Some(value) => xharn::parse(value, &loc.at("x-harn"), &what, cx.doc, cx.diags)
                    .unwrap_or_default(),
                None => OperationExt::default(),
            };
            let parts = operation::parts(cx, path, op, &loc, item, &item_loc);
            let text = |field: &str| {
                op.get(field)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            out.push(Draft {
                operation_id,
                method,
                path: path.clone(),
                tags: op
                    .get("tags")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                summary: text("summary"),
                description: text("description"),
                ext,
                parts,
                loc,
            });
        }
    }
    out
}

/// Explicit `x-harn.name`s first (a clash between two is an error), then defaults made unique
/// with `_2`, `_3`, … (reported). `None` for an operation whose explicit name was refused.
fn tool_names(cx: &mut Cx, drafts: &[Draft]) -> Vec<Option<String>> {
    let mut unique = Unique::plain();
    let mut explicit: BTreeMap<String, usize> = BTreeMap::new();
    let mut out: Vec<Option<String>> = vec![None; drafts.len()];
    for (i, draft) in drafts.iter().enumerate() {
        let Some(name) = &draft.ext.name else {
            continue;
        };
        let at = draft.loc.at("x-harn").at("name");
        if !xharn::valid_tool_name(name) {
            cx.diags.push(
                cx.doc.diag(
                    Code::XHarnInvalid,
                    Severity::Error,
                    &at,
                    "x-harn.name must match ^[A-Za-z0-9_.-]+$ and be at most 128 characters"
                        .to_string(),
                ),
            );
            continue;
        }
        if let Some(&first) = explicit.get(name) {
            cx.diags.push(cx.doc.diag(
                Code::Conflict,
                Severity::Error,
                &at,
                format!(
                    "tool name `{name}` is also given to {} {}: give one of them another x-harn.name",
                    drafts[first].method,
                    drafts[first].path
                ),
            ));
            continue;
        }
        explicit.insert(name.clone(), i);
        unique.reserve(name);
        out[i] = Some(name.clone());
    }
    for (i, draft) in drafts.iter().enumerate() {
        if draft.ext.name.is_some() {
            continue;
        }
        let base = match &draft.operation_id {
            Some(id) => names::tool_name(id),
            None => names::tool_name(&format!("{}_{}", draft.method.path_item_key(), draft.path)),
        };
        let name = unique.claim(&base, "_");
        if name != base {
            cx.diags.push(cx.doc.diag(
                Code::Renamed,
                Severity::Warning,
                &draft.loc,
                format!("the tool name `{base}` is taken by another operation; this one is named `{name}` (set x-harn.name to choose)"),
            ));
        }
        out[i] = Some(name);
    }
    out
}

/// CLI paths claimed so far, for collision checks among CLI tools.
#[derive(Default)]
struct CliPaths {
    leaves: BTreeMap<Vec<String>, Loc>,
    /// Every operation's derived command before shortening (see [`cli_path`]).
    whole: std::collections::BTreeSet<Vec<String>>,
    /// Whether no operation of the document has a tag: then commands are read from paths and
    /// methods (`customers retrieve`, see [`commands::resource_command`]).
    by_resource: bool,
}

impl CliPaths {
    fn conflicts_with(&self, path: &[String]) -> Option<&Loc> {
        if let Some(loc) = self.leaves.get(path) {
            return Some(loc);
        }
        // A leaf that is a prefix of this path, or this path a prefix of a leaf.
        (1..path.len())
            .find_map(|n| self.leaves.get(&path[..n]))
            .or_else(|| {
                self.leaves
                    .range(path.to_vec()..)
                    .next()
                    .filter(|(k, _)| k.len() > path.len() && k.starts_with(path))
                    .map(|(_, l)| l)
            })
    }
}

fn entry(
    cx: &mut Cx,
    draft: &Draft,
    name: String,
    open_world: bool,
    paths: &mut CliPaths,
    (binding, components): (&Binding, &BTreeMap<String, Value>),
) -> Entry {
    let ext = &draft.ext;
    let hints = MethodHints::of(draft.method);
    if let Some(given) = &ext.annotations {
        for field in hints.contradictions(given) {
            cx.diags.push(cx.doc.diag(
                Code::XHarnContradicts,
                Severity::Error,
                &draft.loc.at("x-harn").at("annotations").at(field),
                format!(
                    "`{field}` contradicts what {} implies: annotations may refine the method's meaning, never reverse it; remove it",
                    draft.method
                ),
            ));
        }
    }
    let audiences = match &ext.governance {
        Some(governance) => match Audiences::from_any(governance.audiences.iter().copied()) {
            Ok(audiences) if audiences.as_slice().len() == governance.audiences.len() => audiences,
            _ => {
                cx.diags.push(cx.doc.diag(
                    Code::XHarnInvalid,
                    Severity::Error,
                    &draft.loc.at("x-harn").at("governance").at("audiences"),
                    "audiences must list at least one of cli, mcp, catalog, dashboard, agent, each once".to_string(),
                ));
                Audiences::default()
            }
        },
        None => Audiences::default(),
    };
    let safe = draft.method.is_safe();
    // A title is a line: a summary of paragraphs (OpenAI writes its descriptions there) is
    // titled by its first sentence, and kept whole at the head of the description.
    let summary = draft
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let short = summary.map(
        |s| match s.contains('\n') || s.chars().count() > TITLE_CHARS {
            true => harness_gen_contract::catalog::listed::summary(s, TITLE_CHARS),
            false => s.to_string(),
        },
    );
    let cut = summary.filter(|s| short.as_deref() != Some(*s));
    let title = ext
        .title
        .clone()
        .or_else(|| short.and_then(|s| NonBlank::new(s).ok()))
        .or_else(|| NonBlank::new(name.clone()).ok());
    let description = match (cut, draft.description.as_deref()) {
        (Some(summary), Some(description)) if !description.contains(summary) => {
            Some(format!("{summary}\n\n{description}"))
        }
        (_, Some(description)) => Some(description.to_string()),
        (_, None) => summary.map(str::to_string),
    }
    .and_then(|d| NonBlank::new(d).ok())
    // Every tool is described: MCP clients and model providers require a description, so an
    // operation the document says nothing of is described by what it is.
    .or_else(|| NonBlank::new(undescribed(draft)).ok());
    // A tool of an operation that answers only with server-sent events returns the events it
    // received (the CLI prints each as it arrives, MCP reports each as progress); one that
    // answers JSON or, when its body's flag asks, events returns either.
    let streams_on_request = binding
        .events
        .as_ref()
        .is_some_and(|e| e.flag.is_some() || e.select.is_some());
    let output_schema = draft.parts.output.as_ref().and_then(|o| {
        let schema = match &o.events {
            Some(events) if o.binding.is_event_stream() => {
                serde_json::json!({"type": "array", "items": events})
            }
            Some(events) if streams_on_request => serde_json::json!({"anyOf": [
                o.schema,
                {"type": "array", "items": events},
            ]}),
            _ => o.schema.clone(),
        };
        SchemaDoc::new(schema).ok()
    });
    let mut input = operation::input_schema(&draft.parts);
    if let Some(select) = binding.events.as_ref().and_then(|e| e.select.as_deref())
        && let Some(properties) = input.get_mut("properties").and_then(Value::as_object_mut)
    {
        properties.insert(
            select.to_string(),
            serde_json::json!({
                "type": "boolean",
                "description": "Answer with the server-sent events as they arrive (asked for with `Accept: text/event-stream`) instead of one JSON reply."
            }),
        );
    }
    let mut cli = ToolCli::at(cli_path(
        cx,
        draft,
        (&name, binding.pagination.is_some()),
        audiences.contains(Audience::Cli),
        paths,
    ));
    if let Some(cli_ext) = &ext.cli {
        cli.aliases = cli_ext.aliases.clone();
        cli.hidden = cli_ext.hidden.unwrap_or(false);
        cli.arguments = argument_specs(cx, draft, &cli_ext.arguments);
    }
    positional_path_parameters(draft, &mut cli.arguments);
    // The input property that asks for the event stream is a flag: `--stream`.
    if let Some(select) = binding.events.as_ref().and_then(|e| e.select.as_deref()) {
        cli.arguments
            .entry(select.to_string())
            .or_insert_with(|| ArgumentSpec {
                boolean_style: BooleanStyle::SetTrue,
                ..ArgumentSpec::default()
            });
    }
    for (property, long) in settle_option_names(&input, &mut cli.arguments) {
        cx.diags.push(cx.doc.diag(
            Code::Renamed,
            Severity::Note,
            &draft.loc,
            format!(
                "tool `{name}`: input `{property}` is the CLI option `--{long}`, since its own name is one of the CLI's options or already used (set x-harn.cli.arguments.{property}.long to choose)"
            ),
        ));
    }
    report_body_options(
        cx,
        draft,
        &name,
        (&input, &cli.arguments),
        (binding, components),
    );
    Entry {
        name: non_blank(name, "tool"),
        title,
        description,
        input_schema: ObjectSchema::new(input).expect("an input schema is an object schema"),
        output_schema,
        error_schema: SchemaDoc::new(operation::error_schema(&draft.parts.errors)).ok(),
        annotations: Some(hints.resolve(ext.annotations.as_ref(), open_world)),
        icons: ext.icons.clone(),
        execution: ext.execution,
        governance: Governance { audiences },
        cli,
        namespace: ext.namespace.clone(),
        defer_loading: ext.defer_loading.unwrap_or(false),
        source: Some(Source {
            kind: non_blank(Source::OPENAPI.to_string(), Source::OPENAPI),
            id: draft
                .operation_id
                .clone()
                .and_then(|id| NonBlank::new(id).ok()),
            binding: Some(SourceBinding::OpenApi(Box::new(binding.clone()))),
        }),
        policy: Some(Policy {
            kind: if safe {
                PolicyKind::Fetch
            } else {
                PolicyKind::Execute
            },
            side_effect_level: SideEffectLevel::Network,
        }),
        meta: entry_meta(ext, &draft.tags),
    }
}

/// The entry's `_meta`: `x-harn.meta`, with the operation's tags under `com.harnlang/tags` and
/// What an operation without a summary or description is: its method and path, and its tags.
fn undescribed(draft: &Draft) -> String {
    let tags = match draft.tags.as_slice() {
        [] => String::new(),
        tags => format!(" ({})", tags.join(", ")),
    };
    format!("Sends `{} {}` to the API{tags}.", draft.method, draft.path)
}

/// `x-harn.descriptions` under `com.harnlang/descriptions` (unless `x-harn.meta` set them).
/// Notes each field of the tool's object request body whose CLI option is `--body-<name>`,
/// another option having the name (the CLI names them alike at run time).
fn report_body_options(
    cx: &mut Cx,
    draft: &Draft,
    name: &str,
    (input, arguments): (&Value, &BTreeMap<String, ArgumentSpec>),
    (binding, components): (&Binding, &BTreeMap<String, Value>),
) {
    let resolve = |n: &str| components.get(n);
    let Some(options) =
        harness_gen_contract::catalog::BodyOptions::of(binding, input, arguments, &resolve)
    else {
        return;
    };
    let named = options.fields.iter().zip(&options.longs);
    for (field, (long, _)) in named.filter(|(_, (_, renamed))| *renamed) {
        cx.diags.push(cx.doc.diag(
            Code::Renamed,
            Severity::Note,
            &draft.loc,
            format!(
                "tool `{name}`: body field `{}` is the CLI option `--{long}`, since `--{}` is another option of the command",
                field.name,
                cli_names::default_long(field.name)
            ),
        ));
    }
}

fn entry_meta(ext: &OperationExt, tags: &[String]) -> Option<BTreeMap<MetaKey, Value>> {
    let descriptions = ext.descriptions.as_ref().map(|d| {
        let pairs = [
            (Audience::Mcp.as_str(), &d.mcp),
            (Audience::Agent.as_str(), &d.agent),
        ];
        let set = pairs
            .into_iter()
            .filter_map(|(k, v)| Some((k, v.as_ref()?.as_str())));
        Value::Object(set.map(|(k, v)| (k.to_owned(), Value::from(v))).collect())
    });
    let additions = [
        (
            TAGS_META_KEY,
            (!tags.is_empty()).then(|| serde_json::json!(tags)),
        ),
        (
            DESCRIPTIONS_META_KEY,
            descriptions.filter(|d| d.as_object().is_some_and(|d| !d.is_empty())),
        ),
    ];
    let mut meta = ext.meta.clone();
    for (key, value) in additions {
        if let (Some(value), Ok(key)) = (value, MetaKey::new(key)) {
            meta.get_or_insert_default().entry(key).or_insert(value);
        }
    }
    meta
}

fn non_blank(text: String, fallback: &'static str) -> NonBlank {
    NonBlank::new(text).unwrap_or_else(|_| NonBlank::new(fallback).expect("a non-blank literal"))
}

/// An operation's command from its first tag and its name in kebab-case, before the name's
/// repetition of the tag is dropped.
fn whole_command(draft: &Draft, name: &str) -> Vec<String> {
    let mut segments: Vec<String> = draft.tags.first().iter().map(|t| names::kebab(t)).collect();
    segments.push(names::kebab(name));
    segments
}

/// The tool's command: `x-harn.cli.command`, else `[first tag, name]` in kebab-case, where a
/// name that starts with its tag drops it (`repos/get` under `repos` is `repos get`, not
/// `repos repos-get`) unless the shorter command would be another operation's whole command
/// or is taken, when it stays whole (a note says so). Among CLI tools, a clash with an
/// explicit command is an error; a derived one is renamed and reported.
fn cli_path(
    cx: &mut Cx,
    draft: &Draft,
    (name, lists): (&str, bool),
    is_cli: bool,
    paths: &mut CliPaths,
) -> CommandPath {
    let explicit = draft.ext.cli.as_ref().and_then(|c| c.command.as_ref());
    let explicit_loc = draft.loc.at("x-harn").at("cli").at("command");
    let mut segments = match explicit {
        Some(command) => {
            let segments = command.segments();
            if CommandPath::parse(segments.iter().map(String::as_str)).is_ok() {
                segments
            } else {
                cx.diags.push(cx.doc.diag(
                    Code::XHarnInvalid,
                    Severity::Error,
                    &explicit_loc,
                    "x-harn.cli.command needs one or more segments matching ^[A-Za-z0-9_][A-Za-z0-9_-]*$".to_string(),
                ));
                derived(cx, draft, (name, lists), is_cli, paths)
            }
        }
        None => derived(cx, draft, (name, lists), is_cli, paths),
    };
    if is_cli {
        if let Some(other) = paths.conflicts_with(&segments).cloned() {
            if explicit.is_some() {
                cx.diags.push(cx.doc.diag(
                    Code::Conflict,
                    Severity::Error,
                    &explicit_loc,
                    format!(
                        "command `{}` clashes with the command of the operation at #{}: give one of them another x-harn.cli.command",
                        segments.join(" "),
                        other.pointer
                    ),
                ));
            } else {
                let original = segments.join(" ");
                segments = free_variant(paths, segments);
                cx.diags.push(cx.doc.diag(
                    Code::Renamed,
                    Severity::Warning,
                    &draft.loc,
                    format!(
                        "command `{original}` is taken (#{}); this tool's command is `{}` (set x-harn.cli.command to choose)",
                        other.pointer,
                        segments.join(" ")
                    ),
                ));
            }
        }
        paths.leaves.insert(segments.clone(), draft.loc.clone());
    }
    CommandPath::parse(segments.iter().map(String::as_str)).unwrap_or_else(|_| {
        CommandPath::parse([name])
            .unwrap_or_else(|_| CommandPath::parse(["tool"]).expect("a valid literal"))
    })
}

/// The derived command (see [`cli_path`]): the whole one, or without the name's repetition of
/// its tag.
fn derived(
    cx: &mut Cx,
    draft: &Draft,
    (name, lists): (&str, bool),
    is_cli: bool,
    paths: &CliPaths,
) -> Vec<String> {
    let whole = whole_command(draft, name);
    let short = match whole.as_slice() {
        [tag, leaf] => commands::without_group(leaf, tag).map(|rest| vec![tag.clone(), rest]),
        // In a document without tags: a resource and a verb from the path and method.
        _ if paths.by_resource => commands::resource_command(draft.method, &draft.path, lists),
        _ => None,
    };
    let Some(short) = short else {
        return whole;
    };
    if !is_cli || (!paths.whole.contains(&short) && paths.conflicts_with(&short).is_none()) {
        return short;
    }
    cx.diags.push(cx.doc.diag(
        Code::Renamed,
        Severity::Note,
        &draft.loc,
        format!(
            "command `{}` keeps its whole name: `{}` is another operation's command (set x-harn.cli.command to choose)",
            whole.join(" "),
            short.join(" ")
        ),
    ));
    whole
}

/// The first variant of `segments` that clashes with nothing: the last segment numbered, or,
/// when a shorter command is in the way, the whole path joined into one segment and numbered.
fn free_variant(paths: &CliPaths, segments: Vec<String>) -> Vec<String> {
    let last = segments.len() - 1;
    for n in 2..1000 {
        let mut candidate = segments.clone();
        candidate[last] = format!("{}-{n}", segments[last]);
        if paths.conflicts_with(&candidate).is_none() {
            return candidate;
        }
    }
    let joined = segments.join("-");
    let mut n = 2;
    loop {
        let candidate = vec![format!("{joined}-{n}")];
        if paths.conflicts_with(&candidate).is_none() {
            return candidate;
        }
        n += 1;
    }
}

/// `x-harn.cli.arguments`, keyed by wire name (or `body`), re-keyed by input property.
fn argument_specs(
    cx: &mut Cx,
    draft: &Draft,
    given: &BTreeMap<String, ArgumentSpec>,
) -> BTreeMap<String, ArgumentSpec> {
    let mut out = BTreeMap::new();
    for (key, spec) in given {
        let property = draft
            .parts
            .params
            .iter()
            .find(|p| p.binding.name == key.as_str())
            .map(|p| p.binding.property.to_string())
            .or_else(|| {
                draft
                    .parts
                    .body
                    .as_ref()
                    .filter(|_| key == "body")
                    .map(|b| b.binding.property.to_string())
            });
        match property {
            Some(property) => {
                out.insert(property, spec.clone());
            }
            None => cx.diags.push(cx.doc.diag(
                Code::XHarnInvalid,
                Severity::Error,
                &draft.loc.at("x-harn").at("cli").at("arguments").at(key),
                format!("x-harn.cli.arguments names `{key}`, which is neither a parameter of this operation nor `body`"),
            )),
        }
    }
    out
}

/// Makes the path parameters positional arguments in path order (`repos get OWNER REPO`),
/// each named after its parameter, unless `x-harn.cli.arguments` places some argument itself
/// (then the positions are all its own) or gives the parameter an option name.
fn positional_path_parameters(draft: &Draft, arguments: &mut BTreeMap<String, ArgumentSpec>) {
    if arguments.values().any(|a| a.position.is_some()) {
        return;
    }
    let in_path_order = draft
        .path
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'));
    let mut position = 0;
    for (name, _) in in_path_order {
        let Some(param) = draft
            .parts
            .params
            .iter()
            .find(|p| p.binding.location == ParamIn::Path && p.binding.name == name)
        else {
            continue;
        };
        let spec = arguments
            .entry(param.binding.property.to_string())
            .or_default();
        if spec.long.is_some() || spec.short.is_some() {
            continue;
        }
        spec.position = Some(position);
        if spec.value_name.is_none() {
            spec.value_name =
                NonBlank::new(names::kebab(name).replace('-', "_").to_ascii_uppercase()).ok();
        }
        position += 1;
    }
}

/// Gives every property whose default option name is reserved or already used another
/// `long`, recorded in its argument spec: `<name>-value`, then numbered. Returns each renamed
/// property with its option name.
fn settle_option_names(
    input: &Value,
    arguments: &mut BTreeMap<String, ArgumentSpec>,
) -> Vec<(String, String)> {
    let mut renamed_ones = Vec::new();
    let Some(Value::Object(properties)) = input.get("properties") else {
        return renamed_ones;
    };
    let mut taken = Unique::plain();
    for name in cli_names::RESERVED_LONG {
        taken.reserve(name);
    }
    // Explicit names are claimed first, so a default never takes one.
    for spec in arguments.values() {
        if let Some(long) = &spec.long {
            taken.reserve(long);
        }
        for alias in &spec.aliases {
            taken.reserve(alias);
        }
    }
    for property in properties.keys() {
        let spec = arguments.get(property);
        if spec.is_some_and(|s| s.long.is_some() || s.position.is_some()) {
            continue;
        }
        let Some(ArgumentName::Long(default)) =
            harness_gen_contract::catalog::argument_names(property, spec)
                .into_iter()
                .next()
        else {
            continue;
        };
        if taken.reserve(&default) {
            continue;
        }
        let renamed = taken.claim(&format!("{default}-value"), "-");
        renamed_ones.push((property.clone(), renamed.clone()));
        let long = harness_gen_contract::catalog::OptionName::new(renamed).ok();
        arguments.entry(property.clone()).or_default().long = long;
    }
    renamed_ones
}

/// The longest title a tool takes from its operation's summary; a longer summary (or one of
/// several lines) gives its first sentence, cut at a word.
const TITLE_CHARS: usize = 100;

/// Parent-command metadata: one per tag used as a CLI parent (title from `x-displayName` or the
/// tag's name, description from the tag), overridden by `x-harn.cli.commands`.
fn cli_commands(cx: &mut Cx, ext: &DocumentExt, used_tags: &[String]) -> Vec<CommandSpec> {
    let tags: Vec<&Value> = match cx.doc.root().get("tags") {
        Some(Value::Array(tags)) => tags.iter().collect(),
        _ => Vec::new(),
    };
    let mut out: Vec<CommandSpec> = Vec::new();
    for tag in used_tags {
        let declared = tags
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(tag));
        let text = |field: &str| {
            declared
                .and_then(|t| t.get(field))
                .and_then(Value::as_str)
                .and_then(|s| NonBlank::new(s.trim()).ok())
        };
        let Ok(command) = CommandPath::parse([names::kebab(tag).as_str()]) else {
            continue;
        };
        out.push(CommandSpec {
            command,
            title: text("x-displayName").or_else(|| NonBlank::new(tag.clone()).ok()),
            description: text("description"),
            aliases: Vec::new(),
            hidden: false,
            display_order: None,
        });
    }
    for explicit in ext.cli.iter().flat_map(|c| c.commands.iter()) {
        match out.iter_mut().find(|c| c.command == explicit.command) {
            Some(existing) => *existing = explicit.clone(),
            None => out.push(explicit.clone()),
        }
    }
    out
}

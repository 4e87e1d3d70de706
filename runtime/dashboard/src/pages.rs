//! The dashboard's pages: what each shows, as askama templates (`templates/`)
//! over plain view records made here from the registry, the calls and the bundle.

use askama::Template;
use serde_json::{Value, json};

use super::guard::Session;
use super::{Call, Dashboard};
use harness_gen_contract::Audience;
use harness_gen_contract::catalog::{Annotations, Entry};
use harness_gen_contract::harness::{Revision, resolve_all};

/// What every page's frame shows.
struct Frame<'a> {
    program: &'a str,
    version: &'a str,
    /// The token the page's script sends with calls.
    token: &'a str,
    /// The navigation entry of this page.
    section: &'static str,
}

impl<'a> Frame<'a> {
    fn new(dashboard: &'a Dashboard, session: &'a Session, section: &'static str) -> Self {
        Self {
            program: &dashboard.program,
            version: &dashboard.version,
            token: &session.token,
            section,
        }
    }
}

/// One of a tool's four behaviour hints, as the pages show it.
struct Hint {
    name: &'static str,
    /// The name as a CSS class.
    slug: &'static str,
    /// `yes`, `no` or `unsaid`.
    value: &'static str,
}

/// The four behaviour hints: name, CSS class, and where the annotations say it.
type HintOf = fn(&Annotations) -> Option<bool>;
const HINTS: [(&str, &str, HintOf); 4] = [
    ("read-only", "read-only", |a| a.read_only_hint),
    ("destructive", "destructive", |a| a.destructive_hint),
    ("idempotent", "idempotent", |a| a.idempotent_hint),
    ("open world", "open-world", |a| a.open_world_hint),
];

/// A tool as the index and its own page show it.
struct ToolView<'a> {
    name: &'a str,
    /// The tool page's path.
    href: String,
    title: Option<&'a str>,
    description: Option<&'a str>,
    /// The description's first paragraph, at most [`SUMMARY_CHARS`] characters.
    summary: Option<String>,
    namespace: Option<&'a str>,
    tags: Vec<&'a str>,
    audiences: Vec<&'static str>,
    hints: Vec<Hint>,
    destructive: bool,
    policy: Option<String>,
    /// Lower-cased words the index's filter matches.
    search: String,
}

/// Whether `annotations` say yes to the hint `pick` reads.
fn hint(annotations: Option<&Annotations>, pick: impl Fn(&Annotations) -> Option<bool>) -> bool {
    annotations.and_then(pick) == Some(true)
}

/// Whether calling `entry` may destroy something: it says so and is not read-only.
pub(super) fn destructive(entry: &Entry) -> bool {
    let annotations = entry.annotations.as_ref();
    hint(annotations, |a| a.destructive_hint) && !hint(annotations, |a| a.read_only_hint)
}

/// The path of `name`'s page (tool names are `[A-Za-z0-9_.-]`, but a path is no place to trust
/// that).
fn tool_href(name: &str) -> String {
    format!(
        "/dashboard/tools/{}",
        harness_gen_client::encode::path_segment(name)
    )
}

fn view(entry: &Entry) -> ToolView<'_> {
    let annotations = entry.annotations.as_ref();
    let said = |pick: HintOf| match annotations.and_then(pick) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unsaid",
    };
    let description = entry
        .description_for(Audience::Dashboard)
        .or(entry.description.as_deref());
    let title = entry.title.as_deref();
    let tags: Vec<&str> = entry.tags().collect();
    let summary = description.map(summary);
    let search = [entry.name.as_str(), title.unwrap_or_default()]
        .into_iter()
        .chain(tags.iter().copied())
        .chain(summary.as_deref())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    ToolView {
        name: &entry.name,
        href: tool_href(&entry.name),
        title,
        description,
        summary,
        namespace: entry.namespace.as_deref(),
        tags,
        audiences: Audience::ALL
            .into_iter()
            .filter(|a| entry.allows(*a))
            .map(Audience::as_str)
            .collect(),
        hints: HINTS
            .iter()
            .map(|&(name, slug, pick)| Hint {
                name,
                slug,
                value: said(pick),
            })
            .collect(),
        destructive: destructive(entry),
        policy: entry.policy.as_ref().map(|p| {
            format!(
                "{} ({})",
                word(&p.kind),
                word(&p.side_effect_level).replace('_', " ")
            )
        }),
        search,
    }
}

/// How much of a description the index shows.
const SUMMARY_CHARS: usize = 240;

/// The first paragraph of `description`, cut at [`SUMMARY_CHARS`] characters.
fn summary(description: &str) -> String {
    let first = description
        .trim()
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .trim();
    match first.char_indices().nth(SUMMARY_CHARS) {
        Some((end, _)) => format!("{}…", first[..end].trim_end()),
        None => first.to_owned(),
    }
}

/// A value of a closed vocabulary as the format writes it.
fn word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(word)) => word,
        _ => String::new(),
    }
}

/// `value` as JSON text that may stand inside a `<script>` element: `<`, `>`, `&` and the
/// two JavaScript line separators escaped, which any JSON reader reads back unchanged.
fn script_json(value: &Value) -> String {
    let mut text = String::new();
    for c in value.to_string().chars() {
        match c {
            '<' => text.push_str("\\u003c"),
            '>' => text.push_str("\\u003e"),
            '&' => text.push_str("\\u0026"),
            '\u{2028}' => text.push_str("\\u2028"),
            '\u{2029}' => text.push_str("\\u2029"),
            c => text.push(c),
        }
    }
    text
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A template rendered, or the one line that says it could not be (askama fails only on a
/// writer error or a filter's).
fn render(template: &impl Template) -> String {
    template
        .render()
        .unwrap_or_else(|e| format!("the page could not be rendered: {e}"))
}

#[derive(Template)]
#[template(path = "index.html")]
struct Index<'a> {
    frame: Frame<'a>,
    api: Option<String>,
    /// The tools by namespace (else first tag), groups in the order their first tool comes.
    groups: Vec<(String, Vec<ToolView<'a>>)>,
    shown: usize,
    /// How many of the program's tools each audience has.
    audiences: Vec<(&'static str, usize)>,
    total: usize,
}

pub(super) fn index(dashboard: &Dashboard, session: &Session) -> String {
    let api = dashboard.registry.info().map(|info| match &info.version {
        Some(version) => format!("{} {}", info.name.as_str(), version.as_str()),
        None => info.name.to_string(),
    });
    let all: Vec<&Entry> = dashboard.registry.entries().collect();
    let mut groups: Vec<(String, Vec<ToolView>)> = Vec::new();
    let mut shown = 0;
    for tool in dashboard.tools.list(Audience::Dashboard).map(view) {
        let group = tool
            .namespace
            .or(tool.tags.first().copied())
            .unwrap_or("other");
        match groups.iter_mut().find(|(name, _)| name == group) {
            Some((_, tools)) => tools.push(tool),
            None => groups.push((group.to_owned(), vec![tool])),
        }
        shown += 1;
    }
    render(&Index {
        frame: Frame::new(dashboard, session, "tools"),
        api,
        groups,
        shown,
        audiences: Audience::ALL
            .into_iter()
            .map(|a| (a.as_str(), all.iter().filter(|e| e.allows(a)).count()))
            .collect(),
        total: all.len(),
    })
}

#[derive(Template)]
#[template(path = "tool.html")]
struct ToolPage<'a> {
    frame: Frame<'a>,
    tool: ToolView<'a>,
    /// What the page's script needs, as JSON for a `<script type="application/json">`.
    spec: String,
    /// The tool's schemas (label, path): each on a page of its own, since a big API's output
    /// and error schemas, made standalone, run to most of a megabyte (Stripe's: 0.7–0.8 MB).
    schemas: Vec<(&'static str, String)>,
}

/// The schemas a tool may declare: label, and the path part that names it.
const SCHEMAS: [(&str, &str); 3] = [
    ("Input", "input"),
    ("Output", "output"),
    ("Declared errors", "error"),
];

/// `name`'s schema `which` (`input`, `output` or `error`) made standalone, if the dashboard
/// tool declares it.
pub(super) fn schema(dashboard: &Dashboard, name: &str, which: &str) -> Option<Value> {
    standalone(
        dashboard,
        dashboard.tools.lookup(Audience::Dashboard, name)?,
        which,
    )
}

/// `entry`'s schema `which` and its field in the entry, if it declares it.
fn declared<'e>(entry: &'e Entry, which: &str) -> Option<(&'e Value, &'static str)> {
    match which {
        "input" => Some((entry.input_schema.as_value(), "inputSchema")),
        "output" => Some((entry.output_schema.as_ref()?.as_value(), "outputSchema")),
        "error" => Some((entry.error_schema.as_ref()?.as_value(), "errorSchema")),
        _ => None,
    }
}

/// `entry`'s schema `which` made standalone, if it declares it.
fn standalone(dashboard: &Dashboard, entry: &Entry, which: &str) -> Option<Value> {
    let (schema, at) = declared(entry, which)?;
    Some(
        dashboard
            .tools
            .standalone(schema, &format!("{}.{at}", entry.name.as_str()))
            .unwrap_or_else(|_| schema.clone()),
    )
}

/// `name`'s page, if it is a dashboard tool.
pub(super) fn tool(dashboard: &Dashboard, session: &Session, name: &str) -> Option<String> {
    let entry = dashboard.tools.lookup(Audience::Dashboard, name)?;
    let tool = view(entry);
    let spec = json!({
        "name": entry.name.as_str(),
        "endpoint": tool.href,
        "destructive": tool.destructive,
        "inputSchema": standalone(dashboard, entry, "input")?,
    });
    let schemas = SCHEMAS
        .iter()
        .filter(|(_, which)| declared(entry, which).is_some())
        .map(|&(label, which)| (label, format!("{}/schemas/{which}", tool.href)))
        .collect();
    Some(render(&ToolPage {
        frame: Frame::new(dashboard, session, "tools"),
        tool,
        spec: script_json(&spec),
        schemas,
    }))
}

/// A remembered call as the calls page lists it.
struct CallRow<'a> {
    id: u64,
    tool: &'a str,
    href: String,
    at: String,
    duration: String,
    outcome: &'static str,
    /// Whether this session made it (and may see its input and result).
    own: bool,
}

fn row<'a>(call: &'a Call, session: &Session) -> CallRow<'a> {
    CallRow {
        id: call.id,
        tool: &call.tool,
        href: tool_href(&call.tool),
        at: httpdate::fmt_http_date(call.at),
        duration: format!("{:.1} ms", call.duration.as_secs_f64() * 1000.0),
        outcome: call.outcome,
        own: call.session == session.id,
    }
}

#[derive(Template)]
#[template(path = "calls.html")]
struct CallsPage<'a> {
    frame: Frame<'a>,
    calls: Vec<CallRow<'a>>,
    limit: usize,
}

pub(super) fn calls(dashboard: &Dashboard, session: &Session) -> String {
    let calls = dashboard.calls.lock().unwrap_or_else(|e| e.into_inner());
    render(&CallsPage {
        frame: Frame::new(dashboard, session, "calls"),
        calls: calls.kept.iter().rev().map(|c| row(c, session)).collect(),
        limit: super::RECENT_CALLS,
    })
}

#[derive(Template)]
#[template(path = "call.html")]
struct CallPage<'a> {
    frame: Frame<'a>,
    call: CallRow<'a>,
    input: String,
    result: String,
}

/// Call `id`'s page, for the session that made it only.
pub(super) fn call(dashboard: &Dashboard, session: &Session, id: u64) -> Option<String> {
    let calls = dashboard.calls.lock().unwrap_or_else(|e| e.into_inner());
    let call = calls
        .kept
        .iter()
        .find(|c| c.id == id && c.session == session.id)?;
    Some(render(&CallPage {
        frame: Frame::new(dashboard, session, "calls"),
        call: row(call, session),
        input: pretty(&call.input),
        result: pretty(&call.result),
    }))
}

/// One role of a resolved revision.
struct RoleView {
    id: String,
    /// The role's agent surface: the tools it gets, with their dashboard page when they have
    /// one.
    tools: Vec<(String, Option<String>)>,
    realizations: Vec<[String; 8]>,
}

/// One harness resolved against one runtime.
struct RevisionView {
    harness: String,
    runtime: String,
    /// The revision id, or none when resolution failed.
    revision_id: Option<String>,
    adapter: String,
    workflow: String,
    roles: Vec<RoleView>,
    permissions: Vec<String>,
    errors: Vec<String>,
}

fn revision_view(dashboard: &Dashboard, revision: &Revision) -> RevisionView {
    let roles = revision
        .agents
        .iter()
        .map(|agent| {
            let surface = dashboard.registry.for_role(revision, &agent.id);
            let tools = surface
                .iter()
                .flat_map(|s| s.list(Audience::Agent))
                .map(|e| {
                    let page = dashboard
                        .tools
                        .lookup(Audience::Dashboard, &e.name)
                        .map(|_| tool_href(&e.name));
                    (e.name.to_string(), page)
                })
                .collect();
            let realizations = revision
                .realization
                .iter()
                .filter(|r| r.agent_id == agent.id)
                .map(|r| {
                    [
                        r.capability_id.clone(),
                        r.capability_kind.as_str().to_owned(),
                        r.requested_minimum.as_str().to_owned(),
                        r.declared_strength.as_str().to_owned(),
                        r.realized.as_str().to_owned(),
                        r.materialized_mechanism.clone().unwrap_or_default(),
                        word(&r.action),
                        r.reason.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            RoleView {
                id: agent.id.clone(),
                tools,
                realizations,
            }
        })
        .collect();
    RevisionView {
        harness: revision.harness.id.clone(),
        runtime: revision.target.runtime.clone(),
        revision_id: Some(revision.revision_id.clone()),
        adapter: revision.target.adapter.clone(),
        workflow: revision.workflow.id.clone(),
        roles,
        permissions: revision
            .permissions
            .iter()
            .map(|p| format!("{} {}", word(&p.domain), word(&p.access)))
            .collect(),
        errors: Vec::new(),
    }
}

#[derive(Template)]
#[template(path = "harness.html")]
struct HarnessPage<'a> {
    frame: Frame<'a>,
    embedded: bool,
    revisions: Vec<RevisionView>,
}

pub(super) fn harness(dashboard: &Dashboard, session: &Session) -> String {
    let mut revisions: Vec<RevisionView> = Vec::new();
    // The default runtime is one of the declared ones: each revision (or the same failure of a
    // harness) is shown once.
    let mut shown = std::collections::BTreeSet::new();
    for (harness, runtime, resolution) in dashboard.bundle.iter().flat_map(resolve_all) {
        let (key, view) = match resolution {
            Ok(revision) => (
                revision.revision_id.clone(),
                revision_view(dashboard, &revision),
            ),
            Err(report) => (
                format!("{harness}\n{}", report.errors.join("\n")),
                RevisionView {
                    harness: harness.to_owned(),
                    runtime: runtime.unwrap_or("(default)").to_owned(),
                    revision_id: None,
                    adapter: String::new(),
                    workflow: String::new(),
                    roles: Vec::new(),
                    permissions: Vec::new(),
                    errors: report.errors,
                },
            ),
        };
        if shown.insert(key) {
            revisions.push(view);
        }
    }
    render(&HarnessPage {
        frame: Frame::new(dashboard, session, "harness"),
        embedded: dashboard.bundle.is_some(),
        revisions,
    })
}

#[derive(Template)]
#[template(path = "not_found.html")]
struct NotFound;

#[derive(Template)]
#[template(path = "login.html")]
struct Login {
    failed: bool,
}

/// The sign-in page of a server with client authentication (`failed`: after a wrong token).
pub(super) fn login(failed: bool) -> String {
    render(&Login { failed })
}

pub(super) fn not_found() -> String {
    render(&NotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_in_a_script_element_cannot_end_it_and_reads_back_the_same() {
        let value = json!({"description": "</script><script>alert(1)</script> & \u{2028}"});
        let text = script_json(&value);
        assert!(!text.contains(['<', '>', '&', '\u{2028}']), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }

    #[test]
    fn tool_paths_keep_names_readable_and_encode_anything_else() {
        assert_eq!(tool_href("pets.create"), "/dashboard/tools/pets.create");
        assert_eq!(tool_href("a b/c?d"), "/dashboard/tools/a%20b%2Fc%3Fd");
    }

    #[test]
    fn the_index_summarizes_a_description_by_its_first_paragraph_within_a_bound() {
        assert_eq!(summary(" Lists pets.\n\nMore. "), "Lists pets.");
        let long = "é".repeat(SUMMARY_CHARS + 10);
        let cut = summary(&long);
        assert_eq!(cut.chars().count(), SUMMARY_CHARS + 1);
        assert!(cut.ends_with('…'));
    }
}

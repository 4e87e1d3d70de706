//! The closed `x-harn` vendor extension (openapi.md §2): its typed form, parsed with located
//! errors. Every record reuses the catalog's own types where the catalog has one, so a value
//! valid here is valid there.

use std::collections::BTreeMap;

use harness_gen_contract::catalog::{
    Annotations, ArgumentSpec, Audience, CliTree, CommandSegment, Execution, Icon, MetaKey,
    NonBlank,
};
use harness_gen_wire::binding::Method;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::diag::{Code, Diagnostics, Severity};
use crate::load::{Document, Loc};

/// `x-harn` on an operation (`paths./pets.get.x-harn`): how the operation becomes a tool.
/// Every key is optional; an unknown key is an error (HG0401).
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OperationExt {
    /// The tool's name, as MCP clients, agents and the catalog call it: letters, digits, `_`,
    /// `.` and `-`, at most 128 characters. Default: the `operationId` in snake_case (else
    /// `<method>_<path>`), cut to 64 characters, repeats numbered (HG0501). Example:
    /// `name: list_pets`.
    pub name: Option<String>,
    /// A human-readable title, shown by MCP clients and the dashboard. Default: the operation's
    /// `summary`. Example: `title: List pets`.
    pub title: Option<NonBlank>,
    /// A namespace the tool is grouped under in the catalog and the agent projection (the tool
    /// is then also known as `namespace.name`, the id a `.harness` tool declaration links to).
    /// Default: none. Example: `namespace: pets`.
    pub namespace: Option<NonBlank>,
    /// `false` keeps the operation in the SDK but makes no tool of it: it is in no catalog, CLI,
    /// MCP server, dashboard or agent surface. Default: `true`. Example: `expose: false`.
    pub expose: Option<bool>,
    /// `true` leaves the tool out of the agents' default tool list: an agent finds it through
    /// tool search and loads it when needed (progressive disclosure for large APIs). The MCP
    /// server, CLI and dashboard are not affected. Default: `false`. Example: `defer_loading: true`.
    pub defer_loading: Option<bool>,
    /// Which projections serve the tool: its `audiences`, any of `cli` (the generated
    /// command-line program), `mcp` (the MCP server), `catalog` (the published catalog),
    /// `dashboard` (the operator dashboard) and `agent` (agents using the registry in process).
    /// Default: all five. Example: `governance: {audiences: [cli, dashboard]}` keeps a dangerous
    /// operation away from MCP clients and agents.
    pub governance: Option<GovernanceExt>,
    /// Where the tool sits in the generated CLI and how its arguments are spelled. Default: the
    /// command `[first tag, name]` in kebab-case, path parameters as positional arguments, the
    /// other inputs as `--options`. Example: `cli: {command: "pets ls", aliases: [list]}`.
    pub cli: Option<CliExt>,
    /// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`). Default: what the HTTP method implies (`GET` read-only, `DELETE`
    /// destructive, `PUT` idempotent); a hint may refine the method's meaning, never reverse it
    /// (HG0403). Example: `annotations: {idempotentHint: true}` on a `POST` that is.
    pub annotations: Option<Annotations>,
    /// Icons MCP clients may show beside the tool. Default: none. Example:
    /// `icons: [{src: "https://example.com/pet.png", mimeType: image/png}]`.
    pub icons: Option<Vec<Icon>>,
    /// Whether MCP clients may (or must) run the tool as a task they poll instead of waiting on
    /// the call: `{taskSupport: optional}` or `required`. Default: `forbidden`. Example:
    /// `execution: {taskSupport: optional}` for a slow export.
    pub execution: Option<Execution>,
    /// Extra `_meta` of the catalog entry, listed to MCP clients with the tool; keys are
    /// reverse-DNS names of your own (`com.harnlang/…` keys are the runtime's, HR0205). Default:
    /// the operation's tags under `com.harnlang/tags`. Example: `meta: {com.example/owner: billing}`.
    pub meta: Option<BTreeMap<MetaKey, Value>>,
    /// The request header that carries an idempotency key, which the SDK fills with a fresh key
    /// per call (kept across its retries), so a retried `POST` is not done twice. Default: the
    /// document's `x-harn.idempotencyKey` for `POST` and `PATCH`, else none. Example:
    /// `idempotency_key: Idempotency-Key`.
    pub idempotency_key: Option<String>,
    /// How the operation's replies continue on further pages, for the SDK's page iterator, the
    /// CLI's `--paginate` and the MCP server's next-page hint. Default: detected from the
    /// parameters and the reply (HG0508). Example: `pagination: {kind: cursor, param: after,
    /// next: /next_cursor}`; `pagination: {kind: none}` turns detection off.
    pub pagination: Option<PaginationExt>,
    /// How the streaming call of an operation that offers `text/event-stream` asks for the
    /// stream and sees its end. Default: a boolean body property `stream` set to `true`, and the
    /// `[DONE]` sentinel (HG0509). Example: `events: {flag: "", sentinel: ""}` for a stream asked
    /// for by `Accept` alone that ends when the connection closes.
    pub events: Option<EventsExt>,
    /// What MCP clients and agents are told the tool does, where that should differ from the
    /// operation's description (a long reference text cut to what a model needs; see HG0511).
    /// Default: the operation's description, else its summary. Example:
    /// `descriptions: {mcp: "Lists pets, newest first."}`.
    pub descriptions: Option<DescriptionsExt>,
}

/// `x-harn.descriptions`: a tool's description for one audience, written to the catalog entry's
/// `_meta["com.harnlang/descriptions"]`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DescriptionsExt {
    /// What the MCP server lists.
    pub mcp: Option<NonBlank>,
    /// What agents' provider tool schemas say.
    pub agent: Option<NonBlank>,
}

/// `x-harn.events`: the request body's boolean property the streaming call sets to `true`
/// (`""` for none), and the data that ends the stream (`""` for none).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EventsExt {
    /// The body property; default: a boolean `stream`, if the body has one.
    pub flag: Option<String>,
    /// The sentinel; default `[DONE]`.
    pub sentinel: Option<String>,
}

/// `x-harn.pagination`: the runtime's `Pagination` with the request parameter by its name in
/// the document, and `kind: none` to switch detection off.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PaginationExt {
    /// `cursor`, `offset`, `page`, `link` or `none`.
    pub kind: PageKindExt,
    /// The request parameter (its `name`) that carries the cursor, offset or page number.
    pub param: Option<String>,
    /// JSON pointer to the items in the reply (default: the reply when it is a list, else its
    /// one list property).
    pub items: Option<String>,
    /// JSON pointer to the next cursor (`cursor`) or the next page's URL (`link`).
    pub next: Option<String>,
    /// JSON pointer into the last item to the next cursor (`cursor`).
    pub last_item: Option<String>,
    /// JSON pointer to the flag that is false on the last page.
    pub has_more: Option<String>,
    /// JSON pointer to the flag that is true on the last page.
    pub done: Option<String>,
}

/// `x-harn.pagination.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PageKindExt {
    /// An opaque cursor.
    Cursor,
    /// The offset of the first item.
    Offset,
    /// The page number.
    Page,
    /// A next-page URL.
    Link,
    /// Not paginated (detection off).
    None,
}

/// `x-harn.governance`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GovernanceExt {
    /// In any order; each at most once.
    pub audiences: Vec<Audience>,
}

/// `x-harn.cli`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CliExt {
    /// `"a b"` or `["a", "b"]`.
    pub command: Option<CommandExt>,
    /// Other spellings of the last segment.
    #[serde(default)]
    pub aliases: Vec<CommandSegment>,
    /// Hidden from help.
    pub hidden: Option<bool>,
    /// Token metadata by wire name (or `body`).
    #[serde(default)]
    pub arguments: BTreeMap<String, ArgumentSpec>,
}

/// A command path written as words or as a list.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum CommandExt {
    /// `"pets list"`.
    Words(String),
    /// `["pets", "list"]`.
    Segments(Vec<String>),
}

impl CommandExt {
    /// The segments.
    pub fn segments(&self) -> Vec<String> {
        match self {
            CommandExt::Words(words) => words.split_whitespace().map(str::to_string).collect(),
            CommandExt::Segments(segments) => segments.clone(),
        }
    }
}

/// `x-harn` at the document's root: defaults for every operation and the crate's shape.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DocumentExt {
    /// Defaults for annotations the method does not imply. Default: `openWorldHint: true` (tools
    /// reach the outside world). Example: `annotationDefaults: {openWorldHint: false}` for an
    /// internal API.
    pub annotation_defaults: Option<AnnotationDefaults>,
    /// Help text and aliases of the CLI's parent commands (the groups, such as `pets`). Default:
    /// none. Example: `cli: {commands: [{command: [pets], description: "Manage pets"}]}`.
    pub cli: Option<CliTree>,
    /// Groups of tags compiled behind one cargo feature of the generated crate, so a user
    /// compiles only what they call: feature name to tags. Default: one feature per tag (HG0507).
    /// Example: `features: {repos: [repos, git], issues: [issues]}`.
    pub features: Option<BTreeMap<String, Vec<String>>>,
    /// The idempotency-key header of every operation whose method is not idempotent (`POST`,
    /// `PATCH`), unless the operation says otherwise. Default: none. Example:
    /// `idempotencyKey: Idempotency-Key`.
    pub idempotency_key: Option<String>,
    /// How arrays inside `deepObject` values (query parameters, form-body properties) are
    /// written: `indexed` (`expand[0]=a`, the default) or `brackets` (`expand[]=a`).
    pub deep_object_arrays: Option<harness_gen_wire::binding::DeepArrays>,
}

/// `x-harn` on a security scheme (`components.securitySchemes.<name>.x-harn`): where the
/// generated programs read its credential.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SchemeExt {
    /// The environment variables the client reads the credential from, exactly: one name for a
    /// token or key, two (user name, then password) for HTTP basic. Default: the API's name and
    /// what the credential is (`PETSTORE_API_KEY`, `GITHUB_TOKEN`, `..._USERNAME` and
    /// `..._PASSWORD`). Example: `env: OPENAI_API_KEY`.
    pub env: Option<OneOrMore>,
}

/// One name, or a list of them.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum OneOrMore {
    /// One.
    One(String),
    /// Several, in order.
    More(Vec<String>),
}

impl OneOrMore {
    /// The names, in order.
    pub fn names(&self) -> Vec<String> {
        match self {
            OneOrMore::One(name) => vec![name.clone()],
            OneOrMore::More(names) => names.clone(),
        }
    }
}

/// `x-harn.annotationDefaults`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "reference", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnnotationDefaults {
    /// Default `openWorldHint` (else `true`).
    pub open_world_hint: Option<bool>,
}

/// Parses the `x-harn` value at `loc`; `what` names its owner in messages (e.g. "operation
/// `listPets`"). Problems are reported; `None` means it was refused.
pub fn parse<T: DeserializeOwned>(
    value: &Value,
    loc: &Loc,
    what: &str,
    doc: &Document,
    diags: &mut Diagnostics,
) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            let mut at = loc.clone();
            for segment in error.path().iter() {
                use serde_path_to_error::Segment;
                match segment {
                    Segment::Seq { index } => at = at.at(&index.to_string()),
                    Segment::Map { key } => at = at.at(key),
                    Segment::Enum { variant } => at = at.at(variant),
                    Segment::Unknown => {}
                }
            }
            let inner = error.into_inner().to_string();
            let (code, message) = if let Some(rest) = inner.strip_prefix("unknown field `") {
                let key = rest.split('`').next().unwrap_or_default();
                (
                    Code::XHarnUnknownKey,
                    format!(
                        "unknown x-harn key `{key}` in {what}: x-harn is closed; {}",
                        rest.split_once(", ")
                            .map_or("remove it", |(_, expected)| expected)
                    ),
                )
            } else {
                (
                    Code::XHarnInvalid,
                    format!(
                        "invalid x-harn value in {what}: {}",
                        harness_gen_wire::mask_serde_message(&inner)
                    ),
                )
            };
            diags.push(doc.diag(code, Severity::Error, &at, message));
            None
        }
    }
}

/// Checks an explicit tool name: `^[A-Za-z0-9_.-]+$`, at most 128 characters.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// What the HTTP method fixes about the hints: `Some(v)` means the hint must be `v`.
#[derive(Clone, Copy, Debug)]
pub struct MethodHints {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
}

impl MethodHints {
    /// The hints `method` implies.
    pub fn of(method: Method) -> Self {
        match method {
            Method::Get | Method::Head | Method::Options | Method::Trace => Self {
                read_only: Some(true),
                destructive: Some(false),
                idempotent: Some(true),
            },
            Method::Put => Self {
                read_only: None,
                destructive: None,
                idempotent: Some(true),
            },
            Method::Delete => Self {
                read_only: Some(false),
                destructive: Some(true),
                idempotent: Some(true),
            },
            _ => Self {
                read_only: None,
                destructive: None,
                idempotent: None,
            },
        }
    }

    /// Each hint of `annotations` that contradicts the method, by field name.
    pub fn contradictions(&self, annotations: &Annotations) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (field, fixed, given) in [
            ("readOnlyHint", self.read_only, annotations.read_only_hint),
            (
                "destructiveHint",
                self.destructive,
                annotations.destructive_hint,
            ),
            (
                "idempotentHint",
                self.idempotent,
                annotations.idempotent_hint,
            ),
        ] {
            if let (Some(fixed), Some(given)) = (fixed, given)
                && fixed != given
            {
                out.push(field);
            }
        }
        out
    }

    /// The four hints emitted for a tool: the method's, refined by `annotations`.
    pub fn resolve(&self, annotations: Option<&Annotations>, open_world: bool) -> Annotations {
        let given = annotations.cloned().unwrap_or_default();
        Annotations {
            title: given.title,
            read_only_hint: Some(self.read_only.or(given.read_only_hint).unwrap_or(false)),
            destructive_hint: Some(self.destructive.or(given.destructive_hint).unwrap_or(false)),
            idempotent_hint: Some(self.idempotent.or(given.idempotent_hint).unwrap_or(false)),
            open_world_hint: Some(given.open_world_hint.unwrap_or(open_world)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_pattern() {
        assert!(valid_tool_name("pets.list-v2_x"));
        assert!(!valid_tool_name("pets list"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name(&"a".repeat(129)));
    }

    #[test]
    fn get_cannot_be_declared_writable() {
        let hints = MethodHints::of(Method::Get);
        let given = Annotations {
            read_only_hint: Some(false),
            ..Default::default()
        };
        assert_eq!(hints.contradictions(&given), ["readOnlyHint"]);
    }

    #[test]
    fn post_may_be_refined_to_read_only() {
        let hints = MethodHints::of(Method::Post);
        let given = Annotations {
            read_only_hint: Some(true),
            idempotent_hint: Some(true),
            ..Default::default()
        };
        assert!(hints.contradictions(&given).is_empty());
        let resolved = hints.resolve(Some(&given), true);
        assert_eq!(resolved.read_only_hint, Some(true));
        assert_eq!(resolved.destructive_hint, Some(false));
        assert_eq!(resolved.idempotent_hint, Some(true));
        assert_eq!(resolved.open_world_hint, Some(true));
    }
}

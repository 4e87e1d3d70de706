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

/// Operation-level `x-harn`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationExt {
    /// Tool name, `^[A-Za-z0-9_.-]+$`, at most 128 characters.
    pub name: Option<String>,
    /// Tool title.
    pub title: Option<NonBlank>,
    /// Tool namespace.
    pub namespace: Option<NonBlank>,
    /// `false` keeps the SDK function but publishes no tool.
    pub expose: Option<bool>,
    /// Progressive disclosure for agents.
    pub defer_loading: Option<bool>,
    /// Audiences; omitted means all five.
    pub governance: Option<GovernanceExt>,
    /// CLI placement and argument tokens.
    pub cli: Option<CliExt>,
    /// Hints that refine what the HTTP method implies.
    pub annotations: Option<Annotations>,
    /// Icons.
    pub icons: Option<Vec<Icon>>,
    /// Task support.
    pub execution: Option<Execution>,
    /// The entry's `_meta`.
    pub meta: Option<BTreeMap<MetaKey, Value>>,
    /// The request header that carries an idempotency key, which the SDK fills per call.
    pub idempotency_key: Option<String>,
    /// How the operation's replies continue on further pages (or `kind: none`: they do not).
    pub pagination: Option<PaginationExt>,
    /// How the streaming call of an operation that offers `text/event-stream` asks for the
    /// stream and sees its end.
    pub events: Option<EventsExt>,
    /// What MCP clients and agents are told the tool does, where that should differ from the
    /// operation's description (a long reference text cut to what a model needs).
    pub descriptions: Option<DescriptionsExt>,
}

/// `x-harn.descriptions`: a tool's description for one audience, written to the catalog entry's
/// `_meta["com.harnlang/descriptions"]`.
#[derive(Debug, Deserialize)]
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
#[serde(deny_unknown_fields)]
pub struct GovernanceExt {
    /// In any order; each at most once.
    pub audiences: Vec<Audience>,
}

/// `x-harn.cli`.
#[derive(Debug, Default, Deserialize)]
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

/// Document-level `x-harn`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DocumentExt {
    /// Defaults for hints the method does not imply.
    pub annotation_defaults: Option<AnnotationDefaults>,
    /// Parent-command metadata.
    pub cli: Option<CliTree>,
    /// Groups of tags compiled behind one cargo feature of the generated crate: feature name →
    /// tags (see `mapping::groups`).
    pub features: Option<BTreeMap<String, Vec<String>>>,
    /// The idempotency-key header of every operation whose method is not idempotent (POST,
    /// PATCH), unless the operation says otherwise.
    pub idempotency_key: Option<String>,
    /// How arrays inside `deepObject` values (query parameters, form-body properties) are
    /// written: `indexed` (`expand[0]=a`, the default) or `brackets` (`expand[]=a`).
    pub deep_object_arrays: Option<harness_gen_wire::binding::DeepArrays>,
}

/// A security scheme's `x-harn` (in `components.securitySchemes`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemeExt {
    /// The environment variables the client reads the credential from, exactly: one name for a
    /// token or key, two (user name, then password) for HTTP basic.
    pub env: Option<OneOrMore>,
}

/// One name, or a list of them.
#[derive(Debug, Deserialize)]
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

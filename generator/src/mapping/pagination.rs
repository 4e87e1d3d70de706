//! Which operations list in pages, and how (the binding's `Pagination`): the operation's
//! `x-harn.pagination` when it has one (checked against its parameters and reply schema), else
//! the first of [`RULES`] that recognises a `GET` operation's shape. Operations a rule
//! recognised are reported per rule (note `HG0508`); one whose items cannot be told apart is
//! left unpaginated, with a note saying how to declare it.

use std::collections::BTreeMap;

use harness_gen_contract::schema::standalone::{self, RefTarget};
use harness_gen_wire::binding::{Encoding, Method, PageKind, Pagination, ParamIn};
use serde_json::Value;

use super::Cx;
use super::operation::Parts;
use crate::diag::{Code, Severity};
use crate::load::Loc;
use crate::xharn::{PageKindExt, PaginationExt};

/// The shapes recognised without `x-harn.pagination`, in the order they are tried: (name, what
/// it looks for). Each needs a `GET` with a JSON reply whose items are one list.
pub const RULES: [(&str, &str); 8] = [
    (
        "link-header",
        "the reply declares a `Link` header (RFC 8288 `rel=\"next\"`, as GitHub)",
    ),
    (
        "has-more-last-id",
        "an `after` parameter, and `has_more` and `last_id` in the reply (as OpenAI)",
    ),
    (
        "has-more-last-item",
        "a `starting_after` or `after` parameter, and `has_more` in the reply: the last item's `id` is the cursor (as Stripe)",
    ),
    (
        "has-more-next-page",
        "a `page` parameter, and `has_more` and `next_page` in the reply (as Stripe's searches)",
    ),
    (
        "done-iterator",
        "an `iterator` parameter, and `iterator` and a boolean `done` in the reply (as Svix)",
    ),
    (
        "next-page-token",
        "a `pageToken` or `page_token` parameter, and `nextPageToken` or `next_page_token` in the reply (as Google)",
    ),
    (
        "next-cursor",
        "a `cursor` parameter, and `next_cursor` in the reply",
    ),
    (
        "next-url",
        "a `next` URL in the reply, and query parameters it can set",
    ),
];

/// What the rules found across the document: per rule, the operations it paginated.
#[derive(Default)]
pub struct Found {
    by_rule: BTreeMap<&'static str, Vec<String>>,
}

impl Found {
    /// One note per rule that fired, naming the rule and (some of) its operations.
    pub fn report(self, cx: &mut Cx) {
        for (rule, operations) in self.by_rule {
            let what = RULES
                .iter()
                .find(|(name, _)| *name == rule)
                .map_or("", |r| r.1);
            let shown = operations
                .iter()
                .take(4)
                .map(|o| format!("`{o}`"))
                .collect::<Vec<_>>();
            let more = operations.len().saturating_sub(shown.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            cx.diags.push(cx.doc.diag(
                Code::Paginated,
                Severity::Note,
                &Loc::main("/paths"),
                format!(
                    "{} operation(s) list in pages by rule `{rule}` ({what}): {}{more}; their SDK methods get `_pages` streams and their tools return the next page's arguments. Set x-harn.pagination on an operation to declare otherwise (`kind: none` for no pagination)",
                    operations.len(),
                    shown.join(", ")
                ),
            ));
        }
    }
}

/// The pagination of one operation (`name` for notes, `at` its location).
pub fn of_operation(
    cx: &mut Cx,
    found: &mut Found,
    (name, at): (&str, &Loc),
    method: Method,
    declared: Option<&PaginationExt>,
    parts: &Parts,
    components: &BTreeMap<String, Value>,
) -> Option<Pagination> {
    let schemas = Schemas { components };
    if let Some(declared) = declared {
        return checked(
            cx,
            &at.at("x-harn").at("pagination"),
            declared,
            parts,
            &schemas,
        );
    }
    let output = parts
        .output
        .as_ref()
        .filter(|o| o.binding.encoding == Encoding::Json)?;
    if method != Method::Get {
        return None;
    }
    let (rule, mut pagination) = detect(parts, &schemas)?;
    let items = match schemas.items_pointer(&output.schema) {
        Ok(items) => items,
        Err(candidates) => {
            let why = if candidates.is_empty() {
                "its reply has no list of items".to_string()
            } else {
                format!(
                    "which list holds its items is ambiguous ({})",
                    candidates.join(", ")
                )
            };
            cx.diags.push(cx.doc.diag(
                Code::Paginated,
                Severity::Note,
                at,
                format!(
                    "`{name}` looks paginated by rule `{rule}`, but {why}; it is not paginated. Declare x-harn.pagination (with `items`) to page it"
                ),
            ));
            return None;
        }
    };
    pagination.items = items.into();
    found
        .by_rule
        .entry(rule)
        .or_default()
        .push(name.to_string());
    Some(pagination)
}

/// The first rule that recognises the operation: its name and pagination (items not set yet).
fn detect(parts: &Parts, schemas: &Schemas) -> Option<(&'static str, Pagination)> {
    let output = parts.output.as_ref()?;
    let query = |names: &[&str]| {
        parts.params.iter().find(|p| {
            p.binding.location == ParamIn::Query && names.contains(&p.binding.name.as_ref())
        })
    };
    let has = |names: &[&'static str]| -> Option<&'static str> {
        names
            .iter()
            .copied()
            .find(|name| schemas.property(&output.schema, name).is_some())
    };
    let base = Pagination::of;
    let pointer = |name: &str| Some(format!("/{name}").into());
    if output.headers.iter().any(|h| h == "link") {
        return Some(("link-header", base(PageKind::Link)));
    }
    let has_more = schemas
        .property(&output.schema, "has_more")
        .filter(|flag| schemas.is_type(flag, "boolean"))
        .map(|_| "has_more");
    if let (Some(after), Some(flag), Some(last)) = (query(&["after"]), has_more, has(&["last_id"]))
    {
        return Some((
            "has-more-last-id",
            Pagination {
                param: Some(after.binding.property.clone()),
                next: pointer(last),
                has_more: pointer(flag),
                ..base(PageKind::Cursor)
            },
        ));
    }
    if let (Some(after), Some(flag)) = (query(&["starting_after", "after"]), has_more) {
        return Some((
            "has-more-last-item",
            Pagination {
                param: Some(after.binding.property.clone()),
                last_item: Some("/id".into()),
                has_more: pointer(flag),
                ..base(PageKind::Cursor)
            },
        ));
    }
    if let (Some(page), Some(flag), Some(next)) = (query(&["page"]), has_more, has(&["next_page"]))
    {
        return Some((
            "has-more-next-page",
            Pagination {
                param: Some(page.binding.property.clone()),
                next: pointer(next),
                has_more: pointer(flag),
                ..base(PageKind::Cursor)
            },
        ));
    }
    let done = schemas
        .property(&output.schema, "done")
        .is_some_and(|flag| schemas.is_type(flag, "boolean"));
    if let (Some(iterator), Some(next), true) = (query(&["iterator"]), has(&["iterator"]), done) {
        return Some((
            "done-iterator",
            Pagination {
                param: Some(iterator.binding.property.clone()),
                next: pointer(next),
                done: pointer("done"),
                ..base(PageKind::Cursor)
            },
        ));
    }
    if let (Some(token), Some(next)) = (
        query(&["pageToken", "page_token"]),
        has(&["nextPageToken", "next_page_token"]),
    ) {
        return Some((
            "next-page-token",
            Pagination {
                param: Some(token.binding.property.clone()),
                next: pointer(next),
                ..base(PageKind::Cursor)
            },
        ));
    }
    if let (Some(cursor), Some(next)) = (query(&["cursor"]), has(&["next_cursor"])) {
        return Some((
            "next-cursor",
            Pagination {
                param: Some(cursor.binding.property.clone()),
                next: pointer(next),
                ..base(PageKind::Cursor)
            },
        ));
    }
    let next_url = schemas
        .property(&output.schema, "next")
        .is_some_and(|next| schemas.is_type(next, "string"));
    let has_query = parts
        .params
        .iter()
        .any(|p| p.binding.location == ParamIn::Query);
    if next_url && has_query {
        return Some((
            "next-url",
            Pagination {
                next: pointer("next"),
                ..base(PageKind::Link)
            },
        ));
    }
    None
}

/// A declared pagination, checked: every field its kind needs and no other, the parameter
/// declared, every pointer leading somewhere in the reply's schema.
fn checked(
    cx: &mut Cx,
    at: &Loc,
    declared: &PaginationExt,
    parts: &Parts,
    schemas: &Schemas,
) -> Option<Pagination> {
    let mut problems: Vec<(&str, String)> = Vec::new();
    let kind = match declared.kind {
        PageKindExt::None => return None,
        PageKindExt::Cursor => PageKind::Cursor,
        PageKindExt::Offset => PageKind::Offset,
        PageKindExt::Page => PageKind::Page,
        PageKindExt::Link => PageKind::Link,
    };
    let Some(output) = parts
        .output
        .as_ref()
        .filter(|o| o.binding.encoding == Encoding::Json)
    else {
        cx.diags.push(cx.doc.diag(
            Code::XHarnInvalid,
            Severity::Error,
            at,
            "x-harn.pagination needs a JSON success reply to read pages from; this operation has none".to_string(),
        ));
        return None;
    };
    let wants_param = kind != PageKind::Link;
    let param = match (&declared.param, wants_param) {
        (Some(name), true) => {
            let found = parts
                .params
                .iter()
                .find(|p| p.binding.name == name.as_str() && p.binding.location != ParamIn::Path);
            if found.is_none() {
                let names: Vec<String> = parts
                    .params
                    .iter()
                    .filter(|p| p.binding.location != ParamIn::Path)
                    .map(|p| format!("`{}`", p.binding.name))
                    .collect();
                problems.push(("param", format!(
                    "`{name}` is not a query, header or cookie parameter of this operation (it has: {})",
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                )));
            }
            found.map(|p| p.binding.property.clone())
        }
        (None, true) => {
            problems.push((
                "param",
                format!(
                    "kind `{}` needs `param`: the request parameter that carries the {}",
                    kind.as_str(),
                    match kind {
                        PageKind::Cursor => "cursor",
                        PageKind::Offset => "offset",
                        _ => "page number",
                    }
                ),
            ));
            None
        }
        (Some(_), false) => {
            problems.push((
                "param",
                "kind `link` takes no `param`: the next page's URL sets the parameters".to_string(),
            ));
            None
        }
        (None, false) => None,
    };
    let items = match &declared.items {
        Some(items) => items.clone(),
        None => match schemas.items_pointer(&output.schema) {
            Ok(items) => items,
            Err(candidates) => {
                problems.push(("items", format!(
                    "say where the items are: the reply is not a list and has {} list properties{}",
                    candidates.len(),
                    if candidates.is_empty() { String::new() } else { format!(" ({})", candidates.join(", ")) }
                )));
                String::new()
            }
        },
    };
    let list = schemas
        .at(&output.schema, &items)
        .filter(|list| schemas.is_type(list, "array"));
    let item_schema = list.and_then(|list| schemas.resolve(list).get("items"));
    if declared.items.is_some() && list.is_none() {
        problems.push((
            "items",
            format!("`{items}` does not lead to a list in the reply's schema"),
        ));
    }
    match (kind, &declared.next, &declared.last_item) {
        (PageKind::Cursor, None, None) => problems.push(("next", "kind `cursor` needs `next` (where the next cursor is in the reply) or `last_item` (where it is in the last item)".to_string())),
        (PageKind::Cursor, Some(_), Some(_)) => problems.push(("last_item", "give `next` or `last_item`, not both".to_string())),
        (PageKind::Offset | PageKind::Page, Some(_), _) => problems.push(("next", format!("kind `{}` counts its pages and takes no `next`", kind.as_str()))),
        (PageKind::Offset | PageKind::Page | PageKind::Link, _, Some(_)) => problems.push(("last_item", format!("kind `{}` takes no `last_item`", kind.as_str()))),
        _ => {}
    }
    for (field, pointer, within) in [
        ("next", &declared.next, &output.schema),
        ("has_more", &declared.has_more, &output.schema),
        ("done", &declared.done, &output.schema),
    ] {
        if let Some(pointer) = pointer
            && schemas.at(within, pointer).is_none()
        {
            problems.push((
                field,
                format!("`{pointer}` does not lead anywhere in the reply's schema"),
            ));
        }
    }
    if let (Some(pointer), Some(item)) = (&declared.last_item, item_schema)
        && schemas.at(item, pointer).is_none()
    {
        problems.push((
            "last_item",
            format!("`{pointer}` does not lead anywhere in an item's schema"),
        ));
    }
    if !problems.is_empty() {
        for (field, message) in problems {
            cx.diags.push(cx.doc.diag(
                Code::XHarnInvalid,
                Severity::Error,
                &at.at(field),
                format!("x-harn.pagination: {message}"),
            ));
        }
        return None;
    }
    Some(Pagination {
        kind,
        param,
        items: items.into(),
        next: declared.next.clone().map(Into::into),
        last_item: declared.last_item.clone().map(Into::into),
        has_more: declared.has_more.clone().map(Into::into),
        done: declared.done.clone().map(Into::into),
    })
}

/// Reading normalized schemas, whose only references are `#/components/schemas/…`.
pub(super) struct Schemas<'a> {
    components: &'a BTreeMap<String, Value>,
}

impl<'a> Schemas<'a> {
    /// Reading schemas whose references lead into `components`.
    pub(super) fn new(components: &'a BTreeMap<String, Value>) -> Self {
        Self { components }
    }

    /// `schema` with its references followed, and a nullable union (`anyOf`/`oneOf` of one
    /// schema and `null`) taken as that schema.
    fn resolve<'s>(&'s self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..32 {
            let reference = schema
                .get("$ref")
                .and_then(Value::as_str)
                .map(standalone::classify);
            if let Some(RefTarget::Component { name, rest }) = reference {
                match self
                    .components
                    .get(&name)
                    .and_then(|c| harness_gen_contract::schema::resolve(c, &rest))
                {
                    Some(target) => schema = target,
                    None => return schema,
                }
                continue;
            }
            let union = ["anyOf", "oneOf"]
                .iter()
                .find_map(|k| schema.get(*k).and_then(Value::as_array));
            if let Some(members) = union {
                let real: Vec<&Value> = members
                    .iter()
                    .filter(|m| m.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                if let [only] = real[..] {
                    schema = only;
                    continue;
                }
            }
            return schema;
        }
        schema
    }

    /// Whether `schema` may be of JSON type `wanted`.
    pub(super) fn is_type(&self, schema: &Value, wanted: &str) -> bool {
        match self.resolve(schema).get("type") {
            Some(Value::String(t)) => t == wanted,
            Some(Value::Array(types)) => types.iter().any(|t| t == wanted),
            _ => false,
        }
    }

    /// Property `name` of an object schema (in its `allOf` members too).
    pub(super) fn property<'s>(&'s self, schema: &'s Value, name: &str) -> Option<&'s Value> {
        let schema = self.resolve(schema);
        if let Some(found) = schema.get("properties").and_then(|p| p.get(name)) {
            return Some(found);
        }
        schema
            .get("allOf")
            .and_then(Value::as_array)?
            .iter()
            .find_map(|member| self.property(member, name))
    }

    /// The names of an object schema's properties (in its `allOf` members too).
    fn property_names<'s>(&'s self, schema: &'s Value, out: &mut Vec<&'s str>) {
        let schema = self.resolve(schema);
        if let Some(Value::Object(properties)) = schema.get("properties") {
            out.extend(properties.keys().map(String::as_str));
        }
        for member in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.property_names(member, out);
        }
    }

    /// Where a JSON pointer leads in the values `schema` describes: through properties, and
    /// through a list's items for a numeric segment.
    fn at<'s>(&'s self, schema: &'s Value, pointer: &str) -> Option<&'s Value> {
        if pointer.is_empty() {
            return Some(schema);
        }
        let mut here = schema;
        for segment in pointer.strip_prefix('/')?.split('/') {
            let segment = harness_gen_contract::schema::unescape(segment);
            here = if segment.parse::<usize>().is_ok() && self.is_type(here, "array") {
                self.resolve(here).get("items")?
            } else {
                self.property(here, &segment)?
            };
        }
        Some(here)
    }

    /// Where the items of a reply are: the reply itself when it is a list, else its one list
    /// property, or the one called `data`, `items` or `results` among several. Else the list
    /// properties it has.
    fn items_pointer(&self, output: &Value) -> Result<String, Vec<String>> {
        if self.is_type(output, "array") {
            return Ok(String::new());
        }
        let mut names = Vec::new();
        self.property_names(output, &mut names);
        let lists: Vec<&str> = names
            .into_iter()
            .filter(|name| {
                self.property(output, name)
                    .is_some_and(|p| self.is_type(p, "array"))
            })
            .collect();
        if let [only] = lists[..] {
            return Ok(format!("/{}", harness_gen_contract::schema::escape(only)));
        }
        ["data", "items", "results"]
            .iter()
            .find(|preferred| lists.contains(preferred))
            .map(|name| format!("/{name}"))
            .ok_or_else(|| lists.iter().map(|l| format!("`{l}`")).collect())
    }
}

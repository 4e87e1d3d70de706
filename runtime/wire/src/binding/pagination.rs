//! How an operation lists in pages: where the items are, how the next page is asked for, and
//! the trail that stops a listing that loops.

use super::*;

/// How an operation's replies continue on further pages (`x-harn.pagination`, or a shape the
/// generator recognised). Each next page is the same call with a few input properties changed
/// (the cursor, offset or page number, or the query of a next-page link); the last page is the
/// one that says so (an empty page, a false has-more flag, no next cursor or link).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pagination {
    /// How the next page is asked for.
    pub kind: PageKind,
    /// The input property the next page sets: the cursor (`cursor`), the offset of its first
    /// item (`offset`) or its number (`page`). None for `link`, whose next URL says everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub param: Option<Text>,
    /// A JSON pointer to the page's items (an array) in the reply; empty when the reply is
    /// the array.
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub items: Text,
    /// `cursor`: a JSON pointer to the next cursor in the reply. `link`: to the next page's
    /// URL in the reply; without it, the `Link` header's `rel="next"` (RFC 8288).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub next: Option<Text>,
    /// `cursor` without `next`: a JSON pointer into the last item to the value that is the
    /// next cursor (Stripe: `/id`, sent as `starting_after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub last_item: Option<Text>,
    /// A JSON pointer to a boolean in the reply that is false (or absent) on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub has_more: Option<Text>,
    /// A JSON pointer to a boolean in the reply that is true on the last page (Svix's `done`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub done: Option<Text>,
}

/// How a next page is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    /// An opaque cursor from the reply (or its last item) goes into `param`.
    Cursor,
    /// `param` is the offset of the first item: it grows by the number of items received.
    Offset,
    /// `param` is the page number: it grows by one (from 1 when the first call leaves it unset).
    Page,
    /// The next page's URL (a `Link` header or a URL in the reply): its query parameters,
    /// each one the operation declares, are the next call's.
    Link,
}

impl PageKind {
    /// The name `x-harn.pagination.kind` and the catalog use.
    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Cursor => "cursor",
            PageKind::Offset => "offset",
            PageKind::Page => "page",
            PageKind::Link => "link",
        }
    }
}

/// Why a reply does not lead to a next page the way its pagination says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageFault(pub String);

/// How many pages one paginated read fetches at most unless told otherwise.
pub const MAX_PAGES: u32 = 1_000;

/// The pages one paginated read has asked for, which keeps it from looping: a next page whose
/// request repeats one already made (a repeated cursor), or one past the most pages allowed,
/// is refused. The SDK's page streams and the CLI's `--paginate` both keep one.
#[derive(Clone, Debug)]
pub struct PageTrail {
    sent: std::collections::HashSet<u64>,
    max_pages: u32,
}

impl PageTrail {
    /// The trail of a read whose first page is asked for with `first`, allowing `max_pages`
    /// pages in all.
    pub fn starting(first: &serde_json::Value, max_pages: u32) -> Self {
        let mut trail = Self {
            sent: std::collections::HashSet::new(),
            max_pages,
        };
        trail.sent.insert(fingerprint(first));
        trail
    }

    /// Allows `max_pages` pages in all.
    pub fn limit(&mut self, max_pages: u32) {
        self.max_pages = max_pages;
    }

    /// The input of the page after the one asked for with `input`: `input` with the next
    /// page's `arguments` merged in, recorded; or why it must not be asked for.
    pub fn next(
        &mut self,
        input: &serde_json::Value,
        arguments: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, PageFault> {
        let mut next = input.clone();
        if let serde_json::Value::Object(map) = &mut next {
            map.extend(arguments.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if u32::try_from(self.sent.len()).unwrap_or(u32::MAX) >= self.max_pages {
            return Err(PageFault(format!(
                "more than {} pages; the pages stop here (allow more to read further)",
                self.max_pages
            )));
        }
        if !self.sent.insert(fingerprint(&next)) {
            return Err(PageFault(
                "the server led back to a page already read (a repeated cursor); the pages stop here"
                    .into(),
            ));
        }
        Ok(next)
    }
}

/// A hash of a request's input, for [`PageTrail`].
fn fingerprint(input: &serde_json::Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    input.to_string().hash(&mut hasher);
    hasher.finish()
}

impl Pagination {
    /// Pagination of `kind` whose reply is the list of items, with nothing else said.
    pub const fn of(kind: PageKind) -> Self {
        Pagination {
            kind,
            param: None,
            items: Cow::Borrowed(""),
            next: None,
            last_item: None,
            has_more: None,
            done: None,
        }
    }

    /// Whether the next page's URL comes from the reply's `Link` header.
    pub fn by_link_header(&self) -> bool {
        self.kind == PageKind::Link && self.next.is_none()
    }

    /// The items of one page (`None` when the reply has no array where `items` points).
    pub fn items<'v>(&self, page: &'v serde_json::Value) -> Option<&'v Vec<serde_json::Value>> {
        page.pointer(&self.items)?.as_array()
    }

    /// The items of one page, taken out of it (none when the reply has no array there).
    pub fn take_items(&self, page: &mut serde_json::Value) -> Vec<serde_json::Value> {
        match page.pointer_mut(&self.items) {
            Some(serde_json::Value::Array(items)) => std::mem::take(items),
            _ => Vec::new(),
        }
    }

    /// The input properties that change for the page after `page` (the reply to `input`),
    /// `next_link` being the next page's URL arguments already read from the reply's `Link`
    /// header or body (see `link`). `None` on the last page.
    pub fn next_arguments(
        &self,
        input: &serde_json::Value,
        page: &serde_json::Value,
        next_link: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<Option<serde_json::Map<String, serde_json::Value>>, PageFault> {
        use serde_json::Value;
        let items = self.items(page).ok_or_else(|| {
            PageFault(format!(
                "the reply has no list of items at `{}`",
                if self.items.is_empty() {
                    "(root)"
                } else {
                    &self.items
                }
            ))
        })?;
        if items.is_empty() {
            return Ok(None);
        }
        if let Some(flag) = &self.has_more
            && page.pointer(flag) != Some(&Value::Bool(true))
        {
            return Ok(None);
        }
        if let Some(flag) = &self.done
            && page.pointer(flag) == Some(&Value::Bool(true))
        {
            return Ok(None);
        }
        let one = |value: Value| -> Option<serde_json::Map<String, Value>> {
            let param = self.param.as_deref()?;
            Some(serde_json::Map::from_iter([(param.to_string(), value)]))
        };
        let number = |name: &str, first: i64| -> Result<i64, PageFault> {
            match input.get(name) {
                None | Some(Value::Null) => Ok(first),
                Some(value) => value.as_i64().ok_or_else(|| {
                    PageFault(format!(
                        "`{name}` is not an integer, so the next page cannot be counted"
                    ))
                }),
            }
        };
        let param = self.param.as_deref().unwrap_or_default();
        Ok(match self.kind {
            PageKind::Cursor => {
                let cursor = match (&self.next, &self.last_item) {
                    (Some(next), _) => page.pointer(next),
                    (None, Some(within)) => items.last().and_then(|item| item.pointer(within)),
                    (None, None) => None,
                };
                match cursor {
                    Some(Value::String(text)) if !text.is_empty() => {
                        one(Value::String(text.clone()))
                    }
                    Some(Value::Number(n)) => one(Value::Number(n.clone())),
                    _ => None,
                }
            }
            PageKind::Offset => {
                let count = i64::try_from(items.len()).unwrap_or(i64::MAX);
                one(Value::from(number(param, 0)?.saturating_add(count)))
            }
            PageKind::Page => one(Value::from(number(param, 1)?.saturating_add(1))),
            PageKind::Link => next_link,
        })
    }
}

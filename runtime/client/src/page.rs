//! Calls that list in pages. A binding's [`Pagination`](harness_gen_wire::binding::Pagination) says how the next page is asked for;
//! every next page is the same operation called again with a few input properties changed
//! ([`Pagination::next_arguments`](harness_gen_wire::binding::Pagination::next_arguments)), so the SDK's page streams, the tool handler (one page per
//! call, the next page's arguments beside the output) and the CLI's `--paginate` all follow
//! pages the same way and through the same request path.
//!
//! Following pages never loops: a next page whose request would repeat one already made ends
//! the pages with an error, and so does going past [`Pages::max_pages`] (default
//! [`MAX_PAGES`]); see [`PageTrail`].

use std::collections::VecDeque;
use std::marker::PhantomData;

use futures::Stream;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{Error, HttpClient, OperationError, retype};
pub use crate::binding::MAX_PAGES;
use crate::binding::{Binding, PageFault, PageKind, PageTrail, ParamIn};

/// The target of the `rel="next"` link of a `Link` header value (RFC 8288): `<url>; rel="next"`,
/// the relation possibly one of several (`rel="next last"`), quoted or not, in any case.
pub fn link_next(header: &str) -> Option<&str> {
    let mut rest = header;
    loop {
        let start = rest.find('<')?;
        let end = start + rest[start..].find('>')?;
        let target = &rest[start + 1..end];
        let after = &rest[end + 1..];
        let params_end = after.find('<').unwrap_or(after.len());
        let is_next = after[..params_end].split(';').any(|param| {
            let Some((name, value)) = param.split_once('=') else {
                return false;
            };
            name.trim().eq_ignore_ascii_case("rel")
                && value
                    .trim()
                    .trim_end_matches(',')
                    .trim_end()
                    .trim_matches('"')
                    .split_ascii_whitespace()
                    .any(|rel| rel.eq_ignore_ascii_case("next"))
        });
        if is_next {
            return Some(target.trim());
        }
        rest = &after[params_end..];
    }
}

/// The arguments a next-page URL carries: each query parameter of `url`, by the input property
/// of the operation's query parameter of that name (a repeated one as a list). A query
/// parameter the operation does not declare is a fault: the next page could not be asked for
/// through the operation's own request.
pub fn url_arguments(binding: &Binding, url: &str) -> Result<Map<String, Value>, PageFault> {
    let query = url.split('#').next().unwrap_or_default();
    let query = query.split_once('?').map_or("", |(_, query)| query);
    let mut arguments = Map::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (name, value) = (decode(name), decode(value));
        let Some(param) = binding
            .parameters
            .iter()
            .find(|p| p.location == ParamIn::Query && p.name == name)
        else {
            return Err(PageFault(format!(
                "the next page's link sets `{name}`, which the operation does not declare"
            )));
        };
        match arguments.get_mut(param.property.as_ref()) {
            None => {
                arguments.insert(param.property.to_string(), Value::String(value));
            }
            Some(Value::Array(values)) => values.push(Value::String(value)),
            Some(first) => *first = Value::Array(vec![first.take(), Value::String(value)]),
        }
    }
    Ok(arguments)
}

/// A query component percent-decoded, `+` as a space.
fn decode(text: &str) -> String {
    let spaced = text.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

/// Names types a value is about without holding any (so it is `Send` and `Sync` whatever
/// they are).
type Unheld<T> = PhantomData<fn() -> T>;

/// The pages of one paginated call: [`Pages::next_page`] one at a time, or as a stream of
/// pages ([`Pages::into_stream`]) or of their items ([`Pages::items`]). Each page is fetched
/// when asked for; dropping the value stops.
///
/// `O` is a page (the operation's output), `T` one item, `E` the operation's error.
pub struct Pages<O, T, E> {
    http: HttpClient,
    binding: &'static Binding,
    /// The next request's input; `None` once the pages ended.
    input: Option<Value>,
    /// Why there is no next page after all, reported instead of it. (Text, not an `Error<E>`:
    /// a page stream then holds no value of the API's types across an `await`, so it is `Send`
    /// without asking the compiler to prove that of every type a big API has.)
    fault: Option<String>,
    /// The arguments that changed for the next page.
    next: Option<Map<String, Value>>,
    /// The pages asked for so far.
    trail: PageTrail,
    types: Unheld<(O, T, E)>,
}

impl<O, T, E> Pages<O, T, E>
where
    O: DeserializeOwned,
    T: DeserializeOwned,
    E: OperationError,
{
    /// The pages of the operation `binding` describes, starting with `input`.
    pub fn new<I: Serialize>(http: &HttpClient, binding: &'static Binding, input: &I) -> Self {
        let (input, fault) = match serde_json::to_value(input) {
            Ok(value) => (Some(value), None),
            Err(error) => (None, Some(crate::mask_serde_message(&error.to_string()))),
        };
        Self {
            http: http.clone(),
            binding,
            trail: PageTrail::starting(input.as_ref().unwrap_or(&Value::Null), MAX_PAGES),
            input,
            fault,
            next: None,
            types: PhantomData,
        }
    }

    /// At most `pages` pages: asking for one more is an error (not a silent end).
    pub fn max_pages(mut self, pages: u32) -> Self {
        self.trail.limit(pages);
        self
    }

    /// The input properties that change for the page after the last one fetched (`None` before
    /// the first page and after the last).
    pub fn next_arguments(&self) -> Option<&Map<String, Value>> {
        self.next.as_ref()
    }

    /// The next page, typed; `None` after the last one (or after an error).
    pub async fn next_page(&mut self) -> Option<Result<O, Error<E>>> {
        Some(self.next_value().await?.and_then(super::decoded))
    }

    /// Every page, in order, as a stream.
    pub fn into_stream(self) -> impl Stream<Item = Result<O, Error<E>>> {
        futures::stream::unfold(self, |mut pages| async move {
            let page = pages.next_page().await?;
            Some((page, pages))
        })
    }

    /// Every item of every page, in order, as a stream (pages fetched as the items are read).
    pub fn items(self) -> impl Stream<Item = Result<T, Error<E>>> {
        let state = (self, VecDeque::new());
        futures::stream::unfold(state, |(mut pages, mut buffer)| async move {
            loop {
                if let Some(item) = buffer.pop_front() {
                    return Some((super::decoded(item), (pages, buffer)));
                }
                match pages.next_value().await? {
                    Err(error) => return Some((Err(error), (pages, buffer))),
                    Ok(mut page) => {
                        let pagination = pages.binding.pagination.as_ref();
                        buffer.extend(
                            pagination
                                .map(|p| p.take_items(&mut page))
                                .unwrap_or_default(),
                        );
                    }
                }
            }
        })
    }

    /// Every item of every page, collected in order (for a listing known to be small:
    /// [`Pages::items`] streams them instead).
    pub async fn all(self) -> Result<Vec<T>, Error<E>> {
        futures::TryStreamExt::try_collect(self.items()).await
    }

    /// The next page as its JSON value.
    async fn next_value(&mut self) -> Option<Result<Value, Error<E>>> {
        if let Some(fault) = self.fault.take() {
            return Some(Err(Error::InvalidResponse {
                pointer: String::new(),
                reason: fault,
            }));
        }
        let input = self.input.take()?;
        let (reply, link) = match self
            .http
            .exchange(self.binding, &input, &Default::default())
            .await
        {
            Ok(answer) => answer,
            Err(error) => return Some(Err(retype(error))),
        };
        let page = match super::success_value::<E>(reply) {
            Ok(page) => page,
            Err(error) => return Some(Err(error)),
        };
        self.next = None;
        match next_arguments(self.binding, &input, &page, link.as_deref()) {
            Err(PageFault(why)) => self.fault = Some(why),
            Ok(None) => {}
            // A next page that is this page again has no next arguments worth giving.
            Ok(Some(arguments)) => match self.trail.next(&input, &arguments) {
                Err(PageFault(why)) => self.fault = Some(why),
                Ok(next) => {
                    self.next = Some(arguments);
                    self.input = Some(next);
                }
            },
        }
        Some(Ok(page))
    }
}

/// The arguments of the page after `page` (the reply to `input`; `link` is the `Link`
/// header's next target, if the reply had one), by the binding's pagination; `None` on the last
/// page or without pagination.
pub fn next_arguments(
    binding: &Binding,
    input: &Value,
    page: &Value,
    link: Option<&str>,
) -> Result<Option<Map<String, Value>>, PageFault> {
    let Some(pagination) = &binding.pagination else {
        return Ok(None);
    };
    let url = match (&pagination.kind, &pagination.next) {
        (PageKind::Link, Some(pointer)) => page.pointer(pointer).and_then(Value::as_str),
        (PageKind::Link, None) => link,
        _ => None,
    };
    let link_arguments = url
        .filter(|url| !url.is_empty())
        .map(|url| url_arguments(binding, url))
        .transpose()?;
    pagination.next_arguments(input, page, link_arguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{Pagination, ParamBinding};
    use serde_json::json;

    #[test]
    fn the_next_link_is_found_among_several_in_any_spelling() {
        let github = r#"<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last""#;
        assert_eq!(
            link_next(github),
            Some("https://api.github.com/repositories/1/issues?page=2")
        );
        assert_eq!(
            link_next(r#"<b?page=1>; rel="prev", <b?page=3>; title="x"; REL="Next Last""#),
            Some("b?page=3")
        );
        assert_eq!(link_next("<b?page=3>; rel=next"), Some("b?page=3"));
        assert_eq!(link_next(r#"<b?page=1>; rel="prev""#), None);
        assert_eq!(link_next("garbage"), None);
        assert_eq!(link_next("<unterminated; rel=next"), None);
    }

    fn binding(pagination: Pagination) -> Binding {
        static PARAMS: [ParamBinding; 2] = [
            ParamBinding {
                name: std::borrow::Cow::Borrowed("page"),
                property: std::borrow::Cow::Borrowed("page"),
                ..ParamBinding::QUERY
            },
            ParamBinding {
                name: std::borrow::Cow::Borrowed("per-page"),
                property: std::borrow::Cow::Borrowed("per_page"),
                ..ParamBinding::QUERY
            },
        ];
        Binding {
            parameters: std::borrow::Cow::Borrowed(&PARAMS),
            pagination: Some(pagination),
            ..Binding::EMPTY
        }
    }

    fn pagination(kind: PageKind) -> Pagination {
        Pagination::of(kind)
    }

    #[test]
    fn a_next_link_becomes_the_declared_query_parameters_it_sets() {
        let binding = binding(pagination(PageKind::Link));
        let next = next_arguments(
            &binding,
            &json!({"per_page": 2}),
            &json!([1, 2]),
            Some("https://h/x?page=3&per-page=2&page=4"),
        );
        assert_eq!(
            next.unwrap().unwrap(),
            json!({"page": ["3", "4"], "per_page": "2"})
                .as_object()
                .cloned()
                .unwrap()
        );
        let undeclared = next_arguments(&binding, &json!({}), &json!([1]), Some("/x?since=4"));
        assert!(undeclared.unwrap_err().0.contains("`since`"));
        let last = next_arguments(&binding, &json!({}), &json!([1]), None);
        assert_eq!(last.unwrap(), None);
    }

    #[test]
    fn cursors_come_from_the_reply_or_the_last_item_and_stop_where_the_reply_says() {
        let stripe = Pagination {
            param: Some("starting_after".into()),
            items: "/data".into(),
            last_item: Some("/id".into()),
            has_more: Some("/has_more".into()),
            ..pagination(PageKind::Cursor)
        };
        let page = json!({"data": [{"id": "a"}, {"id": "b"}], "has_more": true});
        let next = stripe.next_arguments(&json!({}), &page, None).unwrap();
        assert_eq!(next.unwrap()["starting_after"], "b");
        let last = json!({"data": [{"id": "c"}], "has_more": false});
        assert_eq!(
            stripe.next_arguments(&json!({}), &last, None).unwrap(),
            None
        );
        let empty = json!({"data": [], "has_more": true});
        assert_eq!(
            stripe.next_arguments(&json!({}), &empty, None).unwrap(),
            None
        );
        let no_items = json!({"has_more": true});
        assert!(stripe.next_arguments(&json!({}), &no_items, None).is_err());

        let google = Pagination {
            param: Some("page_token".into()),
            items: "/items".into(),
            next: Some("/nextPageToken".into()),
            ..pagination(PageKind::Cursor)
        };
        let page = json!({"items": [1], "nextPageToken": "t2"});
        let next = google.next_arguments(&json!({}), &page, None).unwrap();
        assert_eq!(next.unwrap()["page_token"], "t2");
        let last = json!({"items": [1], "nextPageToken": ""});
        assert_eq!(
            google.next_arguments(&json!({}), &last, None).unwrap(),
            None
        );

        // Svix says the last page is `done` and still sends an iterator on it.
        let svix = Pagination {
            param: Some("iterator".into()),
            items: "/data".into(),
            next: Some("/iterator".into()),
            done: Some("/done".into()),
            ..pagination(PageKind::Cursor)
        };
        let page = json!({"data": [1], "iterator": "i2", "done": false});
        let next = svix.next_arguments(&json!({}), &page, None).unwrap();
        assert_eq!(next.unwrap()["iterator"], "i2");
        let last = json!({"data": [1], "iterator": "i3", "done": true});
        assert_eq!(svix.next_arguments(&json!({}), &last, None).unwrap(), None);
    }

    #[test]
    fn offsets_grow_by_the_items_read_and_pages_by_one() {
        let offset = Pagination {
            param: Some("offset".into()),
            ..pagination(PageKind::Offset)
        };
        let next = offset.next_arguments(&json!({"offset": 10}), &json!([1, 2, 3]), None);
        assert_eq!(next.unwrap().unwrap()["offset"], 13);
        let page = Pagination {
            param: Some("page".into()),
            ..pagination(PageKind::Page)
        };
        let next = page.next_arguments(&json!({}), &json!([1]), None);
        assert_eq!(next.unwrap().unwrap()["page"], 2);
        let bad = page.next_arguments(&json!({"page": "two"}), &json!([1]), None);
        assert!(bad.is_err());
    }
}

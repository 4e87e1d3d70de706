//! A loopback server for `specs/pages.yaml`: listings that page the ways real APIs do, and
//! one that leads back to the page it came from. It records every query it was sent.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

/// One request's query parameters.
pub type Params = BTreeMap<String, String>;

/// The queries the server was sent, in order: (path, query parameters).
#[derive(Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<(String, Params)>>>);

impl Requests {
    /// The query parameters of each request to `path`, in order.
    pub fn to(&self, path: &str) -> Vec<BTreeMap<String, String>> {
        let all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.iter()
            .filter(|(p, _)| p == path)
            .map(|(_, q)| q.clone())
            .collect()
    }

    fn keep(&self, path: &str, query: &BTreeMap<String, String>) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.push((path.to_string(), query.clone()));
    }
}

type Q = Query<BTreeMap<String, String>>;

fn number(query: &BTreeMap<String, String>, name: &str, default: usize) -> usize {
    query
        .get(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Starts the server; returns its base URL and the record of what it was sent.
pub async fn serve() -> (String, Requests) {
    let requests = Requests::default();
    let app = Router::new()
        .route("/toys", get(toys))
        .route("/customers", get(customers))
        .route("/files", get(files))
        .route("/reports", get(reports))
        .route("/events", get(events))
        .route("/messages", get(messages))
        .with_state(requests.clone());
    (crate::listen(app).await, requests)
}

/// Seven toys, `per_page` (default 3) a page, the next and last pages in a `Link` header whose
/// URLs name another path for the same listing, as GitHub's do.
async fn toys(
    State(seen): State<Requests>,
    headers: HeaderMap,
    Query(query): Q,
) -> impl IntoResponse {
    seen.keep("/toys", &query);
    let (page, per_page) = (
        number(&query, "page", 1).max(1),
        number(&query, "per_page", 3).max(1),
    );
    let all: Vec<Value> = (1..=7)
        .map(|id| json!({"id": id, "name": format!("toy {id}")}))
        .collect();
    let items: Vec<Value> = all
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .cloned()
        .collect();
    let last = all.len().div_ceil(per_page);
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let url = |n: usize| format!("http://{host}/repositories/9/toys?page={n}&per_page={per_page}");
    let mut links = Vec::new();
    if page < last {
        links.push(format!("<{}>; rel=\"next\"", url(page + 1)));
    }
    links.push(format!("<{}>; rel=\"last\"", url(last)));
    (
        [("link", links.join(", "))],
        axum::Json(Value::Array(items)),
    )
}

/// Five customers, `limit` (default 2) a page after `starting_after`, with `has_more`.
async fn customers(State(seen): State<Requests>, Query(query): Q) -> axum::Json<Value> {
    seen.keep("/customers", &query);
    let ids: Vec<String> = (1..=5).map(|i| format!("cus_{i}")).collect();
    let start = match query.get("starting_after") {
        Some(after) => ids
            .iter()
            .position(|id| id == after)
            .map_or(ids.len(), |i| i + 1),
        None => 0,
    };
    let limit = number(&query, "limit", 2);
    let data: Vec<Value> = ids[start..]
        .iter()
        .take(limit)
        .map(|id| json!({"id": id, "email": format!("{id}@example.com")}))
        .collect();
    let has_more = start + data.len() < ids.len();
    axum::Json(json!({"object": "list", "data": data, "has_more": has_more}))
}

/// Four files, `limit` (default 3) a page `after` one, with `first_id`, `last_id`, `has_more`.
async fn files(State(seen): State<Requests>, Query(query): Q) -> axum::Json<Value> {
    seen.keep("/files", &query);
    let ids: Vec<String> = (1..=4).map(|i| format!("file-{i}")).collect();
    let start = match query.get("after") {
        Some(after) => ids
            .iter()
            .position(|id| id == after)
            .map_or(ids.len(), |i| i + 1),
        None => 0,
    };
    let page: Vec<&String> = ids[start..]
        .iter()
        .take(number(&query, "limit", 3))
        .collect();
    let data: Vec<Value> = page
        .iter()
        .map(|id| json!({"id": id, "bytes": 10}))
        .collect();
    axum::Json(json!({
        "object": "list",
        "data": data,
        "first_id": page.first(),
        "last_id": page.last(),
        "has_more": start + page.len() < ids.len(),
    }))
}

/// Reports by page token, where the second page's token leads back to itself.
async fn reports(State(seen): State<Requests>, Query(query): Q) -> axum::Json<Value> {
    seen.keep("/reports", &query);
    match query.get("pageToken").map(String::as_str) {
        None => axum::Json(json!({"reports": ["a", "b"], "nextPageToken": "t2"})),
        Some(_) => axum::Json(json!({"reports": ["c"], "nextPageToken": "t2"})),
    }
}

/// Five events, `limit` (default 2) from offset `skip`.
async fn events(State(seen): State<Requests>, Query(query): Q) -> axum::Json<Value> {
    seen.keep("/events", &query);
    let skip = number(&query, "skip", 0);
    let events: Vec<Value> = (0..5)
        .skip(skip)
        .take(number(&query, "limit", 2))
        .map(|seq| json!({"seq": seq}))
        .collect();
    axum::Json(json!({"events": events, "total": 5}))
}

/// Five messages, `limit` (default 2) after the iterator, as Svix lists them: the last page
/// says `done` and still carries an iterator.
async fn messages(State(seen): State<Requests>, Query(query): Q) -> axum::Json<Value> {
    seen.keep("/messages", &query);
    let start: usize = query
        .get("iterator")
        .and_then(|i| i.strip_prefix("it-"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let end = (start + number(&query, "limit", 2)).min(5);
    let data: Vec<Value> = (start..end)
        .map(|i| json!({"id": format!("msg_{i}")}))
        .collect();
    axum::Json(json!({
        "data": data,
        "iterator": format!("it-{end}"),
        "prevIterator": null,
        "done": end == 5,
    }))
}

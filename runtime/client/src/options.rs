//! Options for the calls made through one handle, and the record of what replies said.

use super::*;

/// Options for the calls made through one handle of a client ([`HttpClient::with`]; generated
/// clients have `Client::with`), without rebuilding it: a timeout, extra headers, a retry
/// policy. Unset options keep the client's.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) retry: Option<RetryPolicy>,
    pub(crate) record: Option<Replies>,
}

/// Where the calls of a handle leave what the last reply said ([`CallOptions::record`]): its
/// status, headers and request id, and for a reply outside the contract (an undeclared status,
/// an unparsable body) the start of its body. Credentials a server echoes are redacted in all
/// of it, as in parsed values.
///
/// ```no_run
/// # async fn example(client: harness_gen_client::HttpClient) {
/// use harness_gen_client::{CallOptions, Replies};
/// let replies = Replies::new();
/// let recorded = client.with(CallOptions::new().record(&replies));
/// // … a call through `recorded` (a generated `Client::with` works the same) …
/// if let Some(reply) = replies.last() {
///     println!("{} {:?}", reply.status, reply.request_id);
/// }
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Replies(Arc<std::sync::Mutex<Option<ReplyInfo>>>);

impl Replies {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// What the last reply said, if a call got one.
    pub fn last(&self) -> Option<ReplyInfo> {
        self.0.lock().ok()?.clone()
    }

    pub(crate) fn keep(&self, info: ReplyInfo) {
        if let Ok(mut last) = self.0.lock() {
            *last = Some(info);
        }
    }

    /// Runs `f` with every call made on this thread meanwhile recording its last reply here
    /// too, whatever client made it: how a program that calls through a tool registry (the
    /// CLI's `--include`) learns what the reply said without reaching the client.
    pub fn recording<T>(&self, f: impl FnOnce() -> T) -> T {
        crate::upload::scoped(&AMBIENT_RECORD, Some(self.clone()), |_| f())
    }
}

thread_local! {
    pub(crate) static AMBIENT_RECORD: std::cell::RefCell<Option<Replies>> = const { std::cell::RefCell::new(None) };
}

/// What one reply said besides its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyInfo {
    /// The HTTP status.
    pub status: u16,
    /// The headers, in the order received (names lowercase; values that are not text left out).
    pub headers: Vec<(String, String)>,
    /// The request id the server gave it ([`REQUEST_ID_HEADERS`], first found).
    pub request_id: Option<String>,
    /// For a reply outside the contract: the first [`KEPT_BODY_BYTES`] of its body, as text.
    pub body: Option<String>,
}

impl ReplyInfo {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Headers that carry a request id, in the order they are looked for.
pub const REQUEST_ID_HEADERS: [&str; 7] = [
    "x-request-id",
    "request-id",
    "x-github-request-id",
    "x-amzn-requestid",
    "x-amz-request-id",
    "x-ms-request-id",
    "x-correlation-id",
];

/// How much of a body outside the contract [`ReplyInfo::body`] keeps.
pub const KEPT_BODY_BYTES: usize = 4096;

impl CallOptions {
    /// No overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// The timeout of each attempt.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A header sent with each call, replacing one of the same name the call would send (a
    /// value holding CR or LF makes the call fail with an invalid-request error, unsent).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The retry policy (`RetryPolicy::NONE` for none).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Leaves what each reply said in `replies` (the last one stays).
    pub fn record(mut self, replies: &Replies) -> Self {
        self.record = Some(replies.clone());
        self
    }
}

//! `harness-gen-client`: the HTTP client generated SDKs call through (the runtime's feature
//! `client`; with `registry`, the handlers of generated tools). One request path for every
//! operation: the binding says where each input property goes; this module builds the request,
//! adds credentials (and an idempotency key where the binding has one), sends it with a timeout
//! and bounded retries (see [`RetryPolicy`]: calls safe to repeat only, on connect errors and
//! 429/500/502/503/504, honouring `Retry-After`, with jittered backoff), reads at most a
//! bounded body, and classifies the reply as success, declared error or undeclared error.
//!
//! Credentials never appear in `Debug`, `Display` or any error, and never come back out of a
//! reply: a server that echoes the token, key or password it was sent (in an error message, a
//! "who am I" body) has each occurrence replaced by [`REDACTED`] before anyone sees the value.

mod body;
mod download;
pub mod encode;
pub mod events;
#[cfg(feature = "registry")]
mod handlers;
pub mod page;
mod per_call;
mod redirect;

pub use body::{ByteStream, read_chunks};
pub use download::{Download, Unsaved, save_chunks};
pub use events::{Event, Events};
#[cfg(feature = "registry")]
pub use handlers::{download_handler, events_handler, paged_handler, typed_handler};
pub use page::Pages;
pub use per_call::CallCredentials;
pub use redirect::Redirects;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use body::Outgoing;
use harness_gen_types::upload::{self, Gathered};
use harness_gen_wire::binding::{self, Binding, Encoding, ParamIn};
use harness_gen_wire::{BUFFERED_BYTES, RuntimeCategory, mask_serde_message};

/// What replaces a credential echoed in a reply.
pub const REDACTED: &str = "[redacted]";

/// Credential values shorter than this are not searched for in replies: they would match
/// ordinary text and are not secrets in any useful sense.
const MIN_REDACTED_LEN: usize = 4;

/// A credential value. Its `Debug` shows only `***`.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// How a security scheme sends its credential.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `Authorization: Bearer <token>`.
    Bearer,
    /// `Authorization: Basic <base64(user:password)>`.
    Basic,
    /// An API key in a header, query parameter or cookie.
    ApiKey {
        /// Where it goes.
        location: ParamIn,
        /// Its name.
        name: String,
    },
}

/// A credential for one scheme.
#[derive(Clone, Debug)]
pub enum Credential {
    /// A bearer token.
    Token(Secret),
    /// A user name and password.
    Basic {
        /// User name.
        username: String,
        /// Password.
        password: Secret,
    },
    /// An API key.
    ApiKey(Secret),
}

/// Why a call failed. `E` is the operation's declared error type.
#[derive(Debug)]
pub enum Error<E> {
    /// The API answered with an error: a declared response, or `upstream_error` for an
    /// undeclared status or an unparsable body.
    Api(E),
    /// The request could not be built from the input (the message names the parameter).
    InvalidRequest(String),
    /// A value of the input cannot go on the wire as the binding says (a header value with a
    /// line break, a path parameter `..`): the caller's input, refused at its pointer.
    InvalidValue {
        /// The JSON pointer into the call's input (`/X-Trace`, `/body`).
        pointer: String,
        /// Why, naming the parameter, never the value.
        reason: String,
    },
    /// The server could not be reached, or the connection failed.
    Transport,
    /// No answer within the timeout.
    Timeout,
    /// The response body exceeded the configured bound.
    TooLarge,
    /// A success response did not match the declared output type (a page that cannot be
    /// followed is one too).
    InvalidResponse {
        /// The JSON pointer into the reply body of the part that does not fit (empty: the
        /// whole reply).
        pointer: String,
        /// What was expected; never the value the server sent.
        reason: String,
    },
    /// A download could not be written where it was asked to go (the file or writer's error).
    Write(String),
    /// An upload could not be read (a file that cannot be opened or read, a stream that
    /// failed or was sent already); the message says where in the input it is.
    Read(String),
}

impl<E> Error<E> {
    /// Whether trying again later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Transport | Error::Timeout)
    }

    /// The category this failure has as a tool runtime error.
    pub fn category(&self) -> RuntimeCategory {
        match self {
            Error::Transport => RuntimeCategory::Transport,
            Error::Timeout => RuntimeCategory::Timeout,
            Error::TooLarge => RuntimeCategory::TooLarge,
            _ => RuntimeCategory::Internal,
        }
    }
}

impl<E> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(_) => f.write_str("the API answered with an error response"),
            Error::InvalidRequest(why) => write!(f, "invalid request: {why}"),
            Error::InvalidValue { pointer, reason } => {
                write!(f, "invalid input at `{pointer}`: {reason}")
            }
            Error::Transport => f.write_str("could not reach the server"),
            Error::Timeout => f.write_str("the server did not answer in time"),
            Error::TooLarge => f.write_str("the response was larger than the configured bound"),
            Error::InvalidResponse { pointer, reason } if pointer.is_empty() => {
                write!(f, "unexpected response: {reason}")
            }
            Error::InvalidResponse { pointer, reason } => {
                write!(f, "unexpected response at `{pointer}`: {reason}")
            }
            Error::Write(why) => write!(f, "cannot write the download: {why}"),
            Error::Read(why) => write!(f, "cannot read the upload {why}"),
        }
    }
}

impl<E: fmt::Debug> std::error::Error for Error<E> {}

/// Configures an [`HttpClient`].
#[derive(Clone, Debug)]
pub struct ClientBuilder {
    base_url: String,
    timeout: Duration,
    user_agent: String,
    retry: RetryPolicy,
    max_response_bytes: usize,
    schemes: BTreeMap<String, Scheme>,
    credentials: BTreeMap<String, Credential>,
    default_headers: Vec<(String, String)>,
    redirects: Redirects,
    reqwest: Option<reqwest::Client>,
}

/// How a call's failed attempts are retried. Only a call that is safe to repeat is retried (an
/// idempotent method, or a call carrying an idempotency key: see `Binding::idempotency_key`),
/// only after a connect error or a 429, 500, 502, 503 or 504 reply, waiting what the reply's
/// `Retry-After` says (seconds or an HTTP date) or else an exponential backoff with jitter; no
/// retry starts once `max_elapsed` would be passed (the last reply is returned instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The backoff before the first retry; each next one doubles, up to `max_backoff`. A random
    /// part of the second half of each is waited (jitter), so clients that failed together do
    /// not retry together.
    pub initial_backoff: Duration,
    /// The longest backoff.
    pub max_backoff: Duration,
    /// The most time a call may take from its first attempt to the start of its last.
    pub max_elapsed: Duration,
}

impl RetryPolicy {
    /// 2 retries, 200 ms doubling to at most 5 s, within 30 s.
    pub const DEFAULT: Self = Self {
        max_retries: 2,
        initial_backoff: Duration::from_millis(200),
        max_backoff: Duration::from_secs(5),
        max_elapsed: Duration::from_secs(30),
    };

    /// Never retry.
    pub const NONE: Self = Self {
        max_retries: 0,
        ..Self::DEFAULT
    };

    /// The wait before retry `attempt` (0 for the first) with no `Retry-After`: the doubled
    /// backoff, of which half is waited for sure and the other half by `jitter` (0 to 1).
    pub fn backoff(&self, attempt: u32, jitter: f64) -> Duration {
        let full = self
            .initial_backoff
            .saturating_mul(1u32 << attempt.min(20))
            .min(self.max_backoff);
        full / 2 + full.mul_f64(jitter.clamp(0.0, 1.0) / 2.0)
    }
}

/// Reply statuses worth another attempt: the server is throttling or briefly unable.
const RETRY_STATUSES: [u16; 5] = [429, 500, 502, 503, 504];

impl ClientBuilder {
    /// A builder for an API served at `base_url`, with defaults: 30 s timeout, 2 retries,
    /// 16 MiB response bound.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            timeout: Duration::from_secs(30),
            user_agent: concat!("harness-gen-runtime/", env!("CARGO_PKG_VERSION")).to_string(),
            retry: RetryPolicy::DEFAULT,
            max_response_bytes: BUFFERED_BYTES,
            schemes: BTreeMap::new(),
            credentials: BTreeMap::new(),
            default_headers: Vec::new(),
            redirects: Redirects::DEFAULT,
            reqwest: None,
        }
    }

    /// Sends through this `reqwest` client (its proxies, TLS, middleware, connection pool and
    /// user agent) instead of one built here; the timeout, retries, credentials, redirect
    /// policy and response bound still apply per request. Build it with
    /// `.redirect(reqwest::redirect::Policy::none())`: a client that follows redirects itself
    /// carries API-key headers to another origin, which [`Redirects`] never does.
    pub fn reqwest_client(mut self, client: reqwest::Client) -> Self {
        self.reqwest = Some(client);
        self
    }

    /// A header sent with every call that does not set one of that name.
    pub fn default_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.default_headers.push((name.into(), value.into()));
        self
    }

    /// The base URL requests go to.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The timeout of one attempt.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The `User-Agent` header.
    pub fn user_agent(mut self, agent: impl Into<String>) -> Self {
        self.user_agent = agent.into();
        self
    }

    /// Retries after the first attempt (see [`RetryPolicy`]; 0 turns retries off).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.retry.max_retries = retries;
        self
    }

    /// The whole retry policy (default [`RetryPolicy::DEFAULT`]).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The largest response body accepted.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// How redirects are followed (default [`Redirects::DEFAULT`]: up to 10, to another origin
    /// without any credential of the security schemes).
    pub fn redirects(mut self, redirects: Redirects) -> Self {
        self.redirects = redirects;
        self
    }

    /// Declares a security scheme (generated code does this).
    pub fn scheme(mut self, name: impl Into<String>, scheme: Scheme) -> Self {
        self.schemes.insert(name.into(), scheme);
        self
    }

    /// Sets the credential for a scheme.
    pub fn credential(mut self, scheme: impl Into<String>, credential: Credential) -> Self {
        self.credentials.insert(scheme.into(), credential);
        self
    }

    /// Reads the base URL and credentials from the environment: `<PREFIX>_BASE_URL`, and per
    /// scheme the variables in `env` (scheme name → variable names: one for a token or key,
    /// two for user name and password). Unset variables are skipped.
    pub fn from_env(mut self, prefix: &str, env: &[(&str, &[&str])]) -> Self {
        if let Ok(url) = std::env::var(format!("{prefix}_BASE_URL"))
            && !url.trim().is_empty()
        {
            self.base_url = url;
        }
        for (scheme, vars) in env {
            let values: Vec<String> = vars.iter().filter_map(|v| std::env::var(v).ok()).collect();
            if values.len() != vars.len() {
                continue;
            }
            let credential = match (self.schemes.get(*scheme), values.as_slice()) {
                (Some(Scheme::Basic), [user, password]) => Credential::Basic {
                    username: user.clone(),
                    password: Secret::new(password.clone()),
                },
                (Some(Scheme::ApiKey { .. }), [key]) => {
                    Credential::ApiKey(Secret::new(key.clone()))
                }
                (Some(Scheme::Bearer), [token]) => Credential::Token(Secret::new(token.clone())),
                _ => continue,
            };
            self.credentials.insert((*scheme).to_string(), credential);
        }
        self
    }

    /// Builds the client.
    pub fn build(self) -> Result<HttpClient, Error<std::convert::Infallible>> {
        let inner = match self.reqwest {
            Some(client) => client,
            None => reqwest::Client::builder()
                .user_agent(self.user_agent)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|_| Error::Transport)?,
        };
        Ok(HttpClient {
            shared: Arc::new(Shared {
                inner,
                base_url: self.base_url.trim_end_matches('/').to_string(),
                timeout: self.timeout,
                retry: self.retry,
                max_response_bytes: self.max_response_bytes,
                default_headers: self.default_headers,
                redirects: self.redirects,
                credential_headers: self
                    .schemes
                    .values()
                    .filter_map(|scheme| match scheme {
                        Scheme::ApiKey {
                            location: ParamIn::Header,
                            name,
                        } => reqwest::header::HeaderName::try_from(name.as_str()).ok(),
                        _ => None,
                    })
                    .collect(),
                echoes: echoes(self.credentials.values()),
                schemes: self.schemes,
                credentials: self.credentials,
            }),
            call: CallOptions::default(),
        })
    }
}

/// Every string that would reveal one of `credentials` if it came back in a reply: each token,
/// key and password, and the `user:password` pair as the `Basic` header carries it; longest
/// first, so a value containing another is replaced whole.
fn echoes<'a>(credentials: impl IntoIterator<Item = &'a Credential>) -> Vec<Secret> {
    let mut echoes: Vec<String> = Vec::new();
    for credential in credentials {
        match credential {
            Credential::Token(secret) | Credential::ApiKey(secret) => {
                echoes.push(secret.expose().to_string());
            }
            Credential::Basic { username, password } => {
                echoes.push(password.expose().to_string());
                echoes.push(basic_pair(username, password));
            }
        }
    }
    echoes.retain(|e| e.len() >= MIN_REDACTED_LEN);
    echoes.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    echoes.dedup();
    echoes.into_iter().map(Secret).collect()
}

/// The base64 `user:password` a `Basic` authorization header carries.
fn basic_pair(username: &str, password: &Secret) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{username}:{}", password.expose()))
}

/// Replaces every occurrence of an echo in the strings (keys included) of `value`.
fn redact(value: &mut Value, echoes: &[Secret]) {
    let reveals = |text: &str| echoes.iter().any(|e| text.contains(e.expose()));
    let scrub = |text: &str| redacted_text(text.to_string(), echoes);
    match value {
        Value::String(text) if reveals(text) => *text = scrub(text),
        Value::Array(items) => items.iter_mut().for_each(|item| redact(item, echoes)),
        Value::Object(map) => {
            if map.keys().any(|k| reveals(k)) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (if reveals(&k) { scrub(&k) } else { k }, v))
                    .collect();
            }
            map.values_mut().for_each(|item| redact(item, echoes));
        }
        _ => {}
    }
}

/// `text` with every credential of `echoes` in it replaced by [`REDACTED`].
fn redacted_text(text: String, echoes: &[Secret]) -> String {
    echoes
        .iter()
        .fold(text, |text, e| text.replace(e.expose(), REDACTED))
}

/// What the server answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A 2xx response, its body read by the binding's response encoding (`null` without one).
    Success(Value),
    /// A declared error response.
    Declared {
        /// `http_<key>`.
        kind: String,
        /// The status.
        status: u16,
        /// The parsed JSON body.
        body: Value,
    },
    /// An undeclared status, or a declared one whose body did not parse.
    Undeclared {
        /// The status.
        status: u16,
        /// Why, without the body.
        reason: String,
    },
}

impl Reply {
    /// The declared-error value of this reply (`{kind, status, body}` or the `upstream_error`
    /// fallback); `None` for success.
    pub fn error_value(&self) -> Option<Value> {
        match self {
            Reply::Success(_) => None,
            Reply::Declared { kind, status, body } => {
                Some(json!({"kind": kind, "status": status, "body": body}))
            }
            Reply::Undeclared { status, reason } => {
                Some(json!({"kind": "upstream_error", "status": status, "reason": reason}))
            }
        }
    }
}

/// An operation's typed error: built from a reply the operation declares (its `kind`, status
/// and parsed body) or, for anything else, the `upstream_error` fallback. Generated error enums
/// implement it with one `match` over their declared kinds, which compiles far faster than a
/// derived `Deserialize` of the tagged enum (about a third of the check time of GitHub's SDK).
pub trait OperationError: Sized {
    /// The declared error `kind` (`http_404`, `http_4XX`, `http_default`) with `body` parsed
    /// into that variant's type; `None` when the operation declares no such kind or the body
    /// does not parse.
    fn declared(kind: &str, status: u16, body: Value) -> Option<Self>;
    /// An undeclared status or an unparsable body; `reason` says which, and the body is never
    /// kept.
    fn upstream(status: u16, reason: String) -> Self;
}

/// `body` parsed as `T`: what a generated [`OperationError::declared`] does for each kind.
pub fn error_body<T: DeserializeOwned>(body: Value) -> Option<T> {
    serde_json::from_value(body).ok()
}

#[doc(hidden)]
pub use serde_json::Value as JsonValue;

/// Implements [`OperationError`] for a generated error enum: its name, then each declared
/// `"kind" => Variant` (variants `{status, body}`); the enum's `UpstreamError {status, reason}`
/// is the fallback.
///
/// ```
/// enum GetPetError {
///     Http404 { status: u16, body: String },
///     UpstreamError { status: u16, reason: String },
/// }
/// harness_gen_client::operation_error!(GetPetError { "http_404" => Http404 });
/// use harness_gen_client::OperationError;
/// let error = GetPetError::declared("http_404", 404, serde_json::json!("gone"));
/// assert!(matches!(error, Some(GetPetError::Http404 { status: 404, .. })));
/// assert!(GetPetError::declared("http_404", 404, serde_json::json!(1)).is_none());
/// ```
#[macro_export]
macro_rules! operation_error {
    ($name:ident { $($kind:literal => $variant:ident),* $(,)? }) => {
        impl $crate::OperationError for $name {
            fn declared(
                kind: &str,
                status: u16,
                body: $crate::JsonValue,
            ) -> ::core::option::Option<Self> {
                match kind {
                    $($kind => ::core::option::Option::Some(
                        Self::$variant { status, body: $crate::error_body(body)? },
                    ),)*
                    _ => {
                        // Not a declared kind (an enum that declares none uses neither).
                        let _ = (status, body);
                        ::core::option::Option::None
                    }
                }
            }
            fn upstream(status: u16, reason: ::std::string::String) -> Self {
                Self::UpstreamError { status, reason }
            }
        }
    };
}

/// A configured client. Cheap to clone: clones share one connection pool and configuration.
#[derive(Clone, Debug)]
pub struct HttpClient {
    shared: Arc<Shared>,
    /// What [`HttpClient::with`] set for the calls made through this handle.
    call: CallOptions,
}

/// What every handle of one client shares.
#[derive(Debug)]
struct Shared {
    inner: reqwest::Client,
    base_url: String,
    timeout: Duration,
    retry: RetryPolicy,
    max_response_bytes: usize,
    default_headers: Vec<(String, String)>,
    redirects: Redirects,
    /// The headers API-key schemes set, left out of a redirect to another origin.
    credential_headers: Vec<reqwest::header::HeaderName>,
    schemes: BTreeMap<String, Scheme>,
    credentials: BTreeMap<String, Credential>,
    /// What [`redact`] removes from replies.
    echoes: Vec<Secret>,
}

/// Options for the calls made through one handle of a client ([`HttpClient::with`]; generated
/// clients have `Client::with`), without rebuilding it: a timeout, extra headers, a retry
/// policy. Unset options keep the client's.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    timeout: Option<Duration>,
    headers: Vec<(String, String)>,
    retry: Option<RetryPolicy>,
    record: Option<Replies>,
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

    fn keep(&self, info: ReplyInfo) {
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
    static AMBIENT_RECORD: std::cell::RefCell<Option<Replies>> = const { std::cell::RefCell::new(None) };
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

impl HttpClient {
    /// A handle on the same client (connections, credentials, configuration) whose calls use
    /// `options` instead of what this handle set.
    pub fn with(&self, options: CallOptions) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            call: options,
        }
    }

    /// Calls the operation `binding` describes with a typed input, returning the typed output or
    /// the typed declared error.
    pub async fn call<I, O, E>(&self, binding: &Binding, input: &I) -> Result<O, Error<E>>
    where
        I: Serialize,
        O: DeserializeOwned,
        E: OperationError,
    {
        let (input, uploads) = request_value(input)?;
        let (reply, _) = self
            .exchange(binding, &input, &uploads)
            .await
            .map_err(retype)?;
        decoded(success_value(reply)?)
    }

    /// The pages of a paginated operation (its binding has a `pagination`), starting with
    /// `input`: see [`Pages`].
    pub fn pages<I, O, T, E>(&self, binding: &'static Binding, input: &I) -> Pages<O, T, E>
    where
        I: Serialize,
        O: DeserializeOwned,
        T: DeserializeOwned,
        E: OperationError,
    {
        Pages::new(self, binding, input)
    }

    /// The server-sent events of a streaming operation (its binding has `events`): the
    /// request for `input` (with the binding's stream flag set in the body), then each event's
    /// data read as a `T` (see [`Events`]). A declared error reply is `Error::Api` before any
    /// event, as for [`HttpClient::call`]; retries apply until the stream starts, never after.
    /// The client's timeout bounds the wait for the reply's head and then each wait for the
    /// next bytes, not the whole stream.
    pub async fn events<I, T, E>(
        &self,
        binding: &Binding,
        input: &I,
    ) -> Result<Events<T, E>, Error<E>>
    where
        I: Serialize,
        T: DeserializeOwned,
        E: OperationError,
    {
        let (mut input, uploads) = request_value(input)?;
        let stream = binding
            .events
            .clone()
            .unwrap_or(crate::binding::EventStream {
                flag: None,
                sentinel: None,
            });
        if let (Some(flag), Some(body)) = (&stream.flag, &binding.body)
            && let Some(Value::Object(fields)) = input.get_mut(body.property.as_ref())
        {
            fields.insert(flag.to_string(), Value::Bool(true));
        }
        let (response, idle) = self
            .open::<E>(binding, &input, &uploads, "text/event-stream")
            .await?;
        let streams = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        if !streams {
            return Err(Error::InvalidResponse {
                pointer: String::new(),
                reason: "the server answered without an event stream (Content-Type is not text/event-stream)".into(),
            });
        }
        Ok(Events::new(events::raw_events(
            Download::new(response, idle),
            stream.sentinel.map(|s| s.into_owned()),
            self.echoes().into_owned(),
        )))
    }

    /// The response body of a download (a success response of bytes: `application/octet-stream`,
    /// `image/*`, …) as it arrives, with no bound on its size (see [`Download`]). Declared
    /// error replies are `Error::Api` before any byte; retries apply until the body starts.
    pub async fn download<I, E>(&self, binding: &Binding, input: &I) -> Result<Download, Error<E>>
    where
        I: Serialize,
        E: OperationError,
    {
        let (input, uploads) = request_value(input)?;
        let accept = binding
            .response
            .as_ref()
            .map_or("*/*", |r| r.content_type.as_ref())
            .to_string();
        let (response, idle) = self.open::<E>(binding, &input, &uploads, &accept).await?;
        Ok(Download::new(response, idle))
    }

    /// Sends a request whose success body is read as a stream: no whole-request timeout (the
    /// client's bounds the wait for the reply's head, and is returned for each wait for more
    /// bytes), `accept` as the `Accept` header, retries until a reply is kept; a reply that is
    /// not a success is read and classified (`Error::Api` for a declared one).
    async fn open<E: OperationError>(
        &self,
        binding: &Binding,
        input: &Value,
        uploads: &Gathered,
        accept: &str,
    ) -> Result<(reqwest::Response, Duration), Error<E>> {
        let mut request = self.request(binding, input, uploads).map_err(retype)?;
        let timeout = request
            .idle()
            .or_else(|| request.head.timeout().copied())
            .unwrap_or(self.shared.timeout);
        *request.head.timeout_mut() = None;
        let accept = reqwest::header::HeaderValue::from_str(accept).map_err(|_| {
            Error::InvalidRequest("the response's media type is not a header value".into())
        })?;
        request
            .head
            .headers_mut()
            .insert(reqwest::header::ACCEPT, accept);
        let response = self
            .attempts(binding, request, Some(timeout))
            .await
            .map_err(retype)?;
        if !response.status().is_success() {
            let (reply, _) = self.classify(binding, response).await.map_err(retype)?;
            success_value::<E>(reply)?;
            return Err(Error::InvalidResponse {
                pointer: String::new(),
                reason: "a success status read as an error".into(),
            });
        }
        // A streamed body is not read here: its reply is recorded with its head alone.
        let status = response.status().as_u16();
        let success = Reply::Success(Value::Null);
        self.record(&self.records(), status, response.headers(), &success, &[]);
        Ok((response, timeout))
    }

    /// Sends the request for `input` and classifies the reply.
    pub async fn send(
        &self,
        binding: &Binding,
        input: &Value,
    ) -> Result<Reply, Error<std::convert::Infallible>> {
        Ok(self.exchange(binding, input, &Gathered::default()).await?.0)
    }

    /// [`HttpClient::send`], with the target of the reply's `Link: <…>; rel="next"` header
    /// when the binding pages by that header.
    async fn exchange(
        &self,
        binding: &Binding,
        input: &Value,
        uploads: &Gathered,
    ) -> Result<(Reply, Option<String>), Error<std::convert::Infallible>> {
        let request = self.request(binding, input, uploads)?;
        let response = self.attempts(binding, request, None).await?;
        self.classify(binding, response).await
    }

    /// Sends `request` until a reply that is not retried (see [`RetryPolicy`]) and returns it;
    /// `first_byte` bounds each attempt's wait for the reply's head (a streaming request has
    /// no whole-request timeout).
    async fn attempts(
        &self,
        binding: &Binding,
        request: Outgoing,
        first_byte: Option<Duration>,
    ) -> Result<reqwest::Response, Error<std::convert::Infallible>> {
        let policy = self.call.retry.unwrap_or(self.shared.retry);
        let started = std::time::Instant::now();
        // Whether waiting `wait` more still starts the next attempt within the policy's time.
        let in_time = |wait: Duration| started.elapsed() + wait <= policy.max_elapsed;
        let mut attempt = 0;
        loop {
            let retries_left =
                binding.retryable() && request.repeatable() && attempt < policy.max_retries;
            // Only a failed attempt asks the system for randomness.
            let backoff = || policy.backoff(attempt, jitter());
            let outcome = self.following(&request, first_byte).await?;
            let wait = match outcome {
                Err(error) if error.is_timeout() => return Err(Error::Timeout),
                Err(error) if error.is_connect() && retries_left => Some(backoff())
                    .filter(|wait| in_time(*wait))
                    .ok_or(Error::Transport)?,
                Err(_) => return Err(Error::Transport),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let wait = (retries_left && RETRY_STATUSES.contains(&status))
                        .then(|| {
                            retry_after(response.headers(), SystemTime::now())
                                .unwrap_or_else(backoff)
                        })
                        .filter(|wait| in_time(*wait));
                    match wait {
                        Some(wait) => wait,
                        None => return Ok(response),
                    }
                }
            };
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// One attempt of `request`, and the redirects it meets as [`Redirects`] says.
    async fn following(
        &self,
        request: &Outgoing,
        first_byte: Option<Duration>,
    ) -> Result<reqwest::Result<reqwest::Response>, Error<std::convert::Infallible>> {
        let client = &self.shared.inner;
        let policy = self.shared.redirects;
        let mut outcome = request.send(client, first_byte).await?;
        let mut hop: Option<Outgoing> = None;
        for _ in 0..policy.max {
            let Ok(response) = &outcome else { break };
            let from = hop.as_ref().unwrap_or(request);
            let Some(next) = policy.next(from, response, &self.shared.credential_headers) else {
                break;
            };
            outcome = next.send(client, first_byte).await?;
            hop = Some(next);
        }
        Ok(outcome)
    }

    fn request(
        &self,
        binding: &Binding,
        input: &Value,
        uploads: &Gathered,
    ) -> Result<Outgoing, Error<std::convert::Infallible>> {
        // A value the wire cannot carry is the caller's input, refused where it is.
        let refused_at = |property: &str| {
            let pointer = format!("/{}", harness_gen_wire::pointer::escape(property));
            move |r: encode::Refused| Error::InvalidValue {
                pointer,
                reason: r.0,
            }
        };
        let mut path = binding.path.to_string();
        let mut query = Vec::new();
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut cookies = Vec::new();
        for param in binding.parameters.iter() {
            let Some(value) = input.get(param.property.as_ref()) else {
                continue;
            };
            let value = &*uploads
                .as_json(value, &format!("/{}", param.property))
                .map_err(Error::InvalidRequest)?;
            match param.location {
                ParamIn::Path => {
                    let text =
                        encode::path_value(param, value).map_err(refused_at(&param.property))?;
                    path = path.replace(&format!("{{{}}}", param.name), &text);
                }
                ParamIn::Query => query.extend(encode::query_pieces(
                    param,
                    value,
                    binding.deep_object_arrays,
                )),
                ParamIn::Header => headers.push((
                    param.name.to_string(),
                    encode::header_value(param, value).map_err(refused_at(&param.property))?,
                )),
                ParamIn::Cookie => cookies.extend(
                    encode::cookie_pairs(param, value).map_err(refused_at(&param.property))?,
                ),
            }
        }
        // One key per call: the request is built once and cloned for each attempt.
        if let Some(header) = &binding.idempotency_key
            && !headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(header))
        {
            let key = idempotency_key().ok_or_else(|| {
                Error::InvalidRequest("no randomness for an idempotency key".into())
            })?;
            headers.push((header.to_string(), key));
        }
        self.authorize(binding, &mut query, &mut headers, &mut cookies)?;
        let mut url = format!("{}{path}", self.shared.base_url);
        if !query.is_empty() {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&query.join("&"));
        }
        let method = reqwest::Method::from_bytes(binding.method.as_str().as_bytes())
            .map_err(|_| Error::InvalidRequest("unknown HTTP method".into()))?;
        let timeout = self.call.timeout.unwrap_or(self.shared.timeout);
        let mut builder = self.shared.inner.request(method, url).timeout(timeout);
        // The client's default headers where the call sets none of the name; the handle's
        // headers replace whatever the call would send.
        for (name, value) in &self.shared.default_headers {
            if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                headers.push((name.clone(), value.clone()));
            }
        }
        for (name, value) in &self.call.headers {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.clone()));
        }
        if headers
            .iter()
            .any(|(_, value)| value.contains(['\r', '\n']))
        {
            return Err(Error::InvalidRequest(
                "a header value holds CR or LF".into(),
            ));
        }
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        if !cookies.is_empty() {
            builder = builder.header("Cookie", cookies.join("; "));
        }
        let mut streamed = None;
        if let Some(body) = &binding.body
            && let Some(value) = input.get(body.property.as_ref())
        {
            let payload = encode::body(body, value, uploads, binding.deep_object_arrays)
                .map_err(refused_at(&body.property))?;
            builder = builder.header("Content-Type", &payload.content_type);
            match payload.in_memory() {
                Some(bytes) => builder = builder.body(bytes),
                None => streamed = Some(payload),
            }
        }
        if let Some(response) = &binding.response {
            builder = builder.header("Accept", response.content_type.as_ref());
        }
        let head = builder.build().map_err(|_| {
            Error::InvalidRequest(
                "the request could not be built (check header names and the base URL)".into(),
            )
        })?;
        Ok(Outgoing::new(head, streamed, timeout))
    }

    /// What [`redact`] removes from this call's replies: the client's credentials, and those
    /// given with the call ([`CallCredentials`]).
    fn echoes(&self) -> std::borrow::Cow<'_, [Secret]> {
        let Some(given) = CallCredentials::current() else {
            return std::borrow::Cow::Borrowed(&self.shared.echoes);
        };
        let given: Vec<Credential> = self
            .shared
            .schemes
            .iter()
            .filter_map(|(name, scheme)| given.credential(name, scheme).ok().flatten())
            .collect();
        std::borrow::Cow::Owned(echoes(self.shared.credentials.values().chain(&given)))
    }

    /// Adds the credentials of the first security alternative that is fully configured.
    fn authorize(
        &self,
        binding: &Binding,
        query: &mut Vec<String>,
        headers: &mut Vec<(String, String)>,
        cookies: &mut Vec<String>,
    ) -> Result<(), Error<std::convert::Infallible>> {
        // A scheme the call's own credentials name takes its credential from them only.
        let per_call = CallCredentials::current();
        let credential_of = |name: &str| -> Result<Option<Credential>, Error<_>> {
            let Some(scheme) = self.shared.schemes.get(name) else {
                return Ok(None);
            };
            match &per_call {
                Some(given) if given.names(name) => given.credential(name, scheme).map_err(|()| {
                    Error::InvalidRequest(format!(
                        "the credential given for `{name}` with this call is not `user:password`"
                    ))
                }),
                _ => Ok(self.shared.credentials.get(name).cloned()),
            }
        };
        let mut usable = None;
        for alternative in binding.security.iter() {
            let credentials = alternative
                .iter()
                .map(|name| credential_of(name).map(|c| c.map(|c| (name, c))))
                .collect::<Result<Option<Vec<_>>, _>>()?;
            if credentials.is_some() {
                usable = credentials;
                break;
            }
        }
        let Some(alternative) = usable else {
            return Ok(());
        };
        for (scheme_name, credential) in &alternative {
            let Some(scheme) = self.shared.schemes.get(scheme_name.as_ref()) else {
                continue;
            };
            let secret_refused = || {
                Error::InvalidRequest(format!(
                    "the credential for `{scheme_name}` contains CR or LF"
                ))
            };
            match (scheme, credential) {
                (Scheme::Bearer, Credential::Token(token)) => {
                    encode::check_header("Authorization", token.expose())
                        .map_err(|_| secret_refused())?;
                    headers.push(("Authorization".into(), format!("Bearer {}", token.expose())));
                }
                (Scheme::Basic, Credential::Basic { username, password }) => {
                    let encoded = basic_pair(username, password);
                    headers.push(("Authorization".into(), format!("Basic {encoded}")));
                }
                (Scheme::ApiKey { location, name }, Credential::ApiKey(key)) => {
                    encode::check_header(name, key.expose()).map_err(|_| secret_refused())?;
                    let param = crate::binding::ParamBinding {
                        property: Default::default(),
                        location: *location,
                        name: name.clone().into(),
                        style: crate::binding::Style::Form,
                        explode: true,
                        required: true,
                        allow_reserved: false,
                        content_type: None,
                    };
                    let value = Value::String(key.expose().to_string());
                    match location {
                        ParamIn::Query => {
                            query.extend(encode::query_pieces(&param, &value, Default::default()))
                        }
                        ParamIn::Cookie => cookies.extend(
                            encode::cookie_pairs(&param, &value).map_err(|_| secret_refused())?,
                        ),
                        _ => headers.push((name.clone(), key.expose().to_string())),
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    async fn classify(
        &self,
        binding: &Binding,
        response: reqwest::Response,
    ) -> Result<(Reply, Option<String>), Error<std::convert::Infallible>> {
        let status = response.status().as_u16();
        let by_header = binding
            .pagination
            .as_ref()
            .is_some_and(|p| p.by_link_header());
        let link = by_header
            .then(|| {
                response
                    .headers()
                    .get_all("link")
                    .iter()
                    .find_map(|value| page::link_next(value.to_str().ok()?).map(str::to_string))
            })
            .flatten();
        let records = self.records();
        let headers = (!records.is_empty()).then(|| response.headers().clone());
        let body = self.read(response).await?;
        let mut reply = interpret(binding, status, &body);
        if let Reply::Success(body) | Reply::Declared { body, .. } = &mut reply {
            redact(body, &self.echoes());
        }
        if let Some(headers) = headers {
            self.record(&records, status, &headers, &reply, &body);
        }
        Ok((reply, link))
    }

    /// Keeps what a reply said in each of `records`.
    fn record(
        &self,
        records: &[Replies],
        status: u16,
        headers: &reqwest::header::HeaderMap,
        reply: &Reply,
        body: &[u8],
    ) {
        if records.is_empty() {
            return;
        }
        let info = self.reply_info(status, headers, reply, body);
        records.iter().for_each(|record| record.keep(info.clone()));
    }

    /// Where this call's reply is recorded: the handle's record and the thread's
    /// ([`Replies::recording`]).
    fn records(&self) -> Vec<Replies> {
        let ambient = AMBIENT_RECORD.with(|cell| cell.borrow().clone());
        self.call.record.iter().cloned().chain(ambient).collect()
    }

    /// What a reply said, credentials echoed in it redacted.
    fn reply_info(
        &self,
        status: u16,
        headers: &reqwest::header::HeaderMap,
        reply: &Reply,
        body: &[u8],
    ) -> ReplyInfo {
        let echoes = self.echoes();
        let redacted = |text: String| redacted_text(text, &echoes);
        let headers: Vec<(String, String)> = headers
            .iter()
            .filter_map(|(name, value)| {
                Some((
                    name.as_str().to_string(),
                    redacted(value.to_str().ok()?.to_string()),
                ))
            })
            .collect();
        let request_id = REQUEST_ID_HEADERS.iter().find_map(|wanted| {
            headers
                .iter()
                .find(|(name, _)| name == wanted)
                .map(|(_, value)| value.clone())
        });
        let body = matches!(reply, Reply::Undeclared { .. }).then(|| {
            let kept = &body[..body.len().min(KEPT_BODY_BYTES)];
            redacted(String::from_utf8_lossy(kept).into_owned())
        });
        ReplyInfo {
            status,
            headers,
            request_id,
            body,
        }
    }

    /// The whole body, within the response bound.
    async fn read(
        &self,
        mut response: reqwest::Response,
    ) -> Result<Vec<u8>, Error<std::convert::Infallible>> {
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > self.shared.max_response_bytes {
                        return Err(Error::TooLarge);
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(error) if error.is_timeout() => return Err(Error::Timeout),
                Err(_) => return Err(Error::Transport),
            }
        }
        Ok(body)
    }
}

/// An operation's input as the JSON value its binding encodes, with the uploads it holds (see
/// [`crate::upload::collect`]).
fn request_value<I: Serialize, E>(input: &I) -> Result<(Value, Gathered), Error<E>> {
    let (value, uploads) = crate::upload::collect(|| serde_json::to_value(input));
    let value =
        value.map_err(|e| Error::InvalidRequest(crate::mask_serde_message(&e.to_string())))?;
    Ok((value, uploads))
}

/// A reply's value as `T`; one that does not fit is an invalid response (its value unsaid).
fn decoded<T: DeserializeOwned, E>(value: Value) -> Result<T, Error<E>> {
    harness_gen_wire::error::typed_value(value)
        .map_err(|(pointer, reason)| Error::InvalidResponse { pointer, reason })
}

/// The value of a success reply, or the typed error another reply is.
fn success_value<E: OperationError>(reply: Reply) -> Result<Value, Error<E>> {
    match reply {
        Reply::Success(value) => Ok(value),
        Reply::Declared { kind, status, body } => Err(Error::Api(
            E::declared(&kind, status, body).unwrap_or_else(|| {
                E::upstream(
                    status,
                    "the error body does not match its declared schema".to_owned(),
                )
            }),
        )),
        Reply::Undeclared { status, reason } => Err(Error::Api(E::upstream(status, reason))),
    }
}

/// The reply a status and body make under `binding`.
fn interpret(binding: &Binding, status: u16, body: &[u8]) -> Reply {
    if (200..300).contains(&status) {
        // Without a declared output, whatever body came back is not part of the contract.
        let value = match binding.response.as_ref().map(|r| r.encoding) {
            None => Value::Null,
            Some(Encoding::Json) => match serde_json::from_slice(body) {
                Ok(value) => value,
                Err(_) => {
                    return Reply::Undeclared {
                        status,
                        reason: "the success body is not valid JSON".into(),
                    };
                }
            },
            Some(Encoding::Text) => Value::String(String::from_utf8_lossy(body).into_owned()),
            Some(_) => Value::String(base64::engine::general_purpose::STANDARD.encode(body)),
        };
        return Reply::Success(value);
    }
    match binding.error_for(status) {
        Some(declared) => match serde_json::from_slice(body) {
            Ok(parsed) => Reply::Declared {
                kind: declared.kind(),
                status,
                body: parsed,
            },
            Err(_) => Reply::Undeclared {
                status,
                reason: "the error body is not valid JSON".into(),
            },
        },
        None => Reply::Undeclared {
            status,
            reason: "undeclared status".into(),
        },
    }
}

fn retype<E>(error: Error<std::convert::Infallible>) -> Error<E> {
    match error {
        Error::Api(never) => match never {},
        Error::InvalidRequest(why) => Error::InvalidRequest(why),
        Error::InvalidValue { pointer, reason } => Error::InvalidValue { pointer, reason },
        Error::Transport => Error::Transport,
        Error::Timeout => Error::Timeout,
        Error::TooLarge => Error::TooLarge,
        Error::InvalidResponse { pointer, reason } => Error::InvalidResponse { pointer, reason },
        Error::Write(why) => Error::Write(why),
        Error::Read(why) => Error::Read(why),
    }
}

/// What a reply's `Retry-After` asks to wait at `now`: seconds, or until an HTTP date (no
/// wait for a date already past).
fn retry_after(headers: &reqwest::header::HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = headers.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(text).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Random bytes from the operating system; `None` if it cannot give any.
pub fn random<const N: usize>() -> Option<[u8; N]> {
    let mut bytes = [0; N];
    getrandom::getrandom(&mut bytes).ok()?;
    Some(bytes)
}

/// A random fraction from 0 to 1 for backoff jitter (0.5 if there is no randomness).
fn jitter() -> f64 {
    random::<4>().map_or(0.5, |b| {
        f64::from(u32::from_le_bytes(b)) / f64::from(u32::MAX)
    })
}

/// A fresh idempotency key: a random (version 4) UUID, as Stripe and the IETF draft
/// recommend; `None` if the system has no randomness (the call is then not sent: a guessable
/// key could replay another call's result).
fn idempotency_key() -> Option<String> {
    let mut b = random::<16>()?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    Some(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_and_jitter_moves_only_its_second_half() {
        let policy = RetryPolicy::DEFAULT;
        assert_eq!(policy.backoff(0, 0.0), Duration::from_millis(100));
        assert_eq!(policy.backoff(0, 1.0), Duration::from_millis(200));
        assert_eq!(policy.backoff(2, 1.0), Duration::from_millis(800));
        assert_eq!(
            policy.backoff(30, 1.0),
            Duration::from_secs(5),
            "capped, never overflowing"
        );
        let j = policy.backoff(1, 0.5);
        assert!(
            j > Duration::from_millis(200) && j < Duration::from_millis(400),
            "{j:?}"
        );
    }

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = httpdate::parse_http_date("Tue, 01 Dec 2026 20:00:00 GMT").unwrap();
        let with = |value: &str| {
            let mut headers = reqwest::header::HeaderMap::new();
            headers.insert("retry-after", value.parse().unwrap());
            retry_after(&headers, now)
        };
        assert_eq!(with("7"), Some(Duration::from_secs(7)));
        assert_eq!(
            with("Tue, 01 Dec 2026 20:00:30 GMT"),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            with("Tue, 01 Dec 2026 19:00:00 GMT"),
            Some(Duration::ZERO),
            "a date already past: no wait"
        );
        assert_eq!(with("soon"), None, "unreadable: the backoff applies");
        assert_eq!(retry_after(&reqwest::header::HeaderMap::new(), now), None);
    }

    #[test]
    fn idempotency_keys_are_fresh_version_4_uuids() {
        let (a, b) = (idempotency_key().unwrap(), idempotency_key().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }
}

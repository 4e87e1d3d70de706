//! `harness-gen-client`: the HTTP client generated SDKs call through (the runtime's feature
//! `client`; with `registry`, the handlers of generated tools). One request path for every
//! operation: the binding says where each input property goes; this module builds the request,
//! adds credentials (and an idempotency key where the binding has one), sends it with a timeout
//! and bounded retries (see [`RetryPolicy`]: calls safe to repeat only, on connect errors,
//! connections reset before the reply and 429/500/502/503/504, honouring `Retry-After`, with
//! jittered backoff), reads at most a
//! bounded body, and classifies the reply as success, declared error or undeclared error.
//!
//! Credentials never appear in `Debug`, `Display` or any error, and never come back out of a
//! reply: a server that echoes the token, key or password it was sent (in an error message, a
//! "who am I" body) has each occurrence replaced by [`REDACTED`] before anyone sees the value.

mod body;
mod builder;
mod call;
mod credentials;
mod download;
pub mod encode;
mod error;
pub mod events;
#[cfg(feature = "registry")]
mod handlers;
mod options;
pub mod page;
mod per_call;
mod redirect;
pub mod trace;

pub use body::{ByteStream, read_chunks};
pub use builder::{ClientBuilder, RetryPolicy};
pub use call::CallFuture;
pub use credentials::{Credential, REDACTED, Scheme, Secret};
pub use download::{Download, Unsaved, save_chunks};
#[doc(hidden)]
pub use error::JsonValue;
pub use error::{Error, OperationError, Reply, error_body};
pub use events::{Event, Events};
/// What page and event streams are (`items()` of a listing, say); `futures::StreamExt` reads them.
pub use futures::Stream;
#[cfg(feature = "registry")]
pub use handlers::{
    download_handler, events_handler, json_or_events_handler, paged_handler, typed_handler,
};
pub use options::{CallOptions, KEPT_BODY_BYTES, REQUEST_ID_HEADERS, Replies, ReplyInfo};
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
use builder::RETRY_STATUSES;
use credentials::{basic_pair, echoes, redact, redacted_text};
use harness_gen_types::upload::{self, Gathered};
pub use harness_gen_wire::ReplyExcerpt;
use harness_gen_wire::binding::{self, Binding, Encoding, ParamIn};
pub use harness_gen_wire::binding::{EndWatch, StreamEnd};
use harness_gen_wire::{BUFFERED_BYTES, RuntimeCategory, mask_serde_message};
use options::AMBIENT_RECORD;

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
    /// The environment variables `from_env` read each scheme's credential from.
    credential_env: BTreeMap<String, Vec<String>>,
    /// What [`redact`] removes from replies.
    echoes: Vec<Secret>,
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
    /// the typed declared error (see [`CallFuture`]).
    pub fn call<'a, I, O, E>(&'a self, binding: &'a Binding, input: &I) -> CallFuture<'a, O, E>
    where
        I: Serialize,
        O: DeserializeOwned,
        E: OperationError,
    {
        CallFuture::new(self.exchanged(binding, request_value(input)))
    }

    /// The exchange of a call whose input is `prepared`: sent, retried, its reply read and
    /// classified. (Not generic: one body for every operation.)
    fn exchanged<'a>(
        &'a self,
        binding: &'a Binding,
        prepared: Result<(Value, Gathered), Error<std::convert::Infallible>>,
    ) -> call::Exchange<'a> {
        Box::pin(async move {
            let (input, uploads) = prepared?;
            // An input that asks for the event stream of an operation the server answers by
            // `Accept` is the streaming call's, not this one's: refused rather than ignored.
            if let Some(select) = binding.events.as_ref().and_then(|e| e.select.as_deref())
                && input.get(select) == Some(&Value::Bool(true))
            {
                return Err(Error::InvalidValue {
                    pointer: format!("/{select}"),
                    reason: format!(
                        "`{select}: true` asks for the event stream, which this call does not read: use the operation's `_events` call"
                    ),
                });
            }
            let (reply, _) = self.exchange(binding, &input, &uploads).await?;
            Ok(reply)
        })
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
        // The input's switch asks for the stream: the body's flag travels; the input's own
        // `select` property is not bound to the wire (the `Accept` below asks).
        if let Some(switch) = binding.events_switch() {
            harness_gen_wire::pointer::set(&mut input, &switch, Value::Bool(true));
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
        let end = harness_gen_wire::binding::EndWatch::default();
        let raw = events::raw_events(
            Download::new(response, idle),
            binding
                .events
                .as_ref()
                .and_then(|e| e.sentinel.as_ref())
                .map(|s| s.to_string()),
            self.echoes().into_owned(),
            end.clone(),
        );
        Ok(Events::new(raw, end))
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
    ///
    /// The attempts are one `upstream_request` span (target [`trace::UPSTREAM`]: method and path
    /// template), each attempt an event in it.
    async fn attempts(
        &self,
        binding: &Binding,
        request: Outgoing,
        first_byte: Option<Duration>,
    ) -> Result<reqwest::Response, Error<std::convert::Infallible>> {
        use tracing::Instrument;
        let span = trace::request_span(binding);
        self.attempts_in_span(binding, request, first_byte)
            .instrument(span)
            .await
    }

    async fn attempts_in_span(
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
            let sent = std::time::Instant::now();
            let outcome = self.following(&request, first_byte).await?;
            trace::attempt(binding, attempt, sent.elapsed(), &outcome);
            let wait = match outcome {
                Err(error) if error.is_timeout() => return Err(Error::Timeout),
                // No connection, or one reset or closed before the reply: the request may or
                // may not have reached the server, so only a call safe to repeat is repeated.
                Err(error) if (error.is_connect() || error.is_request()) && retries_left => {
                    Some(backoff())
                        .filter(|wait| in_time(*wait))
                        .ok_or(Error::Transport)?
                }
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
            // Every alternative needs a credential this client lacks (one that allows anonymous
            // calls is an empty alternative, always usable): refused before sending, saying
            // what to set, rather than a 401 from the server.
            if binding.security.is_empty() {
                return Ok(());
            }
            let schemes: Vec<String> = binding
                .security
                .iter()
                .map(|alternative| {
                    let names: Vec<&str> = alternative.iter().map(|n| n.as_ref()).collect();
                    names.join(" + ")
                })
                .collect();
            let env = binding
                .security
                .iter()
                .flat_map(|alternative| alternative.iter())
                .filter_map(|name| self.shared.credential_env.get(name.as_ref()))
                .map(|vars| vars.join(" and "))
                .collect();
            return Err(Error::MissingCredentials { schemes, env });
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
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = self.read(response).await?;
        let mut reply = interpret(binding, status, content_type.as_deref(), &body);
        match &mut reply {
            Reply::Success(body) | Reply::Declared { body, .. } => redact(body, &self.echoes()),
            Reply::Unexpected(reply) | Reply::Status(reply) => {
                reply.excerpt = redacted_text(std::mem::take(&mut reply.excerpt), &self.echoes());
            }
            Reply::Undeclared { .. } => {}
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
        let outside = matches!(
            reply,
            Reply::Undeclared { .. } | Reply::Unexpected(_) | Reply::Status(_)
        );
        let body = outside.then(|| {
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
        Reply::Unexpected(reply) => Err(Error::UnexpectedReply(reply)),
        Reply::Status(reply) => Err(Error::Status(reply)),
    }
}

/// The reply a status, content type and body make under `binding`.
fn interpret(binding: &Binding, status: u16, content_type: Option<&str>, body: &[u8]) -> Reply {
    if (200..300).contains(&status) {
        // Without a declared output, whatever body came back is not part of the contract.
        let value = match binding.response.as_ref().map(|r| r.encoding) {
            None => Value::Null,
            Some(Encoding::Json) => match serde_json::from_slice(body) {
                Ok(value) => value,
                Err(_) => return Reply::Unexpected(ReplyExcerpt::of(status, content_type, body)),
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
        None => Reply::Status(ReplyExcerpt::of(status, content_type, body)),
    }
}

fn retype<E>(error: Error<std::convert::Infallible>) -> Error<E> {
    match error {
        Error::Api(never) => match never {},
        Error::InvalidRequest(why) => Error::InvalidRequest(why),
        Error::InvalidValue { pointer, reason } => Error::InvalidValue { pointer, reason },
        Error::Transport => Error::Transport,
        Error::UnexpectedReply(reply) => Error::UnexpectedReply(reply),
        Error::Status(reply) => Error::Status(reply),
        Error::Timeout => Error::Timeout,
        Error::TooLarge => Error::TooLarge,
        Error::InvalidResponse { pointer, reason } => Error::InvalidResponse { pointer, reason },
        Error::Write(why) => Error::Write(why),
        Error::Read(why) => Error::Read(why),
        Error::MissingCredentials { schemes, env } => Error::MissingCredentials { schemes, env },
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

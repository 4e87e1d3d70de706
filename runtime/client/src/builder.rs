//! `ClientBuilder` and the retry policy it configures.

use super::*;

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
    /// The environment variables `from_env` read each scheme's credential from (named in the
    /// error of a call that lacks them).
    credential_env: BTreeMap<String, Vec<String>>,
    default_headers: Vec<(String, String)>,
    redirects: Redirects,
    reqwest: Option<reqwest::Client>,
}

/// How a call's failed attempts are retried. Only a call that is safe to repeat is retried (an
/// idempotent method, or a call carrying an idempotency key: see `Binding::idempotency_key`),
/// only after a connect error, a connection reset or closed before the reply, or a 429, 500,
/// 502, 503 or 504 reply, waiting what the reply's
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
pub(crate) const RETRY_STATUSES: [u16; 5] = [429, 500, 502, 503, 504];

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
            credential_env: BTreeMap::new(),
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
            self.credential_env.insert(
                (*scheme).to_string(),
                vars.iter().map(|v| (*v).to_string()).collect(),
            );
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
                credential_env: self.credential_env,
            }),
            call: CallOptions::default(),
        })
    }
}

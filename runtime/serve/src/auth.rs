//! Who may use the HTTP server (`/mcp` and the dashboard): client authentication with a bearer
//! token, either one shared secret (`HARNESS_MCP_AUTH_TOKEN` or `--auth-token-file`, compared in
//! constant time) or JWTs of an OAuth authorization server, as the MCP authorization
//! specification's resource server: signatures checked against the issuer's JWKS (fetched and
//! cached, asymmetric algorithms only), issuer, audience and expiry checked, scopes mapped to
//! tools and tags, protected-resource metadata (RFC 9728) served, and `401` answered with the
//! `WWW-Authenticate` challenge that points to it. No token is ever logged or echoed.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Value, json};

use harness_gen_contract::catalog::Entry;

/// The path of the protected-resource metadata of `/mcp` (RFC 9728 §3.1: the well-known prefix,
/// then the resource's path).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

/// The shortest shared token accepted: shorter ones can be guessed.
pub const MIN_TOKEN_CHARS: usize = 16;

/// How long a fetched JWKS is used before it is fetched again; a token naming a key the cached
/// set lacks fetches it sooner, at most once per [`JWKS_REFRESH`].
const JWKS_TTL: Duration = Duration::from_secs(600);
const JWKS_REFRESH: Duration = Duration::from_secs(30);

/// The signature algorithms a JWT may use: asymmetric ones only (a shared-secret algorithm
/// would let whoever knows the public key sign).
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// An authenticated client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// Who: the JWT's `sub` (with its issuer), or `token` for the shared token.
    pub subject: String,
    /// The scopes the token grants (`None`: the shared token, which may call every tool).
    pub scopes: Option<BTreeSet<String>>,
    /// When its token expires.
    pub expires: Option<SystemTime>,
}

/// Why a request is not authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Denied {
    /// It carries no bearer token.
    Missing,
    /// Its token is wrong, expired, for another audience or issuer, or signed by another key.
    Invalid,
    /// The issuer's keys could not be read (the server's fault, said as such).
    Unavailable,
}

/// How clients authenticate.
pub struct ClientAuth {
    check: Check,
    scopes: ScopeRules,
}

enum Check {
    Token(Vec<u8>),
    Jwt(Jwt),
}

/// JWTs of one issuer.
struct Jwt {
    issuer: String,
    audience: Vec<String>,
    /// The JWKS address (`None`: read from the issuer's metadata on first use).
    jwks_url: Mutex<Option<String>>,
    keys: tokio::sync::Mutex<Keys>,
    http: reqwest::Client,
}

#[derive(Default)]
struct Keys {
    set: Option<JwkSet>,
    fetched: Option<Instant>,
}

impl ClientAuth {
    /// One shared token every client sends as `Authorization: Bearer <token>`; `Err` when it is
    /// shorter than [`MIN_TOKEN_CHARS`].
    pub fn token(token: &str) -> Result<Self, String> {
        let token = token.trim();
        if token.chars().count() < MIN_TOKEN_CHARS {
            return Err(format!(
                "the client token has fewer than {MIN_TOKEN_CHARS} characters: use a long random one (e.g. `openssl rand -hex 32`)"
            ));
        }
        Ok(Self {
            check: Check::Token(token.as_bytes().to_vec()),
            scopes: ScopeRules::default(),
        })
    }

    /// JWTs issued by `issuer` for `audience`, checked with the keys at `jwks_url` (`None`: the
    /// `jwks_uri` of the issuer's OAuth or OpenID metadata). `Err` when an address is not
    /// `https` (plain `http` is accepted on loopback only).
    pub fn jwt(
        issuer: &str,
        audience: Vec<String>,
        jwks_url: Option<String>,
    ) -> Result<Self, String> {
        for url in std::iter::once(issuer).chain(jwks_url.as_deref()) {
            secure_url(url)?;
        }
        if audience.is_empty() {
            return Err("a JWT audience is required (--auth-audience): tokens issued for another service must not be accepted".into());
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("cannot make the HTTP client for the issuer's keys: {e}"))?;
        Ok(Self {
            check: Check::Jwt(Jwt {
                issuer: issuer.trim_end_matches('/').to_string(),
                audience,
                jwks_url: Mutex::new(jwks_url),
                keys: Default::default(),
                http,
            }),
            scopes: ScopeRules::default(),
        })
    }

    /// The same check, with tools allowed by scope (see [`ScopeRules`]).
    pub fn with_scopes(mut self, scopes: ScopeRules) -> Self {
        self.scopes = scopes;
        self
    }

    /// The scope rules.
    pub fn scopes(&self) -> &ScopeRules {
        &self.scopes
    }

    /// The issuer, when clients authenticate with its JWTs.
    pub fn issuer(&self) -> Option<&str> {
        match &self.check {
            Check::Jwt(jwt) => Some(&jwt.issuer),
            Check::Token(_) => None,
        }
    }

    /// The client that sent `headers` (`Authorization: Bearer <token>`).
    pub async fn principal(&self, headers: &HeaderMap) -> Result<Principal, Denied> {
        let token = bearer(headers).ok_or(Denied::Missing)?;
        self.verify(token).await
    }

    /// The client `token` belongs to.
    pub async fn verify(&self, token: &str) -> Result<Principal, Denied> {
        match &self.check {
            Check::Token(expected) => {
                if same(token.as_bytes(), expected) {
                    Ok(Principal {
                        subject: "token".into(),
                        scopes: None,
                        expires: None,
                    })
                } else {
                    Err(Denied::Invalid)
                }
            }
            Check::Jwt(jwt) => jwt.verify(token).await,
        }
    }

    /// The `WWW-Authenticate` value of a `401` for `denied`, pointing to the protected-resource
    /// metadata at `metadata` (the JWT mode's; the shared token has none).
    pub fn challenge(&self, denied: Denied, metadata: &str) -> HeaderValue {
        let mut value = String::from("Bearer realm=\"mcp\"");
        if matches!(self.check, Check::Jwt(_)) {
            value.push_str(&format!(", resource_metadata=\"{metadata}\""));
        }
        if denied == Denied::Invalid {
            value.push_str(", error=\"invalid_token\"");
        }
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    /// The protected-resource metadata (RFC 9728) of the resource `resource` (the `/mcp` URL).
    pub fn metadata(&self, resource: &str) -> Value {
        let mut metadata = json!({
            "resource": resource,
            "bearer_methods_supported": ["header"],
        });
        if let Some(issuer) = self.issuer() {
            metadata["authorization_servers"] = json!([issuer]);
        }
        let scopes = self.scopes.names();
        if !scopes.is_empty() {
            metadata["scopes_supported"] = json!(scopes);
        }
        metadata
    }
}

impl Jwt {
    async fn verify(&self, token: &str) -> Result<Principal, Denied> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| Denied::Invalid)?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Denied::Invalid);
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer, &format!("{}/", self.issuer)]);
        validation.set_audience(&self.audience);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = 30;
        let data =
            jsonwebtoken::decode::<Value>(token, &key, &validation).map_err(|_| Denied::Invalid)?;
        let claims = data.claims;
        let mut scopes: BTreeSet<String> = claims["scope"]
            .as_str()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        if let Some(list) = claims["scp"].as_array() {
            scopes.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
        }
        Ok(Principal {
            subject: format!(
                "{}#{}",
                self.issuer,
                claims["sub"].as_str().unwrap_or_default()
            ),
            scopes: Some(scopes),
            expires: claims["exp"]
                .as_u64()
                .map(|exp| UNIX_EPOCH + Duration::from_secs(exp)),
        })
    }

    /// The key `kid` names (any key of `alg`'s family without a `kid`), from the cached JWKS
    /// or a fresh one.
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, Denied> {
        let mut keys = self.keys.lock().await;
        let stale = keys.fetched.is_none_or(|at| at.elapsed() > JWKS_TTL);
        let found = |keys: &Keys| keys.set.as_ref().and_then(|set| pick(set, kid, alg));
        if !stale && let Some(key) = found(&keys) {
            return Ok(key);
        }
        let may_fetch = stale || keys.fetched.is_none_or(|at| at.elapsed() > JWKS_REFRESH);
        if may_fetch {
            match self.fetch().await {
                Ok(set) => {
                    keys.set = Some(set);
                    keys.fetched = Some(Instant::now());
                }
                // Keys fetched before still serve while the issuer is unreachable.
                Err(()) if keys.set.is_none() => return Err(Denied::Unavailable),
                Err(()) => {}
            }
        }
        found(&keys).ok_or(Denied::Invalid)
    }

    async fn fetch(&self) -> Result<JwkSet, ()> {
        let known = self.jwks_url.lock().map_err(|_| ())?.clone();
        let url = match known {
            Some(url) => url,
            None => {
                let url = self.discover().await?;
                *self.jwks_url.lock().map_err(|_| ())? = Some(url.clone());
                url
            }
        };
        self.get_json(&url).await
    }

    /// The JSON document at `url` (at most 1 MiB).
    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, ()> {
        let response = self.http.get(url).send().await.map_err(|_| ())?;
        if !response.status().is_success() || response.content_length().is_some_and(|n| n > 1 << 20)
        {
            return Err(());
        }
        let bytes = response.bytes().await.map_err(|_| ())?;
        serde_json::from_slice(&bytes).map_err(|_| ())
    }

    /// The `jwks_uri` of the issuer's OAuth authorization-server metadata (RFC 8414), else of
    /// its OpenID configuration.
    async fn discover(&self) -> Result<String, ()> {
        for path in [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ] {
            let url = format!("{}{path}", self.issuer);
            let Ok(metadata) = self.get_json::<Value>(&url).await else {
                continue;
            };
            if let Some(jwks) = metadata["jwks_uri"].as_str()
                && secure_url(jwks).is_ok()
            {
                return Ok(jwks.to_string());
            }
        }
        Err(())
    }
}

/// The key of `set` that `kid` names, usable with `alg`.
fn pick(set: &JwkSet, kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
    set.keys
        .iter()
        .filter(|jwk| kid.is_none_or(|kid| jwk.common.key_id.as_deref() == Some(kid)))
        .filter(|jwk| {
            jwk.common
                .key_algorithm
                .is_none_or(|declared| declared.to_string() == format!("{alg:?}"))
        })
        .find_map(|jwk| {
            let key = DecodingKey::from_jwk(jwk).ok()?;
            (key.family() == alg.family()).then_some(key)
        })
}

/// `Err` unless `url` is `https`, or `http` to a loopback host.
fn secure_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|_| format!("`{url}` is not a URL"))?;
    let host = parsed.host_str().unwrap_or_default();
    let loopback = host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(format!(
            "`{url}` is not https: tokens and keys are only read over TLS (plain http on loopback only)"
        )),
    }
}

/// Whether two secrets are equal, in time that does not depend on where they differ.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The bearer token of `headers`.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Which tools each scope allows (`--auth-scope SCOPE=NAME,tag:TAG,*`). With no rules, an
/// authenticated client may call every tool; with rules, a client whose token grants scopes
/// may call the tools those scopes name, and no other (the shared token may call every tool).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScopeRules(Vec<(String, Vec<String>)>);

impl ScopeRules {
    /// Reads `SCOPE=SELECTOR[,SELECTOR…]` rules: a selector is a tool name, `tag:TAG`, or `*`.
    pub fn parse<I: IntoIterator<Item = S>, S: AsRef<str>>(rules: I) -> Result<Self, String> {
        let mut parsed: Vec<(String, Vec<String>)> = Vec::new();
        for rule in rules {
            let rule = rule.as_ref();
            let (scope, selectors) = rule
                .split_once('=')
                .map(|(s, t)| (s.trim(), t))
                .filter(|(s, _)| !s.is_empty() && !s.contains(char::is_whitespace))
                .ok_or_else(|| format!("`{rule}` is not SCOPE=TOOL[,tag:TAG,*…]"))?;
            let selectors: Vec<String> = selectors
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            if selectors.is_empty() {
                return Err(format!("`{rule}` names no tool"));
            }
            match parsed.iter_mut().find(|(s, _)| s == scope) {
                Some((_, known)) => known.extend(selectors),
                None => parsed.push((scope.to_string(), selectors)),
            }
        }
        Ok(Self(parsed))
    }

    /// The scopes named.
    pub fn names(&self) -> Vec<&str> {
        self.0.iter().map(|(scope, _)| scope.as_str()).collect()
    }

    /// `Err` naming a selector that is no tool of `entries` and no tag of theirs.
    pub fn check(&self, entries: &[&Entry]) -> Result<(), String> {
        for (scope, selectors) in &self.0 {
            for selector in selectors {
                let known = match selector.strip_prefix("tag:") {
                    _ if selector == "*" => true,
                    Some(tag) => entries.iter().any(|e| e.tags().any(|t| t == tag)),
                    None => entries.iter().any(|e| e.name.as_str() == selector),
                };
                if !known {
                    return Err(format!(
                        "--auth-scope {scope}: `{selector}` is no served tool or tag"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether `principal` may call `entry`; `Err` names the scopes that would allow it.
    pub fn allows(&self, principal: Option<&Principal>, entry: &Entry) -> Result<(), String> {
        let Some(granted) = principal.and_then(|p| p.scopes.as_ref()) else {
            return Ok(());
        };
        if self.0.is_empty() {
            return Ok(());
        }
        let opening: Vec<&str> = self
            .0
            .iter()
            .filter(|(_, selectors)| {
                selectors.iter().any(|s| {
                    s == "*"
                        || s == entry.name.as_str()
                        || s.strip_prefix("tag:")
                            .is_some_and(|t| entry.tags().any(|e| e == t))
                })
            })
            .map(|(scope, _)| scope.as_str())
            .collect();
        if opening.iter().any(|scope| granted.contains(*scope)) {
            return Ok(());
        }
        Err(if opening.is_empty() {
            format!("no scope allows `{}`", entry.name)
        } else {
            format!(
                "`{}` needs the scope {} (insufficient_scope)",
                entry.name,
                opening
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        })
    }
}

/// The client check of one HTTP server, in front of every route but the dashboard's (which
/// checks the same tokens itself, with a login form for browsers) and the well-known metadata.
pub struct Gate {
    /// How clients authenticate (`None`: they do not).
    pub auth: Option<std::sync::Arc<ClientAuth>>,
    /// The server's public base URL (`None`: `http://` and the request's `Host`).
    pub public_url: Option<String>,
}

impl Gate {
    /// The base URL clients reach the server at.
    fn base(&self, headers: &HeaderMap) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => {
                let host = headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("localhost");
                format!("http://{host}")
            }
        }
    }

    /// The routes of the protected-resource metadata (JWT mode only), and the check in front of
    /// `router`'s other routes.
    pub fn guard(self: std::sync::Arc<Self>, router: axum::Router) -> axum::Router {
        let router = if self.auth.as_ref().is_some_and(|a| a.issuer().is_some()) {
            let gate = std::sync::Arc::clone(&self);
            let metadata = move |headers: HeaderMap| {
                let gate = std::sync::Arc::clone(&gate);
                async move {
                    let resource = format!("{}/mcp", gate.base(&headers));
                    let auth = gate.auth.as_ref().map(|a| a.metadata(&resource));
                    axum::Json(auth.unwrap_or_default())
                }
            };
            router
                .route(METADATA_PATH, axum::routing::get(metadata.clone()))
                .route(
                    "/.well-known/oauth-protected-resource",
                    axum::routing::get(metadata),
                )
        } else {
            router
        };
        router.layer(axum::middleware::from_fn_with_state(self, checked))
    }

    /// The `401` (or `503` when the issuer's keys cannot be read) a request `denied` gets.
    pub fn refusal(&self, auth: &ClientAuth, denied: Denied, headers: &HeaderMap) -> Response {
        let metadata = format!("{}{METADATA_PATH}", self.base(headers));
        let (status, message) = match denied {
            Denied::Missing => (
                StatusCode::UNAUTHORIZED,
                "this server requires client authentication: send Authorization: Bearer <token>",
            ),
            Denied::Invalid => (
                StatusCode::UNAUTHORIZED,
                "the bearer token is not valid here (wrong, expired, or for another audience or issuer)",
            ),
            Denied::Unavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the authorization server's keys cannot be read now; try again later",
            ),
        };
        let mut response = (status, axum::Json(json!({"error": message}))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, auth.challenge(denied, &metadata));
        }
        response
    }
}

/// Lets through requests of an authenticated client (its [`Principal`] in the request's
/// extensions, where the MCP handlers read it), the dashboard's (which checks them itself), the
/// metadata's and `/` (a redirect to the dashboard).
async fn checked(
    axum::extract::State(gate): axum::extract::State<std::sync::Arc<Gate>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = request.uri().path();
    let exempt = path == "/"
        || path.starts_with("/.well-known/")
        || path == "/dashboard"
        || path.starts_with("/dashboard/");
    let Some(auth) = gate.auth.as_ref().filter(|_| !exempt) else {
        return next.run(request).await;
    };
    match auth.principal(request.headers()).await {
        Ok(principal) => {
            request.extensions_mut().insert(principal);
            next.run(request).await
        }
        Err(denied) => gate.refusal(auth, denied, request.headers()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers;

    #[tokio::test]
    async fn the_shared_token_must_match_whole() {
        let auth = ClientAuth::token("0123456789abcdef0123").unwrap();
        let ok = auth
            .principal(&headers(&[(
                "authorization",
                "Bearer 0123456789abcdef0123",
            )]))
            .await;
        assert_eq!(ok.unwrap().subject, "token");
        for wrong in [
            "Bearer 0123456789abcdef012",
            "Bearer 0123456789abcdef01234",
            "Basic 0123456789abcdef0123",
        ] {
            let denied = auth.principal(&headers(&[("authorization", wrong)])).await;
            assert!(denied.is_err(), "{wrong}");
        }
        let none = auth.principal(&HeaderMap::new()).await;
        assert_eq!(none, Err(Denied::Missing));
        assert!(ClientAuth::token("short").is_err());
    }

    #[test]
    fn issuers_and_key_sets_are_read_over_tls_except_on_loopback() {
        assert!(secure_url("https://id.example").is_ok());
        assert!(secure_url("http://127.0.0.1:9000").is_ok());
        assert!(secure_url("http://localhost:9000/jwks").is_ok());
        assert!(secure_url("http://id.example").is_err());
        assert!(ClientAuth::jwt("https://id.example", Vec::new(), None).is_err());
    }

    #[test]
    fn scope_rules_name_tools_tags_or_everything() {
        let rules =
            ScopeRules::parse(["pets:read=get_pet,tag:pets", "admin=*", "pets:read=x"]).unwrap();
        assert_eq!(rules.names(), ["pets:read", "admin"]);
        assert!(ScopeRules::parse(["nothing="]).is_err());
        assert!(ScopeRules::parse(["=get_pet"]).is_err());
    }
}

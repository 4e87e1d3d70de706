//! Several users on one Streamable HTTP server: an explicit mapping from request headers to the
//! API's security schemes (`--credential-header bearerAuth=X-Petstore-Token`). Each tool call
//! takes the mapped schemes' credentials from its own HTTP request and from nowhere else (see
//! [`CallCredentials`]): never from another session, never from the server's
//! environment, and the MCP transport's own `Authorization` header is forwarded only when a
//! mapping names it. Values are never logged or echoed; a call whose request lacks every header
//! its tool could authenticate with fails with an error naming the headers, not their values.

use std::collections::BTreeSet;

use harness_gen_client::CallCredentials;
use harness_gen_contract::catalog::Entry;

/// Scheme → request header, in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CredentialHeaders(Vec<(String, String)>);

impl CredentialHeaders {
    /// Reads `SCHEME=HEADER` mappings; `Err` says which one is malformed or repeats a scheme.
    pub fn parse<I: IntoIterator<Item = S>, S: AsRef<str>>(mappings: I) -> Result<Self, String> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for mapping in mappings {
            let mapping = mapping.as_ref();
            let (scheme, header) = mapping
                .split_once('=')
                .map(|(s, h)| (s.trim(), h.trim()))
                .filter(|(s, h)| !s.is_empty() && axum::http::HeaderName::try_from(*h).is_ok())
                .ok_or_else(|| {
                    format!("`{mapping}` is not SCHEME=HEADER (a security scheme's name, then a request header's)")
                })?;
            if pairs.iter().any(|(s, _)| s == scheme) {
                return Err(format!("the scheme `{scheme}` is mapped twice"));
            }
            pairs.push((scheme.to_string(), header.to_ascii_lowercase()));
        }
        Ok(Self(pairs))
    }

    /// Whether no scheme is mapped (credentials come from the environment, as over stdio).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Err` naming the schemes the tools of `entries` use when a mapping names another one.
    pub fn check<'a>(&self, entries: impl Iterator<Item = &'a Entry>) -> Result<(), String> {
        let known: BTreeSet<&str> = entries
            .filter_map(|entry| entry.source.as_ref()?.openapi_binding())
            .flat_map(|binding| binding.security.iter().flat_map(|alt| alt.iter()))
            .map(|scheme| scheme.as_ref())
            .collect();
        match self
            .0
            .iter()
            .find(|(scheme, _)| !known.contains(scheme.as_str()))
        {
            None => Ok(()),
            Some((scheme, _)) => Err(format!(
                "--credential-header names `{scheme}`, which no served tool uses; the security schemes are: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.into_iter().collect::<Vec<_>>().join(", ")
                }
            )),
        }
    }

    /// The credentials a call of the tool `entry` finds (`None`: not found, which the call path
    /// reports; looked up only when something is mapped) takes from its request's `headers`:
    /// none to set when nothing is mapped, else every mapped scheme's header value, or `Err`
    /// naming the headers when the tool could not authenticate without them. The MCP endpoint
    /// and the dashboard both ask this.
    pub fn for_call<'a>(
        &self,
        entry: impl FnOnce() -> Option<&'a Entry>,
        headers: &axum::http::HeaderMap,
    ) -> Result<Option<CallCredentials>, String> {
        if self.is_empty() {
            return Ok(None);
        }
        if let Some(why) = entry().and_then(|entry| self.missing(entry, headers)) {
            return Err(why);
        }
        Ok(Some(self.of_request(headers)))
    }

    /// The mapped headers' values in one request, in mapping order (what tells one user's
    /// tasks from another's).
    pub fn values<'h>(
        &'h self,
        headers: &'h axum::http::HeaderMap,
    ) -> impl Iterator<Item = &'h [u8]> + 'h {
        self.0.iter().map(|(_, header)| {
            headers
                .get(header)
                .map_or(&b""[..], axum::http::HeaderValue::as_bytes)
        })
    }

    /// The credentials one request carries: every mapped scheme, with its header's value or
    /// none.
    pub fn of_request(&self, headers: &axum::http::HeaderMap) -> CallCredentials {
        let mut credentials = CallCredentials::new();
        for (scheme, header) in &self.0 {
            let value = headers
                .get(header)
                .and_then(|v| v.to_str().ok())
                .filter(|v| !v.trim().is_empty());
            credentials.set(scheme.clone(), value.map(str::to_string));
        }
        credentials
    }

    /// Why `entry` cannot be called with `headers`: every security alternative of its
    /// operation needs a mapped scheme whose header the request lacks. The message names those
    /// headers (never a value).
    pub fn missing(&self, entry: &Entry, headers: &axum::http::HeaderMap) -> Option<String> {
        let binding = entry.source.as_ref()?.openapi_binding()?;
        let lacking = |scheme: &str| {
            self.0
                .iter()
                .find(|(mapped, _)| mapped == scheme)
                .filter(|(_, header)| headers.get(header).is_none_or(|v| v.is_empty()))
                .map(|(_, header)| header.as_str())
        };
        let mut wanted: Vec<&str> = Vec::new();
        for alternative in binding.security.iter() {
            let absent: Vec<&str> = alternative.iter().filter_map(|s| lacking(s)).collect();
            if absent.is_empty() {
                return None;
            }
            wanted.extend(absent);
        }
        wanted.dedup();
        (!wanted.is_empty()).then(|| {
            let headers: Vec<String> = wanted.iter().map(|h| format!("`{h}`")).collect();
            format!(
                "`{}` needs a credential from the request header {} (this server takes credentials from each request, not from its environment)",
                entry.name,
                headers.join(" or ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_are_scheme_equals_header_once_per_scheme() {
        let parsed = CredentialHeaders::parse(["bearerAuth = X-Token", "key=X-Api-Key"]).unwrap();
        assert_eq!(
            parsed.0,
            [
                ("bearerAuth".to_string(), "x-token".to_string()),
                ("key".to_string(), "x-api-key".to_string())
            ]
        );
        for (bad, says) in [
            ("bearerAuth", "SCHEME=HEADER"),
            ("=X-Token", "SCHEME=HEADER"),
            ("bearerAuth=not a header", "SCHEME=HEADER"),
        ] {
            let why = CredentialHeaders::parse([bad]).unwrap_err();
            assert!(why.contains(says), "{bad}: {why}");
        }
        let twice = CredentialHeaders::parse(["a=X-One", "a=X-Two"]).unwrap_err();
        assert!(twice.contains("mapped twice"), "{twice}");
    }
}

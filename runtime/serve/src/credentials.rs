//! Several users on one Streamable HTTP server: an explicit mapping from request headers to the
//! API's security schemes (`--credential-header bearerAuth=X-Petstore-Token`). Each tool call
//! takes the mapped schemes' credentials from its own HTTP request and from nowhere else (see
//! [`CallCredentials`]): never from another session, never from the server's
//! environment, and the MCP transport's own `Authorization` header is forwarded only when a
//! mapping names it. Values are never logged or echoed; a call whose request lacks every header
//! its tool could authenticate with fails with an error naming the headers, not their values.
//!
//! In a registry composed of several APIs, a tool of the API mounted under `petstore` (its
//! [`Entry::mount`]) takes `petstore.bearerAuth=HEADER` before a plain `bearerAuth=HEADER`, and
//! never another namespace's mapping: two APIs with a scheme of one name read two headers.

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
        let mut known: BTreeSet<String> = BTreeSet::new();
        for entry in entries {
            let Some(binding) = entry.source.as_ref().and_then(|s| s.openapi_binding()) else {
                continue;
            };
            for scheme in binding.security.iter().flat_map(|alt| alt.iter()) {
                let scheme: &str = scheme.as_ref();
                known.insert(scheme.to_string());
                if let Some(mount) = entry.mount() {
                    known.insert(format!("{mount}.{scheme}"));
                }
            }
        }
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
        let entry = entry();
        if let Some(why) = entry.and_then(|entry| self.missing(entry, headers)) {
            return Err(why);
        }
        let credentials = match entry.and_then(Entry::mount) {
            Some(mount) => self.of_mounted_request(mount, headers),
            None => self.of_request(headers),
        };
        Ok(Some(credentials))
    }

    /// The credentials one request carries for a tool of the API mounted under `mount`: each
    /// scheme by its own name, from its `mount.scheme` mapping, else its plain one; mappings
    /// of other namespaces left out.
    pub fn of_mounted_request(
        &self,
        mount: &str,
        headers: &axum::http::HeaderMap,
    ) -> CallCredentials {
        let mut credentials = CallCredentials::new();
        for (scheme, header) in &self.0 {
            let name = match own_scheme(mount, scheme) {
                Some(name) => name,
                // Another namespace's mapping (a dotted name: scheme names of OpenAPI documents
                // rarely hold dots), or a plain one that this namespace's own one overrides.
                None if scheme.contains('.') => continue,
                None if self
                    .0
                    .iter()
                    .any(|(other, _)| own_scheme(mount, other) == Some(scheme)) =>
                {
                    continue;
                }
                None => scheme,
            };
            credentials.set(name.to_string(), value_of(headers, header));
        }
        credentials
    }

    /// The mapping that gives `scheme` to a tool of the API mounted under `mount` (`None`: a
    /// tool of no mount).
    fn mapped(&self, mount: Option<&str>, scheme: &str) -> Option<&(String, String)> {
        let namespaced = mount.map(|mount| format!("{mount}.{scheme}"));
        namespaced
            .and_then(|name| self.0.iter().find(|(mapped, _)| *mapped == name))
            .or_else(|| self.0.iter().find(|(mapped, _)| mapped == scheme))
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
            credentials.set(scheme.clone(), value_of(headers, header));
        }
        credentials
    }

    /// Why `entry` cannot be called with `headers`: every security alternative of its
    /// operation needs a mapped scheme whose header the request lacks. The message names those
    /// headers (never a value).
    pub fn missing(&self, entry: &Entry, headers: &axum::http::HeaderMap) -> Option<String> {
        let binding = entry.source.as_ref()?.openapi_binding()?;
        let lacking = |scheme: &str| {
            self.mapped(entry.mount(), scheme)
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

/// The scheme a mapping names for the API mounted under `mount` (`petstore.bearerAuth` →
/// `bearerAuth`), if it is that namespace's.
fn own_scheme<'a>(mount: &str, mapped: &'a str) -> Option<&'a str> {
    mapped.strip_prefix(mount)?.strip_prefix('.')
}

/// A mapped header's value in `headers`, when it has one that is not blank.
fn value_of(headers: &axum::http::HeaderMap, header: &str) -> Option<String> {
    headers
        .get(header)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mounted_apis_tools_take_their_namespaces_mapping_before_a_plain_one_and_never_anothers() {
        let mapped = CredentialHeaders::parse([
            "petstore.bearerAuth=X-Pet-Token",
            "travel.bearerAuth=X-Travel-Token",
            "bearerAuth=X-Token",
            "apiKey=X-Key",
        ])
        .unwrap();
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("x-pet-token", "pet".parse().unwrap());
        headers.insert("x-key", "key".parse().unwrap());
        let schemes = |credentials: CallCredentials| -> Vec<(String, bool)> {
            credentials
                .schemes()
                .map(|(scheme, has)| (scheme.to_string(), has))
                .collect()
        };
        // The pet store's tools: its own bearer header, the shared key; nothing of travel's.
        assert_eq!(
            schemes(mapped.of_mounted_request("petstore", &headers)),
            [
                ("apiKey".to_string(), true),
                ("bearerAuth".to_string(), true)
            ]
        );
        // Travel's: its own bearer header, which this request lacks (no fallback to another's).
        assert_eq!(
            schemes(mapped.of_mounted_request("travel", &headers)),
            [
                ("apiKey".to_string(), true),
                ("bearerAuth".to_string(), false)
            ]
        );
        // A third API without a mapping of its own takes the plain one.
        assert_eq!(
            schemes(mapped.of_mounted_request("shop", &headers)),
            [
                ("apiKey".to_string(), true),
                ("bearerAuth".to_string(), false)
            ]
        );
    }

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

//! Which `Host` values and browser origins the HTTP server answers: loopback ones always, and
//! what the operator allowed. rmcp applies them to `/mcp`; the dashboard checks them itself.

use axum::http::{HeaderMap, HeaderValue, header};

/// Browser origins on loopback, any port.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// The `Host` values and browser origins a request may come with: loopback ones always, and
/// what the operator allowed (`--allow-host`, `--allow-origin`), as for `/mcp`.
#[derive(Clone, Debug)]
pub struct Access {
    hosts: Vec<String>,
    origins: Vec<String>,
}

/// Why a request is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its `Host` is not one this server answers to (DNS rebinding).
    Host,
    /// It comes from a page of another origin.
    Origin,
}

impl Refusal {
    /// What the refused client is told.
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Host => {
                "this Host is not served; start the server with --allow-host to serve it"
            }
            Refusal::Origin => {
                "requests from this origin are refused; start the server with --allow-origin to accept it"
            }
        }
    }
}

impl Access {
    /// Loopback names and origins, and `hosts` (names, without a port) and `origins`
    /// (`scheme://host[:port]`, a port of `*` for any) besides.
    pub fn new(hosts: &[String], origins: &[String]) -> Self {
        let mut all_hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).into();
        all_hosts.extend(hosts.iter().map(|h| h.to_ascii_lowercase()));
        let mut all_origins: Vec<String> = LOOPBACK_ORIGINS.map(String::from).into();
        all_origins.extend(origins.iter().map(|o| o.to_ascii_lowercase()));
        Self {
            hosts: all_hosts,
            origins: all_origins,
        }
    }

    /// The `Host` names answered (without ports).
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The browser origins answered.
    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    /// Whether a request with `headers` may be answered at all.
    pub fn admits(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .ok_or(Refusal::Host)?;
        if !self.hosts.iter().any(|h| *h == host_name(host)) {
            return Err(Refusal::Host);
        }
        match headers.get(header::ORIGIN).map(HeaderValue::to_str) {
            None => Ok(()),
            Some(Ok(origin)) if self.allows_origin(origin) => Ok(()),
            Some(_) => Err(Refusal::Origin),
        }
    }

    fn allows_origin(&self, origin: &str) -> bool {
        let origin = origin.to_ascii_lowercase();
        self.origins
            .iter()
            .any(|allowed| match allowed.strip_suffix(":*") {
                Some(stem) => {
                    origin == stem
                        || origin
                            .strip_prefix(stem)
                            .and_then(|rest| rest.strip_prefix(':'))
                            .is_some_and(|port| {
                                !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                            })
                }
                None => origin == *allowed,
            })
    }
}

/// The host part of a `Host` header, lower-cased, without its port or IPv6 brackets.
fn host_name(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_owned();
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name.to_owned(),
        _ => host,
    }
}

/// A header map of `pairs`, for tests (here, and the dashboard's with feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(
            header::HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
            HeaderValue::from_str(value).expect("a header value"),
        );
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins_are_admitted_and_others_only_when_allowed() {
        let access = Access::new(&["ops.example".into()], &["https://ops.example".into()]);
        let admits = |pairs: &[(&str, &str)]| access.admits(&headers(pairs));
        assert_eq!(admits(&[("host", "127.0.0.1:8080")]), Ok(()));
        assert_eq!(admits(&[("host", "[::1]:9")]), Ok(()));
        assert_eq!(admits(&[("host", "LOCALHOST")]), Ok(()));
        assert_eq!(admits(&[("host", "ops.example:443")]), Ok(()));
        assert_eq!(admits(&[("host", "evil.example:8080")]), Err(Refusal::Host));
        assert_eq!(admits(&[]), Err(Refusal::Host));
        let from = |origin| admits(&[("host", "localhost:1"), ("origin", origin)]);
        assert_eq!(from("http://localhost:1"), Ok(()));
        assert_eq!(from("http://127.0.0.1:65535"), Ok(()));
        assert_eq!(from("https://ops.example"), Ok(()));
        assert_eq!(from("https://ops.example:8443"), Err(Refusal::Origin));
        assert_eq!(
            from("http://localhost.evil.example:1"),
            Err(Refusal::Origin)
        );
        assert_eq!(from("http://evil.example"), Err(Refusal::Origin));
        assert_eq!(from("null"), Err(Refusal::Origin));
    }
}

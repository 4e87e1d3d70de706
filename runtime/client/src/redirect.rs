//! Redirects, followed here rather than by `reqwest`: `reqwest` strips only `Authorization`,
//! `Cookie` and their proxy kin when a redirect leaves the host, so an API key in a header of
//! the scheme's own name (`X-Api-Key`) went along to whatever host the `Location` named. Here a
//! redirect to another origin (scheme, host and port) leaves out every header a security
//! scheme sets, or is not followed at all, as [`Redirects`] says.

use reqwest::header::{self, HeaderName};
use reqwest::{Method, StatusCode};

use super::body::Outgoing;

/// How a client follows redirects (`301`, `302`, `303`, `307`, `308` with a `Location`).
///
/// To the same origin the request goes again as it was (`303`, and `301`/`302` after a `POST`,
/// become a `GET` without a body, as browsers do). To another origin it goes without any
/// credential of the API's security schemes (`Authorization`, `Cookie`, `Proxy-Authorization`
/// and each API-key header), or, with `cross_origin: false`, it is not followed and the
/// redirect itself is the reply. A query or cookie API key is never carried to the target:
/// the target URL is the `Location` as the server wrote it. A `307`/`308` of a streamed body
/// (a file or stream upload) is not followed either: the body was read once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redirects {
    /// The most redirects one attempt follows; the next one is the reply.
    pub max: u8,
    /// Whether a redirect to another origin is followed (without credentials).
    pub cross_origin: bool,
}

impl Redirects {
    /// Up to 10 redirects; to another origin without credentials.
    pub const DEFAULT: Self = Self {
        max: 10,
        cross_origin: true,
    };

    /// Redirects are the reply, never followed.
    pub const NONE: Self = Self {
        max: 0,
        cross_origin: false,
    };

    /// The request a redirect `response` to `request` asks for, or `None` when it is not
    /// followed (see [`Redirects`]). `credentials` names the headers the API's security schemes
    /// set besides `Authorization` and `Cookie`.
    pub(super) fn next(
        &self,
        request: &Outgoing,
        response: &reqwest::Response,
        credentials: &[HeaderName],
    ) -> Option<Outgoing> {
        let status = response.status();
        let keeps_body = matches!(
            status,
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        );
        let drops_body = matches!(
            status,
            StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND | StatusCode::SEE_OTHER
        );
        if !keeps_body && !drops_body {
            return None;
        }
        let location = response.headers().get(header::LOCATION)?.to_str().ok()?;
        let from = request.head.url();
        let target = from.join(location).ok()?;
        if !matches!(target.scheme(), "http" | "https") {
            return None;
        }
        let same_origin = target.origin() == from.origin();
        if !same_origin && !self.cross_origin {
            return None;
        }
        let method = request.head.method().clone();
        let to_get = status == StatusCode::SEE_OTHER && method != Method::HEAD
            || status != StatusCode::SEE_OTHER && drops_body && method == Method::POST;
        let mut next = if to_get {
            request.without_body(Method::GET)?
        } else {
            request.again()?
        };
        *next.head.url_mut() = target;
        if !same_origin {
            let headers = next.head.headers_mut();
            for name in [
                header::AUTHORIZATION,
                header::PROXY_AUTHORIZATION,
                header::COOKIE,
            ]
            .iter()
            .chain(credentials)
            {
                headers.remove(name);
            }
        }
        Some(next)
    }
}

impl Default for Redirects {
    fn default() -> Self {
        Self::DEFAULT
    }
}

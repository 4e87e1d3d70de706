//! Who may call through the dashboard: each browser's session (an `HttpOnly`,
//! `SameSite=Strict` cookie) and the per-session token a call must carry; and the headers every
//! page is served with. Which hosts and origins may reach it at all is the MCP endpoint's
//! [`harness_gen_serve::Access`].

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::http::{HeaderMap, HeaderValue, header};

use harness_gen_serve::same;

/// The cookie that names a browser's session.
const COOKIE: &str = "harness_dashboard";

/// How many browser sessions one server remembers; the one used least recently is forgotten
/// first (its page then asks to be reloaded). A request from another site opens none (see
/// [`opens_session`]), so a page elsewhere cannot push an operator's session out.
const MAX_SESSIONS: usize = 256;

/// One browser's session: the secret its cookie holds, and the token its pages send with calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// The cookie's value; also whose calls are whose.
    pub id: String,
    /// The token a call must carry in [`TOKEN_HEADER`].
    pub token: String,
    /// Who signed in, on a server with client authentication.
    pub principal: Option<harness_gen_serve::Principal>,
}

/// Whether a request may open a session: not a request another site's page made (an image, a
/// script, a frame, a fetch: `Sec-Fetch-Site: cross-site`), only the browser's own navigation to
/// the page. Browsers that send no `Sec-Fetch-*` headers are let through (the cookie is
/// `SameSite=Strict` and calls need the page's token either way).
pub fn opens_session(headers: &HeaderMap) -> bool {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match get("sec-fetch-site") {
        None | Some("same-origin" | "none") => true,
        Some(_) => {
            get("sec-fetch-mode") == Some("navigate") && get("sec-fetch-dest") == Some("document")
        }
    }
}

/// The header a call carries its session's token in.
pub const TOKEN_HEADER: &str = "x-harness-token";

/// Why a call without its session's token is refused: a cross-site request, or a page older
/// than the server.
pub const NO_TOKEN: &str =
    "the request does not carry this session's token: reload the dashboard and call from it";

/// The sessions this server has given out, oldest first.
#[derive(Default)]
pub struct Sessions(Mutex<VecDeque<Session>>);

impl Sessions {
    /// The session of the browser that sent `headers`, or a new one with the `Set-Cookie`
    /// value that gives it to the browser; `None` when the operating system gives no randomness
    /// for a new one.
    pub fn of_page(&self, headers: &HeaderMap) -> Option<(Session, Option<HeaderValue>)> {
        if let Some(session) = self.find(headers) {
            return Some((session, None));
        }
        self.open(None)
    }

    /// A new session (of `principal`, who just signed in), with the `Set-Cookie` value that
    /// gives it to the browser; the session used least recently makes room.
    pub fn open(
        &self,
        principal: Option<harness_gen_serve::Principal>,
    ) -> Option<(Session, Option<HeaderValue>)> {
        let session = Session {
            id: random_hex()?,
            token: random_hex()?,
            principal,
        };
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() >= MAX_SESSIONS {
            all.pop_front();
        }
        all.push_back(session.clone());
        let cookie = format!(
            "{COOKIE}={}; Path=/dashboard; HttpOnly; SameSite=Strict",
            session.id
        );
        Some((session, HeaderValue::from_str(&cookie).ok()))
    }

    /// The session of a call: its cookie names a session and its token header is that
    /// session's ([`NO_TOKEN`] otherwise).
    pub fn of_call(&self, headers: &HeaderMap) -> Option<Session> {
        let session = self.find(headers)?;
        let token = headers
            .get(TOKEN_HEADER)
            .map(HeaderValue::as_bytes)
            .unwrap_or_default();
        same(token, session.token.as_bytes()).then_some(session)
    }

    /// The session of the browser that sent `headers`, if it has one this server knows.
    pub fn find(&self, headers: &HeaderMap) -> Option<Session> {
        let id = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| h.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, value)| value.trim())?;
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let at = all
            .iter()
            .position(|s| same(s.id.as_bytes(), id.as_bytes()))?;
        // Used now: the last to be forgotten.
        let session = all.remove(at)?;
        all.push_back(session.clone());
        Some(session)
    }
}

/// 128 random bits from the operating system, as hex.
fn random_hex() -> Option<String> {
    let bytes = harness_gen_client::random::<16>()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The headers every dashboard response carries: a Content-Security-Policy that allows only
/// this server's own script, styles and requests; no framing, sniffing or referrers.
pub fn security_headers(headers: &mut HeaderMap) {
    let set = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in set {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_gen_serve::headers;

    #[test]
    fn a_call_needs_the_cookie_of_a_known_session_and_its_token() {
        let sessions = Sessions::default();
        let (session, cookie) = sessions.of_page(&HeaderMap::new()).unwrap();
        let cookie = cookie.unwrap().to_str().unwrap().to_owned();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
        let pair = cookie.split(';').next().unwrap().to_owned();
        let again = sessions.of_page(&headers(&[("cookie", &format!("a=b; {pair}"))]));
        assert_eq!(again, Some((session.clone(), None)));
        let call = |pairs: &[(&str, &str)]| sessions.of_call(&headers(pairs));
        assert_eq!(
            call(&[("cookie", &pair), (TOKEN_HEADER, &session.token)]),
            Some(session.clone())
        );
        assert_eq!(call(&[("cookie", &pair)]), None);
        assert_eq!(
            call(&[("cookie", &pair), (TOKEN_HEADER, &session.id)]),
            None
        );
        assert_eq!(call(&[(TOKEN_HEADER, &session.token)]), None);
        assert_ne!(session.id, session.token);
    }

    #[test]
    fn only_the_browsers_own_navigation_opens_a_session() {
        let opens = |pairs: &[(&str, &str)]| opens_session(&headers(pairs));
        assert!(opens(&[]));
        assert!(opens(&[("sec-fetch-site", "same-origin")]));
        assert!(opens(&[
            ("sec-fetch-site", "none"),
            ("sec-fetch-mode", "navigate")
        ]));
        let navigation = [
            ("sec-fetch-site", "cross-site"),
            ("sec-fetch-mode", "navigate"),
            ("sec-fetch-dest", "document"),
        ];
        assert!(opens(&navigation));
        for (mode, dest) in [
            ("no-cors", "image"),
            ("cors", "empty"),
            ("navigate", "iframe"),
        ] {
            let pairs = [
                ("sec-fetch-site", "cross-site"),
                ("sec-fetch-mode", mode),
                ("sec-fetch-dest", dest),
            ];
            assert!(!opens(&pairs), "{mode} {dest}");
        }
    }

    #[test]
    fn the_session_used_least_recently_is_forgotten_first() {
        let sessions = Sessions::default();
        let (operator, cookie) = sessions.of_page(&HeaderMap::new()).unwrap();
        let pair = cookie
            .unwrap()
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        for i in 0..MAX_SESSIONS * 2 {
            sessions.open(None).unwrap();
            if i % 100 == 0 {
                // The operator keeps using the dashboard.
                assert_eq!(
                    sessions.find(&headers(&[("cookie", &pair)])),
                    Some(operator.clone())
                );
            }
        }
        let known = sessions.find(&headers(&[("cookie", &pair)]));
        assert_eq!(known, Some(operator), "in use, so kept");
        for _ in 0..MAX_SESSIONS {
            sessions.open(None).unwrap();
        }
        assert_eq!(sessions.find(&headers(&[("cookie", &pair)])), None);
    }
}

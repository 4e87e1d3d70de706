//! Credentials: secrets that never print, the schemes that send them, and the redaction of
//! every credential a reply echoes.

use super::*;

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

    pub(crate) fn expose(&self) -> &str {
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

/// Every string that would reveal one of `credentials` if it came back in a reply: each token,
/// key and password, and the `user:password` pair as the `Basic` header carries it; longest
/// first, so a value containing another is replaced whole.
pub(crate) fn echoes<'a>(credentials: impl IntoIterator<Item = &'a Credential>) -> Vec<Secret> {
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
pub(crate) fn basic_pair(username: &str, password: &Secret) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{username}:{}", password.expose()))
}

/// Replaces every occurrence of an echo in the strings (keys included) of `value`.
pub(crate) fn redact(value: &mut Value, echoes: &[Secret]) {
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
pub(crate) fn redacted_text(text: String, echoes: &[Secret]) -> String {
    echoes
        .iter()
        .fold(text, |text, e| text.replace(e.expose(), REDACTED))
}

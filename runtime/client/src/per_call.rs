//! Credentials given per call instead of per client: how one MCP server over HTTP serves
//! several users, each request carrying its user's token (issue 18). Within
//! [`CallCredentials::scope`], every call a client makes takes the credential of each scheme the
//! value names from it and from nowhere else: a scheme given no value sends nothing rather than
//! falling back to the client's own (a user without a token never borrows the server's), and
//! schemes it does not name keep the client's. The values live in a tokio task-local, so
//! concurrent requests never see each other's, and each value is redacted from replies like
//! the client's own.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use base64::Engine;

use super::{Credential, Scheme, Secret};

tokio::task_local! {
    static CURRENT: Arc<CallCredentials>;
}

/// The credentials of one call's schemes, by scheme name (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct CallCredentials {
    /// Scheme → the value the call carried, or `None` when it carried none.
    values: BTreeMap<String, Option<Secret>>,
}

impl CallCredentials {
    /// No schemes: calls use the client's credentials.
    pub fn new() -> Self {
        Self::default()
    }

    /// The schemes these credentials name, each with whether it carries a value (never the
    /// value).
    pub fn schemes(&self) -> impl Iterator<Item = (&str, bool)> {
        self.values
            .iter()
            .map(|(scheme, value)| (scheme.as_str(), value.is_some()))
    }

    /// Takes `scheme`'s credential from `value` (`None`: the call has none for it). The value is
    /// read as the scheme needs it: a bearer token (a leading `Bearer ` is dropped), an API key
    /// as it is, `user:password` for basic authentication (or an `Authorization: Basic …`
    /// header value).
    pub fn set(&mut self, scheme: impl Into<String>, value: Option<String>) {
        self.values.insert(scheme.into(), value.map(Secret::new));
    }

    /// Runs `future` with these credentials for every call made while it runs.
    pub async fn scope<F: Future>(self, future: F) -> F::Output {
        CURRENT.scope(Arc::new(self), future).await
    }

    /// Runs `future` within `credentials`' scope when there are some, else as it is.
    pub async fn scope_of<F: Future>(credentials: Option<Self>, future: F) -> F::Output {
        match credentials {
            Some(credentials) => credentials.scope(future).await,
            None => future.await,
        }
    }

    /// The credentials of the calls made now, if any were given.
    pub(super) fn current() -> Option<Arc<CallCredentials>> {
        CURRENT.try_with(Arc::clone).ok()
    }

    /// Whether the value decides `scheme` (it names it, with or without a value).
    pub(super) fn names(&self, scheme: &str) -> bool {
        self.values.contains_key(scheme)
    }

    /// `scheme`'s credential, read as `kind` needs it: `Ok(None)` when the call carried none,
    /// `Err` when what it carried cannot be one (a basic credential without `:`).
    pub(super) fn credential(&self, scheme: &str, kind: &Scheme) -> Result<Option<Credential>, ()> {
        let Some(Some(value)) = self.values.get(scheme) else {
            return Ok(None);
        };
        let value = value.expose().trim();
        Ok(Some(match kind {
            Scheme::Bearer => {
                Credential::Token(Secret::new(after_word(value, "Bearer").unwrap_or(value)))
            }
            Scheme::ApiKey { .. } => Credential::ApiKey(Secret::new(value)),
            Scheme::Basic => {
                let pair = match after_word(value, "Basic") {
                    Some(encoded) => base64_of(encoded).ok_or(())?,
                    None => value.to_string(),
                };
                let (username, password) = pair.split_once(':').ok_or(())?;
                Credential::Basic {
                    username: username.to_string(),
                    password: Secret::new(password),
                }
            }
        }))
    }
}

/// What follows a leading `word` and spaces in `value` (an authorization header's scheme word,
/// in any case), or `None` when it does not start with one.
fn after_word<'a>(value: &'a str, word: &str) -> Option<&'a str> {
    let head = value.get(..word.len())?;
    let rest = &value[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(' ')).then(|| rest.trim_start())
}

fn base64_of(text: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(kind: &Scheme, value: &str) -> Result<Option<Credential>, ()> {
        let mut credentials = CallCredentials::new();
        credentials.set("s", Some(value.to_string()));
        credentials.credential("s", kind)
    }

    #[test]
    fn values_are_read_as_their_scheme_needs() {
        let token = |c: Result<Option<Credential>, ()>| match c {
            Ok(Some(Credential::Token(t) | Credential::ApiKey(t))) => t.expose().to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(token(read(&Scheme::Bearer, "Bearer abc")), "abc");
        assert_eq!(token(read(&Scheme::Bearer, "bearer  abc")), "abc");
        assert_eq!(token(read(&Scheme::Bearer, "abc")), "abc");
        let key = Scheme::ApiKey {
            location: crate::binding::ParamIn::Header,
            name: "X-Key".into(),
        };
        assert_eq!(token(read(&key, "Bearer abc")), "Bearer abc");
        for value in ["ann:pw:d", "Basic YW5uOnB3OmQ="] {
            match read(&Scheme::Basic, value) {
                Ok(Some(Credential::Basic { username, password })) => {
                    assert_eq!((username.as_str(), password.expose()), ("ann", "pw:d"));
                }
                other => panic!("{value}: {other:?}"),
            }
        }
        assert!(read(&Scheme::Basic, "no-colon").is_err());
    }

    #[test]
    fn a_scheme_named_without_a_value_has_no_credential() {
        let mut credentials = CallCredentials::new();
        credentials.set("s", None);
        assert!(credentials.names("s") && !credentials.names("t"));
        assert!(matches!(
            credentials.credential("s", &Scheme::Bearer),
            Ok(None)
        ));
    }
}

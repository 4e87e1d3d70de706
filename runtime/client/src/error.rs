//! How a call fails and what the server answered: `Error`, `Reply`, and the declared errors
//! of generated operations (`OperationError`, `operation_error!`).

use super::*;

/// Why a call failed. `E` is the operation's declared error type.
#[derive(Debug)]
pub enum Error<E> {
    /// The API answered with an error: a declared response, or `upstream_error` for an
    /// undeclared status or an unparsable body.
    Api(E),
    /// The request could not be built from the input (the message names the parameter).
    InvalidRequest(String),
    /// A value of the input cannot go on the wire as the binding says (a header value with a
    /// line break, a path parameter `..`): the caller's input, refused at its pointer.
    InvalidValue {
        /// The JSON pointer into the call's input (`/X-Trace`, `/body`).
        pointer: String,
        /// Why, naming the parameter, never the value.
        reason: String,
    },
    /// The server could not be reached, or the connection failed.
    Transport,
    /// No answer within the timeout.
    Timeout,
    /// The response body exceeded the configured bound.
    TooLarge,
    /// A success response did not match the declared output type (a page that cannot be
    /// followed is one too).
    InvalidResponse {
        /// The JSON pointer into the reply body of the part that does not fit (empty: the
        /// whole reply).
        pointer: String,
        /// What was expected; never the value the server sent.
        reason: String,
    },
    /// A download could not be written where it was asked to go (the file or writer's error).
    Write(String),
    /// An upload could not be read (a file that cannot be opened or read, a stream that
    /// failed or was sent already); the message says where in the input it is.
    Read(String),
    /// A success status whose body is not what the operation declares (another content type:
    /// HTML from a proxy, an event stream where JSON was asked for; or JSON that does not
    /// parse): the reply's status, content type and first bytes.
    UnexpectedReply(ReplyExcerpt),
    /// A status the operation does not declare: its status, content type and first bytes.
    Status(ReplyExcerpt),
    /// The operation needs credentials and the client has none for any of its security
    /// alternatives: nothing was sent. Says what to configure.
    MissingCredentials {
        /// The schemes of each alternative the operation accepts (`["ApiKeyAuth"]`, …).
        schemes: Vec<String>,
        /// The environment variables `Client::from_env` reads for them (`OPENAI_API_KEY`).
        env: Vec<String>,
    },
}

impl<E> Error<E> {
    /// Whether trying again later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Transport | Error::Timeout)
    }

    /// The category this failure has as a tool runtime error.
    pub fn category(&self) -> RuntimeCategory {
        match self {
            Error::Transport => RuntimeCategory::Transport,
            Error::Timeout => RuntimeCategory::Timeout,
            Error::TooLarge => RuntimeCategory::TooLarge,
            Error::UnexpectedReply(_) => RuntimeCategory::UnexpectedReply,
            Error::Status(_) => RuntimeCategory::HttpStatus,
            Error::MissingCredentials { .. } => RuntimeCategory::MissingCredentials,
            _ => RuntimeCategory::Internal,
        }
    }
}

impl<E> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(_) => f.write_str("the API answered with an error response"),
            Error::InvalidRequest(why) => write!(f, "invalid request: {why}"),
            Error::InvalidValue { pointer, reason } => {
                write!(f, "invalid input at `{pointer}`: {reason}")
            }
            Error::Transport => f.write_str("could not reach the server"),
            Error::Timeout => f.write_str("the server did not answer in time"),
            Error::TooLarge => f.write_str("the response was larger than the configured bound"),
            Error::InvalidResponse { pointer, reason } if pointer.is_empty() => {
                write!(f, "unexpected response: {reason}")
            }
            Error::InvalidResponse { pointer, reason } => {
                write!(f, "unexpected response at `{pointer}`: {reason}")
            }
            Error::Write(why) => write!(f, "cannot write the download: {why}"),
            Error::Read(why) => write!(f, "cannot read the upload {why}"),
            Error::UnexpectedReply(reply) => {
                write!(
                    f,
                    "a success reply the operation does not declare ({reply})"
                )
            }
            Error::Status(reply) => write!(f, "a status the operation does not declare ({reply})"),
            Error::MissingCredentials { schemes, env } => {
                write!(
                    f,
                    "the operation needs credentials and none are configured (scheme {})",
                    schemes.join(" or ")
                )?;
                match env.is_empty() {
                    true => f.write_str(": set them with ClientBuilder::credential"),
                    false => write!(f, ": set {}", env.join(" or ")),
                }
            }
        }
    }
}

impl<E: fmt::Debug> std::error::Error for Error<E> {}

/// What the server answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A 2xx response, its body read by the binding's response encoding (`null` without one).
    Success(Value),
    /// A declared error response.
    Declared {
        /// `http_<key>`.
        kind: String,
        /// The status.
        status: u16,
        /// The parsed JSON body.
        body: Value,
    },
    /// A declared error status whose body did not parse.
    Undeclared {
        /// The status.
        status: u16,
        /// Why, without the body.
        reason: String,
    },
    /// A success status whose body is not what the operation declares.
    Unexpected(ReplyExcerpt),
    /// A status the operation does not declare.
    Status(ReplyExcerpt),
}

impl Reply {
    /// The declared-error value of this reply (`{kind, status, body}` or the `upstream_error`
    /// fallback); `None` for success.
    pub fn error_value(&self) -> Option<Value> {
        match self {
            Reply::Success(_) => None,
            Reply::Declared { kind, status, body } => {
                Some(json!({"kind": kind, "status": status, "body": body}))
            }
            Reply::Undeclared { status, reason } => {
                Some(json!({"kind": "upstream_error", "status": status, "reason": reason}))
            }
            Reply::Unexpected(reply) => Some(json!({
                "kind": "upstream_error",
                "status": reply.status,
                "reason": "the success body is not the declared media type",
            })),
            Reply::Status(reply) => Some(json!({
                "kind": "upstream_error",
                "status": reply.status,
                "reason": "undeclared status",
            })),
        }
    }
}

/// An operation's typed error: built from a reply the operation declares (its `kind`, status
/// and parsed body) or, for anything else, the `upstream_error` fallback. Generated error enums
/// implement it with one `match` over their declared kinds, which compiles far faster than a
/// derived `Deserialize` of the tagged enum (about a third of the check time of GitHub's SDK).
pub trait OperationError: Sized {
    /// The declared error `kind` (`http_404`, `http_4XX`, `http_default`) with `body` parsed
    /// into that variant's type; `None` when the operation declares no such kind or the body
    /// does not parse.
    fn declared(kind: &str, status: u16, body: Value) -> Option<Self>;
    /// An undeclared status or an unparsable body; `reason` says which, and the body is never
    /// kept.
    fn upstream(status: u16, reason: String) -> Self;
}

/// `body` parsed as `T`: what a generated [`OperationError::declared`] does for each kind.
pub fn error_body<T: DeserializeOwned>(body: Value) -> Option<T> {
    serde_json::from_value(body).ok()
}

#[doc(hidden)]
pub use serde_json::Value as JsonValue;

/// Implements [`OperationError`] for a generated error enum: its name, then each declared
/// `"kind" => Variant` (variants `{status, body}`); the enum's `UpstreamError {status, reason}`
/// is the fallback.
///
/// ```
/// enum GetPetError {
///     Http404 { status: u16, body: String },
///     UpstreamError { status: u16, reason: String },
/// }
/// harness_gen_client::operation_error!(GetPetError { "http_404" => Http404 });
/// use harness_gen_client::OperationError;
/// let error = GetPetError::declared("http_404", 404, serde_json::json!("gone"));
/// assert!(matches!(error, Some(GetPetError::Http404 { status: 404, .. })));
/// assert!(GetPetError::declared("http_404", 404, serde_json::json!(1)).is_none());
/// ```
#[macro_export]
macro_rules! operation_error {
    ($name:ident { $($kind:literal => $variant:ident),* $(,)? }) => {
        impl $crate::OperationError for $name {
            fn declared(
                kind: &str,
                status: u16,
                body: $crate::JsonValue,
            ) -> ::core::option::Option<Self> {
                match kind {
                    $($kind => ::core::option::Option::Some(
                        Self::$variant { status, body: $crate::error_body(body)? },
                    ),)*
                    _ => {
                        // Not a declared kind (an enum that declares none uses neither).
                        let _ = (status, body);
                        ::core::option::Option::None
                    }
                }
            }
            fn upstream(status: u16, reason: ::std::string::String) -> Self {
                Self::UpstreamError { status, reason }
            }
        }
    };
}

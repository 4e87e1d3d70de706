//! Located contract errors with stable codes: what catalog parsing, publish-time validation and
//! the standalone-schema projection report. Messages say what is wrong and how to fix it, and
//! never repeat user-supplied values other than names.

use std::fmt;

/// A stable error code. The numeric part never changes meaning once released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// HR0100: the catalog is not well-formed JSON.
    Syntax,
    /// HR0101: `schema_version` is not `harn-tools/2.0`.
    UnsupportedVersion,
    /// HR0102: a field is unknown, missing, of the wrong type or has a refused value.
    InvalidField,
    /// HR0201: two tools share a name.
    DuplicateToolName,
    /// HR0202: a schema is not a valid Draft 2020-12 schema.
    InvalidSchema,
    /// HR0203: a `$ref` points at nothing.
    UnresolvedReference,
    /// HR0204: a `$ref` leaves the document (no network or file retrieval).
    ExternalReference,
    /// HR0205: `_meta` uses a reserved key.
    ReservedMetaKey,
    /// HR0206: the same icon is listed twice.
    DuplicateIcon,
    /// HR0207: a tool has no handler, or a handler has no tool.
    MissingHandler,
    /// HR0208: two sources of one registry give a component name two different schemas.
    DuplicateComponent,
    /// HR0209: a transform names a tool the registry does not have.
    UnknownTool,
    /// HR0210: a schema refers to a generated crate's types whose registry is not mounted.
    UnmountedCatalog,
    /// HR0301: two CLI tools have the same command path.
    CliDuplicatePath,
    /// HR0302: a CLI tool's path is also the parent of another CLI tool.
    CliLeafIsParent,
    /// HR0303: a command alias clashes with a sibling name or alias.
    CliAliasClash,
    /// HR0304: an argument uses a reserved global option name.
    CliReservedOption,
    /// HR0305: two arguments of one tool share an option name, short or position.
    CliOptionClash,
    /// HR0306: an argument spec names no input property.
    CliUnknownArgument,
    /// HR0401: a schema uses a keyword that makes moving it unsafe.
    UnsafeSchemaMove,
}

impl ErrorCode {
    /// The code as printed, e.g. `HR0201`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Syntax => "HR0100",
            ErrorCode::UnsupportedVersion => "HR0101",
            ErrorCode::InvalidField => "HR0102",
            ErrorCode::DuplicateToolName => "HR0201",
            ErrorCode::InvalidSchema => "HR0202",
            ErrorCode::UnresolvedReference => "HR0203",
            ErrorCode::ExternalReference => "HR0204",
            ErrorCode::ReservedMetaKey => "HR0205",
            ErrorCode::DuplicateIcon => "HR0206",
            ErrorCode::MissingHandler => "HR0207",
            ErrorCode::DuplicateComponent => "HR0208",
            ErrorCode::UnknownTool => "HR0209",
            ErrorCode::UnmountedCatalog => "HR0210",
            ErrorCode::CliDuplicatePath => "HR0301",
            ErrorCode::CliLeafIsParent => "HR0302",
            ErrorCode::CliAliasClash => "HR0303",
            ErrorCode::CliReservedOption => "HR0304",
            ErrorCode::CliOptionClash => "HR0305",
            ErrorCode::CliUnknownArgument => "HR0306",
            ErrorCode::UnsafeSchemaMove => "HR0401",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One located problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractError {
    /// Stable code.
    pub code: ErrorCode,
    /// Where: a field path such as `tools[3].cli.command[1]`, a JSON pointer, or a position.
    pub path: String,
    /// What is wrong and how to fix it; never contains user-supplied values other than names.
    pub message: String,
}

impl ContractError {
    /// A new error.
    pub fn new(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}] at {}: {}", self.code, self.path, self.message)
    }
}

impl std::error::Error for ContractError {}

/// Every problem found in one pass, in a deterministic order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractErrors(Vec<ContractError>);

impl ContractErrors {
    /// One error.
    pub fn one(error: ContractError) -> Self {
        Self(vec![error])
    }

    /// `Ok` when `errors` is empty.
    pub fn check(errors: Vec<ContractError>) -> Result<(), ContractErrors> {
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Self(errors))
        }
    }

    /// The errors.
    pub fn as_slice(&self) -> &[ContractError] {
        &self.0
    }

    /// Whether any error has `code` at `path`.
    pub fn has(&self, code: ErrorCode, path: &str) -> bool {
        self.0.iter().any(|e| e.code == code && e.path == path)
    }
}

impl fmt::Display for ContractErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ContractErrors {}

/// Reads `value` as a `T`; where it does not fit, the JSON pointer of the part that does not
/// and why (the offending value masked out, see [`mask_serde_message`]). A tagged union's
/// member reports where inside it the problem is (`at `/pointer`: why`, see `tagged::member`);
/// that pointer is joined to the union's.
pub fn typed_value<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let mut pointer = String::new();
        for segment in error.path().iter() {
            use serde_path_to_error::Segment;
            match segment {
                Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
                Segment::Map { key } => {
                    pointer.push('/');
                    pointer.push_str(&crate::pointer::escape(key));
                }
                Segment::Enum { .. } | Segment::Unknown => {}
            }
        }
        let message = error.inner().to_string();
        if let Some(rest) = message.strip_prefix("at `")
            && let Some((inner, reason)) = rest.split_once("`: ")
        {
            return (pointer + inner, reason.to_string());
        }
        (pointer, mask_serde_message(&message))
    })
}

/// Removes the offending value from a serde message, keeping what was expected:
/// `invalid type: string "x", expected a boolean` becomes `invalid type, expected a boolean`.
pub fn mask_serde_message(message: &str) -> String {
    for (prefix, label) in [
        ("invalid type: ", "invalid type"),
        ("invalid value: ", "invalid value"),
        ("unknown variant ", "unknown variant"),
        ("invalid length ", "invalid length"),
        // The uuid crate names the offending character and where it is.
        ("UUID parsing failed", "invalid UUID"),
    ] {
        if message.starts_with(prefix) {
            return match message.find(", expected ") {
                Some(at) => format!("{label}{}", &message[at..]),
                None => label.to_string(),
            };
        }
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_lose_the_offending_value() {
        assert_eq!(
            mask_serde_message("invalid type: string \"hunter2\", expected a boolean"),
            "invalid type, expected a boolean"
        );
        assert_eq!(
            mask_serde_message("unknown variant `sekret`, expected one of `cli`, `mcp`"),
            "unknown variant, expected one of `cli`, `mcp`"
        );
        assert_eq!(
            mask_serde_message("unknown field `extra`, expected `name`"),
            "unknown field `extra`, expected `name`"
        );
        assert_eq!(
            mask_serde_message("UUID parsing failed: invalid character: found `k` at 3"),
            "invalid UUID"
        );
    }
}

/// The category of a runtime error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeCategory {
    /// The handler threw a value the tool does not declare; the value is discarded.
    UndeclaredError,
    /// The handler panicked.
    Panic,
    /// A network or transport failure.
    Transport,
    /// The call took too long.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// The reply, or an output collected whole (a download returned in one value), was larger
    /// than the bound it must fit.
    TooLarge,
    /// The tool could not run for a reason internal to it (e.g. a schema that failed to compile).
    Internal,
    /// A success reply the operation does not declare: a body that does not read as the
    /// declared media type (another content type, an event stream where JSON was asked for).
    UnexpectedReply,
    /// A status the operation does not declare (neither a success nor a declared error).
    HttpStatus,
    /// The operation needs credentials and none are configured for any of its security
    /// alternatives: nothing was sent.
    MissingCredentials,
}

/// What a reply outside an operation's contract showed, for the failure that reports it: its
/// status, content type and first bytes ([`EXCERPT_BYTES`], as text, credentials the server
/// echoed redacted by the client).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyExcerpt {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` it came with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The body's first bytes, as text (invalid UTF-8 replaced).
    pub excerpt: String,
}

/// How many bytes of a reply's body a [`ReplyExcerpt`] keeps.
pub const EXCERPT_BYTES: usize = 256;

impl ReplyExcerpt {
    /// The excerpt of a reply of `status` and `content_type` whose body is `body`.
    pub fn of(status: u16, content_type: Option<&str>, body: &[u8]) -> Self {
        let mut end = body.len().min(EXCERPT_BYTES);
        // Cut at a character boundary where the body is UTF-8.
        while end > 0 && end < body.len() && (body[end] & 0xC0) == 0x80 {
            end -= 1;
        }
        ReplyExcerpt {
            status,
            content_type: content_type.map(str::to_string),
            excerpt: String::from_utf8_lossy(&body[..end]).into_owned(),
        }
    }
}

impl std::fmt::Display for ReplyExcerpt {
    /// `HTTP 401` or `HTTP 200, text/html`: the status and content type, never the body.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        if let Some(content_type) = &self.content_type {
            write!(f, ", {content_type}")?;
        }
        Ok(())
    }
}

impl RuntimeCategory {
    /// The category's name as rendered.
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeCategory::UndeclaredError => "undeclared_error",
            RuntimeCategory::Panic => "panic",
            RuntimeCategory::Transport => "transport",
            RuntimeCategory::Timeout => "timeout",
            RuntimeCategory::Cancelled => "cancelled",
            RuntimeCategory::TooLarge => "too_large",
            RuntimeCategory::Internal => "internal",
            RuntimeCategory::UnexpectedReply => "unexpected_reply",
            RuntimeCategory::HttpStatus => "http_status",
            RuntimeCategory::MissingCredentials => "missing_credentials",
        }
    }
}

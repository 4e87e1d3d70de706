//! The intermediate model: everything the emitters need, derived once from the document.
//! Emitters never see the raw document.

use std::collections::BTreeMap;

use harness_gen_runtime::catalog::{CommandSpec, Entry};
use serde_json::Value;

pub use harness_gen_runtime::binding::{Encoding, ParamIn};

use crate::load::Loc;

/// One API, ready for the emitters.
#[derive(Debug)]
pub struct Api {
    /// Title, version and description from `info`.
    pub info: ApiInfo,
    /// Server URLs with variables at their defaults, in document order.
    pub servers: Vec<String>,
    /// Security schemes by name.
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Every operation, in document order (including those not exposed as tools).
    pub operations: Vec<Operation>,
    /// Normalized component schemas by name (2020-12; references only to each other).
    pub components: BTreeMap<String, Value>,
    /// Parent-command metadata for the CLI (from `x-harn.cli` and tags).
    pub cli_commands: Vec<CommandSpec>,
}

/// `info`.
#[derive(Debug)]
pub struct ApiInfo {
    /// `info.title`.
    pub title: String,
    /// `info.version` (a string, even when YAML would read a date).
    pub version: String,
    /// `info.description`, else `info.summary`.
    pub description: Option<String>,
    /// `info.license.identifier`, else `info.license.name`.
    pub license: Option<String>,
}

/// One operation and the tool contract derived from it.
///
/// `operation_id`, `params`, `body` and `security` are filled but read only by tests today (the
/// wire binding travels as the catalog entry's `source.binding`); issue 15 makes a typed
/// binding their one owner.
#[derive(Debug)]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub struct Operation {
    /// Where it is in the document.
    pub loc: Loc,
    /// `operationId`, if any.
    pub operation_id: Option<String>,
    /// Lowercase HTTP method.
    pub method: String,
    /// Path template.
    pub path: String,
    /// Whether it is published as a tool (`x-harn.expose`).
    pub expose: bool,
    /// The tool contract, complete but for the handler.
    pub entry: Entry,
    /// Parameters, in input-schema order.
    pub params: Vec<Param>,
    /// The request body.
    pub body: Option<Body>,
    /// The success output.
    pub output: Output,
    /// Declared error responses with JSON bodies.
    pub errors: Vec<ErrorVariant>,
    /// Security alternatives (OR) of scheme names (AND); an empty alternative is anonymous.
    pub security: Vec<Vec<String>>,
}

/// One parameter.
#[derive(Debug)]
pub struct Param {
    /// Input property name.
    pub property: String,
    /// Name on the wire.
    pub wire_name: String,
    /// Location.
    pub location: ParamIn,
    /// Serialization style (defaults applied).
    pub style: String,
    /// Explode (defaults applied).
    pub explode: bool,
    /// Required (path parameters always).
    pub required: bool,
    /// Reserved characters allowed unencoded (query only).
    pub allow_reserved: bool,
    /// Media type when the parameter uses `content` instead of `schema`.
    pub content_type: Option<String>,
    /// Normalized schema.
    pub schema: Value,
}

/// The request body.
#[derive(Debug)]
pub struct Body {
    /// Input property name (`body` unless it collided).
    pub property: String,
    /// The chosen media type.
    pub content_type: String,
    /// Its encoding.
    pub encoding: Encoding,
    /// Whether the body is required.
    pub required: bool,
    /// Normalized schema of the chosen media type.
    pub schema: Value,
    /// The other media types the operation accepts.
    pub alternatives: Vec<String>,
}

/// The success output.
#[derive(Debug)]
pub enum Output {
    /// No success response has content.
    None,
    /// A response body of the given status and media type.
    Body {
        /// Status key (`200`, `2XX`).
        status: String,
        /// Media type.
        content_type: String,
        /// Encoding (JSON, text or bytes).
        encoding: Encoding,
        /// Normalized schema (for text and bytes: a string schema).
        schema: Value,
    },
}

/// A declared error response with a JSON body.
#[derive(Debug)]
pub struct ErrorVariant {
    /// `http_<key>`.
    pub kind: String,
    /// The response key: `404`, `4XX` or `default`.
    pub status: String,
    /// Media type.
    pub content_type: String,
    /// Normalized body schema.
    pub schema: Value,
}

/// A security scheme, reduced to how credentials are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecurityScheme {
    /// `Authorization: Bearer <token>` (HTTP bearer, OAuth2, OpenID Connect).
    Bearer,
    /// HTTP basic.
    Basic,
    /// An API key in a header, query parameter or cookie.
    ApiKey {
        /// `header`, `query` or `cookie`.
        location: String,
        /// Its name.
        name: String,
    },
    /// A scheme the client cannot send (e.g. mutual TLS); documented, not implemented.
    Unsupported(String),
}

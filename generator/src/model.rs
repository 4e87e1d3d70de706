//! The intermediate model: everything the emitters need, derived once from the document.
//! Emitters never see the raw document.

use std::collections::BTreeMap;

use harness_gen_contract::catalog::{CommandSpec, Entry};
use serde_json::Value;

use harness_gen_wire::binding::{Binding, ParamIn};

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
    /// What names each scheme's environment variables (`emit::client::credential_env`).
    pub credential_names: BTreeMap<String, CredentialName>,
    /// The scheme the document's own `security` lists first: the API's usual credential.
    pub usual_scheme: Option<String>,
    /// Every operation, in document order (including those not exposed as tools).
    pub operations: Vec<Operation>,
    /// Normalized component schemas by name (2020-12; references only to each other), each as
    /// a reply carries it; a component whose request view differs has that view beside it.
    pub components: BTreeMap<String, Value>,
    /// Component → the component holding its request view, where the two differ
    /// (`mapping::directions`).
    pub request_views: BTreeMap<String, String>,
    /// Parent-command metadata for the CLI (from `x-harn.cli` and tags).
    pub cli_commands: Vec<CommandSpec>,
    /// The operation groups, each a cargo feature of the generated crate, sorted by feature
    /// name (`mapping::groups` has the rule).
    pub groups: Vec<Group>,
}

/// A group of operations compiled behind one cargo feature of the generated crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The feature's name.
    pub feature: String,
    /// One line saying what it holds (for `Cargo.toml` and the README).
    pub description: String,
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
#[derive(Debug)]
pub struct Operation {
    /// Where it is in the document.
    pub loc: Loc,
    /// Whether it is published as a tool (`x-harn.expose`).
    pub expose: bool,
    /// How a call travels: the one record the client embeds and the catalog carries (the entry's
    /// `source.binding` is a copy of it).
    pub binding: Binding,
    /// The tool contract, complete but for the handler.
    pub entry: Entry,
    /// Whether the document describes the operation (a summary or a description): when it
    /// does not, the entry's description says only what it is, which the SDK's docs already
    /// show.
    pub described: bool,
    /// Normalized schema of the success body (`binding.response`), if there is one.
    pub output: Option<Value>,
    /// Normalized schema of one server-sent event's data, for an operation that streams them
    /// (`binding.events`).
    pub events: Option<Value>,
    /// Normalized body schema of each declared error, parallel to `binding.errors`.
    pub error_bodies: Vec<Value>,
    /// The groups it is compiled with (indexes into `Api::groups`, sorted): when any of them is
    /// enabled. None: always compiled.
    pub groups: Vec<usize>,
}

/// What a scheme's environment variables are named from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CredentialName {
    /// The names its `x-harn.env` gives, exactly.
    pub given: Option<Vec<String>>,
    /// Whether the scheme says its credential is a key (an API-key scheme, or a bearer scheme
    /// whose name, description or `bearerFormat` mentions a key, as OpenAI's and Stripe's do).
    pub key: bool,
    /// What tells it from the API's other schemes: its name's words but those that only say its
    /// kind (`api`, `key`, `auth`, `token`, `bearer`, …), upper snake case (`ADMIN` of
    /// `AdminApiKeyAuth`); its whole name when nothing is left.
    pub distinct: String,
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
        /// Header, query parameter or cookie.
        location: ParamIn,
        /// Its name.
        name: String,
    },
    /// A scheme the client cannot send (e.g. mutual TLS); documented, not implemented.
    Unsupported(String),
}

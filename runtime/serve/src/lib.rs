//! `harness-gen-serve`: what the runtime's HTTP servers share. The MCP program serves `/mcp`
//! and, mounted beside it, the dashboard; both answer only the `Host` values and origins the
//! operator allowed ([`Access`]), authenticate clients the same way ([`ClientAuth`], [`Gate`]),
//! take each call's credentials from the request's own headers where the operator mapped them
//! ([`CredentialHeaders`]), and run on one bounded connection loop ([`listen`]). A page set
//! mounted beside `/mcp` implements [`Mount`], so the MCP server knows no projection by name.

mod access;
mod auth;
mod credentials;
pub mod listen;

use std::sync::Arc;

use harness_gen_registry::ToolRegistry;

#[cfg(any(test, feature = "testing"))]
pub use access::headers;
pub use access::{Access, Refusal};
pub use auth::{
    ClientAuth, Denied, Gate, METADATA_PATH, MIN_TOKEN_CHARS, Principal, ScopeRules, bearer, same,
};
pub use credentials::CredentialHeaders;
pub use listen::Limits;

/// Pages an HTTP server mounts beside its own routes when its command line turns them on (the
/// dashboard beside `/mcp`, with `--dashboard`). The server puts them behind its [`Gate`].
pub trait Mount: Sync {
    /// The long option that turns them on (`dashboard`), and its help.
    fn option(&self) -> (&'static str, &'static str);
    /// Where they are served (`/dashboard`), which the server says at start-up and where `/`
    /// redirects.
    fn path(&self) -> &'static str;
    /// Their routes, for the server `site` describes.
    fn routes(&self, site: Site<'_>) -> Result<axum::Router, String>;
}

/// What a server tells the pages it mounts.
pub struct Site<'a> {
    /// Every tool the program built (each mount projects it for its own audience).
    pub registry: &'a ToolRegistry,
    /// The program's name.
    pub name: &'a str,
    /// Its version.
    pub version: &'a str,
    /// The crate's embedded `.harness` bundle (IR JSON).
    pub harness: Option<&'a str>,
    /// Which `Host` values and origins the server answers.
    pub access: Access,
    /// Schemes whose credentials each request carries.
    pub credential_headers: CredentialHeaders,
    /// How clients authenticate (`None`: they do not).
    pub auth: Option<Arc<ClientAuth>>,
    /// The server's public base URL.
    pub public_url: Option<String>,
}

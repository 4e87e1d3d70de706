//! `harness-gen-wire`: what both a generated SDK and a tool catalog say about an operation on
//! the wire, with nothing of a client or a registry.
//!
//! [`binding`] says how an operation's input goes on the wire and how its reply comes back:
//! the generator derives it, the catalog records it, the HTTP client (`harness-gen-runtime`'s
//! `http`) follows it. [`error`] holds the contract's stable error codes and the reading of a
//! JSON value as a type with the pointer of what does not fit. [`API_VERSION`] is the
//! handshake between generated code and the runtime.
#![deny(missing_docs)]

pub mod binding;
pub mod error;
#[doc(hidden)]
pub mod pointer;

pub use error::{
    ContractError, ContractErrors, ErrorCode, ReplyExcerpt, RuntimeCategory, mask_serde_message,
};

/// The version of the interface between generated code and this runtime. Generated code names
/// the version it was written for with `harness_gen_runtime::require_api!`; a runtime that implements another one
/// refuses to compile it, with a message saying what to do.
///
/// It changes whenever code generated for the previous version could misbehave against this
/// runtime, whatever the semver of the release says. 2: the wire binding became typed Rust in
/// generated clients (API 1 code parsed JSON bindings this runtime's stricter records refuse).
/// 3: generated error enums implement `http::OperationError` (the client builds them from the
/// reply) and structs read JSON through `object!`; API 2 code derived `Deserialize` for both,
/// which `HttpClient::call` no longer takes.
/// 4: request bodies' bindings list their multipart parts' media types (`BodyBinding::parts`)
/// and `format: binary` is `formats::Upload`; API 3 code's bindings lack the field.
/// 5: generated crates index their catalog (`CATALOG_INDEX`, `registry_of`) and their programs
/// hand it to `cli::main` as a `cli::Program`; API 4 programs call the old signature.
/// 6: MCP programs hand `mcp::main` an `mcp::Program` (with the embedded `.harness` bundle the
/// dashboard shows); API 5 programs call the old signature.
/// 7: a body's `parts` are its properties' encodings (`PartBinding` gains `style`, `explode`,
/// `allowReserved`; its `content_type` is optional) and bindings say how `deepObject` writes
/// arrays; API 6 code builds the old `PartBinding`.
/// 8: a tool whose operation answers JSON or events (by a body flag) has the handler
/// `http::json_or_events_handler`, which API 7 runtimes lack.
/// 9: generated clients hold each binding as its JSON text (`binding::BindingText`) and name
/// each struct field's index in `object!`; API 8 code builds bindings with `param!`, which this
/// runtime no longer has.
/// 10: the bindings' text leaves out the values that are the default for their place
/// (`BindingText::compact`), which an API 9 runtime's records refuse to read.
/// 11: `object!` takes an attribute for its reading half (`#[cfg(feature = "registry")]` on
/// the structs only requests carry), which an API 10 runtime's macro does not parse.
pub const API_VERSION: u32 = 11;

/// The most bytes held whole in memory by default: the HTTP client's bound on a buffered reply,
/// and what the registry's invocation collects of a tool's streamed bytes.
pub const BUFFERED_BYTES: usize = 16 * 1024 * 1024;

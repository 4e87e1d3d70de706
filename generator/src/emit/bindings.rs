//! Bindings of a `harn-tools/2.0` catalog (`harness-gen bindings`): a crate of native types for
//! each tool's input, output and application error, made by the one type emitter (`types/`)
//! from the catalog's schemas and components, and `Tools`, one typed method per tool calling
//! through the runtime's `bridge` (in process, MCP stdio or MCP Streamable HTTP).

use std::collections::BTreeMap;

use askama::Template;
use harness_gen_contract::Catalog;
use quote::{format_ident, quote};
use serde_json::Value;

use super::krate::{crate_version, render_template, require_api, toml_string};
use super::types::{self, Extras, Ty, TypeSpace};
use crate::names::Unique;

/// What to generate.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The crate name.
    pub crate_name: String,
    /// A path to `harness-gen-runtime` for crates developed inside its workspace.
    pub runtime_path: Option<String>,
    /// The command that regenerates the crate, recorded in headers.
    pub command: String,
}

/// The crate's files, and the schemas that fell back to JSON values.
pub struct Bindings {
    /// Files by path relative to the output directory.
    pub files: BTreeMap<String, String>,
    /// (pointer, why) of each schema typed as `serde_json::Value`.
    pub fallbacks: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "bindings/Cargo.toml.j2", escape = "none")]
struct CargoToml<'a> {
    command: &'a str,
    name: String,
    version: String,
    description: String,
    runtime: String,
}

/// The names one tool's method uses.
struct ToolItems {
    name: String,
    method: String,
    input: String,
    output: proc_macro2::TokenStream,
    error: proc_macro2::TokenStream,
    doc: String,
    /// For a tool whose operation streams events: its `_events` method, the event type, and
    /// the JSON pointer of the input's boolean that asks for them (none when the operation
    /// answers only with events).
    events: Option<(String, proc_macro2::TokenStream, Option<String>)>,
}

/// The bindings crate of `catalog` (checked by the runtime when it was read). `listed`: the
/// hash of each tool as its server lists it, when the catalog was rebuilt from that listing
/// (`--from-mcp`); else they are computed from the catalog.
pub fn generate(
    catalog: &Catalog,
    listed: Option<BTreeMap<String, String>>,
    options: &Options,
) -> Result<Bindings, Vec<super::Unparsable>> {
    let components: BTreeMap<String, Value> = catalog
        .components
        .iter()
        .flat_map(|c| &c.schemas)
        .map(|(name, schema)| (name.clone(), schema.as_value().clone()))
        .collect();
    // A bindings crate's types are read and written whatever carries them: it has no
    // `registry` feature to read the inputs only with.
    let extras = Extras {
        sent_read: crate::emit::types::Optional::Always,
        ..Extras::CRATE
    };
    let mut space = TypeSpace::new(&components, extras);
    let mut methods = Unique::idents();
    for reserved in [
        "in_process",
        "stdio",
        "http",
        "over",
        "mismatches",
        "bridge",
    ] {
        methods.reserve(reserved);
    }
    let mut aliases: Vec<(String, Ty)> = Vec::new();
    let mut inputs: Vec<Ty> = Vec::new();
    let mut tools = Vec::new();
    // Types and aliases are named per tool; the aliases are written once every type is settled.
    for (at, entry) in catalog.tools.iter().enumerate() {
        let name = entry.name.as_str();
        let base = crate::names::camel(name);
        // The type of one of the tool's schemas (`slot`), named `<Tool><suffix>`.
        let mut typed = |schema: &Value, suffix: &str, slot: &str| -> (String, Ty) {
            let hint = format!("{base}{suffix}");
            let ty = space.inline(schema, &hint, &format!("#/tools/{at}/{slot}"));
            let (name, alias) = space.name_as(&ty, &hint);
            if alias {
                aliases.push((name.clone(), ty.clone()));
            }
            (name, ty)
        };
        let (input, input_ty) = typed(entry.input_schema.as_value(), "Input", "inputSchema");
        inputs.push(input_ty);
        let in_types = |name: String| {
            let name = format_ident!("{}", name);
            quote!(types::#name)
        };
        let output = match &entry.output_schema {
            Some(schema) => in_types(typed(schema.as_value(), "Output", "outputSchema").0),
            // No output schema: any JSON value.
            None => quote!(serde_json::Value),
        };
        let error = match &entry.error_schema {
            Some(schema) => in_types(typed(schema.as_value(), "AppError", "errorSchema").0),
            None => quote!(harness_gen_runtime::bridge::NoError),
        };
        let title = entry.title.as_ref().map(|t| t.as_str());
        let description = entry.description.as_ref().map(|d| d.as_str());
        let doc = match (title, description) {
            (Some(t), Some(d)) if t != d => format!("{t}\n\n{d}"),
            (Some(t), _) => t.to_string(),
            (None, Some(d)) => d.to_string(),
            (None, None) => format!("Calls `{name}`."),
        };
        let method = methods.claim(&types::field_name(name), "_");
        let events = streamed(entry).map(|(items, ask)| {
            let event = in_types(typed(&items, "Event", "outputSchema").0);
            (
                methods.claim(&crate::names::join_snake(&method, "events"), "_"),
                event,
                ask,
            )
        });
        tools.push(ToolItems {
            name: name.to_string(),
            method,
            input,
            output,
            error,
            doc,
            events,
        });
    }
    space.settle_unions();
    space.merge_identical(&[]);
    space.box_cycles();
    let uses = space.uses();
    let roots: Vec<&Ty> = inputs.iter().collect();
    let built = space.reached(&uses, &roots);
    let sent_only = vec![false; space.defs.len()];
    let items = space
        .items(
            |_| Some(proc_macro2::TokenStream::new()),
            &built,
            &sent_only,
        )
        .into_iter()
        .map(|(_, item)| item);
    let alias_items = aliases.iter().map(|(name, ty)| {
        let doc = format!(" `{name}`, as the catalog's schema says.");
        let ident = format_ident!("{}", name);
        let ty = space.tokens(ty);
        quote!(#[doc = #doc] pub type #ident = #ty;)
    });
    let formats = space.formats_module();
    let mut rendered = super::Renderer::default();
    let types_rs = rendered.file(
        "src/types.rs",
        quote! {
            //! Types of the catalog's schemas: each tool's input, output and application error.
            #formats
            #(#items)*
            #(#alias_items)*
        },
    );
    let hashes = listed.unwrap_or_else(|| {
        harness_gen_contract::catalog::listed::listed_hashes(
            catalog.tools.iter(),
            catalog.components.as_ref().map(|c| &c.schemas),
        )
    });
    let mut files = BTreeMap::new();
    files.insert("src/types.rs".to_string(), types_rs);
    files.insert(
        "src/lib.rs".to_string(),
        rendered.file("src/lib.rs", lib_rs(catalog, &options.crate_name)),
    );
    files.insert(
        "src/tools.rs".to_string(),
        rendered.file("src/tools.rs", tools_rs(&tools, &hashes)),
    );
    files.insert("catalog.json".to_string(), catalog.to_json_pretty());
    let runtime_version = concat!("version = \"", env!("CARGO_PKG_VERSION"), "\"");
    let runtime = match &options.runtime_path {
        Some(path) => format!("{runtime_version}, path = {}", toml_string(path)),
        None => runtime_version.to_string(),
    };
    let info = catalog.info.as_ref();
    let description = info
        .and_then(|i| i.description.as_deref())
        .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(str::to_string)
        .unwrap_or_else(|| {
            let of = info.map(|i| i.name.as_str()).unwrap_or("a tool catalog");
            format!("Typed bindings of {of}")
        });
    let cargo = CargoToml {
        command: &options.command,
        name: toml_string(&options.crate_name),
        version: toml_string(&crate_version(
            info.and_then(|i| i.version.as_deref()).unwrap_or(""),
        )),
        description: toml_string(&description),
        runtime,
    };
    files.insert("Cargo.toml".to_string(), render_template(&cargo));
    if !rendered.unparsable.is_empty() {
        return Err(rendered.unparsable);
    }
    Ok(Bindings {
        files,
        fallbacks: space.warnings.clone(),
    })
}

/// The crate root: the modules (which `cargo fmt` leaves as printed) and re-exports, written
/// as rustfmt would write them.
fn lib_rs(catalog: &Catalog, crate_name: &str) -> proc_macro2::TokenStream {
    let of = catalog
        .info
        .as_ref()
        .map(|i| format!("the `{}` tools", i.name))
        .unwrap_or_else(|| "a tool catalog".to_string());
    let title = format!(
        " `{crate_name}`: typed bindings of {of}, called in process or over MCP (stdio or Streamable HTTP)."
    );
    let require = require_api();
    let lints = super::document_lints(true);
    quote! {
        #![doc = #title]
        #lints
        #require
        #[rustfmt::skip]
        pub mod tools;
        #[rustfmt::skip]
        pub mod types;
        pub use harness_gen_runtime::bridge::{BridgeError, Compatibility, ConnectError};
        pub use harness_gen_runtime::bridge::{Mismatch, NoError};
        pub use tools::{CATALOG_JSON, CONTRACT, Tools};
    }
}

/// For a tool whose operation streams events (its OpenAPI binding says `events`): the schema of
/// one event (the items of its output's array, or of the array its output may be), and the
/// JSON pointer of the input's boolean that asks for the stream (the body's flag, or the
/// input's own `select`), if the operation also answers JSON.
fn streamed(entry: &harness_gen_contract::catalog::Entry) -> Option<(Value, Option<String>)> {
    use harness_gen_contract::catalog::SourceBinding;
    let Some(SourceBinding::OpenApi(binding)) = entry.source.as_ref()?.binding.as_ref() else {
        return None;
    };
    binding.events.as_ref()?;
    let output = entry.output_schema.as_ref()?.as_value();
    let array = match output.get("anyOf").and_then(Value::as_array) {
        Some(members) => members.iter().find(|m| m["type"] == "array")?,
        None => output,
    };
    let items = array.get("items")?.clone();
    Some((items, binding.events_switch()))
}

/// `Tools`: one typed method per tool, and the contract they were generated from.
fn tools_rs(tools: &[ToolItems], hashes: &BTreeMap<String, String>) -> proc_macro2::TokenStream {
    let hashes = hashes.iter().map(|(tool, hash)| quote!((#tool, #hash)));
    let events_import = tools.iter().any(|t| t.events.is_some()).then(|| {
        quote!(
            use harness_gen_runtime::bridge::BridgeEvents;
        )
    });
    let methods = tools.iter().map(|tool| {
        let ToolItems {
            name,
            method,
            input,
            output,
            error,
            doc,
            events,
        } = tool;
        let flat = method;
        let method = format_ident!("{}", method);
        let input = format_ident!("{}", input);
        let docs = doc.lines().map(|line| format!(" {line}"));
        let events = events.as_ref().map(|(method, event, ask)| {
            let method = format_ident!("{}", method);
            let ask = match ask {
                Some(pointer) => quote!(Some(#pointer)),
                None => quote!(None),
            };
            let doc = format!(
                " [`Tools::{flat}`] as its events, each typed: as they arrive in process, once the call has ended over MCP."
            );
            quote! {
                #[doc = #doc]
                pub async fn #method(
                    &self,
                    input: &types::#input,
                ) -> Result<BridgeEvents<#event, #error>, BridgeError<#error>> {
                    self.bridge.events(#name, input, #ask).await
                }
            }
        });
        quote! {
            #(#[doc = #docs])*
            pub async fn #method(
                &self,
                input: &types::#input,
            ) -> Result<#output, BridgeError<#error>> {
                self.bridge.call(#name, input).await
            }
            #events
        }
    });
    quote! {
        //! Typed calls to the catalog's tools through one transport.
        // A catalog without tools uses neither the types nor the error type.
        #events_import
        use harness_gen_runtime::bridge::{
            Bridge, BridgeError, Compatibility, ConnectError, InProcess, Mcp, Mismatch, Transport,
        };
        use super::types;
        /// The catalog these bindings were generated from (`catalog.json`).
        pub const CATALOG_JSON: &str = include_str!("../catalog.json");
        /// What these bindings were generated from: the catalog, and the hash of each MCP
        /// tool's listed schemas, which a transport's tools must match.
        pub static CONTRACT: harness_gen_runtime::bridge::Contract =
            harness_gen_runtime::bridge::Contract {
                catalog: CATALOG_JSON,
                hashes: &[#(#hashes),*],
            };
        /// Typed calls to the tools, through one transport.
        #[derive(Debug)]
        pub struct Tools {
            bridge: Bridge,
        }
        impl Tools {
            /// Calls `registry`'s tools in this process, as `audience` sees them.
            pub async fn in_process(
                registry: harness_gen_runtime::ToolRegistry,
                audience: harness_gen_runtime::Audience,
                compatibility: Compatibility,
            ) -> Result<Self, ConnectError> {
                Self::over(InProcess::new(registry, audience), compatibility).await
            }
            /// Starts `command`, an MCP server speaking stdio, and calls its tools; the server
            /// stops when these are dropped.
            pub async fn stdio(
                command: std::process::Command,
                compatibility: Compatibility,
            ) -> Result<Self, ConnectError> {
                Self::over(Mcp::stdio(&CONTRACT, command).await?, compatibility).await
            }
            /// Calls the tools of the MCP server at `url` (Streamable HTTP).
            pub async fn http(url: &str, compatibility: Compatibility) -> Result<Self, ConnectError> {
                Self::over(Mcp::http(&CONTRACT, url).await?, compatibility).await
            }
            /// Calls the tools through `transport`, once its tools are checked against
            /// [`CONTRACT`].
            pub async fn over(
                transport: impl Transport + 'static,
                compatibility: Compatibility,
            ) -> Result<Self, ConnectError> {
                Ok(Self {
                    bridge: Bridge::new(&CONTRACT, transport, compatibility).await?,
                })
            }
            /// The tools that differ from [`CONTRACT`] (empty unless connected with
            /// [`Compatibility::Warn`]).
            pub fn mismatches(&self) -> &[Mismatch] {
                self.bridge.mismatches()
            }
            #(#methods)*
        }
    }
}

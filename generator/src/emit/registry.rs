//! `registry.rs`: `registry(client)`, the tool registry of every exposed operation, each
//! handler deserializing its input, calling the client and serializing the output; declared
//! error responses become application errors through the runtime's invocation path.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Gates, OpTypes};
use crate::model::Api;
use harness_gen_contract::schema::listing::Budget;

/// The tokens of `registry.rs`; `catalog` is the expression that yields the catalog's JSON
/// text (an `include_str!` of the crate's `catalog.json`, or of the file beside it in `OUT_DIR`).
/// A listing budget given at generation is set on the registry (the environment still
/// overrides it at run time); without one the runtime's default applies. Each handler is under
/// its operation's `gates`; the index says which tools a build has, and the catalog is read
/// for those only.
pub fn file(
    api: &Api,
    ops: &[OpTypes],
    catalog: TokenStream,
    listing_budget: Option<Budget>,
    gates: Gates,
) -> TokenStream {
    let markers = super::resources::markers(api, ops);
    // One line per tool: its handler is one of the generic makers below, for the tool's
    // operation marker (one function per kind of call, however many tools).
    let added = api
        .operations
        .iter()
        .zip(ops)
        .zip(&markers)
        .filter(|((op, _), _)| op.expose)
        .map(|((op, types), marker)| {
            let tool = op.entry.name.as_str();
            let cfg = gates.operation(op);
            let marker = format_ident!("{}", marker);
            let op_type = quote!(operations::#marker);
            // The JSON pointer of the input's boolean that asks for events instead of JSON.
            let flag = op.binding.events_switch();
            let make = match (&types.events, &types.download, &types.pages) {
                // An operation that answers only with events: its tool returns them as they arrive.
                (Some(_), _, _) if types.events_only => quote!(events::<#op_type>),
                // JSON, or events as they arrive when the input sets the flag.
                (Some(_), _, _) if flag.is_some() => {
                    quote!(|client: &Client| json_or_events::<#op_type>(client, #flag))
                }
                // Bytes are returned as they arrive, so the CLI can write a download to a file
                // without holding it.
                (_, Some(_), _) => quote!(download::<#op_type>),
                (_, _, Some(_)) => quote!(paged::<#op_type>),
                _ => quote!(call::<#op_type>),
            };
            quote! {
                #cfg
                add(#tool, #make);
            }
        });
    let with_budget = listing_budget.map(|Budget { depth, bytes }| {
        quote! {
            .map(|registry| registry.with_listing_budget(
                harness_gen_runtime::schema::listing::Budget { depth: #depth, bytes: #bytes },
            ))
        }
    });
    // A crate without operations has no markers for the makers to name.
    let any_operation = gates.operations(api.operations.iter());
    let (handler_imports, handlers) = match api.operations.is_empty() {
        true => (TokenStream::new(), TokenStream::new()),
        false => (
            quote! {
                #any_operation
                #[allow(unused_imports)]
                use super::client::resources::operations;
                #any_operation
                #[allow(unused_imports)]
                use tool_handlers::{call, download, events, json_or_events, paged};
            },
            quote! {
            /// The handler of each kind of tool, for its operation's marker type.
            #any_operation
            mod tool_handlers {
                #![allow(dead_code)]
                use harness_gen_runtime::Handler;
                use harness_gen_runtime::http;
                use serde::Serialize;
                use serde::de::DeserializeOwned;

                use super::super::client::Client;
                use super::super::client::resources::{Call, Downloaded, Operation, Paged, Streamed};

                /// A tool of one reply: the operation's call.
                pub(super) fn call<Op: Call>(client: &Client) -> Handler
                where
                    Op::Input: DeserializeOwned,
                    Op::Output: Serialize,
                    Op::Error: Serialize,
                {
                    http::typed_handler(client.clone(), |c: &Client, input: &Op::Input| Op::call(c, input))
                }

                /// A tool that lists in pages: every page, or the one the input asks for.
                pub(super) fn paged<Op: Paged>(client: &Client) -> Handler
                where
                    Op::Input: DeserializeOwned,
                    Op::Output: Serialize,
                    Op::Error: Serialize,
                {
                    http::paged_handler(client.clone(), |c: &Client, input: Op::Input| Op::pages(c, &input))
                }

                /// A tool whose reply is server-sent events, returned as they arrive.
                pub(super) fn events<Op: Streamed>(client: &Client) -> Handler
                where
                    Op::Input: DeserializeOwned,
                    Op::Event: Serialize,
                    Op::Error: Serialize,
                {
                    http::events_handler(client.clone(), |c: Client, input: Op::Input| async move {
                        Op::events(&c, &input).await
                    })
                }

                /// A tool that answers JSON, or events as they arrive when its input sets `flag`
                /// (a JSON pointer to a boolean).
                pub(super) fn json_or_events<Op: Call + Streamed>(client: &Client, flag: &'static str) -> Handler
                where
                    Op::Input: DeserializeOwned,
                    <Op as Operation>::Output: Serialize,
                    Op::Event: Serialize,
                    Op::Error: Serialize,
                {
                    http::json_or_events_handler(flag, call::<Op>(client), events::<Op>(client))
                }

                /// A tool whose reply is bytes, returned as they arrive.
                pub(super) fn download<Op: Downloaded>(client: &Client) -> Handler
                where
                    Op::Input: DeserializeOwned,
                    Op::Error: Serialize,
                {
                    http::download_handler(client.clone(), |c: Client, input: Op::Input| async move {
                        Op::download(&c, &input).await
                    })
                }
            }
                },
        ),
    };
    quote! {
        //! The tool registry: every exposed operation as a tool whose handler calls the client.
        //! (A build without operation features has no handler: nothing of `types` is used, and
        //! neither is the client.)
        use std::collections::BTreeMap;

        use harness_gen_runtime::{Catalog, ContractErrors, Handler, ToolRegistry};

        use super::catalog_index::CATALOG_INDEX;
        use super::client::Client;
        #handler_imports

        /// The `harn-tools/2.0` catalog of this crate.
        pub const CATALOG_JSON: &str = #catalog;

        /// The registry of every exposed operation, calling the API through `client`.
        pub fn registry(client: Client) -> Result<ToolRegistry, ContractErrors> {
            registry_of(client, &|_| true)
        }

        /// The registry of the exposed operations `keep` keeps (by tool name), calling the API
        /// through `client`: only their entries of the catalog are read, so a program that
        /// uses a few tools starts as fast for a large API as for a small one. A build with
        /// some of the operation features has only their tools.
        pub fn registry_of(
            #[allow(unused_variables)] client: Client,
            keep: &dyn Fn(&str) -> bool,
        ) -> Result<ToolRegistry, ContractErrors> {
            // harness-gen checked every publish-time rule when it generated the catalog.
            let catalog = Catalog::from_generated_index(CATALOG_JSON, &CATALOG_INDEX, keep)?;
            #[allow(unused_mut)]
            let mut handlers = BTreeMap::new();
            #[allow(unused_mut, unused_variables)]
            let mut add = |tool: &str, make: fn(&Client) -> Handler| {
                if keep(tool) {
                    handlers.insert(tool.to_string(), make(&client));
                }
            };
            #(#added)*
            ToolRegistry::publish_generated(catalog, handlers) #with_budget
        }

        #handlers
    }
}

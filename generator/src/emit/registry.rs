//! `registry.rs`: `registry(client)`, the tool registry of every exposed operation, each
//! handler deserializing its input, calling the client and serializing the output; declared
//! error responses become application errors through the runtime's invocation path.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::client::type_tokens;
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
    let exposed: Vec<_> = api
        .operations
        .iter()
        .zip(ops)
        .filter(|(op, _)| op.expose)
        .collect();
    // One small function per tool makes its handler; `registry_of` adds those `keep` keeps.
    // (One function holding every handler's closure was a quarter of a big API's check.)
    let added = exposed.iter().map(|(op, types)| {
        let tool = op.entry.name.as_str();
        let cfg = gates.operation(op);
        let make = format_ident!("{}", types.method);
        quote! {
            #cfg
            add(#tool, tool_handlers::#make);
        }
    });
    let makers = exposed.iter().map(|(op, types)| {
        let input = type_tokens(&types.input);
        let cfg = gates.operation(op);
        let make = format_ident!("{}", types.method);
        let (arg, param) = if types.takes_input {
            (quote!(&input), quote!(input))
        } else {
            (quote!(), quote!(_))
        };
        // A streamed call behind the tool, through `handler`.
        let streamed = |handler: TokenStream, method: &str| {
            let method = format_ident!("{}", method);
            quote!(#handler(
                client.clone(),
                |c: Client, #param: #input| async move { c.#method(#arg).await }
            ))
        };
        // The one-reply call: the flat method's own future.
        let typed = {
            let method = format_ident!("{}", types.method);
            let arg = types.takes_input.then(|| quote!(input));
            quote!(http::typed_handler(
                client.clone(),
                |c: &Client, #param: &#input| c.#method(#arg)
            ))
        };
        // The JSON pointer of the input's boolean that asks for events instead of JSON, if any.
        let flag = op.binding.events_switch();
        let handler = match (&types.events, &types.download, &types.pages) {
            // An operation that answers only with events: its tool returns them as they arrive.
            (Some((events, _)), _, _) if types.events_only => streamed(quote!(http::events_handler), events),
            // JSON, or events as they arrive when the input sets the flag.
            (Some((events, _)), _, _) if flag.is_some() => {
                let events = streamed(quote!(http::events_handler), events);
                quote!(http::json_or_events_handler(#flag, #typed, #events))
            }
            // Bytes are returned as they arrive, so the CLI can write a download to a file
            // without holding it.
            (_, Some(stream), _) => streamed(quote!(http::download_handler), stream),
            (_, _, Some((pages, _))) => {
                let pages = format_ident!("{}", pages);
                quote!(http::paged_handler(client.clone(), |c: &Client, #param: #input| c.#pages(#arg)))
            }
            _ => typed,
        };
        quote! {
            #cfg
            pub(super) fn #make(client: &Client) -> Handler {
                #handler
            }
        }
    });
    let with_budget = listing_budget.map(|Budget { depth, bytes }| {
        quote! {
            .map(|registry| registry.with_listing_budget(
                harness_gen_runtime::schema::listing::Budget { depth: #depth, bytes: #bytes },
            ))
        }
    });
    quote! {
        //! The tool registry: every exposed operation as a tool whose handler calls the client.
        //! (A build without operation features has no handler: nothing of `types` is used, and
        //! neither is the client.)
        use std::collections::BTreeMap;

        use harness_gen_runtime::{Catalog, ContractErrors, Handler, ToolRegistry};

        use super::catalog_index::CATALOG_INDEX;
        use super::client::Client;
        #[allow(unused_imports)]
        use super::types::*;

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

        /// Each tool's handler, calling its operation through the client.
        mod tool_handlers {
            #[allow(unused_imports)]
            use super::*;
            // The handlers by the runtime's module name: a tool's own function may be called
            // `typed_handler`.
            #[allow(unused_imports)]
            use harness_gen_runtime::http;

            #(#makers)*
        }
    }
}

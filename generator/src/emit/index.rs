//! `catalog_index.rs`: `CATALOG_INDEX`, where each part of the crate's catalog text is and what
//! the command line lists of each tool, so that a program reads only the entries it uses
//! (`harness_gen_runtime::catalog::index`). Made from the very text written as `catalog.json`.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::Gates;
use crate::model::Api;
use harness_gen_contract::catalog::index::{Layout, Span};
use harness_gen_contract::catalog::{Audience, Catalog};

/// The tokens of the index of `text`, the catalog's JSON (`catalog` parsed); a tool is enabled
/// when its operation is compiled (`gates`).
pub fn file(api: &Api, catalog: &Catalog, text: &str, gates: Gates) -> TokenStream {
    // The text was written from `catalog` a moment ago, so its parts can always be located.
    let layout = Layout::of(text).unwrap_or_default();
    let compiled: HashMap<&str, TokenStream> = api
        .operations
        .iter()
        .filter(|op| op.expose)
        .map(|op| (op.entry.name.as_str(), gates.operation_compiled(op)))
        .collect();
    let span = |(start, end): Span| {
        let (start, end) = (
            proc_macro2::Literal::usize_unsuffixed(start),
            proc_macro2::Literal::usize_unsuffixed(end),
        );
        quote!((#start, #end))
    };
    let optional = |at: Option<Span>| match at {
        Some(at) => {
            let at = span(at);
            quote!(Some(#at))
        }
        None => quote!(None),
    };
    let strings = |items: &mut dyn Iterator<Item = &str>| {
        let items: Vec<&str> = items.collect();
        quote!(&[#(#items),*])
    };
    let tools = catalog.tools.iter().zip(&layout.tools).map(|(entry, at)| {
        let name = entry.name.as_str();
        let at = span(*at);
        let enabled = compiled.get(name).cloned().unwrap_or_else(|| quote!(true));
        if !entry.allows(Audience::Cli) {
            return quote!(IndexedTool { name: #name, at: #at, enabled: #enabled, command: None });
        }
        let path = strings(&mut entry.cli.command.segments().iter().map(|s| s.as_str()));
        let title = entry.command_title();
        // Most commands have no aliases and are shown: one call says so.
        if entry.cli.aliases.is_empty() && !entry.cli.hidden {
            return quote!(IndexedTool::command(#name, #at, #enabled, #path, #title));
        }
        let aliases = strings(&mut entry.cli.aliases.iter().map(|s| s.as_str()));
        let hidden = entry.cli.hidden;
        quote!(IndexedTool {
            name: #name,
            at: #at,
            enabled: #enabled,
            command: Some(IndexedCommand { path: #path, aliases: #aliases, hidden: #hidden, title: #title }),
        })
    });
    let groups = catalog
        .cli
        .iter()
        .flat_map(|tree| &tree.commands)
        .filter(|spec| !spec.aliases.is_empty())
        .map(|spec| {
            let path = strings(&mut spec.command.segments().iter().map(|s| s.as_str()));
            let aliases = strings(&mut spec.aliases.iter().map(|s| s.as_str()));
            quote!(IndexedGroup { path: #path, aliases: #aliases })
        });
    let components = layout.components.iter().map(|(name, at)| {
        let at = span(*at);
        quote!((#name, #at))
    });
    let groups: Vec<TokenStream> = groups.collect();
    let tools: Vec<TokenStream> = tools.collect();
    // Only what the index uses is imported (a catalog without CLI tools or parent aliases).
    let mut imported = vec![quote!(CatalogIndex)];
    if catalog.tools.iter().any(|entry| {
        entry.allows(Audience::Cli) && (!entry.cli.aliases.is_empty() || entry.cli.hidden)
    }) {
        imported.push(quote!(IndexedCommand));
    }
    if !groups.is_empty() {
        imported.push(quote!(IndexedGroup));
    }
    if !tools.is_empty() {
        imported.push(quote!(IndexedTool));
    }
    let info = optional(layout.info);
    let cli = optional(layout.cli);
    quote! {
        //! Where each part of `catalog.json` is, and what the command line lists of each tool:
        //! a program reads only the entries it uses (the CLI, the one it runs).
        use harness_gen_runtime::catalog::index::{#(#imported),*};

        /// The index of [`super::CATALOG_JSON`].
        pub static CATALOG_INDEX: CatalogIndex = CatalogIndex {
            info: #info,
            cli: #cli,
            groups: &[#(#groups),*],
            tools: &[#(#tools),*],
            components: &[#(#components),*],
        };
    }
}

//! The client by resource: `client.models().list()`, `client.chat().create_completion(&input)`.
//! Each operation whose command in the CLI has a group (`models list`) is also a method of that
//! group's resource, named by the rest of its command, so the SDK and the CLI name an
//! operation alike. The resource methods hand back the flat method's future (no state machine
//! of their own: a big API's crate compiles them for almost nothing); the flat methods stay,
//! one index for generic code.
//!
//! A resource whose accessor would take the name of a flat method (or of `Client`'s own) is
//! left out, as is a method whose name another method of its resource has: both stay
//! reachable flat.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::client::type_tokens;
use super::types::{field_name, type_name};
use super::{Gates, OpTypes};
use crate::model::{Api, Operation};

/// The names `Client` has besides the operations' methods.
const CLIENT_OWN: [&str; 5] = ["builder", "env_builder", "from_env", "from_builder", "with"];

/// One method of a resource: its name, the flat method it stands for, and its shape.
struct Method<'a> {
    name: String,
    op: &'a Operation,
    types: &'a OpTypes,
}

/// `impl Client` with an accessor per resource, and the `resources` module.
pub fn resources(api: &Api, ops: &[OpTypes], gates: &Gates) -> TokenStream {
    let flat: BTreeSet<&str> = ops
        .iter()
        .flat_map(|t| {
            [
                Some(t.method.as_str()),
                t.pages.as_ref().map(|p| p.0.as_str()),
            ]
            .into_iter()
            .chain([
                t.events.as_ref().map(|e| e.0.as_str()),
                t.download.as_deref(),
            ])
            .flatten()
        })
        .chain(CLIENT_OWN)
        .collect();
    let mut groups: BTreeMap<String, Vec<Method>> = BTreeMap::new();
    for (op, types) in api.operations.iter().zip(ops) {
        let segments = op.entry.cli.command.segments();
        let [group, rest @ ..] = segments else {
            continue;
        };
        if rest.is_empty() {
            continue;
        }
        let words: Vec<&str> = rest.iter().map(|s| s.as_ref()).collect();
        groups
            .entry(field_name(group.as_ref()))
            .or_default()
            .push(Method {
                name: field_name(&words.join("-")),
                op,
                types,
            });
    }
    let mut accessors = Vec::new();
    let mut structs = Vec::new();
    for (group, methods) in &groups {
        if flat.contains(group.as_str()) {
            continue;
        }
        let resource = format_ident!("{}", type_name(group));
        let accessor = format_ident!("{}", group);
        let first = methods.first().map(|m| m.name.as_str()).unwrap_or_default();
        let doc = format!(
            " The `{group}` operations, as the command-line program groups them: `client.{group}().{first}(…)`."
        );
        // Compiled with any of its operations (a resource none of the features asks for would
        // be a struct never read).
        let cfg = gates.operations(methods.iter().map(|m| m.op));
        accessors.push(quote! {
            #[doc = #doc]
            #cfg
            pub fn #accessor(&self) -> resources::#resource<'_> {
                resources::#resource { client: self }
            }
        });
        let mut taken = BTreeSet::new();
        let bodies = methods.iter().map(|m| method(m, gates, &mut taken));
        let struct_doc = format!(" The `{group}` operations (see [`Client::{group}`]).");
        structs.push(quote! {
            #[doc = #struct_doc]
            #cfg
            #[derive(Clone, Copy, Debug)]
            pub struct #resource<'a> {
                pub(super) client: &'a Client,
            }

            #cfg
            impl #resource<'_> {
                #(#bodies)*
            }
        });
    }
    if structs.is_empty() {
        return TokenStream::new();
    }
    quote! {
        impl Client {
            #(#accessors)*
        }

        /// The operations by resource (`client.models().list()`): each group of the
        /// command-line program is a resource, each command a method that calls the flat one.
        pub mod resources {
            #[allow(unused_imports)]
            use super::*;

            #(#structs)*
        }
    }
}

/// The methods of one operation in its resource (its call and its `_pages`, `_events` and
/// `_stream` forms), each handing back what the flat method does.
fn method(m: &Method, gates: &Gates, taken: &mut BTreeSet<String>) -> TokenStream {
    let types = m.types;
    let cfg = gates.operation(m.op);
    let input = type_tokens(&types.input);
    let (param, arg) = if types.takes_input {
        (quote!(input: &#input), quote!(input))
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let output = type_tokens(&types.output);
    let error = type_tokens(&types.error);
    let title = m.op.entry.title.as_deref().map(|t| format!(": {t}"));
    let head = format!(
        " `{} {}`{}",
        m.op.binding.method,
        m.op.binding.path,
        title.unwrap_or_default()
    );
    // The flat method's name with the resource method's in place of its own.
    let renamed = |flat: &str| -> Option<String> {
        let suffix = flat.strip_prefix(types.method.as_str())?;
        Some(format!("{}{suffix}", m.name))
    };
    let mut out = TokenStream::new();
    let mut add =
        |name: String,
         flat: &str,
         tokens: &dyn Fn(&proc_macro2::Ident, &proc_macro2::Ident) -> TokenStream| {
            if !taken.insert(name.clone()) {
                return;
            }
            let (name, flat_ident) = (format_ident!("{}", name), format_ident!("{}", flat));
            let see = format!(" The same as [`Client::{flat}`].");
            let body = tokens(&name, &flat_ident);
            out.extend(quote! {
                #[doc = #head]
                #[doc = ""]
                #[doc = #see]
                #cfg
                #body
            });
        };
    if !types.events_only {
        add(m.name.clone(), &types.method, &|name, flat| {
            quote! {
                pub fn #name(&self, #param) -> impl std::future::Future<Output = Result<#output, Error<#error>>> {
                    self.client.#flat(#arg)
                }
            }
        });
    }
    if let Some((flat, item)) = &types.pages
        && let Some(name) = renamed(flat)
    {
        // The item type is written from the client module; this is one module deeper.
        let item: TokenStream = item
            .split_whitespace()
            .collect::<String>()
            .replace("super::types::", "super::super::types::")
            .parse()
            .unwrap_or_else(|_| quote!(compile_error!("unlexable page item type")));
        add(name, flat, &|name, flat| {
            quote! {
                pub fn #name(&self, #param) -> Pages<#output, #item, #error> {
                    self.client.#flat(#arg)
                }
            }
        });
    }
    if let Some((flat, event)) = &types.events
        && let Some(name) = renamed(flat)
    {
        let event = type_tokens(event);
        add(name, flat, &|name, flat| {
            quote! {
                pub fn #name(&self, #param) -> impl std::future::Future<Output = Result<Events<#event, #error>, Error<#error>>> {
                    self.client.#flat(#arg)
                }
            }
        });
    }
    if let Some(flat) = &types.download
        && let Some(name) = renamed(flat)
    {
        add(name, flat, &|name, flat| {
            quote! {
                pub fn #name(&self, #param) -> impl std::future::Future<Output = Result<Download, Error<#error>>> {
                    self.client.#flat(#arg)
                }
            }
        });
    }
    out
}

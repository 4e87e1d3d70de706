//! `#[tool]`: a tool written as an `async fn`, its catalog entry derived from its types and
//! its doc comment. It keeps the function as written and adds `<name>_tool(…)`, which returns
//! the `harness_gen_runtime::typed::TypedTool` the macro-free builder would: the function's
//! doc comment as the description, the attribute's settings as builder calls.
//!
//! ```ignore
//! /// The pets of one species.
//! #[tool(cli = "pets by-species", read_only)]
//! async fn pets_by_species(client: &petstore::Client, input: BySpecies)
//!     -> Result<Vec<Pet>, Failure<UnknownSpecies>> { … }
//!
//! let registry = Composer::new("shop").typed(pets_by_species_tool(client)).publish()?;
//! ```
//!
//! The function takes its input (a type that is `Deserialize` and `JsonSchema`), and may take
//! a shared state by reference first (`&S`), which `<name>_tool(state: S)` receives. Settings:
//! `name = "…"` (the function's name otherwise), `cli = "word word"`, `title = "…"`,
//! `namespace = "…"`, `audiences = "cli, mcp, …"`, `credentials = "petstore"` (the mounted API
//! whose credentials it calls with, `TypedTool::credentials_of`), and the flags `read_only`, `destructive`,
//! `idempotent`, `open_world`, `closed_world`, `defer_loading`.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::{FnArg, ItemFn, LitStr, Type, parse_macro_input};

/// Makes an `async fn` a tool; see the [crate](self) documentation.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    let mut settings = Settings::default();
    let parser = syn::meta::parser(|meta| settings.read(meta));
    parse_macro_input!(attr with parser);
    match expand(&function, settings) {
        Ok(tokens) => tokens.into(),
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#function #error).into()
        }
    }
}

#[derive(Default)]
struct Settings {
    name: Option<LitStr>,
    calls: Vec<proc_macro2::TokenStream>,
}

impl Settings {
    fn read(&mut self, meta: syn::meta::ParseNestedMeta) -> syn::Result<()> {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let call = match key.as_str() {
            "name" => {
                self.name = Some(meta.value()?.parse()?);
                return Ok(());
            }
            "cli" | "title" | "namespace" => {
                let value: LitStr = meta.value()?.parse()?;
                let method = format_ident!("{key}");
                quote!(.#method(#value))
            }
            "credentials" => {
                let value: LitStr = meta.value()?.parse()?;
                quote!(.credentials_of(#value))
            }
            "audiences" => {
                let value: LitStr = meta.value()?.parse()?;
                let mut audiences = Vec::new();
                for word in value.value().split(',').map(str::trim) {
                    let variant = match word {
                        "cli" => quote!(Cli),
                        "mcp" => quote!(Mcp),
                        "catalog" => quote!(Catalog),
                        "dashboard" => quote!(Dashboard),
                        "agent" => quote!(Agent),
                        _ => {
                            return Err(syn::Error::new(
                                value.span(),
                                format!(
                                    "`{word}` is no audience: write some of cli, mcp, catalog, dashboard, agent, separated by commas"
                                ),
                            ));
                        }
                    };
                    audiences.push(quote!(::harness_gen_runtime::Audience::#variant));
                }
                quote!(.audiences(&[#(#audiences),*]))
            }
            "read_only" => quote!(.read_only()),
            "destructive" => quote!(.destructive()),
            "idempotent" => quote!(.idempotent()),
            "open_world" => quote!(.open_world(true)),
            "closed_world" => quote!(.open_world(false)),
            "defer_loading" => quote!(.defer_loading()),
            _ => {
                return Err(meta.error(
                    "unknown setting: use name, cli, title, namespace, audiences, credentials, read_only, destructive, idempotent, open_world, closed_world or defer_loading",
                ));
            }
        };
        self.calls.push(call);
        Ok(())
    }
}

fn expand(function: &ItemFn, settings: Settings) -> syn::Result<proc_macro2::TokenStream> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            signature.fn_token,
            "a tool is an `async fn`",
        ));
    }
    if !signature.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &signature.generics,
            "a tool's function cannot be generic: its schemas are derived from concrete types",
        ));
    }
    let ident = &signature.ident;
    let maker = format_ident!("{ident}_tool");
    let visibility = &function.vis;
    let name = settings
        .name
        .unwrap_or_else(|| LitStr::new(&ident.to_string(), Span::call_site()));
    let description = doc_text(function);
    let describe = (!description.is_empty()).then(|| quote!(.description(#description)));
    let calls = &settings.calls;
    let source = quote!(.source_id(::core::concat!(::core::module_path!(), "::", ::core::stringify!(#ident))));
    let inputs: Vec<&FnArg> = signature.inputs.iter().collect();
    let typed = |arg: &FnArg| match arg {
        FnArg::Typed(pat) => Ok((*pat.ty).clone()),
        FnArg::Receiver(receiver) => Err(syn::Error::new_spanned(
            receiver,
            "a tool is a free function, not a method",
        )),
    };
    let doc =
        format!("The tool [`{ident}`] runs: its entry derived from its types and doc comment.");
    let tokens = match inputs.as_slice() {
        [input] => {
            let input = typed(input)?;
            quote! {
                #[doc = #doc]
                #visibility fn #maker() -> ::harness_gen_runtime::typed::TypedTool {
                    ::harness_gen_runtime::typed::TypedTool::new(#name, |input: #input| #ident(input))
                        #source #describe #(#calls)*
                }
            }
        }
        [state, input] => {
            let state = match typed(state)? {
                Type::Reference(reference) if reference.mutability.is_none() => *reference.elem,
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "a tool's state is taken by shared reference (`&State`), the input by value",
                    ));
                }
            };
            let input = typed(input)?;
            quote! {
                #[doc = #doc]
                #visibility fn #maker(state: #state) -> ::harness_gen_runtime::typed::TypedTool
                where
                    #state: Send + Sync + 'static,
                {
                    let state = ::std::sync::Arc::new(state);
                    ::harness_gen_runtime::typed::TypedTool::new(#name, move |input: #input| {
                        let state = ::std::sync::Arc::clone(&state);
                        async move { #ident(&state, input).await }
                    })
                    #source #describe #(#calls)*
                }
            }
        }
        _ => {
            return Err(syn::Error::new_spanned(
                &signature.inputs,
                "a tool takes its input, or a shared state by reference and then its input",
            ));
        }
    };
    Ok(quote!(#function #tokens))
}

/// The function's doc comment as one text: each line without the one space `///` leaves.
fn doc_text(function: &ItemFn) -> String {
    let lines: Vec<String> = function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(pair) => match &pair.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_string())
        .collect();
    lines.join("\n").trim().to_string()
}

//! `client.rs`: the `Client` with one async method per operation, each a thin typed call
//! through `harness_gen_runtime::http` with the operation's binding.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use harness_gen_runtime::binding::{
    Binding, BodyBinding, Encoding, ErrorBinding, ParamBinding, ParamIn, ResponseBinding,
    StatusKey,
};

use super::OpTypes;
use crate::model::{Api, SecurityScheme};

/// Environment variables the client reads, per scheme: (scheme, variable names).
pub fn credential_env(api: &Api, prefix: &str) -> Vec<(String, Vec<String>)> {
    let count = |pred: &dyn Fn(&SecurityScheme) -> bool| {
        api.security_schemes.values().filter(|s| pred(s)).count()
    };
    let tokens = count(&|s| matches!(s, SecurityScheme::Bearer));
    let basics = count(&|s| matches!(s, SecurityScheme::Basic));
    let keys = count(&|s| matches!(s, SecurityScheme::ApiKey { .. }));
    let scoped = |name: &str, several: bool| {
        if several {
            format!(
                "{prefix}_{}",
                crate::names::snake(name).to_ascii_uppercase()
            )
        } else {
            prefix.to_string()
        }
    };
    api.security_schemes
        .iter()
        .filter_map(|(name, scheme)| {
            let vars = match scheme {
                SecurityScheme::Bearer => vec![format!("{}_TOKEN", scoped(name, tokens > 1))],
                SecurityScheme::Basic => {
                    let p = scoped(name, basics > 1);
                    vec![format!("{p}_USERNAME"), format!("{p}_PASSWORD")]
                }
                SecurityScheme::ApiKey { .. } => {
                    vec![format!("{}_API_KEY", scoped(name, keys > 1))]
                }
                SecurityScheme::Unsupported(_) => return None,
            };
            Some((name.clone(), vars))
        })
        .collect()
}

/// The tokens of `client.rs`.
pub fn file(api: &Api, ops: &[OpTypes], prefix: &str) -> TokenStream {
    let base_url = api.servers.first().cloned().unwrap_or_default();
    let schemes = api.security_schemes.iter().filter_map(|(name, scheme)| {
        let scheme = match scheme {
            SecurityScheme::Bearer => quote!(harness_gen_runtime::http::Scheme::Bearer),
            SecurityScheme::Basic => quote!(harness_gen_runtime::http::Scheme::Basic),
            SecurityScheme::ApiKey { location, name } => {
                let location = param_in(*location);
                quote!(harness_gen_runtime::http::Scheme::ApiKey { location: #location, name: #name.to_string() })
            }
            SecurityScheme::Unsupported(_) => return None,
        };
        Some(quote!(.scheme(#name, #scheme)))
    });
    let env = credential_env(api, prefix)
        .into_iter()
        .map(|(scheme, vars)| quote!((#scheme, &[#(#vars),*])));
    let base_env = format!("{prefix}_BASE_URL");
    let methods = api.operations.iter().zip(ops).map(|(op, types)| {
        let name = format_ident!("{}", types.method);
        let input = type_tokens(&types.input);
        let output = type_tokens(&types.output);
        let error = type_tokens(&types.error);
        let binding = binding_tokens(&op.binding);
        let doc = format!(
            " `{} {}`{}",
            op.binding.method, op.binding.path,
            op.entry
                .title
                .as_deref()
                .map(|t| format!(": {t}"))
                .unwrap_or_default()
        );
        let description = op.entry.description.as_deref().map(|d| {
            let lines = d.lines().map(|l| format!(" {l}"));
            quote!(#[doc = ""] #(#[doc = #lines])*)
        });
        quote! {
            #[doc = #doc]
            #description
            pub async fn #name(&self, input: &#input) -> Result<#output, Error<#error>> {
                static BINDING: wire::Binding = #binding;
                self.http.call(&BINDING, input).await
            }
        }
    });
    quote! {
        //! The API's client: one async method per operation.
        // An API without operations (webhooks only) leaves the imports unused.
        #![allow(clippy::all, unused_imports, dead_code)]
        use harness_gen_runtime::binding as wire;
        use harness_gen_runtime::http::{ClientBuilder, Error, HttpClient};

        use super::types::*;

        /// The base URL used when none is configured: the document's first server.
        pub const DEFAULT_BASE_URL: &str = #base_url;

        /// The environment variable that overrides the base URL.
        pub const BASE_URL_ENV: &str = #base_env;

        /// A client of the API. Cheap to clone.
        #[derive(Clone, Debug)]
        pub struct Client {
            http: HttpClient,
        }

        impl Client {
            /// A builder with the API's security schemes declared and the default base URL; set
            /// credentials, timeout, user agent and retries on it, then call [`Client::from_builder`].
            pub fn builder() -> ClientBuilder {
                ClientBuilder::new(DEFAULT_BASE_URL) #(#schemes)*
            }

            /// [`Client::builder`] with the base URL and credentials read from the environment.
            pub fn env_builder() -> ClientBuilder {
                Self::builder().from_env(#prefix, &[#(#env),*])
            }

            /// A client configured from the environment (base URL and credentials).
            pub fn from_env() -> Result<Self, Error<std::convert::Infallible>> {
                Self::from_builder(Self::env_builder())
            }

            /// A client from a configured builder.
            pub fn from_builder(builder: ClientBuilder) -> Result<Self, Error<std::convert::Infallible>> {
                Ok(Self { http: builder.build()? })
            }

            #(#methods)*
        }
    }
}

/// Tokens for a type name (`()` included).
pub fn type_tokens(name: &str) -> TokenStream {
    if name == "()" {
        quote!(())
    } else {
        let ident = format_ident!("{}", name);
        quote!(#ident)
    }
}

/// A binding as a constant expression of the runtime's types (under the alias `wire`). Every
/// record is destructured whole, so a field the runtime adds or drops breaks this function's
/// build, and code generated for another shape fails to compile rather than misbehaving.
fn binding_tokens(binding: &Binding) -> TokenStream {
    let Binding {
        method,
        path,
        parameters,
        body,
        response,
        errors,
        security,
    } = binding;
    let method = format_ident!("{}", format!("{method:?}"));
    let path = text(path);
    let parameters = list(parameters.iter().map(param_tokens));
    let body = option(body.as_ref().map(|body| {
        let BodyBinding {
            property,
            content_type,
            encoding,
            required,
            alternatives,
        } = body;
        let (property, content_type) = (text(property), text(content_type));
        let encoding = encoding_tokens(*encoding);
        let alternatives = list(alternatives.iter().map(|a| text(a)));
        quote!(wire::BodyBinding {
            property: #property,
            content_type: #content_type,
            encoding: #encoding,
            required: #required,
            alternatives: #alternatives,
        })
    }));
    let response = option(response.as_ref().map(|response| {
        let ResponseBinding {
            status,
            content_type,
            encoding,
        } = response;
        let (status, content_type) = (status_tokens(*status), text(content_type));
        let encoding = encoding_tokens(*encoding);
        quote!(wire::ResponseBinding { status: #status, content_type: #content_type, encoding: #encoding })
    }));
    let errors = list(errors.iter().map(|error| {
        let ErrorBinding {
            status,
            content_type,
        } = error;
        let (status, content_type) = (status_tokens(*status), text(content_type));
        quote!(wire::ErrorBinding { status: #status, content_type: #content_type })
    }));
    let security = list(
        security
            .iter()
            .map(|all| list(all.iter().map(|scheme| text(scheme)))),
    );
    quote!(wire::Binding {
        method: wire::Method::#method,
        path: #path,
        parameters: #parameters,
        body: #body,
        response: #response,
        errors: #errors,
        security: #security,
    })
}

fn param_tokens(param: &ParamBinding) -> TokenStream {
    let ParamBinding {
        property,
        location,
        name,
        style,
        explode,
        required,
        allow_reserved,
        content_type,
    } = param;
    let (property, name) = (text(property), text(name));
    let location = param_in(*location);
    let style = format_ident!("{}", format!("{style:?}"));
    let content_type = option(content_type.as_ref().map(|c| text(c)));
    quote!(wire::ParamBinding {
        property: #property,
        location: #location,
        name: #name,
        style: wire::Style::#style,
        explode: #explode,
        required: #required,
        allow_reserved: #allow_reserved,
        content_type: #content_type,
    })
}

fn param_in(location: ParamIn) -> TokenStream {
    let variant = format_ident!("{}", format!("{location:?}"));
    quote!(wire::ParamIn::#variant)
}

fn encoding_tokens(encoding: Encoding) -> TokenStream {
    let variant = format_ident!("{}", format!("{encoding:?}"));
    quote!(wire::Encoding::#variant)
}

fn status_tokens(status: StatusKey) -> TokenStream {
    match status {
        StatusKey::Code(code) => {
            let code = proc_macro2::Literal::u16_unsuffixed(code);
            quote!(wire::StatusKey::Code(#code))
        }
        StatusKey::Range(hundred) => {
            let hundred = proc_macro2::Literal::u8_unsuffixed(hundred);
            quote!(wire::StatusKey::Range(#hundred))
        }
        StatusKey::Default => quote!(wire::StatusKey::Default),
    }
}

fn text(text: &str) -> TokenStream {
    quote!(wire::Text::Borrowed(#text))
}

fn list(items: impl Iterator<Item = TokenStream>) -> TokenStream {
    quote!(wire::List::Borrowed(&[#(#items),*]))
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

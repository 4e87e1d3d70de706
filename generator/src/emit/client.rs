//! `client.rs`: the `Client` with one async method per operation, each a thin typed call
//! through `harness_gen_runtime::http` with the operation's binding.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

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
                let location = match location.as_str() {
                    "query" => quote!(harness_gen_runtime::binding::ParamIn::Query),
                    "cookie" => quote!(harness_gen_runtime::binding::ParamIn::Cookie),
                    _ => quote!(harness_gen_runtime::binding::ParamIn::Header),
                };
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
        let binding = op
            .entry
            .source
            .as_ref()
            .and_then(|s| s.binding.as_ref())
            .map(|b| serde_json::Value::Object(b.clone()).to_string())
            .unwrap_or_default();
        let doc = format!(
            " `{} {}`{}",
            op.method.to_ascii_uppercase(),
            op.path,
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
                static BINDING: LazyLock<Binding> = LazyLock::new(|| binding(#binding));
                self.http.call(&BINDING, input).await
            }
        }
    });
    quote! {
        //! The API's client: one async method per operation.
        // An API without operations (webhooks only) leaves the imports unused.
        #![allow(clippy::all, unused_imports, dead_code)]
        use std::sync::LazyLock;

        use harness_gen_runtime::binding::Binding;
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

        fn binding(json: &str) -> Binding {
            serde_json::from_str(json).expect("bindings are generated by harness-gen and always parse")
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

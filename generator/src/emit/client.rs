//! `client.rs`: the `Client` with one async method per operation, each a thin typed call
//! through `harness_gen_runtime::http` with the operation's binding.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use harness_gen_wire::binding::{Binding, ParamIn};

use super::{Gates, OpTypes};
use crate::model::{Api, Operation, SecurityScheme};

/// Environment variables the client reads, per scheme: (scheme, variable names).
///
/// The rule (README, "Credentials"): `x-harn.env` names them exactly; otherwise the variable
/// says what the credential is, after the API's prefix: `_API_KEY` for a key (an API-key
/// scheme, or a bearer scheme that says it carries a key: `OPENAI_API_KEY`,
/// `STRIPE_API_KEY`), `_TOKEN` for another bearer token, `_USERNAME` and `_PASSWORD` for HTTP
/// basic. The scheme's name tells schemes apart only when several would share a name: the
/// document's usual scheme (first of its own `security`) keeps the plain one, the others add
/// their distinct words (`OPENAI_ADMIN_API_KEY` of `AdminApiKeyAuth`).
pub fn credential_env(api: &Api, prefix: &str) -> Vec<(String, Vec<String>)> {
    let suffixes = |name: &str, scheme: &SecurityScheme| -> Option<Vec<&'static str>> {
        let key = api.credential_names.get(name).is_some_and(|n| n.key);
        Some(match scheme {
            SecurityScheme::Bearer if key => vec!["API_KEY"],
            SecurityScheme::Bearer => vec!["TOKEN"],
            SecurityScheme::ApiKey { .. } => vec!["API_KEY"],
            SecurityScheme::Basic => vec!["USERNAME", "PASSWORD"],
            SecurityScheme::Unsupported(_) => return None,
        })
    };
    let plain: Vec<(&String, Vec<&str>)> = api
        .security_schemes
        .iter()
        .filter_map(|(name, scheme)| Some((name, suffixes(name, scheme)?)))
        .collect();
    plain
        .iter()
        .map(|(name, suffixes)| {
            let naming = api.credential_names.get(*name);
            if let Some(given) = naming.and_then(|n| n.given.clone()) {
                return ((*name).clone(), given);
            }
            let shared = plain.iter().any(|(other, theirs)| {
                other != name
                    && theirs == suffixes
                    && api
                        .credential_names
                        .get(*other)
                        .is_none_or(|n| n.given.is_none())
            });
            let usual = api.usual_scheme.as_deref() == Some(name.as_str());
            let stem = match (shared && !usual, naming) {
                (true, Some(naming)) => format!("{prefix}_{}", naming.distinct),
                _ => prefix.to_string(),
            };
            // A prefix that ends in `API` (a crate named after "… API") does not say it twice.
            let vars = suffixes
                .iter()
                .map(
                    |s| match (stem.strip_suffix("_API"), s.strip_prefix("API_")) {
                        (Some(_), Some(rest)) => format!("{stem}_{rest}"),
                        _ => format!("{stem}_{s}"),
                    },
                )
                .collect();
            ((*name).clone(), vars)
        })
        .collect()
}

/// The tokens of `client.rs`, each operation's items under its `gates`.
pub fn file(api: &Api, ops: &[OpTypes], prefix: &str, gates: Gates) -> TokenStream {
    let base_url = api.servers.first().cloned().unwrap_or_default();
    let schemes = api.security_schemes.iter().filter_map(|(name, scheme)| {
        let scheme = match scheme {
            SecurityScheme::Bearer => quote!(harness_gen_runtime::http::Scheme::Bearer),
            SecurityScheme::Basic => quote!(harness_gen_runtime::http::Scheme::Basic),
            SecurityScheme::ApiKey { location, name } => {
                let location = param_in(*location);
                quote!(harness_gen_runtime::http::Scheme::ApiKey { location: harness_gen_runtime::binding::#location, name: #name.to_string() })
            }
            SecurityScheme::Unsupported(_) => return None,
        };
        Some(quote!(.scheme(#name, #scheme)))
    });
    let env = credential_env(api, prefix)
        .into_iter()
        .map(|(scheme, vars)| quote!((#scheme, &[#(#vars),*])));
    let base_env = format!("{prefix}_BASE_URL");
    let bindings = api.operations.iter().zip(ops).map(|(op, types)| {
        let name = format_ident!("{}", types.method.to_ascii_uppercase());
        let binding = binding_text(&op.binding);
        let cfg = gates.operation(op);
        quote! {
            #cfg
            pub(super) static #name: BindingText = #binding;
        }
    });
    let resources = super::resources::resources(api, ops, &gates);
    let methods = api
        .operations
        .iter()
        .zip(ops)
        .zip(super::resources::calls(api, ops))
        .map(|((op, types), resource)| {
            Call::of(op, types, &gates, resource.as_ref()).methods(types)
        });
    quote! {
        //! The API's client: one async method per operation. (A build without operation features,
        //! or an API without operations, uses nothing of `types` or of the binding records.)
        use harness_gen_runtime::http::HttpClient;
        /// What a call fails with (`Error::Api` holds the operation's declared errors), the
        /// builder of a client, and what a call returns until it is awaited.
        pub use harness_gen_runtime::http::{CallFuture, ClientBuilder, Error};
        /// Per-call options (`Client::with`), the record of what replies said, and the retry policy.
        pub use harness_gen_runtime::http::{CallOptions, Replies, ReplyInfo, RetryPolicy};
        /// The pages of a call that lists in pages (the `_pages` methods).
        pub use harness_gen_runtime::http::Pages;
        /// The server-sent events of a streaming call (the `_events` methods), and one of them
        /// (named so as not to be confused with a type of the API's own called `Event`).
        pub use harness_gen_runtime::http::{Event as ServerSentEvent, Events};
        /// A body of bytes as it arrives (the `_stream` methods of downloads).
        pub use harness_gen_runtime::http::Download;

        #[allow(unused_imports)]
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

            /// This client with per-call options (timeout, extra headers, retry policy) for
            /// the calls made through the returned handle:
            /// `client.with(CallOptions::new().timeout(Duration::from_secs(5))).method(…)`.
            pub fn with(&self, options: CallOptions) -> Self {
                Self { http: self.http.with(options) }
            }

            #(#methods)*
        }

        #resources

        /// How each operation travels: its wire binding (the catalog's `source.binding`), read
        /// on the operation's first call.
        mod bindings {
            #[allow(unused_imports)]
            use harness_gen_runtime::binding::BindingText;

            #(#bindings)*
        }
    }
}

/// What a call fails with, in one line of the `# Errors` sections.
pub(super) fn errors_line(error: &str) -> String {
    format!(
        "[`Error::Api`] with [`{error}`] for a declared error reply, another [`Error`] otherwise."
    )
}

/// A flat call's `# Errors` section.
fn call_errors(types: &OpTypes) -> TokenStream {
    let lines = [
        String::new(),
        " # Errors".to_string(),
        String::new(),
        format!(" {}", errors_line(&types.error)),
    ];
    quote!(#(#[doc = #lines])*)
}

/// What every method of one operation shares: its name, input parameter, binding, types, `cfg`
/// and docs.
struct Call {
    name: proc_macro2::Ident,
    binding: proc_macro2::Ident,
    param: TokenStream,
    arg: TokenStream,
    output: TokenStream,
    error: TokenStream,
    cfg: TokenStream,
    doc: String,
    description: Option<TokenStream>,
    /// The call's errors, and the same call by resource.
    errors: TokenStream,
}

impl Call {
    fn of(
        op: &Operation,
        types: &OpTypes,
        gates: &Gates,
        resource: Option<&super::resources::Reach>,
    ) -> Self {
        let input = type_tokens(&types.input);
        // An operation without inputs takes none; its (empty) input type is still what the
        // binding encodes.
        let (param, arg) = if types.takes_input {
            (quote!(input: &#input), quote!(input))
        } else {
            (TokenStream::new(), quote!(&#input::default()))
        };
        let title = op.entry.title.as_deref().map(|t| format!(": {t}"));
        Call {
            name: format_ident!("{}", types.method),
            binding: format_ident!("{}", types.method.to_ascii_uppercase()),
            param,
            arg,
            output: type_tokens(&types.output),
            error: type_tokens(&types.error),
            cfg: gates.operation(op),
            doc: format!(
                " `{} {}`{}",
                op.binding.method,
                op.binding.path,
                title.unwrap_or_default()
            ),
            // An operation reached by resource is documented there; its flat method links to
            // it. One reached only flat carries its description.
            description: match resource {
                Some(super::resources::Reach {
                    resource, method, ..
                }) => {
                    let link = format!(
                        " The call [`resources::{resource}::{method}`] documents, with its \
                         input as one struct."
                    );
                    Some(quote!(#[doc = ""] #[doc = #link]))
                }
                None => op
                    .entry
                    .description
                    .as_deref()
                    .filter(|_| op.described)
                    .map(|d| {
                        let lines = d.lines().map(|l| format!(" {l}"));
                        quote!(#[doc = ""] #(#[doc = #lines])*)
                    }),
            },
            // (Its errors too, where it is documented by resource.)
            errors: match resource {
                Some(_) => TokenStream::new(),
                None => call_errors(types),
            },
        }
    }

    /// The operation's call (unless it answers only with events) and its `_pages`, `_events`
    /// and `_stream` variants.
    fn methods(&self, types: &OpTypes) -> TokenStream {
        let call = (!types.events_only).then(|| self.call());
        let pages = types
            .pages
            .as_ref()
            .map(|(method, item)| self.pages(method, item));
        let events = types
            .events
            .as_ref()
            .map(|(method, event)| self.events(method, event, types.events_only));
        let download = types.download.as_ref().map(|method| self.download(method));
        quote! {
            #call
            #pages
            #events
            #download
        }
    }

    fn call(&self) -> TokenStream {
        let Call {
            name,
            binding,
            param,
            arg,
            output,
            error,
            cfg,
            doc,
            description,
            errors,
            ..
        } = self;
        // The client's own future, a named type (`CallFuture`): no state machine and no
        // opaque type per operation to compile, and `Send` without a proof per operation.
        let signature = quote! {
            pub fn #name(&self, #param) -> CallFuture<'_, #output, #error> {
                self.http.call(&bindings::#binding, #arg)
            }
        };
        quote! {
            #[doc = #doc]
            #description
            #errors
            #cfg
            #signature
        }
    }

    fn pages(&self, method: &str, item: &str) -> TokenStream {
        let Call {
            name,
            binding,
            param,
            arg,
            output,
            error,
            cfg,
            ..
        } = self;
        let method = format_ident!("{}", method);
        // The text was printed from tokens (`OpTypes::pages`), so it lexes.
        let item: TokenStream = item
            .parse()
            .unwrap_or_else(|_| quote!(compile_error!("unlexable page item type")));
        let doc = format!(
            " Every page of [`Client::{name}`], each fetched when read (`.items()` streams their items)."
        );
        quote! {
            #[doc = #doc]
            #cfg
            pub fn #method(&self, #param) -> Pages<#output, #item, #error> {
                self.http.pages(&bindings::#binding, #arg)
            }
        }
    }

    fn events(&self, method: &str, event: &str, events_only: bool) -> TokenStream {
        let Call {
            name,
            binding,
            param,
            arg,
            error,
            cfg,
            doc,
            description,
            ..
        } = self;
        let method = format_ident!("{}", method);
        let event = type_tokens(event);
        // The only call of an operation that answers only with events carries its docs.
        let docs = if events_only {
            let streams = " The server-sent events it answers with, each read as it arrives (dropping the stream closes the connection).";
            quote!(#[doc = #doc] #description #[doc = ""] #[doc = #streams])
        } else {
            let streams = format!(
                " [`Client::{name}`] as the server-sent events it streams, each read as it arrives (dropping the stream closes the connection)."
            );
            quote!(#[doc = #streams])
        };
        quote! {
            #docs
            #cfg
            pub async fn #method(&self, #param) -> Result<Events<#event, #error>, Error<#error>> {
                self.http.events(&bindings::#binding, #arg).await
            }
        }
    }

    fn download(&self, method: &str) -> TokenStream {
        let Call {
            name,
            binding,
            param,
            arg,
            error,
            cfg,
            ..
        } = self;
        let method = format_ident!("{}", method);
        let doc = format!(
            " [`Client::{name}`] with its body as it arrives, never whole in memory (`.save(path)`, `.write_to(&mut out)`, or `.chunk()` by chunk)."
        );
        quote! {
            #[doc = #doc]
            #cfg
            pub async fn #method(&self, #param) -> Result<Download, Error<#error>> {
                self.http.download(&bindings::#binding, #arg).await
            }
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

/// A binding as generated code holds it (`harness_gen_runtime::binding::BindingText`): its JSON
/// text, the catalog's `source.binding` without its defaults, as a raw string literal. The runtime reads it on the
/// operation's first call; `require_api!` keeps generated text and runtime records in step.
fn binding_text(binding: &Binding) -> TokenStream {
    let json = harness_gen_wire::binding::BindingText::compact(binding);
    let literal = raw_string(&json);
    quote!(BindingText::new(#literal))
}

/// `text` as a raw string literal (`r#"…"#`, with as many `#` as it needs).
fn raw_string(text: &str) -> proc_macro2::Literal {
    let hashes = (1..)
        .map(|n| "#".repeat(n))
        .find(|hashes| !text.contains(&format!("\"{hashes}")))
        .unwrap_or_default();
    format!("r{hashes}\"{text}\"{hashes}")
        .parse()
        .expect("a raw string literal")
}

fn param_in(location: ParamIn) -> TokenStream {
    let variant = format_ident!("{}", format!("{location:?}"));
    quote!(ParamIn::#variant)
}

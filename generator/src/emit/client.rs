//! `client.rs`: the `Client` with one async method per operation, each a thin typed call
//! through `harness_gen_runtime::http` with the operation's binding.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use harness_gen_wire::binding::{
    Binding, BodyBinding, Encoding, ErrorBinding, EventStream, Pagination, ParamBinding, ParamIn,
    PartBinding, ResponseBinding, StatusKey, Text,
};

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
        let binding = binding_tokens(&op.binding);
        let cfg = gates.operation(op);
        quote! {
            #cfg
            pub(super) static #name: Binding = #binding;
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
        /// What a call fails with (`Error::Api` holds the operation's declared errors), and the
        /// builder of a client.
        pub use harness_gen_runtime::http::{ClientBuilder, Error};
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

        /// How each operation travels: its wire binding, as the runtime's typed record.
        mod bindings {
            #[allow(unused_imports)]
            use harness_gen_runtime::binding::*;

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
    /// The input's type, when the operation takes one.
    input: Option<TokenStream>,
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
            input: types.takes_input.then(|| input.clone()),
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
                    accessor,
                    resource,
                    method,
                }) => {
                    let link = format!(
                        " The call [`resources::{resource}::{method}`] documents \
                         (`client.{accessor}().{method}(…)`), with its input as one struct."
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
            errors: call_errors(types),
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
            arg,
            output,
            error,
            cfg,
            doc,
            description,
            errors,
            ..
        } = self;
        // With an input, the method hands back the client's own future (no state machine of
        // its own to compile); without, it owns the empty input it sends. The future is `Send`
        // (a caller that spawns it has that checked); saying so in the signature would make
        // every build prove it for every operation (GHES: 4.6 s of an 18 s check).
        let signature = match &self.input {
            Some(input) => quote! {
                pub fn #name<'a>(&'a self, input: &'a #input) -> impl std::future::Future<Output = Result<#output, Error<#error>>> + 'a {
                    self.http.call(&bindings::#binding, input)
                }
            },
            None => quote! {
                pub async fn #name(&self) -> Result<#output, Error<#error>> {
                    self.http.call(&bindings::#binding, #arg).await
                }
            },
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

/// An optional text as `Some(text)` or `None`.
fn optional(value: &Option<Text>) -> TokenStream {
    match value {
        Some(value) => {
            let value = text(value);
            quote!(Some(#value))
        }
        None => quote!(None),
    }
}

/// A binding as a constant expression of the runtime's types (`harness_gen_runtime::binding::*`
/// in scope): the fields its operation has, then `..Binding::EMPTY`. Every record is
/// destructured whole here, so a field the runtime adds or drops breaks this function's build,
/// and code generated for another shape fails to compile rather than misbehaving.
fn binding_tokens(binding: &Binding) -> TokenStream {
    let Binding {
        method,
        path,
        parameters,
        body,
        response,
        errors,
        security,
        idempotency_key,
        pagination,
        events,
        deep_object_arrays,
    } = binding;
    let method = format_ident!("{}", format!("{method:?}"));
    let path = text(path);
    let mut fields = vec![quote!(method: Method::#method), quote!(path: #path)];
    if !parameters.is_empty() {
        let parameters = list(parameters.iter().map(param_tokens));
        fields.push(quote!(parameters: #parameters));
    }
    if let Some(body) = body {
        let BodyBinding {
            property,
            content_type,
            encoding,
            required,
            alternatives,
            parts,
        } = body;
        let (property, content_type) = (text(property), text(content_type));
        let encoding = encoding_tokens(*encoding);
        let alternatives = list(alternatives.iter().map(|a| text(a)));
        let parts = list(parts.iter().map(part_tokens));
        fields.push(quote!(body: Some(BodyBinding {
            property: #property,
            content_type: #content_type,
            encoding: #encoding,
            required: #required,
            alternatives: #alternatives,
            parts: #parts,
        })));
    }
    if let Some(response) = response {
        let ResponseBinding {
            status,
            content_type,
            encoding,
        } = response;
        let status = status_tokens(*status);
        let encoding = encoding_tokens(*encoding);
        fields
            .push(quote!(response: Some(ResponseBinding::new(#status, #content_type, #encoding))));
    }
    if !errors.is_empty() {
        let errors = list(errors.iter().map(|error| {
            let ErrorBinding {
                status,
                content_type,
            } = error;
            let status = status_tokens(*status);
            let content_type = text(content_type);
            quote!(ErrorBinding { status: #status, content_type: #content_type })
        }));
        fields.push(quote!(errors: #errors));
    }
    if !security.is_empty() {
        let security = list(
            security
                .iter()
                .map(|all| list(all.iter().map(|scheme| text(scheme)))),
        );
        fields.push(quote!(security: #security));
    }
    if let Some(header) = idempotency_key {
        let header = text(header);
        fields.push(quote!(idempotency_key: Some(#header)));
    }
    if let Some(pagination) = pagination {
        let Pagination {
            kind,
            param,
            items,
            next,
            last_item,
            has_more,
            done,
        } = pagination;
        let kind = format_ident!("{}", format!("{kind:?}"));
        let (param, next, last_item, has_more, done) = (
            optional(param),
            optional(next),
            optional(last_item),
            optional(has_more),
            optional(done),
        );
        let items = text(items);
        fields.push(quote!(pagination: Some(Pagination {
            kind: PageKind::#kind,
            param: #param,
            items: #items,
            next: #next,
            last_item: #last_item,
            has_more: #has_more,
            done: #done,
        })));
    }
    if let Some(EventStream {
        flag,
        select,
        sentinel,
    }) = events
    {
        let (flag, select, sentinel) = (optional(flag), optional(select), optional(sentinel));
        fields.push(
            quote!(events: Some(EventStream { flag: #flag, select: #select, sentinel: #sentinel })),
        );
    }
    if !deep_object_arrays.is_default() {
        let variant = format_ident!("{}", format!("{deep_object_arrays:?}"));
        fields.push(quote!(deep_object_arrays: DeepArrays::#variant));
    }
    quote!(Binding { #(#fields,)* ..Binding::EMPTY })
}

/// One body property's encoding as its property and what the document says, updating
/// `PartBinding::DEFAULT`.
fn part_tokens(part: &PartBinding) -> TokenStream {
    let PartBinding {
        property,
        content_type,
        style,
        explode,
        allow_reserved,
    } = part;
    let property = text(property);
    let mut fields = vec![quote!(property: #property)];
    if let Some(content_type) = content_type {
        let content_type = text(content_type);
        fields.push(quote!(content_type: Some(#content_type)));
    }
    if let Some(style) = style {
        let variant = format_ident!("{}", format!("{style:?}"));
        fields.push(quote!(style: Some(Style::#variant)));
    }
    if let Some(explode) = explode {
        fields.push(quote!(explode: Some(#explode)));
    }
    if *allow_reserved {
        fields.push(quote!(allow_reserved: true));
    }
    quote!(PartBinding { #(#fields,)* ..PartBinding::DEFAULT })
}

/// One parameter as its location, name (and property, where it differs) and what differs
/// from OpenAPI's defaults at its location: `param!(query "per_page")`, which expands to the
/// struct literal over `ParamBinding::QUERY` a static needs (a constructor call would not do:
/// a static's borrowed arrays may only hold values the compiler sees have nothing to drop).
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
    let defaults = ParamBinding::defaults(*location);
    let (name, property) = (name.as_ref(), property.as_ref());
    let named = match name == property {
        true => quote!(#name),
        false => quote!(#name as #property),
    };
    let mut fields: Vec<TokenStream> = Vec::new();
    if *style != defaults.style {
        let variant = format_ident!("{}", format!("{style:?}"));
        fields.push(quote!(style = Style::#variant));
    }
    if *explode != defaults.explode {
        fields.push(quote!(explode = #explode));
    }
    if *required != defaults.required {
        fields.push(quote!(required = #required));
    }
    if *allow_reserved {
        fields.push(quote!(allow_reserved = true));
    }
    if let Some(content_type) = content_type {
        let content_type = text(content_type);
        fields.push(quote!(content_type = Some(#content_type)));
    }
    let location = format_ident!("{}", location.as_str());
    quote!(harness_gen_runtime::param!(#location #named #(, #fields)*))
}

fn param_in(location: ParamIn) -> TokenStream {
    let variant = format_ident!("{}", format!("{location:?}"));
    quote!(ParamIn::#variant)
}

fn encoding_tokens(encoding: Encoding) -> TokenStream {
    let variant = format_ident!("{}", format!("{encoding:?}"));
    quote!(Encoding::#variant)
}

fn status_tokens(status: StatusKey) -> TokenStream {
    match status {
        StatusKey::Code(code) => {
            let code = proc_macro2::Literal::u16_unsuffixed(code);
            quote!(StatusKey::Code(#code))
        }
        StatusKey::Range(hundred) => {
            let hundred = proc_macro2::Literal::u8_unsuffixed(hundred);
            quote!(StatusKey::Range(#hundred))
        }
        StatusKey::Default => quote!(StatusKey::Default),
    }
}

fn text(text: &str) -> TokenStream {
    quote!(Text::Borrowed(#text))
}

fn list(items: impl Iterator<Item = TokenStream>) -> TokenStream {
    quote!(List::Borrowed(&[#(#items),*]))
}

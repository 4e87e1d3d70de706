//! The client by resource: `client.models().list().await`,
//! `client.issues().list_for_repo(owner, repo).state(State::Open).pages()`.
//!
//! Each operation whose command in the CLI has a group (`models list`) is also a method of that
//! group's resource, named by the rest of its command, so the SDK and the CLI name an
//! operation alike. A resource method takes the input's required fields as arguments (path
//! parameters first, in path order) and returns a [`Request`]: the optional fields are its
//! setters, and `.send()` (or `.await`), `.pages()`, `.events()` or `.download()` make the call
//! through the flat method, which stays for generic code. What is generated per operation is a
//! marker type and the trait impls that name its flat methods; the setters are generated once
//! per input struct and `Request` once per crate, so a big API's crate pays little for them.
//!
//! A resource whose accessor would take the name of a flat method (or of `Client`'s own) is
//! left out, as is a method whose name another method of its resource has: both stay
//! reachable flat.
//!
//! [`Request`]: the `resources::Request` of a generated crate.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::client::type_tokens;
use super::types::{InputField, InputShape, field_name};
use super::{Gates, OpTypes};
use crate::model::{Api, Operation};
use crate::names::{Unique, camel};
use harness_gen_wire::binding::ParamIn;

/// The names `Client` has besides the operations' methods.
const CLIENT_OWN: [&str; 5] = ["builder", "env_builder", "from_env", "from_builder", "with"];

/// The names `Request` has of its own: an input field named so gets no setter (it stays
/// reachable through `Request::map`).
const REQUEST_OWN: [&str; 10] = [
    "all",
    "input",
    "items",
    "into_input",
    "map",
    "send",
    "pages",
    "events",
    "download",
    "into_future",
];

/// The names the `resources` module uses besides its resources': a resource of one of these
/// names (Stripe's `events`) is called `…Resource` (`EventsResource`).
const MODULE_OWN: [&str; 33] = [
    "Binding",
    "Box",
    "Call",
    "CallOptions",
    "Client",
    "Debug",
    "Download",
    "Downloaded",
    "Error",
    "Events",
    "FnOnce",
    "Future",
    "Into",
    "IntoFuture",
    "Items",
    "Operation",
    "Option",
    "Pages",
    "Paged",
    "PhantomData",
    "Pin",
    "Replies",
    "Reply",
    "ReplyInfo",
    "Request",
    "Result",
    "RetryPolicy",
    "Send",
    "ServerSentEvent",
    "Streamed",
    "String",
    "Sync",
    "Vec",
];

/// How the client by resource reaches one operation: `client.{accessor}().{method}(…)`, a
/// method of the type `resources::{resource}`.
#[derive(Clone, Debug)]
pub struct Reach {
    /// The resource's accessor on `Client` (the group's name).
    pub accessor: String,
    /// The resource's type in the `resources` module.
    pub resource: String,
    /// The operation's method on the resource.
    pub method: String,
}

/// One group's resource: its type's name and its methods.
struct Group<'a> {
    resource: String,
    methods: Vec<Method<'a>>,
}

/// One method of a resource: its name, the operation it calls, that operation's types, and
/// the name of its marker type.
struct Method<'a> {
    name: String,
    marker: String,
    /// The operation's index in the API.
    at: usize,
    op: &'a Operation,
    types: &'a OpTypes,
}

/// The resources and their methods, by group: each operation whose command has a group, under
/// a name no flat method has, once (the first operation of a name keeps it). The `resources`
/// module's types are one namespace: its own items, then the resources (`…Resource` where the
/// module uses the group's name itself: Stripe's `EventsResource`), then the markers.
fn plan<'a>(api: &'a Api, ops: &'a [OpTypes]) -> (BTreeMap<String, Group<'a>>, Vec<String>) {
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
    for (at, (op, types)) in api.operations.iter().zip(ops).enumerate() {
        let segments = op.entry.cli.command.segments();
        let [group, rest @ ..] = segments else {
            continue;
        };
        // An operation that takes an input without a constructor stays flat only.
        if rest.is_empty() || (types.input_shape.is_none() && types.takes_input) {
            continue;
        }
        let group = field_name(group.as_ref());
        if flat.contains(group.as_str()) {
            continue;
        }
        let words: Vec<&str> = rest.iter().map(|s| s.as_ref()).collect();
        let name = field_name(&words.join("-"));
        let methods = groups.entry(group).or_default();
        if methods.iter().all(|m| m.name != name) {
            methods.push(Method {
                name,
                marker: String::new(),
                at,
                op,
                types,
            });
        }
    }
    let mut names = Unique::idents();
    for own in MODULE_OWN {
        names.reserve(own);
    }
    let mut planned: BTreeMap<String, Group> = groups
        .into_iter()
        .map(|(group, methods)| {
            let stem = camel(&group);
            let base = match MODULE_OWN.contains(&stem.as_str()) {
                true => format!("{stem}Resource"),
                false => stem,
            };
            let resource = names.claim(&base, "");
            (group, Group { resource, methods })
        })
        .collect();
    let mut markers = vec![String::new(); ops.len()];
    for m in planned.values_mut().flat_map(|g| &mut g.methods) {
        m.marker = names.claim(&camel(&m.types.method), "");
        markers[m.at] = m.marker.clone();
    }
    // Every other operation has its marker too (the registry's handlers name them), after
    // the resources' so that theirs keep the names they had.
    for (marker, types) in markers.iter_mut().zip(ops) {
        if marker.is_empty() {
            *marker = names.claim(&camel(&types.method), "");
        }
    }
    (planned, markers)
}

/// Each operation's marker type in `resources::operations`, by the operation's index.
pub fn markers(api: &Api, ops: &[OpTypes]) -> Vec<String> {
    plan(api, ops).1
}

/// Per operation, how the client by resource reaches it.
pub fn calls(api: &Api, ops: &[OpTypes]) -> Vec<Option<Reach>> {
    let mut calls = vec![None; ops.len()];
    for (group, planned) in plan(api, ops).0 {
        for m in planned.methods {
            calls[m.at] = Some(Reach {
                accessor: group.clone(),
                resource: planned.resource.clone(),
                method: m.name,
            });
        }
    }
    calls
}

/// `impl Client` with an accessor per resource, and the `resources` module.
pub fn resources(api: &Api, ops: &[OpTypes], gates: &Gates) -> TokenStream {
    if api.operations.is_empty() {
        return TokenStream::new();
    }
    let (groups, markers) = plan(api, ops);
    let operations = api
        .operations
        .iter()
        .zip(ops)
        .zip(&markers)
        .map(|((op, types), marker)| operation(op, types, marker, gates));
    let mut accessors = Vec::new();
    let mut structs = Vec::new();
    // Per input struct: the gates of the operations that build it through a request.
    let mut inputs: BTreeMap<&str, Vec<&Operation>> = BTreeMap::new();
    for (group, Group { resource, methods }) in &groups {
        let resource = format_ident!("{}", resource);
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
        let mut bodies = Vec::new();
        for m in methods {
            bodies.push(method(m, group, gates));
            if let Some(shape) = &m.types.input_shape {
                inputs.entry(&shape.name).or_default().push(m.op);
            }
        }
        let struct_doc = format!(" The `{group}` operations (see [`Client::{group}`]).");
        structs.push(quote! {
            #[doc = #struct_doc]
            #cfg
            #[derive(Clone, Copy, Debug)]
            pub struct #resource<'a> {
                pub(super) client: &'a Client,
            }

            #cfg
            impl<'a> #resource<'a> {
                #(#bodies)*
            }
        });
    }
    let shapes: BTreeMap<&str, _> = ops
        .iter()
        .filter_map(|t| t.input_shape.as_ref())
        .map(|s| (s.name.as_str(), s))
        .collect();
    // An input with nothing optional to set has no block of setters.
    let setters = inputs.iter().filter_map(|(name, users)| {
        let shape = shapes[name];
        let input = format_ident!("{}", name);
        let cfg = gates.operations(users.iter().copied());
        let setters: Vec<TokenStream> = shape
            .set
            .iter()
            .filter(|f| !REQUEST_OWN.contains(&f.ident.as_str()))
            .map(setter)
            .collect();
        (!setters.is_empty()).then(|| {
            quote! {
                #cfg
                impl<Op> Request<'_, types::#input, Op> {
                    #(#setters)*
                }
            }
        })
    });
    // Compiled with any of the operations (each has its marker).
    let cfg = gates.operations(api.operations.iter());
    quote! {
        impl Client {
            #(#accessors)*
        }

        /// The operations by resource: each group of the command-line program is a resource
        /// (`client.issues()`), each of its commands a method that takes the call's required
        /// values and returns a [`resources::Request`] to set the optional ones on and send
        /// (`client.issues().list_for_repo(owner, repo).state("open").send().await`).
        #cfg
        pub mod resources {
            #[allow(unused_imports)]
            use super::*;
            // The API's types by their module: a type of the API may be called `Request` or
            // `Call` as the items here are.
            // (Unused in a build without operation features, where the module has only its
            // own items.)
            #[allow(unused_imports)]
            use super::super::types;
            use harness_gen_runtime::binding::BindingText;
            use std::future::{Future, IntoFuture};
            use std::marker::PhantomData;
            use std::pin::Pin;

            /// One call being built: its input so far, and the operation it goes to. The
            /// optional values are set by its setters (named as the input's fields); `.send()`
            /// or `.await` makes the call, `.pages()`, `.events()` and `.download()` its other
            /// forms where the operation has them.
            #[must_use = "a request does nothing until it is sent (`.send().await` or `.await`)"]
            pub struct Request<'a, I, Op> {
                client: &'a Client,
                input: I,
                operation: PhantomData<fn() -> Op>,
            }

            impl<'a, I, Op> Request<'a, I, Op> {
                #[allow(dead_code)]
                fn new(client: &'a Client, input: I) -> Self {
                    Self { client, input, operation: PhantomData }
                }

                /// The input as built so far.
                pub fn input(&self) -> &I {
                    &self.input
                }

                /// The input as built so far, for the flat method or another request.
                pub fn into_input(self) -> I {
                    self.input
                }

                /// This request with its input changed by `change` (for what has no setter:
                /// `.map(|mut input| { input.extra.insert(…); input })`).
                pub fn map(self, change: impl FnOnce(I) -> I) -> Self {
                    Self { input: change(self.input), ..self }
                }
            }

            impl<I: std::fmt::Debug, Op> std::fmt::Debug for Request<'_, I, Op> {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.debug_struct("Request").field("input", &self.input).finish_non_exhaustive()
                }
            }

            impl<'a, Op: Call> Request<'a, Op::Input, Op> {
                /// Makes the call: the reply's typed body, or why there is none.
                pub fn send(self) -> CallFuture<'a, Op::Output, Op::Error> {
                    Op::call(self.client, &self.input)
                }
            }

            /// `.await` on a request sends it (the same call as `.send()`).
            impl<'a, Op: Call> IntoFuture for Request<'a, Op::Input, Op> {
                type Output = Result<Op::Output, Error<Op::Error>>;
                type IntoFuture = CallFuture<'a, Op::Output, Op::Error>;

                fn into_future(self) -> Self::IntoFuture {
                    self.send()
                }
            }

            impl<Op: Paged> Request<'_, Op::Input, Op> {
                /// Every page of the call, each fetched when read (`.items()` streams their
                /// items).
                pub fn pages(self) -> Pages<Op::Output, Op::Item, Op::Error> {
                    Op::pages(self.client, &self.input)
                }

                /// Every item of every page, in order, as a stream (each page fetched when
                /// its items are read).
                pub fn items(self) -> Items<Op::Item, Op::Error> {
                    Box::pin(self.pages().items())
                }

                /// Every item of every page, collected in order (for a listing known to be
                /// small: `.items()` streams them instead).
                pub async fn all(self) -> Reply<Vec<Op::Item>, Op::Error> {
                    self.pages().all().await
                }
            }

            impl<Op: Streamed> Request<'_, Op::Input, Op> {
                /// Makes the call and streams the server-sent events it answers with, each
                /// read as it arrives (dropping the stream closes the connection).
                pub async fn events(self) -> Result<Events<Op::Event, Op::Error>, Error<Op::Error>> {
                    Op::events(self.client, &self.input).await
                }
            }

            impl<Op: Downloaded> Request<'_, Op::Input, Op> {
                /// Makes the call and hands back the reply's bytes as they arrive.
                pub async fn download(self) -> Result<Download, Error<Op::Error>> {
                    Op::download(self.client, &self.input).await
                }
            }

            /// What a call comes back with: the reply, or why there is none.
            pub type Reply<T, E> = Result<T, Error<E>>;

            /// The items of a listing, page after page (`futures::StreamExt::next` reads them).
            pub type Items<T, E> = Pin<Box<dyn harness_gen_runtime::http::Stream<Item = Reply<T, E>> + Send>>;

            /// An operation a [`Request`] goes to: its types, and how it goes on the wire.
            pub trait Operation: 'static {
                /// What the call takes.
                type Input: serde::Serialize + Send + Sync + 'static;
                /// The reply's body. (Not bound by `Send`: the call's future never holds it
                /// across an await, and proving it for Stripe's deepest replies overflows the
                /// compiler's recursion limit.)
                type Output: 'static;
                /// The errors the API declares for it.
                type Error: harness_gen_runtime::http::OperationError + Send + 'static;
                /// Where each value of the input goes, and how replies are read.
                const BINDING: &'static BindingText;
            }

            /// An operation that answers with one reply ([`Request::send`]).
            pub trait Call: Operation<Output: serde::de::DeserializeOwned> {
                /// Makes the call (what the operation's flat method does).
                fn call<'a>(client: &'a Client, input: &Self::Input) -> CallFuture<'a, Self::Output, Self::Error> {
                    client.http.call(Self::BINDING, input)
                }
            }

            /// An operation that lists in pages ([`Request::pages`]).
            pub trait Paged: Call {
                /// One item of a page.
                type Item: serde::de::DeserializeOwned + Send + 'static;
                /// The pages of the call (what the operation's flat `_pages` method does).
                fn pages(client: &Client, input: &Self::Input) -> Pages<Self::Output, Self::Item, Self::Error> {
                    client.http.pages(Self::BINDING, input)
                }
            }

            /// An operation that streams server-sent events ([`Request::events`]).
            pub trait Streamed: Operation {
                /// One event's data.
                type Event: serde::de::DeserializeOwned + Send + 'static;
                /// Makes the call for its events (what the operation's flat `_events` method
                /// does).
                fn events<'a>(client: &'a Client, input: &'a Self::Input) -> impl Future<Output = Reply<Events<Self::Event, Self::Error>, Self::Error>> + Send + 'a {
                    client.http.events(Self::BINDING, input)
                }
            }

            /// An operation whose reply is bytes ([`Request::download`]).
            pub trait Downloaded: Operation {
                /// Makes the call for its bytes (what the operation's flat `_stream` method
                /// does).
                fn download<'a>(client: &'a Client, input: &'a Self::Input) -> impl Future<Output = Reply<Download, Self::Error>> + Send + 'a {
                    client.http.download(Self::BINDING, input)
                }
            }

            /// The operations, one type each (named as their flat methods), for
            /// [`Request`]'s type.
            pub mod operations {
                #[allow(unused_imports)]
                use super::*;

                #(#operations)*
            }

            #(#setters)*

            #(#structs)*
        }
    }
}

/// An optional field's setter on the requests that build its struct.
fn setter(f: &InputField) -> TokenStream {
    let ident = format_ident!("{}", f.ident);
    let ty = field_type(f);
    let doc = match f.doc.as_deref().and_then(|d| d.lines().next()) {
        Some(line) => format!(" Sets `{}`: {}", f.wire, line.trim()),
        None => format!(" Sets `{}`.", f.wire),
    };
    // The input's own setter, without a closure around it: a function body fewer to check
    // per setter (GHES: 553).
    quote! {
        #[doc = #doc]
        pub fn #ident(self, value: impl Into<#ty>) -> Self {
            Self { input: self.input.#ident(value), ..self }
        }
    }
}

/// The marker type of one operation and its trait impls: types and the binding only, no
/// function body (what a call does is the traits' provided methods, generated once per crate).
fn operation(op: &Operation, types: &OpTypes, marker: &str, gates: &Gates) -> TokenStream {
    let cfg = gates.operation(op);
    let marker = format_ident!("{}", marker);
    let input = api_type(&types.input);
    let error = api_type(&types.error);
    let output = api_type(&types.output);
    let binding = format_ident!("{}", types.method.to_ascii_uppercase());
    let doc = format!(" `{} {}`.", op.binding.method, op.binding.path);
    let call = (!types.events_only).then(|| quote!(impl Call for #marker {}));
    let pages = types.pages.as_ref().map(|(_, item)| {
        let item = nested(item);
        quote!(impl Paged for #marker { type Item = #item; })
    });
    let events = types.events.as_ref().map(|(_, event)| {
        let event = api_type(event);
        quote!(impl Streamed for #marker { type Event = #event; })
    });
    let download = types
        .download
        .as_ref()
        .map(|_| quote!(impl Downloaded for #marker {}));
    quote! {
        #[doc = #doc]
        #cfg
        pub struct #marker;

        #cfg
        const _: () = {
            impl Operation for #marker {
                type Input = #input;
                type Output = #output;
                type Error = #error;
                const BINDING: &'static BindingText = &super::super::bindings::#binding;
            }
            #call
            #pages
            #events
            #download
        };
    }
}

/// An input field's type (the text was printed from tokens, so it lexes).
fn field_type(f: &InputField) -> TokenStream {
    f.ty.parse()
        .unwrap_or_else(|_| quote!(compile_error!("unlexable field type")))
}

/// The flat method a resource method stands for: the call, or the event stream of an
/// operation that answers only with events.
fn flat_name(types: &OpTypes) -> &str {
    match &types.events {
        Some((events, _)) if types.events_only => events,
        _ => &types.method,
    }
}

/// A type of the API by its name (`()` for none), named through `types`.
fn api_type(name: &str) -> TokenStream {
    match name {
        "()" => quote!(()),
        name => {
            let ty = type_tokens(name);
            quote!(types::#ty)
        }
    }
}

/// A page item's type, written from the client module, as named through `types`.
fn nested(item: &str) -> TokenStream {
    // The text was printed from tokens (`OpTypes::pages`), so it lexes.
    item.split_whitespace()
        .collect::<String>()
        .replace("super::types::", "types::")
        .parse()
        .unwrap_or_else(|_| quote!(compile_error!("unlexable page item type")))
}

/// One operation's method in its resource: the input's required fields as arguments (path
/// parameters first, in path order), a [`Request`] back.
fn method(m: &Method, group: &str, gates: &Gates) -> TokenStream {
    let types = m.types;
    let cfg = gates.operation(m.op);
    let input = api_type(&types.input);
    let marker = format_ident!("{}", m.marker);
    // An operation that takes nothing starts from its (empty) input's default.
    let (args, set, build) = match &types.input_shape {
        Some(shape) => {
            let values = shape.new.iter().map(|f| format_ident!("{}", f.ident));
            let build = quote!(#input::new(#(#values),*));
            (arguments(m.op, shape), shape.set.as_slice(), build)
        }
        None => (Vec::new(), &[][..], quote!(Default::default())),
    };
    let params = args.iter().map(|f| {
        let ident = format_ident!("{}", f.ident);
        let ty = field_type(f);
        quote!(#ident: impl Into<#ty>)
    });
    let name = format_ident!("{}", m.name);
    let docs = method_docs(m, group, &args, set);
    // Clippy's bound counts `&self`.
    let many = (args.len() >= 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    quote! {
        #docs
        #cfg
        #many
        pub fn #name(&self, #(#params),*) -> Request<'a, #input, operations::#marker> {
            Request::new(self.client, #build)
        }
    }
}

/// A resource method's documentation: what it calls, its arguments, what can be set, what it
/// fails with, and the line that calls it.
fn method_docs(m: &Method, group: &str, args: &[&InputField], set: &[InputField]) -> TokenStream {
    let (op, types) = (m.op, m.types);
    let mut lines = vec![format!(" `{} {}`", op.binding.method, op.binding.path)];
    if let Some(title) = &op.entry.title {
        lines[0].push_str(&format!(": {title}"));
    }
    // The operation's whole description is here, where the call is documented; the flat
    // method links to it.
    let description = op
        .entry
        .description
        .as_deref()
        .filter(|_| op.described)
        .map(|d| match d.split_once("\n\n") {
            Some((first, rest)) if Some(first.trim()) == op.entry.title.as_deref() => rest,
            _ if Some(d.trim()) == op.entry.title.as_deref() => "",
            _ => d,
        });
    if let Some(description) = description.filter(|d| !d.trim().is_empty()) {
        lines.push(String::new());
        lines.extend(description.lines().map(|l| format!(" {}", l.trim_end())));
    }
    // The arguments by name (their docs are the input's fields'), so the same long text is
    // not repeated on every operation that takes an `owner`.
    if !args.is_empty() {
        let names: Vec<String> = args.iter().map(|f| format!("`{}`", f.ident)).collect();
        lines.push(String::new());
        lines.push(format!(
            " Takes {} (fields of [`{}`]).",
            names.join(", "),
            types.input
        ));
    }
    let setters: Vec<String> = set
        .iter()
        .filter(|f| !REQUEST_OWN.contains(&f.ident.as_str()))
        .map(|f| format!("`.{}(…)`", f.ident))
        .collect();
    if !setters.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            " Optional, set on the request: {}.",
            setters.join(", ")
        ));
    }
    let forms: Vec<&str> = [
        (!types.events_only).then_some("`.send()` (or `.await`)"),
        types
            .pages
            .as_ref()
            .map(|_| "`.pages()`, `.items()` or `.all()`"),
        types.events.as_ref().map(|_| "`.events()`"),
        types
            .download
            .as_ref()
            .map(|_| "`.download()` for the bytes"),
    ]
    .into_iter()
    .flatten()
    .collect();
    // A plain call's `.send()` (or `.await`) is what every request has, and the example
    // below shows it: said only beside the other forms.
    if forms.len() > 1 || types.events_only {
        lines.push(String::new());
        lines.push(format!(" Then {}.", forms.join("; ")));
    }
    lines.push(String::new());
    lines.push(format!(
        " # Errors\n\n {} The same call as [`Client::{}`].",
        super::client::errors_line(&types.error),
        flat_name(types)
    ));
    let (binding, call) = match (types.events_only, &types.pages) {
        (true, _) => ("mut events", "events().await?"),
        (false, Some(_)) => ("items", "items()"),
        (false, None) => ("reply", "await?"),
    };
    let args: Vec<&str> = args.iter().map(|f| f.ident.as_str()).collect();
    lines.push(String::new());
    lines.push(" ```ignore".into());
    lines.push(format!(
        " let {binding} = client.{group}().{}({}).{call};",
        m.name,
        args.join(", ")
    ));
    lines.push(" ```".into());
    let lines = lines.iter().flat_map(|l| l.split('\n')).map(|l| {
        let l = if l.starts_with(' ') || l.is_empty() {
            l.to_string()
        } else {
            format!(" {l}")
        };
        quote!(#[doc = #l])
    });
    quote!(#(#lines)*)
}

/// A resource method's arguments: the input's required fields, path parameters first in path
/// order, then the others in schema order.
pub fn arguments<'s>(op: &Operation, shape: &'s InputShape) -> Vec<&'s InputField> {
    let path_order: Vec<&str> = path_variables(&op.binding.path)
        .filter_map(|name| {
            op.binding
                .parameters
                .iter()
                .find(|p| p.location == ParamIn::Path && p.name.as_ref() == name)
                .map(|p| p.property.as_ref())
        })
        .collect();
    let mut args: Vec<&InputField> = shape.new.iter().collect();
    args.sort_by_key(|f| {
        path_order
            .iter()
            .position(|w| *w == f.wire)
            .unwrap_or(usize::MAX)
    });
    args
}

/// The names of a path template's variables, in order (`/repos/{owner}/{repo}`: owner, repo).
fn path_variables(path: &str) -> impl Iterator<Item = &str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
}

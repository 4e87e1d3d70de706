//! The OpenAPI protocol binding of one operation: where each input property goes on the wire,
//! which media types travel, which responses are success and which are declared errors, and the
//! security alternatives. The generator derives it once from the document; the catalog carries it
//! as a tool's `source.binding` (described by the format's JSON Schema), and each generated client
//! holds it as a [`BindingText`]: the same JSON, read on the operation's first call.
//!
//! Text and lists are `Cow<'static, …>`: owned when read, borrowed in bindings that code builds
//! as `static`s of these types:
//!
//! ```
//! use harness_gen_wire::binding as wire;
//!
//! static BINDING: wire::Binding = wire::Binding {
//!     method: wire::Method::Get,
//!     path: wire::Text::Borrowed("/pets/{petId}"),
//!     parameters: wire::List::Borrowed(&[wire::ParamBinding {
//!         property: wire::Text::Borrowed("pet_id"),
//!         name: wire::Text::Borrowed("petId"),
//!         ..wire::ParamBinding::PATH
//!     }]),
//!     response: Some(wire::ResponseBinding::new(
//!         wire::StatusKey::Code(200),
//!         "application/json",
//!         wire::Encoding::Json,
//!     )),
//!     ..wire::Binding::EMPTY
//! };
//! assert_eq!(BINDING.method.as_str(), "GET");
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod pagination;
mod response;
mod text;

pub use pagination::{MAX_PAGES, PageFault, PageKind, PageTrail, Pagination};
pub use response::{ErrorBinding, ResponseBinding, StatusKey};
pub use text::BindingText;

/// Text in a binding: borrowed in generated code, owned when parsed.
pub type Text = Cow<'static, str>;
/// A list in a binding: borrowed in generated code, owned when parsed.
pub type List<T> = Cow<'static, [T]>;

/// One operation's binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Binding {
    /// The HTTP method.
    pub method: Method,
    /// The path template, relative to the server URL, e.g. `/pets/{petId}`.
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub path: Text,
    /// Where each input property that is a parameter travels, in input-schema order.
    #[serde(default, skip_serializing_if = "is_empty")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<Vec<ParamBinding>>"))]
    pub parameters: List<ParamBinding>,
    /// The request body, when the operation takes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub body: Option<BodyBinding>,
    /// The success response whose body is the tool's output; absent when no success response
    /// has content (the output is then `null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub response: Option<ResponseBinding>,
    /// Declared error responses with JSON bodies, most specific status first: each is one
    /// variant of the tool's error schema.
    #[serde(default, skip_serializing_if = "is_empty")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<Vec<ErrorBinding>>"))]
    pub errors: List<ErrorBinding>,
    /// Security alternatives: the call is authorized by the first alternative whose schemes all
    /// have credentials; an alternative lists scheme names that apply together, and an empty
    /// alternative means the call may go anonymously.
    #[serde(default)]
    #[cfg_attr(feature = "artifacts", ts(as = "Vec<Vec<String>>"))]
    pub security: List<List<Text>>,
    /// The request header that carries an idempotency key (a declared `Idempotency-Key`
    /// header parameter, or `x-harn.idempotencyKey`): the client sends one fresh random key per
    /// call, the same on each of its attempts (unless the input gives one), which makes the
    /// call safe to retry whatever its method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub idempotency_key: Option<Text>,
    /// How the reply continues on a next page, for an operation that lists in pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub pagination: Option<Pagination>,
    /// How the success response streams server-sent events, for an operation that offers
    /// `text/event-stream` (its streaming call; `response` stays the buffered one, if any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub events: Option<EventStream>,
    /// How an array inside a `deepObject` value is written (query parameters and form-body
    /// properties): `a[0]=x` (the default) or `a[]=x` (`x-harn.deepObjectArrays`).
    #[serde(default, skip_serializing_if = "DeepArrays::is_default")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<DeepArrays>"))]
    pub deep_object_arrays: DeepArrays,
}

/// How an array inside a `deepObject` value is written. OpenAPI defines `deepObject` for flat
/// objects only; nested objects and arrays follow the bracket convention servers read (Rails,
/// PHP, `qs`, Stripe), with the array index written or left empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum DeepArrays {
    /// `expand[0]=a&expand[1]=b`: the index written (order and item grouping survive any
    /// server's parser).
    #[default]
    Indexed,
    /// `expand[]=a&expand[]=b`.
    Brackets,
}

impl DeepArrays {
    /// Whether this is the default (left out of the binding).
    pub fn is_default(&self) -> bool {
        *self == DeepArrays::Indexed
    }
}

/// How an operation streams server-sent events (`text/event-stream`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventStream {
    /// The request body's boolean property that asks for the stream (OpenAI's `stream`): the
    /// streaming call sends it as `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub flag: Option<Text>,
    /// For an operation whose server answers JSON or the stream by the request's `Accept`
    /// (no body flag): the tool input's boolean property that asks for the stream. It is not
    /// sent; the streaming call asks with `Accept: text/event-stream`, and a plain call
    /// refuses an input that sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub select: Option<Text>,
    /// The data that ends the stream, never an event itself (OpenAI's `[DONE]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub sentinel: Option<Text>,
}

/// How a stream of server-sent events ended (an error that broke it off is an item of the
/// stream itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// The data that ends the stream arrived ([`EventStream::sentinel`], OpenAI's `[DONE]`).
    Sentinel,
    /// The server closed the stream (with no sentinel, when one is declared: an API such as
    /// OpenAI's Responses, whose events end without one, ends so too).
    Closed,
    /// Reading failed (a broken connection, a timeout, an event past the bound).
    Broken,
}

/// Where a stream's end is told once it has come: the stream's reader sets it, whoever holds
/// a clone reads it after the last item. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct EndWatch(std::sync::Arc<std::sync::OnceLock<StreamEnd>>);

impl EndWatch {
    /// Records how the stream ended (the first time only).
    pub fn set(&self, end: StreamEnd) {
        let _ = self.0.set(end);
    }

    /// How the stream ended, once it has.
    pub fn get(&self) -> Option<StreamEnd> {
        self.0.get().copied()
    }
}

/// An HTTP method an OpenAPI operation can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "UPPERCASE")]
#[allow(missing_docs)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
    /// OpenAPI 3.2's safe method with a body.
    Query,
}

impl Method {
    /// Every method, in the order OpenAPI lists them in a path item.
    pub const ALL: [Method; 9] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
        Method::Query,
    ];

    /// The method as it is sent: `GET`, `POST`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
            Method::Query => "QUERY",
        }
    }

    /// The key of an OpenAPI path item that holds an operation of this method: `get`, `post`, …
    pub fn path_item_key(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
            Method::Query => "query",
        }
    }

    /// Whether the method is safe (RFC 9110: no intended side effect).
    pub fn is_safe(self) -> bool {
        matches!(
            self,
            Method::Get | Method::Head | Method::Options | Method::Trace | Method::Query
        )
    }

    /// Whether the method is idempotent (RFC 9110), so a failed attempt may be repeated.
    pub fn is_idempotent(self) -> bool {
        self.is_safe() || matches!(self, Method::Put | Method::Delete)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a parameter goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ParamIn {
    /// A `{name}` variable of the path template.
    Path,
    /// The query string.
    Query,
    /// A request header.
    Header,
    /// The `Cookie` header.
    Cookie,
}

impl ParamIn {
    /// The OpenAPI name.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamIn::Path => "path",
            ParamIn::Query => "query",
            ParamIn::Header => "header",
            ParamIn::Cookie => "cookie",
        }
    }

    /// The style OpenAPI assumes when a parameter at this location names none.
    pub const fn default_style(self) -> Style {
        match self {
            ParamIn::Query | ParamIn::Cookie => Style::Form,
            ParamIn::Path | ParamIn::Header => Style::Simple,
        }
    }
}

/// How a parameter's value is serialized (OpenAPI `style`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Style {
    /// Comma-separated values (path and header default).
    Simple,
    /// `name=value` pairs (query and cookie default).
    Form,
    /// `.`-prefixed path values.
    Label,
    /// `;name=`-prefixed path values.
    Matrix,
    /// Array items joined by `%20` in the query.
    SpaceDelimited,
    /// Array items joined by `|` in the query.
    PipeDelimited,
    /// Object properties as `name[key]=value` in the query.
    DeepObject,
}

impl Style {
    /// Every style.
    pub const ALL: [Style; 7] = [
        Style::Simple,
        Style::Form,
        Style::Label,
        Style::Matrix,
        Style::SpaceDelimited,
        Style::PipeDelimited,
        Style::DeepObject,
    ];

    /// The OpenAPI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Simple => "simple",
            Style::Form => "form",
            Style::Label => "label",
            Style::Matrix => "matrix",
            Style::SpaceDelimited => "spaceDelimited",
            Style::PipeDelimited => "pipeDelimited",
            Style::DeepObject => "deepObject",
        }
    }

    /// The style an OpenAPI `style` value names.
    pub fn of(name: &str) -> Option<Style> {
        Style::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether OpenAPI allows this style at `location`.
    pub fn allowed_in(self, location: ParamIn) -> bool {
        match self {
            Style::Simple => matches!(location, ParamIn::Path | ParamIn::Header),
            Style::Form => matches!(location, ParamIn::Query | ParamIn::Cookie),
            Style::Label | Style::Matrix => location == ParamIn::Path,
            Style::SpaceDelimited | Style::PipeDelimited | Style::DeepObject => {
                location == ParamIn::Query
            }
        }
    }
}

/// One parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParamBinding {
    /// The input property whose value it carries.
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub property: Text,
    /// Where it goes.
    #[serde(rename = "in")]
    pub location: ParamIn,
    /// Its name on the wire (path variable, query key, header or cookie name).
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub name: Text,
    /// How its value is serialized (the document's, or the location's default).
    pub style: Style,
    /// Whether arrays and objects spread into one pair per item (the document's, or `true`
    /// exactly for `form`).
    pub explode: bool,
    /// Whether the call must carry it (path parameters always).
    pub required: bool,
    /// Whether RFC 3986 reserved characters go unencoded (query only).
    #[serde(default, skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<bool>"))]
    pub allow_reserved: bool,
    /// For a parameter declared with `content` instead of `schema`: the media type its value is
    /// serialized as (JSON media types send the value as JSON text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub content_type: Option<Text>,
}

// The location defaults are literals, not calls: a static's borrowed arrays may only hold values
// the compiler can see have nothing to drop, and it sees that through a constant's literal body.
impl ParamBinding {
    /// A path parameter as OpenAPI serializes it when the document says nothing more (`simple`,
    /// not exploded, required), with an empty name and property.
    pub const PATH: ParamBinding = ParamBinding {
        property: Cow::Borrowed(""),
        location: ParamIn::Path,
        name: Cow::Borrowed(""),
        style: Style::Simple,
        explode: false,
        required: true,
        allow_reserved: false,
        content_type: None,
    };
    /// A query parameter's defaults (`form`, exploded, optional).
    pub const QUERY: ParamBinding = ParamBinding {
        property: Cow::Borrowed(""),
        location: ParamIn::Query,
        name: Cow::Borrowed(""),
        style: Style::Form,
        explode: true,
        required: false,
        allow_reserved: false,
        content_type: None,
    };
    /// A header parameter's defaults (`simple`, not exploded, optional).
    pub const HEADER: ParamBinding = ParamBinding {
        property: Cow::Borrowed(""),
        location: ParamIn::Header,
        name: Cow::Borrowed(""),
        style: Style::Simple,
        explode: false,
        required: false,
        allow_reserved: false,
        content_type: None,
    };
    /// A cookie parameter's defaults (`form`, exploded, optional).
    pub const COOKIE: ParamBinding = ParamBinding {
        property: Cow::Borrowed(""),
        location: ParamIn::Cookie,
        name: Cow::Borrowed(""),
        style: Style::Form,
        explode: true,
        required: false,
        allow_reserved: false,
        content_type: None,
    };

    /// What OpenAPI assumes of a parameter at `location` that says nothing more: the location's
    /// default style, exploded exactly for `form`, required exactly in the path. Generated code
    /// writes a parameter as its name, property and what differs, then `..ParamBinding::QUERY`
    /// (or `PATH`, `HEADER`, `COOKIE`).
    pub const fn defaults(location: ParamIn) -> ParamBinding {
        match location {
            ParamIn::Path => Self::PATH,
            ParamIn::Query => Self::QUERY,
            ParamIn::Header => Self::HEADER,
            ParamIn::Cookie => Self::COOKIE,
        }
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_empty<T: Clone>(list: &List<T>) -> bool {
    list.is_empty()
}

/// How a body travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// JSON (`application/json`, `*+json`).
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `multipart/form-data`.
    Multipart,
    /// `text/*`: a string.
    Text,
    /// Anything else: raw bytes, base64 in JSON.
    Bytes,
}

impl Encoding {
    /// The encoding of a media type.
    pub fn of(media_type: &str) -> Self {
        let essence = media_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if essence == "application/json" || essence.ends_with("+json") {
            Encoding::Json
        } else if essence == "application/x-www-form-urlencoded" {
            Encoding::Form
        } else if essence == "multipart/form-data" {
            Encoding::Multipart
        } else if essence.starts_with("text/") {
            Encoding::Text
        } else {
            Encoding::Bytes
        }
    }

    /// The name recorded in the binding.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Form => "form",
            Encoding::Multipart => "multipart",
            Encoding::Text => "text",
            Encoding::Bytes => "bytes",
        }
    }
}

/// The request body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BodyBinding {
    /// The input property holding it (`body` unless a parameter took that name).
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub property: Text,
    /// The media type sent, chosen among those the operation accepts.
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub content_type: Text,
    /// How the value is encoded for that media type.
    pub encoding: Encoding,
    /// Whether the call must carry it.
    pub required: bool,
    /// The other media types the operation accepts, for documentation.
    #[serde(default, skip_serializing_if = "is_empty")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<Vec<String>>"))]
    pub alternatives: List<Text>,
    /// How the document says each property of a form or multipart body is encoded (its
    /// `encoding` entry, else for multipart a property's `contentMediaType`), by property;
    /// properties not listed take OpenAPI's defaults.
    #[serde(default, skip_serializing_if = "is_empty")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<Vec<PartBinding>>"))]
    pub parts: List<PartBinding>,
}

impl BodyBinding {
    /// How the property `property` of the body is encoded, if the document says.
    pub fn part(&self, property: &str) -> Option<&PartBinding> {
        self.parts.iter().find(|part| part.property == property)
    }

    /// The media type declared for the multipart part of `property`, if any.
    pub fn part_type(&self, property: &str) -> Option<&str> {
        self.part(property)?.content_type.as_deref()
    }
}

/// How one property of a form or multipart body is encoded (an OpenAPI Encoding Object).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PartBinding {
    /// The body's property it describes (its name in the form).
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub property: Text,
    /// The part's media type (`image/png`, `application/json`, or a range like `image/*`); in
    /// a form body, a JSON media type sends the value as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<String>"))]
    pub content_type: Option<Text>,
    /// How a form body writes the value (`form` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub style: Option<Style>,
    /// Whether a form body spreads arrays and objects into one pair per item (`true` exactly
    /// for `form` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub explode: Option<bool>,
    /// Whether a form body leaves RFC 3986 reserved characters unencoded.
    #[serde(default, skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "artifacts", ts(optional, as = "Option<bool>"))]
    pub allow_reserved: bool,
}

impl PartBinding {
    /// A property the document says nothing about (generated code updates it with what it
    /// does say).
    pub const DEFAULT: PartBinding = PartBinding {
        property: Cow::Borrowed(""),
        content_type: None,
        style: None,
        explode: None,
        allow_reserved: false,
    };

    /// The style a form body writes this property in.
    pub fn style(&self) -> Style {
        self.style.unwrap_or(Style::Form)
    }

    /// Whether a form body spreads this property's arrays and objects.
    pub fn explode(&self) -> bool {
        self.explode.unwrap_or(self.style() == Style::Form)
    }
}

impl Binding {
    /// `GET` of an empty path with nothing else: the base a generated binding updates with what
    /// its operation has (`Binding { method, path, parameters, ..Binding::EMPTY }`).
    pub const EMPTY: Binding = Binding {
        method: Method::Get,
        path: Cow::Borrowed(""),
        parameters: Cow::Borrowed(&[]),
        body: None,
        response: None,
        errors: Cow::Borrowed(&[]),
        security: Cow::Borrowed(&[]),
        idempotency_key: None,
        pagination: None,
        events: None,
        deep_object_arrays: DeepArrays::Indexed,
    };

    /// The declared error response for `status`, most specific first.
    pub fn error_for(&self, status: u16) -> Option<&ErrorBinding> {
        self.errors
            .iter()
            .filter(|e| e.status.matches(status) > 0)
            .max_by_key(|e| e.status.matches(status))
    }

    /// The JSON pointer into a call's input of the boolean that asks for the event stream of an
    /// operation that otherwise answers JSON: the body's flag (`/body/stream`), or the input's
    /// own property where the server goes by `Accept` (`/stream`). `None` for an operation
    /// that answers only with events, or without any.
    pub fn events_switch(&self) -> Option<String> {
        use crate::pointer::escape;
        let events = self.events.as_ref()?;
        match (&events.flag, &self.body, &events.select) {
            (Some(flag), Some(body), _) => {
                Some(format!("/{}/{}", escape(&body.property), escape(flag)))
            }
            (_, _, Some(select)) => Some(format!("/{}", escape(select))),
            _ => None,
        }
    }

    /// Whether the method is idempotent (safe to retry).
    pub fn idempotent(&self) -> bool {
        self.method.is_idempotent()
    }

    /// Whether a failed attempt may be repeated: an idempotent method, or a call that carries
    /// an idempotency key.
    pub fn retryable(&self) -> bool {
        self.idempotent() || self.idempotency_key.is_some()
    }
}

#[cfg(test)]
mod tests;

//! Serializing input values onto the wire as a binding says: path, query, header and cookie
//! parameters by style and explode, and request bodies by encoding. A value can never change
//! the request's structure: path values are percent-encoded (and `.`/`..` refused), header
//! values with CR or LF are refused.

use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use crate::binding::{BodyBinding, DeepArrays, Encoding, ParamBinding, Style};
use crate::upload::{Gathered, Upload};

/// Everything but RFC 3986 unreserved characters is encoded in path values.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` as one path segment: everything but unreserved characters percent-encoded (the
/// dashboard's links to tool pages).
pub fn path_segment(text: &str) -> impl std::fmt::Display + '_ {
    utf8_percent_encode(text, PATH)
}

/// Query values: unreserved characters stay, everything else is encoded.
const QUERY: &AsciiSet = PATH;

/// With `allowReserved`, RFC 3986 reserved characters stay, except those that would end the
/// value (`&`, `#`) or change its meaning in a form (`+`, `=`).
const QUERY_RESERVED: &AsciiSet = &QUERY
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b',')
    .remove(b';');

/// A request that cannot be built from the input; the message names the parameter, never the
/// value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

/// A number as it is written on the wire: an integral value without a fraction (`927`, even
/// when the SDK's `f64` holds `927.0`), others in their shortest exact form.
fn number(n: &serde_json::Number) -> String {
    match n.as_f64() {
        // Below 2^53 every integral f64 is exact, and prints as the integer it is.
        Some(f)
            if !n.is_i64()
                && !n.is_u64()
                && f.fract() == 0.0
                && f.abs() < 9_007_199_254_740_992.0 =>
        {
            format!("{}", f as i64)
        }
        _ => n.to_string(),
    }
}

/// The text of a scalar (null is empty text); `None` for arrays and objects.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(number(n)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

/// A scalar's text, or the JSON text of a nested array or object where a style has no way to
/// write it (an array inside an array in `simple` style, say).
fn text(value: &Value) -> String {
    scalar(value).unwrap_or_else(|| value.to_string())
}

/// A value as RFC 6570 sees it: a list of items or of (name, value) pairs, or one string.
enum Shape<'v> {
    One(String),
    Items(Vec<&'v Value>),
    Pairs(Vec<(&'v str, &'v Value)>),
}

fn shape(value: &Value) -> Shape<'_> {
    match value {
        Value::Array(items) => Shape::Items(items.iter().collect()),
        Value::Object(map) => Shape::Pairs(map.iter().map(|(k, v)| (k.as_str(), v)).collect()),
        other => Shape::One(text(other)),
    }
}

fn path_escape(text: &str) -> String {
    utf8_percent_encode(text, PATH).to_string()
}

/// The text a path parameter takes in the path, by the specification's style table:
///
/// | style | explode | `"blue"` | `[blue, black]` | `{R: 100, G: 200}` |
/// |---|---|---|---|---|
/// | simple | either | `blue` | `blue,black` | `R,100,G,200` / `R=100,G=200` |
/// | label | false / true | `.blue` | `.blue,black` / `.blue.black` | `.R,100,G,200` / `.R=100.G=200` |
/// | matrix | false / true | `;color=blue` | `;color=blue,black` / `;color=blue;color=black` | `;color=R,100,G,200` / `;R=100;G=200` |
///
/// An empty string is `;color` in matrix style and `.` in label style.
pub fn path_value(param: &ParamBinding, value: &Value) -> Result<String, Refused> {
    if let Some(text) = scalar(value)
        && (text == "." || text == "..")
    {
        return Err(Refused(format!(
            "path parameter `{}` cannot be `.` or `..`: it would change the path",
            param.name
        )));
    }
    let name = path_escape(&param.name);
    let explode = param.explode;
    Ok(match param.style {
        Style::Label => {
            let sep = if explode { "." } else { "," };
            format!(".{}", simple(value, sep, explode))
        }
        Style::Matrix => match shape(value) {
            Shape::One(text) if text.is_empty() => format!(";{name}"),
            Shape::One(text) => format!(";{name}={}", path_escape(&text)),
            Shape::Items(items) if explode => items
                .iter()
                .map(|item| format!(";{name}={}", path_escape(&text(item))))
                .collect(),
            Shape::Pairs(pairs) if explode => pairs
                .iter()
                .map(|(k, v)| format!(";{}={}", path_escape(k), path_escape(&text(v))))
                .collect(),
            _ => format!(";{name}={}", simple(value, ",", false)),
        },
        _ => simple(value, ",", explode),
    })
}

/// Items or pairs joined by `sep` (the `simple` and `label` rule; `explode` writes pairs as
/// `k=v`), each piece percent-encoded for the path.
fn simple(value: &Value, sep: &str, explode: bool) -> String {
    match shape(value) {
        Shape::One(text) => path_escape(&text),
        Shape::Items(items) => items
            .iter()
            .map(|item| path_escape(&text(item)))
            .collect::<Vec<_>>()
            .join(sep),
        Shape::Pairs(pairs) if explode => pairs
            .iter()
            .map(|(k, v)| format!("{}={}", path_escape(k), path_escape(&text(v))))
            .collect::<Vec<_>>()
            .join(sep),
        Shape::Pairs(pairs) => pairs
            .iter()
            .flat_map(|(k, v)| [path_escape(k), path_escape(&text(v))])
            .collect::<Vec<_>>()
            .join(sep),
    }
}

/// Where form pairs go: a query string (brackets of `deepObject` keys percent-encoded, as
/// RFC 3986 wants in a query) or a form body (brackets as they are, as form servers and API
/// references write them).
///
/// In a form body the `,` that joins unexploded items is percent-encoded too, as the WHATWG
/// form serializer writes it and OpenAPI 3.1.1 asks of form media types: a form parser decodes
/// before it splits, so it reads the same items, and a validator never sees a reserved
/// character the value did not have.
#[derive(Clone, Copy)]
struct Escape {
    set: &'static AsciiSet,
    open: &'static str,
    close: &'static str,
    comma: &'static str,
}

impl Escape {
    fn query(allow_reserved: bool) -> Self {
        Self {
            set: if allow_reserved {
                QUERY_RESERVED
            } else {
                QUERY
            },
            open: "%5B",
            close: "%5D",
            comma: ",",
        }
    }

    fn body(allow_reserved: bool) -> Self {
        Self {
            open: "[",
            close: "]",
            comma: "%2C",
            ..Self::query(allow_reserved)
        }
    }

    fn text(self, text: &str) -> String {
        utf8_percent_encode(text, self.set).to_string()
    }
}

/// How one named value is spread into `name=value` pairs.
#[derive(Clone, Copy)]
struct Form {
    style: Style,
    explode: bool,
    arrays: DeepArrays,
    escape: Escape,
}

impl Form {
    /// The encoded `name=value` pieces of `value` under `name`, by the specification's style
    /// table (`form`, `spaceDelimited`, `pipeDelimited`, `deepObject`); null is left out
    /// (RFC 6570's undefined). Values nested deeper than a style defines (an object inside an
    /// exploded form object, anything inside a `deepObject` value) are written in the bracket
    /// form `name[key][0]=value`.
    fn pieces(self, name: &str, value: &Value, out: &mut Vec<String>) {
        let esc = |text: &str| self.escape.text(text);
        let key = esc(name);
        if value.is_null() {
            return;
        }
        if self.style == Style::DeepObject {
            return self.deep(key, value, out);
        }
        let sep = match self.style {
            Style::SpaceDelimited => "%20",
            Style::PipeDelimited => "%7C",
            _ => self.escape.comma,
        };
        match shape(value) {
            Shape::One(text) => out.push(format!("{key}={}", esc(&text))),
            Shape::Items(items) if self.explode => {
                for item in items {
                    self.nested(key.clone(), item, out);
                }
            }
            Shape::Pairs(pairs) if self.explode => {
                for (k, v) in pairs {
                    self.nested(esc(k), v, out);
                }
            }
            Shape::Items(items) => {
                let joined: Vec<String> = items.iter().map(|item| esc(&text(item))).collect();
                out.push(format!("{key}={}", joined.join(sep)));
            }
            Shape::Pairs(pairs) => {
                let joined: Vec<String> = pairs
                    .iter()
                    .flat_map(|(k, v)| [esc(k), esc(&text(v))])
                    .collect();
                out.push(format!("{key}={}", joined.join(sep)));
            }
        }
    }

    /// An item or property of an exploded value: a scalar as `key=value`, anything deeper in
    /// bracket form below `key`.
    fn nested(self, key: String, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Null => {}
            Value::Array(_) | Value::Object(_) => self.deep(key, value, out),
            other => out.push(format!("{key}={}", self.escape.text(&text(other)))),
        }
    }

    /// `key[k]=v` for each property and `key[0]=v` (or `key[]=v`) for each item, to any depth.
    fn deep(self, key: String, value: &Value, out: &mut Vec<String>) {
        let (open, close) = (self.escape.open, self.escape.close);
        match value {
            Value::Null => {}
            Value::Object(map) => {
                for (k, v) in map {
                    self.deep(format!("{key}{open}{}{close}", self.escape.text(k)), v, out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let index = match self.arrays {
                        DeepArrays::Indexed => i.to_string(),
                        DeepArrays::Brackets => String::new(),
                    };
                    self.deep(format!("{key}{open}{index}{close}"), v, out);
                }
            }
            other => out.push(format!("{key}={}", self.escape.text(&text(other)))),
        }
    }
}

/// `name=value` pieces (already encoded) a query parameter adds to the query string:
///
/// | style | explode | `[blue, black]` | `{R: 100, G: 200}` |
/// |---|---|---|---|
/// | form | true | `color=blue&color=black` | `R=100&G=200` |
/// | form | false | `color=blue,black` | `color=R,100,G,200` |
/// | spaceDelimited | false | `color=blue%20black` | `color=R%20100%20G%20200` |
/// | pipeDelimited | false | `color=blue%7Cblack` | `color=R%7C100%7CG%7C200` |
/// | deepObject | true | `color%5B0%5D=blue&…` | `color%5BR%5D=100&color%5BG%5D=200` |
///
/// A scalar is `color=blue`; null is left out. `spaceDelimited` and `pipeDelimited` with
/// `explode: true` repeat the name as `form` does.
pub fn query_pieces(param: &ParamBinding, value: &Value, arrays: DeepArrays) -> Vec<String> {
    let escape = Escape::query(param.allow_reserved);
    if let Some(content_type) = &param.content_type
        && Encoding::of(content_type) == Encoding::Json
    {
        return vec![format!(
            "{}={}",
            escape.text(&param.name),
            escape.text(&value.to_string())
        )];
    }
    let mut out = Vec::new();
    Form {
        style: param.style,
        explode: param.explode,
        arrays,
        escape,
    }
    .pieces(&param.name, value, &mut out);
    out
}

/// A header value (`simple` style: `blue,black`, `R,100,G,200` or exploded `R=100,G=200`). CR,
/// LF and NUL are refused.
pub fn header_value(param: &ParamBinding, value: &Value) -> Result<String, Refused> {
    let text = match shape(value) {
        Shape::One(text) => text,
        Shape::Items(items) => items.iter().map(|v| text(v)).collect::<Vec<_>>().join(","),
        Shape::Pairs(pairs) if param.explode => pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", text(v)))
            .collect::<Vec<_>>()
            .join(","),
        Shape::Pairs(pairs) => pairs
            .iter()
            .flat_map(|(k, v)| [k.to_string(), text(v)])
            .collect::<Vec<_>>()
            .join(","),
    };
    check_header(&param.name, &text)?;
    Ok(text)
}

/// Refuses header values that could split the header (CR, LF) or are not visible text.
pub fn check_header(name: &str, value: &str) -> Result<(), Refused> {
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return Err(Refused(format!(
            "the value for header `{name}` contains CR, LF or NUL, which would split the request"
        )));
    }
    Ok(())
}

/// The `name=value` pairs a cookie parameter adds to the `Cookie` header (`form` style, values
/// percent-encoded): `color=blue,black` and `color=R,100,G,200`, or exploded
/// `color=blue; color=black` and `R=100; G=200` (the pairs joined by `; ` in the header).
pub fn cookie_pairs(param: &ParamBinding, value: &Value) -> Result<Vec<String>, Refused> {
    let mut out = Vec::new();
    Form {
        style: Style::Form,
        explode: param.explode,
        arrays: DeepArrays::Indexed,
        escape: Escape::query(false),
    }
    .pieces(&param.name, value, &mut out);
    for pair in &out {
        check_header(&param.name, pair)?;
    }
    Ok(out)
}

/// An `application/x-www-form-urlencoded` body: each property by its encoding in `binding`
/// (style `form` with `explode: true` where the document says nothing, so objects spread into
/// their properties and arrays repeat the name; `deepObject` as `address[city]=X` and
/// `expand[0]=a` to any depth; a property whose `contentType` is JSON as JSON text), joined by
/// `&`. Spaces are `%20`.
fn form_body(binding: &BodyBinding, map: &Map<String, Value>, arrays: DeepArrays) -> String {
    let mut out = Vec::new();
    for (name, value) in map {
        let part = binding.part(name);
        let escape = Escape::body(part.is_some_and(|p| p.allow_reserved));
        if let Some(content_type) = part.and_then(|p| p.content_type.as_deref())
            && Encoding::of(content_type) == Encoding::Json
        {
            out.push(format!(
                "{}={}",
                escape.text(name),
                escape.text(&value.to_string())
            ));
            continue;
        }
        let defaults = crate::binding::PartBinding::DEFAULT;
        let part = part.unwrap_or(&defaults);
        Form {
            style: part.style(),
            explode: part.explode(),
            arrays,
            escape,
        }
        .pieces(name, value, &mut out);
    }
    out.join("&")
}

/// A request body as encoded: its media type, and its bytes in order, where an upload's bytes
/// are left to be read (from memory, a file or a stream) each time the request is sent.
#[derive(Clone, Debug)]
pub struct Payload {
    /// The `Content-Type` it is sent with.
    pub content_type: String,
    /// Its bytes, in order.
    pub pieces: Vec<Piece>,
}

/// A run of a body's bytes.
#[derive(Clone, Debug)]
pub enum Piece {
    /// Bytes already encoded.
    Bytes(bytes::Bytes),
    /// An upload's contents, sent as they are read.
    Upload {
        /// What is sent.
        upload: Upload,
        /// Where it is in the input, as a JSON pointer (`/body/file`, `/body/files/1`).
        at: String,
    },
}

impl Payload {
    fn whole(content_type: &str, bytes: impl Into<bytes::Bytes>) -> Self {
        Self {
            content_type: content_type.to_string(),
            pieces: vec![Piece::Bytes(bytes.into())],
        }
    }

    /// The whole body, when every byte of it is in memory already (one piece is shared, not
    /// copied: a large in-memory upload is never held twice).
    pub fn in_memory(&self) -> Option<bytes::Bytes> {
        let held = |piece: &Piece| match piece {
            Piece::Bytes(bytes) => Some(bytes.clone()),
            Piece::Upload { upload, .. } => upload.shared_bytes(),
        };
        if let [piece] = self.pieces.as_slice() {
            return held(piece);
        }
        let mut out = bytes::BytesMut::new();
        for piece in &self.pieces {
            out.extend_from_slice(&held(piece)?);
        }
        Some(out.freeze())
    }
}

/// The body for `value` as `binding` says to send it (`arrays`: how `deepObject` form
/// properties write arrays); `uploads` are those the input held.
pub fn body(
    binding: &BodyBinding,
    value: &Value,
    uploads: &Gathered,
    arrays: DeepArrays,
) -> Result<Payload, Refused> {
    let property = binding.property.as_ref();
    let content_type = binding.content_type.as_ref();
    if let Some(at) = crate::upload::unread_file(value, &format!("/{property}")) {
        return Err(Refused(format!(
            "a file (`@path`) was given at {at}, where the document declares no binary value, so it was not read; give the value itself"
        )));
    }
    // Only multipart parts and whole binary bodies send an upload as itself; elsewhere it is
    // the base64 text JSON carries.
    let value = match binding.encoding {
        Encoding::Json | Encoding::Form | Encoding::Text => uploads
            .as_json(value, &format!("/{property}"))
            .map_err(Refused)?,
        Encoding::Multipart | Encoding::Bytes => std::borrow::Cow::Borrowed(value),
    };
    let value = &*value;
    match binding.encoding {
        Encoding::Json => Ok(Payload::whole(content_type, value.to_string())),
        Encoding::Form => {
            let Value::Object(map) = value else {
                return Err(Refused(format!(
                    "`{property}` must be an object to be sent as a form"
                )));
            };
            Ok(Payload::whole(
                content_type,
                form_body(binding, map, arrays),
            ))
        }
        Encoding::Multipart => {
            let Value::Object(map) = value else {
                return Err(Refused(format!(
                    "`{property}` must be an object to be sent as multipart"
                )));
            };
            multipart(binding, map, uploads)
        }
        Encoding::Text => match value {
            Value::String(s) => Ok(Payload::whole(content_type, s.clone())),
            other => Ok(Payload::whole(content_type, other.to_string())),
        },
        Encoding::Bytes => {
            if let Some(upload) = uploads.find(value) {
                return Ok(Payload {
                    content_type: media_type(upload, Some(content_type)),
                    pieces: vec![Piece::Upload {
                        upload: upload.clone(),
                        at: format!("/{property}"),
                    }],
                });
            }
            let Value::String(text) = value else {
                return Err(Refused(format!("`{property}` must be base64 text")));
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|_| Refused(format!("`{property}` is not valid base64")))?;
            Ok(Payload::whole(content_type, bytes))
        }
    }
}

/// The media type an upload is sent as: its own, else the declared one when that names one
/// type (not a range like `image/*`), else the one its file name suggests, else
/// `application/octet-stream`.
pub fn media_type(upload: &Upload, declared: Option<&str>) -> String {
    upload
        .media_type()
        .or(declared.filter(|t| !t.contains('*')))
        .map(str::to_string)
        .or_else(|| {
            mime_guess::from_path(upload.name()?)
                .first_raw()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "application/octet-stream".to_string())
}

/// A `multipart/form-data` body (RFC 7578) with a random boundary per request (a fixed one
/// could be forged by a field's text), one that no text part contains. Each property is a part
/// named after it: an upload is a file part (with its file name, or the property's, and its
/// media type), a string a text part, another scalar its JSON text, an object or a property
/// declared as JSON a JSON part, and each item of an array its own part of the same name;
/// null is left out.
fn multipart(
    binding: &BodyBinding,
    map: &Map<String, Value>,
    uploads: &Gathered,
) -> Result<Payload, Refused> {
    let mut parts: Vec<(&str, Option<String>, String, Piece)> = Vec::new();
    for (name, value) in map {
        if name.contains(['"', '\r', '\n']) {
            return Err(Refused(
                "a multipart field name contains a quote or a line break".to_string(),
            ));
        }
        let declared = binding.part_type(name);
        let as_json = declared.is_some_and(|t| crate::binding::Encoding::of(t) == Encoding::Json);
        let at = format!(
            "/{}/{}",
            binding.property,
            harness_gen_wire::pointer::escape(name)
        );
        let items: Vec<(String, &Value)> = match value {
            Value::Array(items) if !as_json => items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("{at}/{i}"), item))
                .collect(),
            other => vec![(at, other)],
        };
        for (at, item) in items {
            if let Some(upload) = uploads.find(item) {
                let file_name = upload
                    .name()
                    .unwrap_or(name)
                    .replace(['"', '\r', '\n'], "_");
                let kind = media_type(upload, declared);
                let piece = Piece::Upload {
                    upload: upload.clone(),
                    at,
                };
                parts.push((name, Some(file_name), kind, piece));
                continue;
            }
            let item = &*uploads.as_json(item, &at).map_err(Refused)?;
            let (text, kind) = match item {
                Value::Null => continue,
                _ if as_json => (item.to_string(), declared.unwrap_or("application/json")),
                Value::String(s) => (s.clone(), declared.unwrap_or("text/plain; charset=utf-8")),
                Value::Object(_) | Value::Array(_) => (item.to_string(), "application/json"),
                scalar => (text(scalar), declared.unwrap_or("text/plain")),
            };
            parts.push((name, None, kind.to_string(), Piece::Bytes(text.into())));
        }
    }
    let boundary = (0..4)
        .find_map(|_| {
            let bytes = super::random::<12>()?;
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let boundary = format!("harness-gen-{hex}");
            let quoted = parts.iter().any(|(_, _, _, piece)| match piece {
                Piece::Bytes(text) => text
                    .windows(boundary.len())
                    .any(|w| w == boundary.as_bytes()),
                Piece::Upload { .. } => false,
            });
            (!quoted).then_some(boundary)
        })
        .ok_or_else(|| Refused("no random multipart boundary could be made".to_string()))?;
    let mut pieces = Vec::with_capacity(parts.len() * 3 + 1);
    for (name, file_name, kind, piece) in parts {
        // A media type (the caller's or the document's) cannot add lines to a part's head.
        if kind.contains(['\r', '\n']) {
            return Err(Refused(format!(
                "the media type of multipart part `{name}` contains a line break"
            )));
        }
        let file_name = file_name
            .map(|f| format!("; filename=\"{f}\""))
            .unwrap_or_default();
        pieces.push(Piece::Bytes(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"{file_name}\r\nContent-Type: {kind}\r\n\r\n").into(),
        ));
        pieces.push(piece);
        pieces.push(Piece::Bytes(bytes::Bytes::from_static(b"\r\n")));
    }
    pieces.push(Piece::Bytes(format!("--{boundary}--\r\n").into()));
    Ok(Payload {
        content_type: format!("multipart/form-data; boundary={boundary}"),
        pieces,
    })
}

#[cfg(test)]
mod tests;

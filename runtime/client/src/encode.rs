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
mod tests {
    use super::*;
    use serde_json::json;

    fn param(name: &'static str, style: &str, explode: bool) -> ParamBinding {
        ParamBinding {
            property: name.into(),
            location: crate::binding::ParamIn::Query,
            name: name.into(),
            style: Style::of(style).unwrap(),
            explode,
            required: false,
            allow_reserved: false,
            content_type: None,
        }
    }

    /// The specification's style-table values: `color` as a string, an array and an object.
    fn blue() -> Value {
        json!("blue")
    }
    fn colors() -> Value {
        json!(["blue", "black", "brown"])
    }
    fn rgb() -> Value {
        json!({"R": 100, "G": 200, "B": 150})
    }

    /// `path_value` for `color` in each of the three shapes.
    fn path_row(style: &str, explode: bool) -> [String; 3] {
        let mut p = param("color", style, explode);
        p.location = crate::binding::ParamIn::Path;
        [blue(), colors(), rgb()].map(|v| path_value(&p, &v).unwrap())
    }

    fn query_row(style: &str, explode: bool, value: Value) -> String {
        query_pieces(&param("color", style, explode), &value, DeepArrays::Indexed).join("&")
    }

    #[test]
    fn path_values_cannot_change_the_path() {
        let p = param("id", "simple", false);
        assert_eq!(path_value(&p, &json!("a/b?c#d")).unwrap(), "a%2Fb%3Fc%23d");
        assert_eq!(path_value(&p, &json!("x.y")).unwrap(), "x.y");
        assert!(path_value(&p, &json!("..")).is_err());
        assert!(path_value(&p, &json!(".")).is_err());
        assert_eq!(path_value(&p, &json!([1, 2])).unwrap(), "1,2");
    }

    #[test]
    fn path_simple_style_follows_the_specification_table() {
        assert_eq!(
            path_row("simple", false),
            ["blue", "blue,black,brown", "R,100,G,200,B,150"]
        );
        assert_eq!(
            path_row("simple", true),
            ["blue", "blue,black,brown", "R=100,G=200,B=150"]
        );
    }

    #[test]
    fn path_label_style_follows_the_specification_table() {
        assert_eq!(
            path_row("label", false),
            [".blue", ".blue,black,brown", ".R,100,G,200,B,150"]
        );
        assert_eq!(
            path_row("label", true),
            [".blue", ".blue.black.brown", ".R=100.G=200.B=150"]
        );
        assert_eq!(
            path_value(&param("color", "label", false), &json!("")).unwrap(),
            "."
        );
    }

    #[test]
    fn path_matrix_style_follows_the_specification_table() {
        assert_eq!(
            path_row("matrix", false),
            [
                ";color=blue",
                ";color=blue,black,brown",
                ";color=R,100,G,200,B,150"
            ]
        );
        assert_eq!(
            path_row("matrix", true),
            [
                ";color=blue",
                ";color=blue;color=black;color=brown",
                ";R=100;G=200;B=150"
            ]
        );
        assert_eq!(
            path_value(&param("color", "matrix", false), &json!("")).unwrap(),
            ";color"
        );
    }

    #[test]
    fn query_form_style_follows_the_specification_table() {
        assert_eq!(query_row("form", false, blue()), "color=blue");
        assert_eq!(query_row("form", false, colors()), "color=blue,black,brown");
        assert_eq!(query_row("form", false, rgb()), "color=R,100,G,200,B,150");
        assert_eq!(query_row("form", true, blue()), "color=blue");
        assert_eq!(
            query_row("form", true, colors()),
            "color=blue&color=black&color=brown"
        );
        assert_eq!(query_row("form", true, rgb()), "R=100&G=200&B=150");
        assert_eq!(query_row("form", true, json!("")), "color=");
        assert_eq!(query_row("form", true, json!("a&b=c")), "color=a%26b%3Dc");
        // RFC 6570: null is undefined, so the parameter is left out.
        assert_eq!(query_row("form", true, Value::Null), "");
    }

    #[test]
    fn query_space_delimited_style_follows_the_specification_table() {
        assert_eq!(
            query_row("spaceDelimited", false, colors()),
            "color=blue%20black%20brown"
        );
        assert_eq!(
            query_row("spaceDelimited", false, rgb()),
            "color=R%20100%20G%20200%20B%20150"
        );
        assert_eq!(
            query_row("spaceDelimited", true, colors()),
            "color=blue&color=black&color=brown"
        );
    }

    #[test]
    fn query_pipe_delimited_style_follows_the_specification_table() {
        assert_eq!(
            query_row("pipeDelimited", false, colors()),
            "color=blue%7Cblack%7Cbrown"
        );
        assert_eq!(
            query_row("pipeDelimited", false, rgb()),
            "color=R%7C100%7CG%7C200%7CB%7C150"
        );
        assert_eq!(
            query_row("pipeDelimited", true, colors()),
            "color=blue&color=black&color=brown"
        );
    }

    #[test]
    fn query_deep_object_style_follows_the_specification_table() {
        assert_eq!(
            query_row("deepObject", true, rgb()),
            "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"
        );
        // Beyond the table: arrays indexed, nesting to any depth (Stripe's `created[gt]`).
        assert_eq!(
            query_row("deepObject", true, json!({"gt": 5, "in": [1, 2]})),
            "color%5Bgt%5D=5&color%5Bin%5D%5B0%5D=1&color%5Bin%5D%5B1%5D=2"
        );
        assert_eq!(
            query_pieces(
                &param("expand", "deepObject", true),
                &json!(["a", "b"]),
                DeepArrays::Brackets
            ),
            ["expand%5B%5D=a", "expand%5B%5D=b"]
        );
    }

    #[test]
    fn header_simple_style_follows_the_specification_table() {
        let row = |explode| {
            let p = param("X-Color", "simple", explode);
            [blue(), colors(), rgb()].map(|v| header_value(&p, &v).unwrap())
        };
        assert_eq!(
            row(false),
            ["blue", "blue,black,brown", "R,100,G,200,B,150"]
        );
        assert_eq!(row(true), ["blue", "blue,black,brown", "R=100,G=200,B=150"]);
    }

    #[test]
    fn cookie_form_style_follows_the_specification_table() {
        let row = |explode| {
            let p = param("color", "form", explode);
            [blue(), colors(), rgb()].map(|v| cookie_pairs(&p, &v).unwrap().join("; "))
        };
        assert_eq!(
            row(false),
            [
                "color=blue",
                "color=blue,black,brown",
                "color=R,100,G,200,B,150"
            ]
        );
        assert_eq!(
            row(true),
            [
                "color=blue",
                "color=blue; color=black; color=brown",
                "R=100; G=200; B=150"
            ]
        );
        // A value cannot end the pair or the header.
        assert_eq!(
            cookie_pairs(&param("c", "form", true), &json!("a; b=c")).unwrap(),
            ["c=a%3B%20b%3Dc"]
        );
    }

    #[test]
    fn integral_numbers_are_written_without_a_fraction() {
        let p = param("channel_id", "simple", false);
        assert_eq!(path_value(&p, &json!(927.0)).unwrap(), "927");
        assert_eq!(path_value(&p, &json!(927)).unwrap(), "927");
        assert_eq!(path_value(&p, &json!(1.5)).unwrap(), "1.5");
        assert_eq!(path_value(&p, &json!(-3.0)).unwrap(), "-3");
        assert_eq!(
            query_row("form", true, json!([2.0, 2.25])),
            "color=2&color=2.25"
        );
    }

    #[test]
    fn reserved_characters_stay_only_when_allowed() {
        let mut p = param("u", "form", true);
        assert_eq!(
            query_pieces(&p, &json!("a/b:c"), DeepArrays::Indexed),
            ["u=a%2Fb%3Ac"]
        );
        p.allow_reserved = true;
        assert_eq!(
            query_pieces(&p, &json!("a/b:c&d"), DeepArrays::Indexed),
            ["u=a/b:c%26d"]
        );
    }

    #[test]
    fn header_values_with_line_breaks_are_refused() {
        let p = param("X-Id", "simple", false);
        assert!(header_value(&p, &json!("ok\r\nEvil: 1")).is_err());
        assert!(header_value(&p, &json!("a\nb")).is_err());
        assert_eq!(header_value(&p, &json!([1, 2])).unwrap(), "1,2");
    }

    fn binding(encoding: Encoding, content_type: &'static str) -> BodyBinding {
        BodyBinding {
            property: "body".into(),
            content_type: content_type.into(),
            encoding,
            required: true,
            alternatives: Default::default(),
            parts: Default::default(),
        }
    }

    /// The body's bytes, when they are all in memory.
    fn encoded(encoding: Encoding, content_type: &'static str, value: &Value) -> (Vec<u8>, String) {
        let payload = body(
            &binding(encoding, content_type),
            value,
            &Gathered::default(),
            DeepArrays::Indexed,
        )
        .unwrap();
        (payload.in_memory().unwrap().to_vec(), payload.content_type)
    }

    /// A form body's text, with `parts` as the document's `encoding`.
    fn form(parts: Vec<crate::binding::PartBinding>, value: Value, arrays: DeepArrays) -> String {
        let mut binding = binding(Encoding::Form, "application/x-www-form-urlencoded");
        binding.parts = parts.into();
        let payload = body(&binding, &value, &Gathered::default(), arrays).unwrap();
        String::from_utf8(payload.in_memory().unwrap().to_vec()).unwrap()
    }

    fn deep(property: &'static str) -> crate::binding::PartBinding {
        crate::binding::PartBinding {
            property: property.into(),
            style: Some(Style::DeepObject),
            explode: Some(true),
            ..crate::binding::PartBinding::DEFAULT
        }
    }

    #[test]
    fn form_bodies_without_encoding_spread_objects_and_repeat_arrays() {
        // OpenAPI's default for a form body's property: style `form`, explode `true`.
        assert_eq!(
            form(
                vec![],
                json!({"color": ["blue", "black"], "rgb": {"R": 100, "G": 200}, "n": 1.0, "none": null}),
                DeepArrays::Indexed
            ),
            "color=blue&color=black&R=100&G=200&n=1"
        );
    }

    #[test]
    fn form_body_properties_follow_their_encoding_style() {
        let part = |style: Style, explode: bool| crate::binding::PartBinding {
            property: "color".into(),
            style: Some(style),
            explode: Some(explode),
            ..crate::binding::PartBinding::DEFAULT
        };
        let rows = [
            (part(Style::Form, false), "color=blue%2Cblack"),
            (part(Style::SpaceDelimited, false), "color=blue%20black"),
            (part(Style::PipeDelimited, false), "color=blue%7Cblack"),
            (
                part(Style::DeepObject, true),
                "color[0]=blue&color[1]=black",
            ),
        ];
        for (part, expected) in rows {
            assert_eq!(
                form(
                    vec![part],
                    json!({"color": ["blue", "black"]}),
                    DeepArrays::Indexed
                ),
                expected
            );
        }
        let json_part = crate::binding::PartBinding {
            property: "meta".into(),
            content_type: Some("application/json".into()),
            ..crate::binding::PartBinding::DEFAULT
        };
        assert_eq!(
            form(
                vec![json_part],
                json!({"meta": {"k": "v"}}),
                DeepArrays::Indexed
            ),
            "meta=%7B%22k%22%3A%22v%22%7D"
        );
        let reserved = crate::binding::PartBinding {
            property: "url".into(),
            allow_reserved: true,
            ..crate::binding::PartBinding::DEFAULT
        };
        assert_eq!(
            form(
                vec![reserved],
                json!({"url": "https://x/y?z&w"}),
                DeepArrays::Indexed
            ),
            "url=https://x/y?z%26w"
        );
    }

    #[test]
    fn form_body_deep_objects_nest_objects_and_arrays_to_any_depth() {
        // Stripe's `post_customers`, as Stripe's API reference writes it.
        let value = json!({
            "address": {"city": "X", "line1": "1 Main"},
            "metadata": {"k": "v"},
            "expand": ["default_source", "tax"],
            "email": "a@b.c",
        });
        let parts = vec![deep("address"), deep("metadata"), deep("expand")];
        assert_eq!(
            form(parts.clone(), value.clone(), DeepArrays::Indexed),
            "address[city]=X&address[line1]=1%20Main&metadata[k]=v\
             &expand[0]=default_source&expand[1]=tax&email=a%40b.c"
        );
        assert_eq!(
            form(parts, value, DeepArrays::Brackets),
            "address[city]=X&address[line1]=1%20Main&metadata[k]=v\
             &expand[]=default_source&expand[]=tax&email=a%40b.c"
        );
        // Checkout's line items: objects in an array in an object.
        assert_eq!(
            form(
                vec![deep("line_items")],
                json!({"line_items": [{"price": "p_1", "quantity": 2}, {"price_data": {"currency": "usd", "recurring": {"interval": "month"}}}]}),
                DeepArrays::Indexed
            ),
            "line_items[0][price]=p_1&line_items[0][quantity]=2\
             &line_items[1][price_data][currency]=usd&line_items[1][price_data][recurring][interval]=month"
        );
        // Stripe's empty string ("unset") is a value like any other.
        assert_eq!(
            form(
                vec![deep("metadata")],
                json!({"metadata": ""}),
                DeepArrays::Indexed
            ),
            "metadata="
        );
    }

    #[test]
    fn bodies_are_encoded_by_their_encoding() {
        let (bytes, ct) = encoded(
            Encoding::Form,
            "application/x-www-form-urlencoded",
            &json!({"a": "x y", "n": 1}),
        );
        assert_eq!(String::from_utf8(bytes).unwrap(), "a=x%20y&n=1");
        assert_eq!(ct, "application/x-www-form-urlencoded");
        let (bytes, _) = encoded(Encoding::Bytes, "image/png", &json!("aGk="));
        assert_eq!(bytes, b"hi");
        let none = Gathered::default();
        let arrays = DeepArrays::Indexed;
        assert!(
            body(
                &binding(Encoding::Bytes, "image/png"),
                &json!("%%%"),
                &none,
                arrays
            )
            .is_err()
        );
        let (bytes, ct) = encoded(
            Encoding::Multipart,
            "multipart/form-data",
            &json!({"a": "1"}),
        );
        assert!(ct.starts_with("multipart/form-data; boundary="));
        assert!(String::from_utf8(bytes).unwrap().contains("name=\"a\""));
    }

    #[test]
    fn each_multipart_body_gets_its_own_random_boundary() {
        let encode = |value: Value| encoded(Encoding::Multipart, "multipart/form-data", &value);
        let (_, first) = encode(json!({"a": "1"}));
        let (_, second) = encode(json!({"a": "1"}));
        assert_ne!(first, second);
        let boundary = first.trim_start_matches("multipart/form-data; boundary=");
        // A field quoting an earlier boundary cannot end its part.
        let (bytes, ct) = encode(json!({"a": format!("--{boundary}--")}));
        let own = ct.trim_start_matches("multipart/form-data; boundary=");
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.matches(&format!("--{own}")).count(), 2, "{text}");
    }

    #[test]
    fn multipart_parts_are_files_texts_json_and_one_part_per_array_item() {
        #[derive(serde::Serialize)]
        struct Form {
            photos: Vec<Upload>,
            note: &'static str,
            count: u8,
            meta: Value,
            tags: Vec<&'static str>,
            skipped: Option<u8>,
            raw: Upload,
        }
        let form = Form {
            photos: vec![
                Upload::bytes(&b"PNG1"[..]).file_name("a.png"),
                Upload::bytes(&b"JPG2"[..]).file_name("b.jpg"),
            ],
            note: "hi",
            count: 2,
            meta: json!({"k": "v"}),
            tags: vec!["x", "y"],
            skipped: None,
            raw: Upload::bytes(&b"\x00\x01"[..]),
        };
        let (value, uploads) = crate::upload::collect(|| serde_json::to_value(&form).unwrap());
        let mut binding = binding(Encoding::Multipart, "multipart/form-data");
        binding.parts = vec![crate::binding::PartBinding {
            property: "raw".into(),
            content_type: Some("audio/*".into()),
            ..crate::binding::PartBinding::DEFAULT
        }]
        .into();
        let payload = body(&binding, &value, &uploads, DeepArrays::Indexed).unwrap();
        let text = String::from_utf8(payload.in_memory().unwrap().to_vec()).unwrap();
        let b = payload
            .content_type
            .trim_start_matches("multipart/form-data; boundary=");
        let part = |head: &str, content: &str| format!("--{b}\r\n{head}\r\n\r\n{content}\r\n");
        let expected = [
            part("Content-Disposition: form-data; name=\"photos\"; filename=\"a.png\"\r\nContent-Type: image/png", "PNG1"),
            part("Content-Disposition: form-data; name=\"photos\"; filename=\"b.jpg\"\r\nContent-Type: image/jpeg", "JPG2"),
            part("Content-Disposition: form-data; name=\"note\"\r\nContent-Type: text/plain; charset=utf-8", "hi"),
            part("Content-Disposition: form-data; name=\"count\"\r\nContent-Type: text/plain", "2"),
            part("Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json", r#"{"k":"v"}"#),
            part("Content-Disposition: form-data; name=\"tags\"\r\nContent-Type: text/plain; charset=utf-8", "x"),
            part("Content-Disposition: form-data; name=\"tags\"\r\nContent-Type: text/plain; charset=utf-8", "y"),
            // A declared range says nothing exact, and no file name suggests a type.
            part("Content-Disposition: form-data; name=\"raw\"; filename=\"raw\"\r\nContent-Type: application/octet-stream", "\u{0}\u{1}"),
            format!("--{b}--\r\n"),
        ]
        .concat();
        assert_eq!(text, expected);
    }

    #[test]
    fn outside_multipart_and_binary_bodies_an_upload_is_base64_and_a_file_is_refused() {
        let (value, uploads) =
            crate::upload::collect(|| json!({"image": Upload::bytes(&b"hi"[..])}));
        let payload = body(
            &binding(Encoding::Json, "application/json"),
            &value,
            &uploads,
            DeepArrays::Indexed,
        )
        .unwrap();
        assert_eq!(&payload.in_memory().unwrap()[..], br#"{"image":"aGk="}"#);
        let (value, uploads) = crate::upload::collect(|| json!({"image": Upload::path("/a.png")}));
        let refused = body(
            &binding(Encoding::Json, "application/json"),
            &value,
            &uploads,
            DeepArrays::Indexed,
        );
        assert!(refused.unwrap_err().0.contains("/body/image"));
    }

    #[test]
    fn a_file_named_where_no_binary_value_is_declared_is_refused_never_sent_as_its_path() {
        let value = json!({"doc": crate::upload::file_reference("/etc/passwd")});
        for (encoding, content_type) in [
            (Encoding::Multipart, "multipart/form-data"),
            (Encoding::Json, "application/json"),
            (Encoding::Form, "application/x-www-form-urlencoded"),
        ] {
            let refused = body(
                &binding(encoding, content_type),
                &value,
                &Gathered::default(),
                DeepArrays::Indexed,
            )
            .unwrap_err();
            assert!(refused.0.contains("/body/doc"), "{}", refused.0);
            assert!(!refused.0.contains("passwd"));
        }
    }

    #[test]
    fn a_part_media_type_cannot_add_lines_to_the_part() {
        let upload = Upload::bytes(&b"x"[..]).content_type("text/plain\r\nX-Evil: 1");
        let (value, uploads) = crate::upload::collect(|| json!({"file": upload}));
        let refused = body(
            &binding(Encoding::Multipart, "multipart/form-data"),
            &value,
            &uploads,
            DeepArrays::Indexed,
        );
        assert!(refused.unwrap_err().0.contains("line break"));
    }

    #[test]
    fn an_upload_body_keeps_its_file_for_sending_and_takes_its_media_type() {
        let upload = Upload::path("/data/song.mp3");
        let (value, uploads) = crate::upload::collect(|| serde_json::to_value(&upload).unwrap());
        let payload = body(
            &binding(Encoding::Bytes, "audio/*"),
            &value,
            &uploads,
            DeepArrays::Indexed,
        )
        .unwrap();
        assert_eq!(payload.content_type, "audio/mpeg");
        assert!(payload.in_memory().is_none());
        assert!(matches!(&payload.pieces[..], [Piece::Upload { at, .. }] if at == "/body"));
        let declared = body(
            &binding(Encoding::Bytes, "application/pdf"),
            &value,
            &uploads,
            DeepArrays::Indexed,
        );
        assert_eq!(declared.unwrap().content_type, "application/pdf");
    }
}

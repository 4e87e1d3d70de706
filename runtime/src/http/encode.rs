//! Serializing input values onto the wire as a binding says: path, query, header and cookie
//! parameters by style and explode, and request bodies by encoding. A value can never change
//! the request's structure: path values are percent-encoded (and `.`/`..` refused), header
//! values with CR or LF are refused.

use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use crate::binding::{BodyBinding, Encoding, ParamBinding, Style};
use crate::upload::{Gathered, Upload};

/// Everything but RFC 3986 unreserved characters is encoded in path values.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` as one path segment: everything but unreserved characters percent-encoded (the
/// dashboard's links to tool pages).
#[cfg(feature = "dashboard")]
pub(crate) fn path_segment(text: &str) -> impl std::fmt::Display + '_ {
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

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

/// Flat (key, value) pairs of an object, nested values as JSON text.
fn pairs(map: &Map<String, Value>) -> Vec<(String, String)> {
    map.iter()
        .map(|(k, v)| (k.clone(), scalar(v).unwrap_or_else(|| v.to_string())))
        .collect()
}

fn items(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|v| scalar(v).unwrap_or_else(|| v.to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The text a path parameter takes in the path (`simple`, `label` or `matrix` style).
pub fn path_value(param: &ParamBinding, value: &Value) -> Result<String, Refused> {
    let enc = |s: &str| utf8_percent_encode(s, PATH).to_string();
    if let Some(text) = scalar(value)
        && (text == "." || text == "..")
    {
        return Err(Refused(format!(
            "path parameter `{}` cannot be `.` or `..`: it would change the path",
            param.name
        )));
    }
    let (prefix, sep) = match param.style {
        Style::Label => (".".to_string(), if param.explode { "." } else { "," }),
        Style::Matrix => (
            format!(";{}=", enc(&param.name)),
            if param.explode { ";" } else { "," },
        ),
        _ => (String::new(), ","),
    };
    let body = match value {
        Value::Array(_) => items(value)
            .iter()
            .map(|i| enc(i))
            .collect::<Vec<_>>()
            .join(sep),
        Value::Object(map) => {
            let kv = pairs(map);
            if param.explode {
                kv.iter()
                    .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
                    .collect::<Vec<_>>()
                    .join(sep)
            } else {
                kv.iter()
                    .flat_map(|(k, v)| [enc(k), enc(v)])
                    .collect::<Vec<_>>()
                    .join(",")
            }
        }
        other => enc(&scalar(other).unwrap_or_default()),
    };
    Ok(format!("{prefix}{body}"))
}

/// `name=value` pieces (already encoded) a query parameter adds to the query string.
pub fn query_pieces(param: &ParamBinding, value: &Value) -> Vec<String> {
    let set = if param.allow_reserved {
        QUERY_RESERVED
    } else {
        QUERY
    };
    let enc = |s: &str| utf8_percent_encode(s, set).to_string();
    let name = enc(&param.name);
    if let Some(content_type) = &param.content_type
        && Encoding::of(content_type) == Encoding::Json
    {
        return vec![format!("{name}={}", enc(&value.to_string()))];
    }
    match (param.style, value) {
        (Style::DeepObject, Value::Object(map)) => pairs(map)
            .iter()
            .map(|(k, v)| format!("{name}%5B{}%5D={}", enc(k), enc(v)))
            .collect(),
        (_, Value::Object(map)) if param.explode => pairs(map)
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect(),
        (_, Value::Object(map)) => {
            let joined = pairs(map)
                .iter()
                .flat_map(|(k, v)| [enc(k), enc(v)])
                .collect::<Vec<_>>()
                .join(",");
            vec![format!("{name}={joined}")]
        }
        (style, Value::Array(_)) => {
            let values = items(value);
            if param.explode && style == Style::Form {
                values
                    .iter()
                    .map(|v| format!("{name}={}", enc(v)))
                    .collect()
            } else {
                let sep = match style {
                    Style::SpaceDelimited => "%20",
                    Style::PipeDelimited => "%7C",
                    _ => ",",
                };
                vec![format!(
                    "{name}={}",
                    values.iter().map(|v| enc(v)).collect::<Vec<_>>().join(sep)
                )]
            }
        }
        (_, other) => vec![format!(
            "{name}={}",
            enc(&scalar(other).unwrap_or_default())
        )],
    }
}

/// A header value (`simple` style). CR and LF are refused.
pub fn header_value(param: &ParamBinding, value: &Value) -> Result<String, Refused> {
    let text = match value {
        Value::Array(_) => items(value).join(","),
        Value::Object(map) => {
            let kv = pairs(map);
            if param.explode {
                kv.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            } else {
                kv.iter()
                    .flat_map(|(k, v)| [k.clone(), v.clone()])
                    .collect::<Vec<_>>()
                    .join(",")
            }
        }
        other => scalar(other).unwrap_or_default(),
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

/// A `name=value` cookie pair.
pub fn cookie_pair(param: &ParamBinding, value: &Value) -> Result<String, Refused> {
    let text = match value {
        Value::Array(_) => items(value).join(","),
        other => scalar(other).unwrap_or_else(|| other.to_string()),
    };
    let encoded = utf8_percent_encode(&text, QUERY).to_string();
    check_header(&param.name, &encoded)?;
    Ok(format!("{}={encoded}", param.name))
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

/// The body for `value` as `binding` says to send it; `uploads` are those the input held.
pub fn body(binding: &BodyBinding, value: &Value, uploads: &Gathered) -> Result<Payload, Refused> {
    let property = binding.property.as_ref();
    let content_type = binding.content_type.as_ref();
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
            let text = pairs(map)
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}={}",
                        utf8_percent_encode(k, QUERY),
                        utf8_percent_encode(v, QUERY)
                    )
                })
                .collect::<Vec<_>>()
                .join("&");
            Ok(Payload::whole(content_type, text))
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
        let at = format!("/{}/{}", binding.property, crate::pointer::escape(name));
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
                scalar => (scalar.to_string(), declared.unwrap_or("text/plain")),
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
    fn path_styles_follow_the_specification() {
        assert_eq!(
            path_value(&param("c", "label", false), &json!(["a", "b"])).unwrap(),
            ".a,b"
        );
        assert_eq!(
            path_value(&param("c", "label", true), &json!(["a", "b"])).unwrap(),
            ".a.b"
        );
        assert_eq!(
            path_value(&param("c", "matrix", false), &json!("x")).unwrap(),
            ";c=x"
        );
        assert_eq!(
            path_value(&param("c", "simple", true), &json!({"a": 1, "b": 2})).unwrap(),
            "a=1,b=2"
        );
    }

    #[test]
    fn query_styles_follow_the_specification() {
        assert_eq!(
            query_pieces(&param("t", "form", true), &json!(["a", "b c"])),
            ["t=a", "t=b%20c"]
        );
        assert_eq!(
            query_pieces(&param("t", "form", false), &json!(["a", "b"])),
            ["t=a,b"]
        );
        assert_eq!(
            query_pieces(&param("t", "spaceDelimited", false), &json!(["a", "b"])),
            ["t=a%20b"]
        );
        assert_eq!(
            query_pieces(&param("t", "pipeDelimited", false), &json!(["a", "b"])),
            ["t=a%7Cb"]
        );
        assert_eq!(
            query_pieces(&param("f", "deepObject", true), &json!({"x": 1})),
            ["f%5Bx%5D=1"]
        );
        assert_eq!(
            query_pieces(&param("f", "form", true), &json!({"x": 1, "y": "z"})),
            ["x=1", "y=z"]
        );
        assert_eq!(
            query_pieces(&param("q", "form", true), &json!("a&b=c")),
            ["q=a%26b%3Dc"]
        );
    }

    #[test]
    fn reserved_characters_stay_only_when_allowed() {
        let mut p = param("u", "form", true);
        assert_eq!(query_pieces(&p, &json!("a/b:c")), ["u=a%2Fb%3Ac"]);
        p.allow_reserved = true;
        assert_eq!(query_pieces(&p, &json!("a/b:c&d")), ["u=a/b:c%26d"]);
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
        )
        .unwrap();
        (payload.in_memory().unwrap().to_vec(), payload.content_type)
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
        assert!(body(&binding(Encoding::Bytes, "image/png"), &json!("%%%"), &none).is_err());
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
            content_type: "audio/*".into(),
        }]
        .into();
        let payload = body(&binding, &value, &uploads).unwrap();
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
        )
        .unwrap();
        assert_eq!(&payload.in_memory().unwrap()[..], br#"{"image":"aGk="}"#);
        let (value, uploads) = crate::upload::collect(|| json!({"image": Upload::path("/a.png")}));
        let refused = body(
            &binding(Encoding::Json, "application/json"),
            &value,
            &uploads,
        );
        assert!(refused.unwrap_err().0.contains("/body/image"));
    }

    #[test]
    fn a_part_media_type_cannot_add_lines_to_the_part() {
        let upload = Upload::bytes(&b"x"[..]).content_type("text/plain\r\nX-Evil: 1");
        let (value, uploads) = crate::upload::collect(|| json!({"file": upload}));
        let refused = body(
            &binding(Encoding::Multipart, "multipart/form-data"),
            &value,
            &uploads,
        );
        assert!(refused.unwrap_err().0.contains("line break"));
    }

    #[test]
    fn an_upload_body_keeps_its_file_for_sending_and_takes_its_media_type() {
        let upload = Upload::path("/data/song.mp3");
        let (value, uploads) = crate::upload::collect(|| serde_json::to_value(&upload).unwrap());
        let payload = body(&binding(Encoding::Bytes, "audio/*"), &value, &uploads).unwrap();
        assert_eq!(payload.content_type, "audio/mpeg");
        assert!(payload.in_memory().is_none());
        assert!(matches!(&payload.pieces[..], [Piece::Upload { at, .. }] if at == "/body"));
        let declared = body(
            &binding(Encoding::Bytes, "application/pdf"),
            &value,
            &uploads,
        );
        assert_eq!(declared.unwrap().content_type, "application/pdf");
    }
}

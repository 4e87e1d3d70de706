//! Serializing input values onto the wire as a binding says: path, query, header and cookie
//! parameters by style and explode, and request bodies by encoding. A value can never change
//! the request's structure: path values are percent-encoded (and `.`/`..` refused), header
//! values with CR or LF are refused.

use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use crate::binding::{Encoding, ParamBinding, Style};

/// Everything but RFC 3986 unreserved characters is encoded in path values.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

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

/// The bytes of a request body and its content type.
pub fn body(
    encoding: Encoding,
    content_type: &str,
    value: &Value,
    property: &str,
) -> Result<(Vec<u8>, String), Refused> {
    match encoding {
        Encoding::Json => Ok((value.to_string().into_bytes(), content_type.to_string())),
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
            Ok((text.into_bytes(), content_type.to_string()))
        }
        Encoding::Multipart => {
            let Value::Object(map) = value else {
                return Err(Refused(format!(
                    "`{property}` must be an object to be sent as multipart"
                )));
            };
            multipart(map)
        }
        Encoding::Text => match value {
            Value::String(s) => Ok((s.clone().into_bytes(), content_type.to_string())),
            other => Ok((other.to_string().into_bytes(), content_type.to_string())),
        },
        Encoding::Bytes => {
            let Value::String(text) = value else {
                return Err(Refused(format!("`{property}` must be base64 text")));
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|_| Refused(format!("`{property}` is not valid base64")))?;
            Ok((bytes, content_type.to_string()))
        }
    }
}

/// A `multipart/form-data` body with a random boundary per request (a fixed one could be
/// forged by a field's text), one that no field's text contains.
fn multipart(map: &Map<String, Value>) -> Result<(Vec<u8>, String), Refused> {
    let texts: Vec<String> = map
        .values()
        .map(|value| match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let boundary = (0..4)
        .find_map(|_| {
            let bytes = super::random::<12>()?;
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let boundary = format!("harness-gen-{hex}");
            (!texts.iter().any(|t| t.contains(&boundary))).then_some(boundary)
        })
        .ok_or_else(|| Refused("no random multipart boundary could be made".to_string()))?;
    let mut out = Vec::new();
    for (name, value) in map {
        if name.contains(['"', '\r', '\n']) {
            return Err(Refused(
                "a multipart field name contains a quote or a line break".to_string(),
            ));
        }
        let (text, kind) = match value {
            Value::String(s) => (s.clone(), "text/plain; charset=utf-8"),
            other => (other.to_string(), "application/json"),
        };
        out.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\nContent-Type: {kind}\r\n\r\n").as_bytes(),
        );
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((out, format!("multipart/form-data; boundary={boundary}")))
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

    #[test]
    fn bodies_are_encoded_by_their_encoding() {
        let (bytes, ct) = body(
            Encoding::Form,
            "application/x-www-form-urlencoded",
            &json!({"a": "x y", "n": 1}),
            "body",
        )
        .unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), "a=x%20y&n=1");
        assert_eq!(ct, "application/x-www-form-urlencoded");
        let (bytes, _) = body(Encoding::Bytes, "image/png", &json!("aGk="), "body").unwrap();
        assert_eq!(bytes, b"hi");
        assert!(body(Encoding::Bytes, "image/png", &json!("%%%"), "body").is_err());
        let (bytes, ct) = body(
            Encoding::Multipart,
            "multipart/form-data",
            &json!({"a": "1"}),
            "body",
        )
        .unwrap();
        assert!(ct.starts_with("multipart/form-data; boundary="));
        assert!(String::from_utf8(bytes).unwrap().contains("name=\"a\""));
    }

    #[test]
    fn each_multipart_body_gets_its_own_random_boundary() {
        let encode = |value: Value| {
            body(Encoding::Multipart, "multipart/form-data", &value, "body").unwrap()
        };
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
}

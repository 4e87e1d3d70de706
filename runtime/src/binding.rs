//! The OpenAPI protocol binding recorded in a tool's `source.binding`: where each input property
//! goes on the wire, which media types travel, which responses are success and which are
//! declared errors, and the security alternatives. The generator writes it; the HTTP client, the
//! CLI and the docs read it, so none of them re-derives it from the document.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One operation's binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    /// Uppercase HTTP method.
    pub method: String,
    /// Path template, e.g. `/pets/{petId}`.
    pub path: String,
    /// Parameters, in input-schema order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<ParamBinding>,
    /// The request body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<BodyBinding>,
    /// The success response that carries the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseBinding>,
    /// Declared error responses with JSON bodies, most specific first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ErrorBinding>,
    /// Security alternatives (OR) of scheme names (AND); `[]` is anonymous.
    #[serde(default)]
    pub security: Vec<Vec<String>>,
}

/// Where a parameter goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamIn {
    /// In the path template.
    Path,
    /// In the query string.
    Query,
    /// A request header.
    Header,
    /// A cookie.
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
}

/// One parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParamBinding {
    /// Input property.
    pub property: String,
    /// Location.
    #[serde(rename = "in")]
    pub location: ParamIn,
    /// Name on the wire.
    pub name: String,
    /// Serialization style (`simple`, `form`, `label`, `matrix`, `spaceDelimited`,
    /// `pipeDelimited`, `deepObject`).
    pub style: String,
    /// Explode.
    pub explode: bool,
    /// Required.
    pub required: bool,
    /// Reserved characters sent unencoded (query only).
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_reserved: bool,
    /// Media type of a `content` parameter (sent as serialized text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// How a body travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BodyBinding {
    /// Input property (`body`).
    pub property: String,
    /// The media type sent.
    pub content_type: String,
    /// Its encoding.
    pub encoding: Encoding,
    /// Whether it is required.
    pub required: bool,
    /// Other media types the operation accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
}

/// The success response carrying the output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseBinding {
    /// `200`, `2XX`, …
    pub status: String,
    /// Media type.
    pub content_type: String,
    /// How the body is read.
    pub encoding: Encoding,
}

/// A declared error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBinding {
    /// `http_<status key>`.
    pub kind: String,
    /// `404`, `4XX` or `default`.
    pub status: String,
    /// Media type.
    pub content_type: String,
}

impl ErrorBinding {
    /// How well this declared response matches `status`: 3 exact, 2 range, 1 default, 0 no.
    pub fn matches(&self, status: u16) -> u8 {
        let key = self.status.as_str();
        if key == "default" {
            return 1;
        }
        if key.len() == 3 && key.ends_with("XX") {
            return if key.as_bytes()[0] == b'0' + (status / 100) as u8 {
                2
            } else {
                0
            };
        }
        if key.parse::<u16>().is_ok_and(|code| code == status) {
            3
        } else {
            0
        }
    }
}

impl Binding {
    /// The binding as the JSON object stored in `source.binding`.
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    /// The declared error response for `status`, most specific first.
    pub fn error_for(&self, status: u16) -> Option<&ErrorBinding> {
        self.errors
            .iter()
            .filter(|e| e.matches(status) > 0)
            .max_by_key(|e| e.matches(status))
    }

    /// Whether the method is idempotent (safe to retry).
    pub fn idempotent(&self) -> bool {
        matches!(
            self.method.as_str(),
            "GET" | "HEAD" | "OPTIONS" | "TRACE" | "PUT" | "DELETE"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(status: &str) -> ErrorBinding {
        ErrorBinding {
            kind: format!("http_{status}"),
            status: status.to_string(),
            content_type: "application/json".into(),
        }
    }

    #[test]
    fn exact_codes_beat_ranges_beat_default() {
        let binding = Binding {
            method: "GET".into(),
            path: "/".into(),
            parameters: vec![],
            body: None,
            response: None,
            errors: vec![error("default"), error("4XX"), error("404")],
            security: vec![],
        };
        assert_eq!(binding.error_for(404).unwrap().kind, "http_404");
        assert_eq!(binding.error_for(409).unwrap().kind, "http_4XX");
        assert_eq!(binding.error_for(500).unwrap().kind, "http_default");
    }

    #[test]
    fn media_types_map_to_encodings() {
        assert_eq!(
            Encoding::of("application/json; charset=utf-8"),
            Encoding::Json
        );
        assert_eq!(Encoding::of("application/vnd.api+json"), Encoding::Json);
        assert_eq!(Encoding::of("text/csv"), Encoding::Text);
        assert_eq!(Encoding::of("image/png"), Encoding::Bytes);
    }
}

//! Which replies are success and which are declared errors, by status key.

use super::*;

/// The success response carrying the output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResponseBinding {
    /// The response's key in the document.
    pub status: StatusKey,
    /// The media type asked for (`Accept`).
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub content_type: Text,
    /// How the body is read: JSON is parsed, text kept as a string, anything else base64.
    pub encoding: Encoding,
}

impl ResponseBinding {
    /// The success response with `status`, read as `encoding` from `content_type`.
    pub const fn new(status: StatusKey, content_type: &'static str, encoding: Encoding) -> Self {
        ResponseBinding {
            status,
            content_type: Cow::Borrowed(content_type),
            encoding,
        }
    }

    /// Whether the response's chosen media type is an event stream (`text/event-stream`): the
    /// operation answers only with events, having no media type preferred to it.
    pub fn is_event_stream(&self) -> bool {
        self.content_type.starts_with("text/event-stream")
    }
}

/// A declared error response with a JSON body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(schemars::JsonSchema, ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorBinding {
    /// The response's key in the document; the error variant's `kind` is `http_<key>`.
    pub status: StatusKey,
    /// The JSON media type its body is read as.
    #[cfg_attr(feature = "artifacts", ts(as = "String"))]
    pub content_type: Text,
}

impl ErrorBinding {
    /// The `kind` of the error variant this response becomes: `http_<status key>`.
    pub fn kind(&self) -> String {
        format!("http_{}", self.status)
    }
}

/// A response key of an OpenAPI `responses` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatusKey {
    /// One status code, 100 to 599.
    Code(u16),
    /// A range of a hundred codes: `Range(4)` is `4XX`; 1 to 5.
    Range(u8),
    /// `default`: any status not declared otherwise.
    Default,
}

impl StatusKey {
    /// The key a `responses` object uses: `100`–`599`, `1XX`–`5XX` (the specification's
    /// uppercase `X`) or `default`.
    pub fn parse(key: &str) -> Option<StatusKey> {
        let bytes = key.as_bytes();
        if key == "default" {
            return Some(StatusKey::Default);
        }
        if bytes.len() != 3 || !(b'1'..=b'5').contains(&bytes[0]) {
            return None;
        }
        if &key[1..] == "XX" {
            return Some(StatusKey::Range(bytes[0] - b'0'));
        }
        key.parse().ok().map(StatusKey::Code)
    }

    /// How well `status` matches: 3 exact, 2 range, 1 default, 0 not at all.
    pub fn matches(self, status: u16) -> u8 {
        match self {
            StatusKey::Code(code) if code == status => 3,
            StatusKey::Range(hundred) if u16::from(hundred) == status / 100 => 2,
            StatusKey::Default => 1,
            _ => 0,
        }
    }

    /// Whether the key names success (`2xx`).
    pub fn is_success(self) -> bool {
        match self {
            StatusKey::Code(code) => (200..300).contains(&code),
            StatusKey::Range(hundred) => hundred == 2,
            StatusKey::Default => false,
        }
    }

    /// The statuses the key covers, inclusive.
    pub fn span(self) -> (u16, u16) {
        match self {
            StatusKey::Code(code) => (code, code),
            StatusKey::Range(hundred) => (u16::from(hundred) * 100, u16::from(hundred) * 100 + 99),
            StatusKey::Default => (100, 599),
        }
    }
}

impl fmt::Display for StatusKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusKey::Code(code) => write!(f, "{code}"),
            StatusKey::Range(hundred) => write!(f, "{hundred}XX"),
            StatusKey::Default => f.write_str("default"),
        }
    }
}

impl Serialize for StatusKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for StatusKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        StatusKey::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{text}` is not a status key: a code 100-599, a range 1XX-5XX or `default`"
            ))
        })
    }
}

#[cfg(feature = "artifacts")]
impl schemars::JsonSchema for StatusKey {
    fn schema_name() -> Cow<'static, str> {
        "StatusKey".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A response key of the OpenAPI `responses` object: a status code 100-599, a range 1XX-5XX, or `default`.",
            "type": "string",
            "pattern": "^([1-5][0-9][0-9]|[1-5]XX|default)$"
        })
    }
}

#[cfg(feature = "artifacts")]
impl ts_rs::TS for StatusKey {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn name(_: &ts_rs::Config) -> String {
        "StatusKey".into()
    }

    fn decl(_: &ts_rs::Config) -> String {
        "type StatusKey = `${1 | 2 | 3 | 4 | 5}${number}` | `${1 | 2 | 3 | 4 | 5}XX` | \"default\";"
            .into()
    }

    fn decl_concrete(cfg: &ts_rs::Config) -> String {
        Self::decl(cfg)
    }

    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

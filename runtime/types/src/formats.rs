//! The Rust types of formatted values in generated types: what a schema's `format` says a
//! string holds.
//!
//! | schema | Rust |
//! |---|---|
//! | `string`, `format: date-time` | [`DateTime`] (`chrono::DateTime<Utc>`; RFC 3339 with any offset on the wire, read as UTC) |
//! | `string`, `format: date` | [`Date`] (`chrono::NaiveDate`; `2024-05-31`) |
//! | `string`, `format: uuid` | [`Uuid`] |
//! | `string`, `format: byte` | [`Bytes`] (base64 text in JSON) |
//! | `string`, `format: binary` | [`Upload`] (bytes, a file or a stream when sent; base64 text in JSON) |
//!
//! The date types need this crate's `dates` feature (generated crates turn it on by default;
//! without it they write those fields as `String`). [`chrono`] is the date crate because it is
//! already in the dependency tree of every generated MCP server (through `rmcp` and `schemars`),
//! so choosing it costs those builds no extra crate, and it is the one the API crates people
//! compare against (octocrab, progenitor's output) use.
//!
//! A malformed value is a deserialization error that says what was expected and never repeats
//! the value (see [`mask_serde_message`](harness_gen_wire::mask_serde_message)).

use std::fmt;

use base64::Engine;
use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

pub use crate::upload::Upload;
#[cfg(feature = "dates")]
pub use chrono;
pub use uuid::Uuid;

/// A `format: date-time` value: an instant, in UTC.
#[cfg(feature = "dates")]
pub type DateTime = chrono::DateTime<chrono::Utc>;

/// A `format: date` value: a calendar date.
#[cfg(feature = "dates")]
pub type Date = chrono::NaiveDate;

/// Bytes that travel as base64 text (`format: byte`).
///
/// Written with the standard alphabet and padding; read with the standard or the URL-safe
/// alphabet, padded or not (servers differ).
///
/// ```
/// use harness_gen_types::formats::Bytes;
///
/// let bytes: Bytes = serde_json::from_str(r#""aGk=""#).unwrap();
/// assert_eq!(&*bytes, b"hi");
/// assert_eq!(serde_json::to_string(&Bytes::from(b"hi".to_vec())).unwrap(), r#""aGk=""#);
/// let url_safe: Bytes = serde_json::from_str(r#""-_8""#).unwrap();
/// assert_eq!(&*url_safe, &[0xfb, 0xff]);
/// assert!(serde_json::from_str::<Bytes>(r#""not base64!""#).is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// The bytes.
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({} bytes)", self.0.len())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }
}

impl From<&[u8]> for Bytes {
    fn from(bytes: &[u8]) -> Self {
        Self(bytes.to_vec())
    }
}

impl From<Bytes> for Vec<u8> {
    fn from(bytes: Bytes) -> Self {
        bytes.0
    }
}

impl serde::Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> serde::Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Base64Text)
    }
}

/// Reads base64 text in either alphabet, padded or not.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurposeConfig =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    const STANDARD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
    const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);
    let text = text.trim();
    if text.contains(['-', '_']) {
        URL_SAFE.decode(text).ok()
    } else {
        STANDARD.decode(text).ok()
    }
}

struct Base64Text;

impl Visitor<'_> for Base64Text {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("base64 text")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Bytes, E> {
        decode_base64(text)
            .map(Bytes)
            .ok_or_else(|| E::custom("invalid base64 text"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_either_alphabet_padded_or_not() {
        for text in ["+/8=", "+/8", "-_8=", "-_8"] {
            assert_eq!(decode_base64(text), Some(vec![0xfb, 0xff]), "{text}");
        }
        assert_eq!(decode_base64(""), Some(vec![]));
        assert_eq!(decode_base64("+_8"), None);
    }

    #[test]
    fn malformed_formats_are_errors_that_do_not_repeat_the_value() {
        let bytes = serde_json::from_str::<Bytes>(r#""sekret!""#).unwrap_err();
        assert!(!bytes.to_string().contains("sekret"), "{bytes}");
        let uuid = serde_json::from_str::<Uuid>(r#""sekret""#).unwrap_err();
        let masked = harness_gen_wire::mask_serde_message(&uuid.to_string());
        assert!(
            !masked.contains("sekret") && !masked.contains('`'),
            "{masked}"
        );
        #[cfg(feature = "dates")]
        {
            let date = serde_json::from_str::<DateTime>(r#""sekret""#).unwrap_err();
            assert!(!date.to_string().contains("sekret"), "{date}");
            let day = serde_json::from_str::<Date>(r#""2024-02-30""#).unwrap_err();
            assert!(!day.to_string().contains("2024"), "{day}");
        }
    }

    #[cfg(feature = "dates")]
    #[test]
    fn date_times_take_any_offset_and_write_utc() {
        let at: DateTime = serde_json::from_str(r#""2024-05-31T12:00:00+02:00""#).unwrap();
        assert_eq!(
            serde_json::to_string(&at).unwrap(),
            r#""2024-05-31T10:00:00Z""#
        );
        let day: Date = serde_json::from_str(r#""2024-05-31""#).unwrap();
        assert_eq!(serde_json::to_string(&day).unwrap(), r#""2024-05-31""#);
    }
}

//! Canonical JSON and the hashes taken over it: object keys sorted by bytes, no whitespace,
//! arrays in order, strings escaped as a standard JSON serializer does, integers printed
//! plainly. Equal values give equal bytes whatever order their fields were built in.

use serde::Serialize;
use serde_json::Value;
/// The largest integer an IEEE double represents exactly (2^53). Larger integers would print
/// differently in other implementations, so the compiler refuses them.
pub const MAX_EXACT_INTEGER: u64 = 1 << 53;

/// The canonical JSON text of `value`.
pub fn canonical_json<T: Serialize + ?Sized>(value: &T) -> String {
    // Serializing the IR's own types cannot fail: every map key is a string.
    canonical_text(&serde_json::to_value(value).unwrap_or(Value::Null))
}

/// [`canonical_json`] of a value that is already JSON (no copy made).
fn canonical_text(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::String(text) => write_string(text, out),
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push_str(&Value::from(text).to_string());
}

/// Hex of the SHA-256 of `text`.
/// `"sha256:" + hex(sha256(canonical(value)))`.
pub fn content_hash<T: Serialize + ?Sized>(value: &T) -> String {
    format!(
        "sha256:{}",
        crate::sha256::hex(canonical_json(value).as_bytes())
    )
}

/// `"hr_"` + the first 32 hex digits of the SHA-256 of the canonical JSON of `value` (a
/// revision without its `revisionId`).
pub fn revision_id(value: &Value) -> String {
    let mut hex = crate::sha256::hex(canonical_text(value).as_bytes());
    hex.truncate(32);
    format!("hr_{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_by_bytes_at_every_depth_and_whitespace_is_dropped() {
        let value = json!({"b": 1, "a": {"z": [true, null], "B": "x"}, "_": []});
        assert_eq!(
            canonical_json(&value),
            r#"{"_":[],"a":{"B":"x","z":[true,null]},"b":1}"#
        );
    }

    #[test]
    fn strings_are_escaped_like_a_standard_serializer() {
        let value = json!("q\"b\\n\nt\tc\u{1}/é");
        assert_eq!(canonical_json(&value), r#""q\"b\\n\nt\tc\u0001/é""#);
    }
}

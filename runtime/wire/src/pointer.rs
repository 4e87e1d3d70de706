//! JSON pointer segments (RFC 6901), for every part of the runtime that names a place in a
//! value: validation issues, upload and multipart errors, schema walks.

/// Escapes one JSON pointer segment (`~` → `~0`, `/` → `~1`).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Unescapes one JSON pointer segment (`~1` → `/`, `~0` → `~`).
pub fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

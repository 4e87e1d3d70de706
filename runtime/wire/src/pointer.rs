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

/// Sets the member `pointer` names to `new` in the object that holds it (`/body/stream`: the
/// member `stream` of the object at `/body`); whether there was such an object.
pub fn set(value: &mut serde_json::Value, pointer: &str, new: serde_json::Value) -> bool {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return false;
    };
    match value.pointer_mut(parent) {
        Some(serde_json::Value::Object(fields)) => {
            fields.insert(unescape(key), new);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn set_writes_a_member_of_an_existing_object_only() {
        let mut input = json!({"body": {"model": "m"}, "a/b": {}});
        assert!(super::set(&mut input, "/body/stream", json!(true)));
        assert!(super::set(&mut input, "/stream", json!(true)));
        assert!(super::set(&mut input, "/a~1b/x", json!(1)));
        assert!(!super::set(&mut input, "/missing/stream", json!(true)));
        assert_eq!(
            input,
            json!({"body": {"model": "m", "stream": true}, "stream": true, "a/b": {"x": 1}})
        );
    }
}

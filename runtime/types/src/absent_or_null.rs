//! Serde helpers for fields that may be absent (`None`) or null (`Some(None)`):
//! `#[serde(default, skip_serializing_if = "Option::is_none", with = "harness_gen_types::absent_or_null")]`.
//! Generated structs need neither: serde writes `Some(None)` as `null` on its own (JSON writes
//! `Some(x)` as `x`), and their [`crate::object::Object`] loop reads a present field as
//! `Some(value)`, which is what `deserialize` does. For hand-written types.

/// Writes `Some(None)` as `null` (`None` is skipped by the field attribute).
pub fn serialize<T: serde::Serialize, S: serde::Serializer>(
    value: &Option<Option<T>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(inner) => serde::Serialize::serialize(inner, serializer),
        None => serializer.serialize_none(),
    }
}

/// Reads a present value, `null` included, as `Some`.
pub fn deserialize<'de, T: serde::Deserialize<'de>, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    <Option<T> as serde::Deserialize>::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct S {
        #[serde(default, skip_serializing_if = "Option::is_none", with = "super")]
        tag: Option<Option<String>>,
    }

    #[test]
    fn absent_null_and_present_stay_apart() {
        for (json, value) in [
            ("{}", None),
            (r#"{"tag":null}"#, Some(None)),
            (r#"{"tag":"a"}"#, Some(Some("a".to_string()))),
        ] {
            let parsed: S = serde_json::from_str(json).unwrap();
            assert_eq!(parsed, S { tag: value });
            assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
        }
    }
}

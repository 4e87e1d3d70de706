//! Unions told apart by one property's value (`discriminator`, or members that each pin a
//! property to one value, as Stripe's `object` and OpenAI's `type` do): generated as an enum
//! with a variant per member and an `Unknown` variant that keeps any other value as sent, so a
//! member the API adds later reads instead of failing.
//!
//! The value is read once, its tag looked up, and only the member it names is tried: an error
//! inside that member is reported as that member's, not as "no variant matched".

#[doc(hidden)]
pub use serde::{Serialize, Serializer};
#[doc(hidden)]
pub use serde_json::Value;

/// Implements `Serialize` and `Deserialize` for a generated tagged union: its name, the tag
/// property's wire name, then each variant with the tag values that select it. The enum must
/// also have an `Unknown(serde_json::Value)` variant, which takes every other value (and values
/// without the tag). A variant serializes as its member, which carries the tag itself.
///
/// ```
/// #[derive(Debug, serde::Serialize, serde::Deserialize)]
/// struct Card { object: String, last4: String }
/// #[derive(Debug, serde::Serialize, serde::Deserialize)]
/// struct Bank { object: String, bank_name: String }
///
/// #[derive(Debug)]
/// enum Source { Card(Card), Bank(Bank), Unknown(serde_json::Value) }
/// harness_gen_types::tagged! { Source "object" { Card("card"), Bank("bank_account", "bank") } }
///
/// let card: Source = serde_json::from_str(r#"{"object": "card", "last4": "4242"}"#).unwrap();
/// assert!(matches!(&card, Source::Card(c) if c.last4 == "4242"));
/// let later: Source = serde_json::from_str(r#"{"object": "wallet", "id": 1}"#).unwrap();
/// assert!(matches!(&later, Source::Unknown(v) if v["id"] == 1));
/// assert_eq!(serde_json::to_string(&later).unwrap(), r#"{"object":"wallet","id":1}"#);
/// // The tag chose the member; what is wrong inside it is located there.
/// let bad = serde_json::from_str::<Source>(r#"{"object": "bank", "bank_name": 7}"#).unwrap_err();
/// assert!(bad.to_string().starts_with("at `/bank_name`: invalid type"), "{bad}");
/// ```
#[macro_export]
macro_rules! tagged {
    ($name:ident $property:literal { $($variant:ident($($tag:literal),+ $(,)?)),* $(,)? }) => {
        impl $crate::tagged::Serialize for $name {
            fn serialize<S: $crate::tagged::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                match self {
                    $(Self::$variant(member) => $crate::tagged::Serialize::serialize(member, serializer),)*
                    Self::Unknown(value) => $crate::tagged::Serialize::serialize(value, serializer),
                }
            }
        }
        impl<'de> $crate::object::Deserialize<'de> for $name {
            fn deserialize<D: $crate::object::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let value: $crate::tagged::Value = $crate::object::Deserialize::deserialize(deserializer)?;
                match $crate::tagged::tag(&value, $property).as_deref() {
                    $($(::core::option::Option::Some($tag))|+ => $crate::tagged::member(value).map(Self::$variant),)*
                    _ => ::core::result::Result::Ok(Self::Unknown(value)),
                }
            }
        }
    };
}

/// The value of `property` when `value` is an object holding a string there.
pub fn tag(value: &Value, property: &str) -> Option<String> {
    value.get(property)?.as_str().map(str::to_owned)
}

/// The member a tag chose, read from the buffered value; an error says where inside it (as
/// `at `/pointer`: why`, which [`typed_value`](crate::error) joins to the pointer of the
/// union itself).
pub fn member<T: serde::de::DeserializeOwned, E: serde::de::Error>(value: Value) -> Result<T, E> {
    crate::error::typed_value(value).map_err(|(pointer, reason)| {
        if pointer.is_empty() {
            E::custom(reason)
        } else {
            E::custom(format_args!("at `{pointer}`: {reason}"))
        }
    })
}

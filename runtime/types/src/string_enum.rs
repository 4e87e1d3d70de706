//! Enums of strings the description lists, open to the values it does not: generated as an
//! enum with a variant per listed value and `Other(String)` for any other, so a value the API
//! adds later reads instead of failing, and is written back as it came.

#[doc(hidden)]
pub use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Implements a generated string enum's wire form: its name, then each listed value with its
/// variant. The enum must also have an `Other(String)` variant. `as_str` gives the value as
/// sent; `Serialize` writes it; `From<String>` and `From<&str>` make the enum from a value (a
/// listed one is its variant, any other `Other`); `Deserialize` reads a string so.
///
/// ```
/// #[derive(Debug, PartialEq)]
/// enum Level { None, Organization, Other(String) }
/// harness_gen_types::string_enum! { Level { "none" => None, "organization" => Organization } }
///
/// let level: Level = serde_json::from_str(r#""organization""#).unwrap();
/// assert_eq!(level, Level::Organization);
/// let later: Level = "enterprise".into();
/// assert_eq!(later, Level::Other("enterprise".into()));
/// assert_eq!(serde_json::to_string(&later).unwrap(), r#""enterprise""#);
/// assert_eq!(Level::None.as_str(), "none");
/// ```
#[macro_export]
macro_rules! string_enum {
    ($name:ident { $($wire:literal => $variant:ident),* $(,)? }) => {
        impl $name {
            /// The value as sent on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $wire,)*
                    Self::Other(value) => value,
                }
            }
        }
        impl $crate::string_enum::Serialize for $name {
            fn serialize<S: $crate::string_enum::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
        impl ::core::convert::From<::std::string::String> for $name {
            fn from(value: ::std::string::String) -> Self {
                match value.as_str() {
                    $($wire => Self::$variant,)*
                    _ => Self::Other(value),
                }
            }
        }
        impl ::core::convert::From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::from(::std::borrow::ToOwned::to_owned(value))
            }
        }
        impl<'de> $crate::string_enum::Deserialize<'de> for $name {
            fn deserialize<D: $crate::string_enum::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                <::std::string::String as $crate::string_enum::Deserialize>::deserialize(deserializer)
                    .map(Self::from)
            }
        }
    };
}

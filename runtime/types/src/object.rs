//! Serialization of generated structs: what derived `Serialize` and `Deserialize` do for an
//! object, with the per-struct part cut down to a table of its fields (issue 22).
//!
//! A derived `Deserialize` writes, for every struct, a field-identifier enum with three visitor
//! methods, a sequence visitor and a map visitor with a duplicate check per field; a derived
//! `Serialize` writes two branches and two fallible calls per optional field, and a wrapper
//! type per field with a `serialize_with`. On a big API that was most of what `cargo check` of
//! the generated crate spent its time and memory on. Generated structs instead implement
//! [`Object::from_map`] — one arm per field, keys looked up in the struct's table by
//! [`Fields::next_key`], each value read by one call — and their `Deserialize` is
//! [`deserialize`]. `from_map` reads through [`Fields`], the map with its deserializer's type
//! erased (erased-serde), so it is one non-generic function per struct rather than a generic
//! one type-checked under the deserializer's bounds;
//! their `Serialize` is one call to [`serialize`] over `(wire name, value)` pairs, each value
//! a `&dyn erased_serde::Serialize` (or `None` for a field left out). All of it is written by
//! one [`object!`](crate::object!) invocation per struct.
//!
//! The rules are the derived ones for the attributes generated code used: unknown keys are
//! ignored (or collected, for a struct with extra properties), a missing required field is a
//! `missing field` error, a missing `Option` field is `None`; fields are written in declaration
//! order as a struct (`serialize_struct`, an absent optional field skipped with `skip_field`),
//! or as a map followed by the extra properties for a struct that has them (what a flattened
//! map does). Two differences, both stricter or cheaper and neither visible through JSON
//! objects: a struct is read from a map only (a derived one also accepted a sequence of its
//! fields in order), and a repeated key keeps its last value (JSON objects read through
//! `serde_json::Value` cannot repeat keys anyway).
//!
//! ```
//! use harness_gen_types::object::{Fields, Key, Object, ReadError, missing, read_into, read_some, skip};
//!
//! struct Pet {
//!     id: i64,
//!     tag: Option<String>,
//! }
//!
//! impl Object for Pet {
//!     const NAME: &'static str = "Pet";
//!     fn from_map<'de>(map: &mut dyn Fields<'de>) -> Result<Self, ReadError> {
//!         // The wire names; the index is the arm.
//!         const FIELDS: &[&str] = &["id", "tag"];
//!         let (mut id, mut tag) = (None, None);
//!         while let Some(key) = map.next_key(FIELDS)? {
//!             match key {
//!                 Key::Field(0) => read_some(map, &mut id)?,
//!                 Key::Field(_) => read_into(map, &mut tag)?,
//!                 Key::Other(_) => skip(map)?,
//!             }
//!         }
//!         Ok(Pet { id: id.ok_or_else(|| missing("id"))?, tag })
//!     }
//! }
//!
//! impl<'de> serde::Deserialize<'de> for Pet {
//!     fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
//!         harness_gen_types::object::deserialize(d)
//!     }
//! }
//!
//! let pet: Pet = serde_json::from_str(r#"{"tag": "cat", "id": 7, "extra": [1]}"#).unwrap();
//! assert_eq!((pet.id, pet.tag.as_deref()), (7, Some("cat")));
//! let missing = serde_json::from_str::<Pet>(r#"{"tag": null}"#).err().unwrap();
//! assert!(missing.to_string().contains("missing field `id`"));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, IgnoredAny, Visitor};
#[doc(hidden)]
pub use serde::de::{Deserialize, Deserializer, Error, MapAccess};
#[doc(hidden)]
pub use serde::ser::{Serialize, Serializer};
use serde::ser::{SerializeMap, SerializeStruct};

/// Implements [`Object`], `Deserialize` and `Serialize` for a generated struct: its name, then
/// each field in declaration order as `index field: "wire" how`, where `index` counts the
/// fields from 0 (the arm a key found at that place in the table of wire names takes: written
/// out by the generator so that no constant is evaluated per field), and `how` is `required`
/// (missing is an error), `nullable` (a required `Option` field: missing or null is `None`,
/// which is written as null), `optional` (an `Option` field: missing or null is `None`, which
/// is left out) or `present` (an `Option<Option<_>>` field: missing is `None`, left out; null
/// is `Some(None)`, written as null); then `+ field` for the map of extra properties, if the
/// struct has one.
///
/// An attribute before the name applies to the reading half only (`Object` and
/// `Deserialize`): a generated crate writes `#[cfg(feature = "registry")]` there for a type it
/// only sends (an operation's input and what only inputs contain), which its SDK never reads
/// and its registry does.
///
/// ```
/// #[derive(Debug)]
/// struct Pet {
///     name: String,
///     tag: Option<Option<String>>,
///     age: Option<u8>,
///     owner: Option<String>,
///     more: std::collections::BTreeMap<String, i64>,
/// }
/// harness_gen_types::object! {
///     Pet {
///         0 name: "name" required,
///         1 tag: "tag" present,
///         2 age: "age" optional,
///         3 owner: "owner" nullable,
///     }
///     + more
/// }
/// let pet: Pet = serde_json::from_str(r#"{"name": "Rex", "tag": null, "legs": 4}"#).unwrap();
/// assert_eq!((pet.name.as_str(), &pet.tag, pet.age), ("Rex", &Some(None), None));
/// assert_eq!(pet.owner, None);
/// assert_eq!(pet.more["legs"], 4);
/// let written = serde_json::to_string(&pet).unwrap();
/// assert_eq!(written, r#"{"name":"Rex","tag":null,"owner":null,"legs":4}"#);
/// ```
#[macro_export]
macro_rules! object {
    (@read required $map:ident $field:ident) => { $crate::object::read_some($map, &mut $field) };
    (@read present $map:ident $field:ident) => { $crate::object::read_some($map, &mut $field) };
    (@read $how:ident $map:ident $field:ident) => { $crate::object::read_into($map, &mut $field) };
    (@built required $field:ident $wire:literal) => {
        match $field {
            ::core::option::Option::Some(value) => value,
            ::core::option::Option::None => {
                return ::core::result::Result::Err($crate::object::missing($wire));
            }
        }
    };
    (@built $how:ident $field:ident $wire:literal) => { $field };
    (@write required $value:expr) => { $crate::object::always($value) };
    (@write nullable $value:expr) => { $crate::object::always($value) };
    (@write $how:ident $value:expr) => { $crate::object::unless_none($value) };
    (@other $map:ident $key:ident) => {{
        drop($key);
        $crate::object::skip($map)
    }};
    (@other $map:ident $key:ident $extra:ident) => {
        $crate::object::read_extra($map, $key, &mut $extra)
    };
    (@serialize $serializer:ident $name:ident $fields:expr) => {
        $crate::object::serialize($serializer, stringify!($name), $fields)
    };
    (@serialize $serializer:ident $name:ident $fields:expr, $extra:expr) => {
        $crate::object::serialize_with_extra($serializer, $fields, $extra)
    };
    (@impls [$($read:tt)*] $name:ident { $($index:literal $field:ident: $wire:literal $how:ident),* $(,)? } $(+ $extra:ident)?) => {
        $($read)*
        impl $crate::object::Object for $name {
            const NAME: &'static str = stringify!($name);
            fn from_map<'de>(
                map: &mut dyn $crate::object::Fields<'de>,
            ) -> ::core::result::Result<Self, $crate::object::ReadError> {
                // The wire names; a key is matched by its index among them, given with each
                // field (literal patterns: no constant to evaluate per field).
                const FIELDS: &[&str] = &[$($wire),*];
                $(let mut $field = ::core::option::Option::None;)*
                $(let mut $extra = ::std::collections::BTreeMap::new();)?
                while let ::core::option::Option::Some(key) =
                    map.next_key(FIELDS)?
                {
                    let read = match key {
                        $($crate::object::Key::Field($index) => $crate::object!(@read $how map $field),)*
                        $crate::object::Key::Other(key) => $crate::object!(@other map key $($extra)?),
                        _ => $crate::object::skip(map),
                    };
                    read?;
                }
                ::core::result::Result::Ok(Self {
                    $($field: $crate::object!(@built $how $field $wire),)*
                    $($extra,)?
                })
            }
        }
        $($read)*
        impl<'de> $crate::object::Deserialize<'de> for $name {
            fn deserialize<D: $crate::object::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::object::deserialize(deserializer)
            }
        }
        impl $crate::object::Serialize for $name {
            fn serialize<S: $crate::object::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::object!(@serialize serializer $name
                    &[$(($wire, $crate::object!(@write $how &self.$field))),*]
                    $(, &self.$extra)?)
            }
        }
    };
    (#[$read:meta] $name:ident $($rest:tt)*) => {
        $crate::object!(@impls [#[$read]] $name $($rest)*);
    };
    ($name:ident $($rest:tt)*) => {
        $crate::object!(@impls [] $name $($rest)*);
    };
}

/// A generated struct read from a map of its fields.
pub trait Object: Sized {
    /// The type's name, for "expected …" messages.
    const NAME: &'static str;
    /// Reads the struct from the entries of `map`.
    fn from_map<'de>(map: &mut dyn Fields<'de>) -> Result<Self, ReadError>;
}

/// What reading a struct's fields fails with: the error of the deserializer underneath, carried
/// through [`Fields`] (and back into that deserializer's own error type by [`deserialize`]).
pub type ReadError = erased_serde::Error;

/// The entries of a map being read as a struct, with the deserializer's type erased: what
/// [`Object::from_map`] reads, so that it is one function for every deserializer (a generic
/// one is type-checked for each struct with the deserializer's bounds in scope).
pub trait Fields<'de> {
    /// The next key, looked up in `fields` (the wire names); `None` at the end.
    fn next_key(&mut self, fields: &'static [&'static str]) -> Result<Option<Key>, ReadError>;
    /// Hands the next value's deserializer to `read`.
    fn next_value(&mut self, read: &mut ReadValue<'_, 'de>) -> Result<(), ReadError>;
}

/// What reads one value from its (type-erased) deserializer.
pub type ReadValue<'r, 'de> =
    dyn FnMut(&mut dyn erased_serde::Deserializer<'de>) -> Result<(), ReadError> + 'r;

impl<'de, A: MapAccess<'de>> Fields<'de> for A {
    fn next_key(&mut self, fields: &'static [&'static str]) -> Result<Option<Key>, ReadError> {
        self.next_key_seed(KeySeed(fields)).map_err(Error::custom)
    }

    fn next_value(&mut self, read: &mut ReadValue<'_, 'de>) -> Result<(), ReadError> {
        self.next_value_seed(ValueSeed(read)).map_err(Error::custom)
    }
}

/// `T` deserialized from a map: the body of a generated struct's `Deserialize`.
pub fn deserialize<'de, T: Object, D: de::Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(ObjectVisitor(PhantomData))
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Object> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an object ({})", T::NAME)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        T::from_map(&mut map).map_err(Error::custom)
    }
}

/// A key of an object being read.
#[derive(Debug, PartialEq, Eq)]
pub enum Key {
    /// The declared field at this index of the table given to [`Fields::next_key`].
    Field(usize),
    /// A key the struct does not declare.
    Other(String),
}

/// Reads the value of a field into `slot` as `Some`.
pub fn read_some<'de, T: Deserialize<'de>>(
    map: &mut dyn Fields<'de>,
    slot: &mut Option<T>,
) -> Result<(), ReadError> {
    map.next_value(&mut |value| {
        *slot = Some(erased_serde::deserialize(value)?);
        Ok(())
    })
}

/// Reads the value of an `Option` field into `slot` (null is `None`).
pub fn read_into<'de, T: Deserialize<'de>>(
    map: &mut dyn Fields<'de>,
    slot: &mut T,
) -> Result<(), ReadError> {
    map.next_value(&mut |value| {
        *slot = erased_serde::deserialize(value)?;
        Ok(())
    })
}

/// Reads the value of a key the struct does not declare into its map of extra properties.
pub fn read_extra<'de, V: Deserialize<'de>>(
    map: &mut dyn Fields<'de>,
    key: String,
    extra: &mut BTreeMap<String, V>,
) -> Result<(), ReadError> {
    let mut key = Some(key);
    map.next_value(&mut |value| {
        let value = erased_serde::deserialize(value)?;
        extra.insert(key.take().unwrap_or_default(), value);
        Ok(())
    })
}

/// Skips the value of a key the struct does not declare.
pub fn skip(map: &mut dyn Fields<'_>) -> Result<(), ReadError> {
    map.next_value(&mut |value| erased_serde::deserialize::<IgnoredAny>(value).map(drop))
}

/// The `missing field` error a derived `Deserialize` gives for a required field.
pub fn missing(field: &'static str) -> ReadError {
    ReadError::missing_field(field)
}

/// One field of a struct being written: its wire name and its value, or `None` to leave it out.
pub type Field<'a> = (&'static str, Option<&'a dyn erased_serde::Serialize>);

/// A field that is always written.
pub fn always<T: Serialize>(value: &T) -> Option<&dyn erased_serde::Serialize> {
    Some(value)
}

/// An `Option` field written unless it is `None` (absent).
pub fn unless_none<T: Serialize>(value: &Option<T>) -> Option<&dyn erased_serde::Serialize> {
    value
        .as_ref()
        .map(|value| value as &dyn erased_serde::Serialize)
}

/// The body of a generated struct's `Serialize`: its fields as a struct named `name`, in order,
/// each one left out skipped.
pub fn serialize<S: Serializer>(
    serializer: S,
    name: &'static str,
    fields: &[Field<'_>],
) -> Result<S::Ok, S::Error> {
    let written = fields.iter().filter(|(_, value)| value.is_some()).count();
    let mut out = serializer.serialize_struct(name, written)?;
    for &(key, value) in fields {
        match value {
            Some(value) => out.serialize_field(key, value)?,
            None => out.skip_field(key)?,
        }
    }
    out.end()
}

/// The body of a generated struct's `Serialize` when it keeps extra properties: its fields,
/// then the extra ones, as one map.
pub fn serialize_with_extra<S: Serializer, V: Serialize>(
    serializer: S,
    fields: &[Field<'_>],
    extra: &BTreeMap<String, V>,
) -> Result<S::Ok, S::Error> {
    let mut out = serializer.serialize_map(None)?;
    for &(key, value) in fields {
        if let Some(value) = value {
            out.serialize_entry(key, value)?;
        }
    }
    for (key, value) in extra {
        out.serialize_entry(key, value)?;
    }
    out.end()
}

/// Hands a value's deserializer, type-erased, to the reader of a field.
struct ValueSeed<'a, 'r, 'de>(&'a mut ReadValue<'r, 'de>);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let mut erased = <dyn erased_serde::Deserializer>::erase(deserializer);
        (self.0)(&mut erased).map_err(Error::custom)
    }
}

struct KeySeed(&'static [&'static str]);

impl KeySeed {
    fn key(&self, text: &str) -> Option<Key> {
        self.0
            .iter()
            .position(|field| *field == text)
            .map(Key::Field)
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Key, E> {
        Ok(self
            .key(text)
            .unwrap_or_else(|| Key::Other(text.to_owned())))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Key, E> {
        Ok(self.key(&text).unwrap_or(Key::Other(text)))
    }
}

/// The constructor and setters of a generated struct: `new` takes the required fields (each
/// anything that converts into its type, so `Pet::new(7, "Rex")` works for an `i64` and a
/// `String`) and leaves the optional ones unset (absent on the wire); each optional field gets
/// a chained setter of its name that sets it (an `Option<Option<_>>` field's setter takes
/// `None` for an explicit null). Code written this way keeps compiling when the API gains an
/// optional field, which a struct literal would not.
///
/// The form: the struct's name, `new(field: Type, …)` for the required fields in schema order,
/// then `fix field = value, …;` for the fields `new` sets itself (a generated struct's fields
/// that can hold one value only, such as a tag `const`), then `set field: Type, …;` for the
/// optional ones (the type inside their `Option`), then `+ field` for the map of extra
/// properties, if the struct has one (it starts empty).
///
/// ```
/// #[derive(Debug)]
/// struct Pet {
///     id: i64,
///     name: String,
///     tag: Option<Option<String>>,
///     age: Option<u8>,
///     more: std::collections::BTreeMap<String, i64>,
///     kind: &'static str,
/// }
/// harness_gen_types::builder! {
///     Pet {
///         new(id: i64, name: String)
///         fix kind = "pet";
///         set tag: Option<String>, age: u8;
///         + more
///     }
/// }
/// let pet = Pet::new(7, "Rex").age(3).tag(None);
/// assert_eq!((pet.id, pet.name.as_str(), pet.age, pet.tag), (7, "Rex", Some(3), Some(None)));
/// assert_eq!(pet.kind, "pet");
/// assert!(pet.more.is_empty());
/// ```
#[macro_export]
macro_rules! builder {
    ($name:ident {
        new($($required:ident: $required_ty:ty),* $(,)?)
        $(fix $($fixed:ident = $fixed_value:expr),+;)?
        $(set $($optional:ident: $optional_ty:ty),+;)?
        $(+ $extra:ident)?
    }) => {
        impl $name {
            /// A value with its required fields; the optional ones are unset.
            #[allow(clippy::too_many_arguments, clippy::new_without_default)]
            pub fn new($($required: impl ::core::convert::Into<$required_ty>),*) -> Self {
                Self {
                    $($required: $required.into(),)*
                    $($($fixed: $fixed_value,)+)?
                    $($($optional: ::core::option::Option::None,)+)?
                    $($extra: ::core::default::Default::default(),)?
                }
            }
            $($(
                #[doc = concat!("Sets `", stringify!($optional), "`.")]
                pub fn $optional(mut self, value: impl ::core::convert::Into<$optional_ty>) -> Self {
                    self.$optional = ::core::option::Option::Some(value.into());
                    self
                }
            )+)?
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Probe {
        a: String,
        b: Option<i64>,
        c: Option<Option<bool>>,
        extra: std::collections::BTreeMap<String, u8>,
    }

    impl Object for Probe {
        const NAME: &'static str = "Probe";
        fn from_map<'de>(map: &mut dyn Fields<'de>) -> Result<Self, ReadError> {
            const FIELDS: &[&str] = &["a", "b", "c"];
            let (mut a, mut b, mut c) = (None, None, None);
            let mut extra = std::collections::BTreeMap::new();
            while let Some(key) = map.next_key(FIELDS)? {
                match key {
                    Key::Field(0) => read_some(map, &mut a)?,
                    Key::Field(1) => read_into(map, &mut b)?,
                    Key::Field(_) => read_some(map, &mut c)?,
                    Key::Other(key) => read_extra(map, key, &mut extra)?,
                }
            }
            Ok(Probe {
                a: a.ok_or_else(|| missing("a"))?,
                b,
                c,
                extra,
            })
        }
    }

    impl<'de> serde::Deserialize<'de> for Probe {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            deserialize(d)
        }
    }

    fn read(text: &str) -> Result<Probe, String> {
        let from_text = serde_json::from_str::<Probe>(text).map_err(|e| e.to_string());
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let from_value = serde_json::from_value::<Probe>(value).map_err(|e| e.to_string());
        // Read from text (borrowed keys) and from a value (owned keys), the same answer.
        assert_eq!(from_text.is_ok(), from_value.is_ok(), "{text}");
        from_text
    }

    #[test]
    fn required_optional_nullable_and_extra_fields_read_as_derived_ones_do() {
        let probe = read(r#"{"c": null, "z": 3, "a": "x"}"#).unwrap();
        assert_eq!(probe.a, "x");
        assert_eq!(probe.b, None, "absent optional");
        assert_eq!(probe.c, Some(None), "present null is not absent");
        assert_eq!(
            probe.extra.get("z"),
            Some(&3),
            "unknown keys are the extra properties"
        );
        let probe = read(r#"{"a": "x", "b": null, "c": true}"#).unwrap();
        assert_eq!((probe.b, probe.c), (None, Some(Some(true))));
    }

    #[test]
    fn a_missing_required_field_and_a_wrong_shape_are_errors() {
        assert!(
            read(r#"{"b": 1}"#)
                .unwrap_err()
                .contains("missing field `a`")
        );
        assert!(
            read(r#"{"a": 1}"#)
                .unwrap_err()
                .contains("expected a string")
        );
        assert!(read(r#"["x"]"#).unwrap_err().contains("an object (Probe)"));
        assert!(
            read(r#"{"a": "x", "z": "no"}"#).is_err(),
            "extra values are typed"
        );
    }

    /// A struct holding structs, as replies nest them.
    struct Outer {
        items: Vec<Written>,
    }

    crate::object! {
        Outer {
            0 items: "items" required,
        }
    }

    #[test]
    fn an_error_inside_a_nested_value_keeps_its_position_and_its_path() {
        let text = "{\"items\": [{\"name\": \"x\"},\n {\"name\": \"y\", \"age\": \"seven\"}]}";
        let error = serde_json::from_str::<Outer>(text).err().unwrap();
        let message = error.to_string();
        assert!(
            message.starts_with("invalid type: string \"seven\""),
            "{message}"
        );
        assert_eq!(message.matches(" at line ").count(), 1, "{message}");
        assert_eq!((error.line(), error.column()), (2, 29), "{message}");
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let error = serde_path_to_error::deserialize::<_, Outer>(value)
            .err()
            .unwrap();
        assert_eq!(error.path().to_string(), "items[1].age");
    }

    #[derive(Clone)]
    struct Written {
        name: String,
        owner: Option<String>,
        age: Option<u8>,
        tag: Option<Option<String>>,
    }

    crate::object! {
        Written {
            0 name: "name" required,
            1 owner: "owner" nullable,
            2 age: "age" optional,
            3 tag: "tag-x" present,
        }
    }

    /// What serde's derive writes for the same fields and attributes.
    #[derive(serde::Serialize)]
    struct Derived {
        name: String,
        owner: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        age: Option<u8>,
        #[serde(rename = "tag-x", skip_serializing_if = "Option::is_none")]
        tag: Option<Option<String>>,
    }

    #[test]
    fn fields_are_written_as_a_derived_serialize_writes_them() {
        let tags = [None, Some(None), Some(Some("t".to_string()))];
        for owner in [None, Some("o".to_string())] {
            for age in [None, Some(3)] {
                for tag in tags.clone() {
                    let ours = Written {
                        name: "n".into(),
                        owner: owner.clone(),
                        age,
                        tag: tag.clone(),
                    };
                    let derived = Derived {
                        name: "n".into(),
                        owner: owner.clone(),
                        age,
                        tag,
                    };
                    assert_eq!(
                        serde_json::to_string(&ours).unwrap(),
                        serde_json::to_string(&derived).unwrap()
                    );
                }
            }
        }
    }

    #[test]
    fn extra_properties_are_written_after_the_fields() {
        let mut probe = read(r#"{"a": "x", "c": null, "z": 3}"#).unwrap();
        probe.extra.insert("y".into(), 1);
        let written = serde_json::to_string(&ProbeWritten(&probe)).unwrap();
        assert_eq!(written, r#"{"a":"x","c":null,"y":1,"z":3}"#);
    }

    /// `Probe` written through [`serialize_with_extra`], as `object!` writes a struct with
    /// extra properties.
    struct ProbeWritten<'a>(&'a Probe);

    impl Serialize for ProbeWritten<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let p = self.0;
            let fields = [
                ("a", always(&p.a)),
                ("b", unless_none(&p.b)),
                ("c", unless_none(&p.c)),
            ];
            serialize_with_extra(serializer, &fields, &p.extra)
        }
    }

    /// Fields named like the names `object!` uses inside (its map, key, table) are still read.
    #[derive(Debug)]
    struct Named {
        map: i64,
        key: Option<i64>,
        read: Option<i64>,
        fields: Option<i64>,
    }

    crate::object! {
        Named {
            0 map: "map" required,
            1 key: "KEY" optional,
            2 read: "read" optional,
            3 fields: "FIELDS" optional,
        }
    }

    #[test]
    fn fields_named_like_the_macros_own_names_are_read() {
        let named: Named =
            serde_json::from_str(r#"{"KEY": 2, "map": 1, "read": 3, "FIELDS": 4}"#).unwrap();
        assert_eq!(
            (named.map, named.key, named.read, named.fields),
            (1, Some(2), Some(3), Some(4))
        );
    }

    /// A struct only sent: its reading half behind an attribute (here one never true).
    struct Sent {
        name: String,
        tag: Option<String>,
    }

    crate::object! {
        #[cfg(any())]
        Sent {
            0 name: "name" required,
            1 tag: "tag" optional,
        }
    }

    /// Whether `T` implements `Deserialize`, told without naming it in a bound.
    trait Reads {
        const READS: bool;
    }
    impl<T> Reads for T {
        const READS: bool = false;
    }
    struct ReadProbe<T>(PhantomData<T>);
    impl<T: for<'de> Deserialize<'de>> ReadProbe<T> {
        const READS: bool = true;
    }

    #[test]
    fn an_attribute_before_the_name_gates_the_reading_half_only() {
        let sent = Sent {
            name: "Rex".into(),
            tag: None,
        };
        assert_eq!(serde_json::to_string(&sent).unwrap(), r#"{"name":"Rex"}"#);
        const { assert!(!ReadProbe::<Sent>::READS) };
        const { assert!(ReadProbe::<Named>::READS) };
    }
}

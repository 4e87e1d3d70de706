//! A binding as generated code holds it: its JSON text, read once, on the operation's first call.

use std::ops::Deref;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::{Binding, ParamIn, Style};

/// An operation's binding written as its JSON text (the catalog's `source.binding`), read into
/// a [`Binding`] the first time it is used and kept. This is how a generated client holds one
/// binding per operation: a `static` of text costs the compiler next to nothing, where a
/// `static` built from the records' literals is evaluated at compile time, field by field (on
/// a big API, 15% of a user's `cargo check`). Reading one costs a few microseconds, once.
///
/// The text is the generator's own serialization of a [`Binding`] with every value that is
/// the default for its place left out ([`BindingText::compact`]: a parameter's wire name when
/// it is its property's, the style and explode of its location, JSON media types, no
/// security), which the first use fills in again; generated code names
/// the interface it was written for (`require_api!`, [`crate::API_VERSION`]), so a runtime
/// whose records read it otherwise refuses to compile it; text that still does not read is a
/// defect of the generator, and the first call of the operation panics saying so.
///
/// ```
/// use harness_gen_wire::binding::{BindingText, Method};
///
/// static GET_PET: BindingText = BindingText::new(
///     r#"{"method":"GET","path":"/pets/{petId}","parameters":[{"property":"pet_id","in":"path","name":"petId"}]}"#,
/// );
/// assert_eq!(GET_PET.method, Method::Get);
/// assert_eq!(GET_PET.parameters[0].name, "petId");
/// assert!(GET_PET.parameters[0].required);
/// ```
pub struct BindingText {
    json: &'static str,
    read: OnceLock<Binding>,
}

impl BindingText {
    /// The binding whose JSON text is `json`, read on first use.
    pub const fn new(json: &'static str) -> Self {
        BindingText {
            json,
            read: OnceLock::new(),
        }
    }

    /// The JSON text, as generated.
    pub fn json(&self) -> &'static str {
        self.json
    }
}

impl Deref for BindingText {
    type Target = Binding;

    fn deref(&self) -> &Binding {
        self.read.get_or_init(|| match read(self.json) {
            Ok(binding) => binding,
            Err(error) => panic!(
                "a generated binding does not read as this runtime's `Binding` ({error}): \
                 regenerate the crate with the harness-gen release of this runtime: {}",
                self.json
            ),
        })
    }
}

impl BindingText {
    /// `binding` as generated code writes it: its JSON without the values that are the
    /// default for their place, which reading the text fills in again.
    pub fn compact(binding: &Binding) -> String {
        let mut value = serde_json::to_value(binding).unwrap_or(Value::Null);
        defaults(&mut value, Fill::Leave);
        value.to_string()
    }
}

/// Reads a binding's text, compact or whole.
fn read(json: &str) -> Result<Binding, serde_json::Error> {
    let mut value: Value = serde_json::from_str(json)?;
    defaults(&mut value, Fill::Fill);
    serde_json::from_value(value)
}

/// What [`defaults`] does with a value that is the default for its place.
#[derive(Clone, Copy, PartialEq)]
enum Fill {
    /// Leaves it out (writing the compact text).
    Leave,
    /// Puts it in where it is missing (reading the compact text).
    Fill,
}

/// Leaves out or fills in the defaults of a binding's JSON: one table for both directions, so
/// that what the compact text leaves out is exactly what reading it puts back.
fn defaults(binding: &mut Value, fill: Fill) {
    let Some(binding) = binding.as_object_mut() else {
        return;
    };
    apply(binding, &[("security", Value::Array(Vec::new()))], fill);
    let media = || {
        [
            ("contentType", Value::from("application/json")),
            ("encoding", Value::from("json")),
        ]
    };
    for place in ["body", "response"] {
        if let Some(Value::Object(record)) = binding.get_mut(place) {
            apply(record, &media(), fill);
        }
    }
    if let Some(Value::Array(errors)) = binding.get_mut("errors") {
        for error in errors.iter_mut().filter_map(Value::as_object_mut) {
            apply(error, &media()[..1], fill);
        }
    }
    if let Some(Value::Array(parameters)) = binding.get_mut("parameters") {
        for param in parameters.iter_mut().filter_map(Value::as_object_mut) {
            // A parameter's defaults depend on its other values: its wire name is its
            // property's, its style its location's, explode its style's (as OpenAPI defaults
            // them), and a path parameter is required.
            let location: Option<ParamIn> = read_key(param, "in");
            let style = location.map_or(Style::Simple, ParamIn::default_style);
            let explode = read_key(param, "style").unwrap_or(style) == Style::Form;
            let name = param.get("property").cloned().unwrap_or_default();
            let required = location == Some(ParamIn::Path);
            apply(
                param,
                &[
                    ("name", name),
                    ("style", Value::from(style.as_str())),
                    ("explode", Value::from(explode)),
                    ("required", Value::from(required)),
                ],
                fill,
            );
        }
    }
}

/// The value at `key` of `record`, when it reads as a `T`.
fn read_key<T: serde::de::DeserializeOwned>(record: &Map<String, Value>, key: &str) -> Option<T> {
    T::deserialize(record.get(key)?).ok()
}

/// Leaves out of `record` each key whose value is its default, or fills in each missing one.
fn apply(record: &mut Map<String, Value>, defaults: &[(&str, Value)], fill: Fill) {
    for (key, default) in defaults {
        match fill {
            Fill::Leave if record.get(*key) == Some(default) => {
                record.shift_remove(*key);
            }
            Fill::Fill if !record.contains_key(*key) => {
                record.insert((*key).to_string(), default.clone());
            }
            _ => {}
        }
    }
}

impl std::fmt::Debug for BindingText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

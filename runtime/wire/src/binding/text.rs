//! A binding as generated code holds it: its JSON text, read once, on the operation's first call.

use std::ops::Deref;
use std::sync::OnceLock;

use super::Binding;

/// An operation's binding written as its JSON text (the catalog's `source.binding`), read into
/// a [`Binding`] the first time it is used and kept. This is how a generated client holds one
/// binding per operation: a `static` of text costs the compiler next to nothing, where a
/// `static` built from the records' literals is evaluated at compile time, field by field (on
/// a big API, 15% of a user's `cargo check`). Reading one costs a few microseconds, once.
///
/// The text is the generator's own serialization of a [`Binding`], and generated code names
/// the interface it was written for (`require_api!`, [`crate::API_VERSION`]), so a runtime
/// whose records read it otherwise refuses to compile it; text that still does not read is a
/// defect of the generator, and the first call of the operation panics saying so.
///
/// ```
/// use harness_gen_wire::binding::{BindingText, Method};
///
/// static GET_PET: BindingText = BindingText::new(
///     r#"{"method":"GET","path":"/pets/{petId}","parameters":[{"property":"pet_id","in":"path","name":"petId","style":"simple","explode":false,"required":true}]}"#,
/// );
/// assert_eq!(GET_PET.method, Method::Get);
/// assert_eq!(GET_PET.parameters[0].name, "petId");
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
        self.read
            .get_or_init(|| match serde_json::from_str(self.json) {
                Ok(binding) => binding,
                Err(error) => panic!(
                    "a generated binding does not read as this runtime's `Binding` ({error}): \
                 regenerate the crate with the harness-gen release of this runtime: {}",
                    self.json
                ),
            })
    }
}

impl std::fmt::Debug for BindingText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

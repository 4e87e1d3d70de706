//! Where a tool comes from (its source binding) and the policy that governs calling it.

use super::*;

/// Where a tool came from, with its protocol binding.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[cfg_attr(feature = "artifacts", schemars(transform = typed_openapi_binding))]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The kind of source: `openapi` for an operation of an OpenAPI description; other kinds are
    /// open to other producers.
    pub kind: NonBlank,
    /// The source's own identifier of the tool (for OpenAPI: the `operationId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub id: Option<NonBlank>,
    /// How a call travels. For `kind: "openapi"` it is the operation's `Binding` (checked when the
    /// catalog is read); for other kinds an object the format does not interpret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub binding: Option<SourceBinding>,
}

/// The protocol binding of a [`Source`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(untagged)]
pub enum SourceBinding {
    /// The binding of an `openapi` source (boxed: it is most of an entry's size).
    OpenApi(Box<Binding>),
    /// The binding of any other kind of source, kept as it was written.
    Other(
        #[cfg_attr(
            feature = "artifacts",
            ts(type = "{ readonly [key: string]: JsonValue }")
        )]
        Map<String, Value>,
    ),
}

impl Source {
    /// The source kind of tools generated from OpenAPI operations.
    pub const OPENAPI: &str = "openapi";

    /// The OpenAPI binding, when this is an `openapi` source that has one.
    pub fn openapi_binding(&self) -> Option<&Binding> {
        match &self.binding {
            Some(SourceBinding::OpenApi(binding)) => Some(binding),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            kind: NonBlank,
            #[serde(default, deserialize_with = "present")]
            id: Option<NonBlank>,
            #[serde(default, deserialize_with = "present")]
            binding: Option<Map<String, Value>>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let binding = match raw.binding {
            None => None,
            Some(map) if raw.kind.as_str() == Source::OPENAPI => Some(SourceBinding::OpenApi(
                serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
                    let at = match e.path().to_string() {
                        root if root == "." => String::new(),
                        path => format!(".{path}"),
                    };
                    serde::de::Error::custom(format!(
                        "`binding{at}` is not a valid openapi binding: {}",
                        e.inner()
                    ))
                })?,
            )),
            Some(map) => Some(SourceBinding::Other(map)),
        };
        Ok(Source {
            kind: raw.kind,
            id: raw.id,
            binding,
        })
    }
}

/// The format's schema of `source`: an `openapi` source's binding must be a [`Binding`].
#[cfg(feature = "artifacts")]
fn typed_openapi_binding(schema: &mut schemars::Schema) {
    schema.insert(
        "if".to_string(),
        serde_json::json!({"properties": {"kind": {"const": Source::OPENAPI}}, "required": ["kind"]}),
    );
    schema.insert(
        "then".to_string(),
        serde_json::json!({"properties": {"binding": {"$ref": "#/$defs/Binding"}}}),
    );
}

/// Execution classification, separate from the advisory hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// What kind of work the tool does.
    pub kind: PolicyKind,
    /// The strongest side effect it may have.
    pub side_effect_level: SideEffectLevel,
}

/// What kind of work a tool does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// Reads data.
    Read,
    /// Changes data in place.
    Edit,
    /// Removes data.
    Delete,
    /// Moves or renames.
    Move,
    /// Searches.
    Search,
    /// Runs an action with effects (for HTTP: an unsafe method).
    Execute,
    /// Reasons without effects.
    Think,
    /// Retrieves from the network (for HTTP: a safe method).
    Fetch,
    /// None of these.
    Other,
}

/// The strongest side effect a tool may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "snake_case")]
pub enum SideEffectLevel {
    /// No effect outside the call.
    None,
    /// Reads only.
    ReadOnly,
    /// Writes to the workspace.
    WorkspaceWrite,
    /// Runs processes.
    ProcessExec,
    /// Talks to the network.
    Network,
    /// Controls the desktop.
    DesktopControl,
}

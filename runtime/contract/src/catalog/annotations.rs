//! What a tool says about itself beyond its schemas: behaviour hints, icons, task support.

use super::*;

/// MCP-style presentation hints. Advisory, never policy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Annotations {
    /// A title for clients that prefer the annotation's over the tool's.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub title: Option<NonBlank>,
    /// The tool does not change its environment.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub read_only_hint: Option<bool>,
    /// A change the tool makes may destroy something (meaningful when not read-only).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same input has no further effect (meaningful when not read-only).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches entities outside a closed, known set (e.g. the internet).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub open_world_hint: Option<bool>,
}

/// An icon a client may show for the tool.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Icon {
    /// The icon's URL (`https:` or `data:`).
    pub src: NonBlank,
    /// Its media type, when the URL does not say.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub mime_type: Option<NonBlank>,
    /// The sizes it is drawn for (`48x48`, `any`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    #[cfg_attr(feature = "artifacts", schemars(length(min = 1), extend("uniqueItems" = true)))]
    pub sizes: Option<Vec<NonBlank>>,
    /// The color theme it is made for.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "artifacts", ts(optional))]
    pub theme: Option<IconTheme>,
}

/// Which background an icon is drawn for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// Task-execution support (MCP tasks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Execution {
    /// Whether a call may, must or must not run as a task.
    pub task_support: TaskSupport,
}

/// Whether a tool may, or must, run as a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Calls never run as tasks.
    Forbidden,
    /// The client chooses.
    Optional,
    /// Calls always run as tasks.
    Required,
}

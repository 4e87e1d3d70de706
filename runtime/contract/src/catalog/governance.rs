//! Who sees a tool: its audiences and governance.

use super::*;

/// The closed set of projections a tool can be exposed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// The generated command-line program.
    Cli,
    /// The MCP server.
    Mcp,
    /// The published catalog.
    Catalog,
    /// The operator dashboard.
    Dashboard,
    /// Agents using the registry in process.
    Agent,
}

impl Audience {
    /// Every audience, in canonical order.
    pub const ALL: [Audience; 5] = [
        Audience::Cli,
        Audience::Mcp,
        Audience::Catalog,
        Audience::Dashboard,
        Audience::Agent,
    ];

    /// The audience's name in the format.
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Cli => "cli",
            Audience::Mcp => "mcp",
            Audience::Catalog => "catalog",
            Audience::Dashboard => "dashboard",
            Audience::Agent => "agent",
        }
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which projections may see and call a tool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(JsonSchema, TS))]
#[serde(deny_unknown_fields)]
pub struct Governance {
    /// Non-empty, unique, in canonical order.
    pub audiences: Audiences,
}

/// A non-empty set of audiences, kept in canonical order (`cli`, `mcp`, `catalog`,
/// `dashboard`, `agent`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "artifacts", derive(TS))]
#[serde(try_from = "Vec<Audience>", into = "Vec<Audience>")]
#[cfg_attr(feature = "artifacts", ts(type = "Array<Audience>"))]
pub struct Audiences(Vec<Audience>);

impl Audiences {
    /// Accepts a non-empty list without duplicates, in canonical order.
    pub fn new(list: Vec<Audience>) -> Result<Self, InvalidValue> {
        if list.is_empty() {
            return Err(InvalidValue(
                "must list at least one audience (cli, mcp, catalog, dashboard, agent)",
            ));
        }
        for pair in list.windows(2) {
            if pair[0] == pair[1] {
                return Err(InvalidValue("lists an audience twice: list each once"));
            }
            if pair[0] > pair[1] {
                return Err(InvalidValue(
                    "must be in canonical order: cli, mcp, catalog, dashboard, agent",
                ));
            }
        }
        Ok(Self(list))
    }

    /// Builds the set from any order, dropping duplicates.
    pub fn from_any(list: impl IntoIterator<Item = Audience>) -> Result<Self, InvalidValue> {
        let mut list: Vec<Audience> = list.into_iter().collect();
        list.sort();
        list.dedup();
        Self::new(list)
    }

    /// Whether the set contains `audience`.
    pub fn contains(&self, audience: Audience) -> bool {
        self.0.contains(&audience)
    }

    /// The audiences in canonical order.
    pub fn as_slice(&self) -> &[Audience] {
        &self.0
    }
}

impl Default for Audiences {
    fn default() -> Self {
        Self(Audience::ALL.to_vec())
    }
}

impl TryFrom<Vec<Audience>> for Audiences {
    type Error = InvalidValue;
    fn try_from(value: Vec<Audience>) -> Result<Self, InvalidValue> {
        Self::new(value)
    }
}

impl From<Audiences> for Vec<Audience> {
    fn from(value: Audiences) -> Self {
        value.0
    }
}

#[cfg(feature = "artifacts")]
impl JsonSchema for Audiences {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Audiences".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let item = generator.subschema_for::<Audience>();
        schemars::json_schema!({
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": item
        })
    }
}

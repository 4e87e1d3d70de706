//! The index of a generated catalog: where each part of its text is, and what the command line
//! needs to know of each tool before reading it.
//!
//! A generated crate embeds its catalog's text (`CATALOG_JSON`) and, beside it, this index as
//! static data (`CATALOG_INDEX`), written by harness-gen from the same text. A program that
//! uses a few tools (the CLI runs one) parses only their entries and the components those reach
//! ([`Catalog::from_generated_index`]), so its start-up does not grow with the API; the CLI
//! builds its command tree from the index alone.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Catalog, CliTree, Components, Entry, GeneratedCatalog, Info, SchemaDoc};
use crate::error::{ContractError, ContractErrors, ErrorCode};
use crate::schema::standalone::{RefTarget, classify};

/// A byte range (`start`, `end`) of the catalog's text.
pub type Span = (usize, usize);

/// Where the parts of a generated catalog's text are. Every span is of the text the index was
/// made from; [`Catalog::from_generated_index`] refuses an index that does not match it.
#[derive(Clone, Copy, Debug)]
pub struct CatalogIndex {
    /// The `info` record.
    pub info: Option<Span>,
    /// The `cli` record (parent commands).
    pub cli: Option<Span>,
    /// The parent commands that have aliases: what the CLI must know to match a command line
    /// to a tool before reading `cli`.
    pub groups: &'static [IndexedGroup],
    /// Every tool, in catalog order.
    pub tools: &'static [IndexedTool],
    /// Every component schema by name, sorted by name.
    pub components: &'static [(&'static str, Span)],
}

/// A tool of the index.
#[derive(Clone, Copy, Debug)]
pub struct IndexedTool {
    /// Its name.
    pub name: &'static str,
    /// Its entry in the catalog's text.
    pub at: Span,
    /// Whether the program has it: a crate built with some of its operation features has only
    /// their tools (generated as `cfg!(…)` of the tool's features).
    pub enabled: bool,
    /// Its command, when the CLI audience has it.
    pub command: Option<IndexedCommand>,
}

impl IndexedTool {
    /// A tool whose command has no aliases and is not hidden: how a generated index writes
    /// most of its tools (one call instead of two records).
    pub const fn command(
        name: &'static str,
        at: Span,
        enabled: bool,
        path: &'static [&'static str],
        title: &'static str,
    ) -> Self {
        IndexedTool {
            name,
            at,
            enabled,
            command: Some(IndexedCommand {
                path,
                aliases: &[],
                hidden: false,
                title,
            }),
        }
    }
}

/// What a command list shows of a tool, and what a command line is matched against.
#[derive(Clone, Copy, Debug)]
pub struct IndexedCommand {
    /// The command path.
    pub path: &'static [&'static str],
    /// Other spellings of the last segment.
    pub aliases: &'static [&'static str],
    /// Hidden from help.
    pub hidden: bool,
    /// The line lists show ([`Entry::command_title`]).
    pub title: &'static str,
}

/// A parent command with other spellings.
#[derive(Clone, Copy, Debug)]
pub struct IndexedGroup {
    /// Its path.
    pub path: &'static [&'static str],
    /// Other spellings of its last segment.
    pub aliases: &'static [&'static str],
}

/// Where the parts of a catalog's text are: what harness-gen writes as a crate's index.
#[derive(Debug, Default, PartialEq)]
pub struct Layout {
    /// The `info` record.
    pub info: Option<Span>,
    /// The `cli` record.
    pub cli: Option<Span>,
    /// Each tool's entry, in order.
    pub tools: Vec<Span>,
    /// Each component schema by name, sorted by name.
    pub components: Vec<(String, Span)>,
}

impl Layout {
    /// The layout of a catalog's text (one that [`Catalog::from_json`] reads).
    pub fn of(text: &str) -> Result<Layout, ContractErrors> {
        #[derive(Deserialize)]
        struct Parts<'a> {
            #[serde(borrow, default)]
            info: Option<&'a RawValue>,
            #[serde(borrow, default)]
            cli: Option<&'a RawValue>,
            #[serde(borrow)]
            tools: Vec<&'a RawValue>,
            #[serde(borrow, default)]
            components: Option<ComponentParts<'a>>,
        }
        #[derive(Deserialize)]
        struct ComponentParts<'a> {
            #[serde(borrow)]
            schemas: BTreeMap<String, &'a RawValue>,
        }
        let parts: Parts<'_> = serde_json::from_str(text).map_err(|e| {
            ContractErrors::one(ContractError::new(
                ErrorCode::Syntax,
                format!("line {} column {}", e.line(), e.column()),
                "the catalog's parts cannot be located: write it with harness-gen",
            ))
        })?;
        let span = |raw: &RawValue| {
            let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            (start, start + raw.get().len())
        };
        Ok(Layout {
            info: parts.info.map(span),
            cli: parts.cli.map(span),
            tools: parts.tools.into_iter().map(span).collect(),
            components: parts
                .components
                .map(|c| c.schemas)
                .unwrap_or_default()
                .into_iter()
                .map(|(name, raw)| (name, span(raw)))
                .collect(),
        })
    }
}

impl Catalog {
    /// Parses the tools of a generated catalog that `keep` keeps (by name) and the program has
    /// (the index's `enabled`), the components they reach and the catalog's `info` and `cli`:
    /// the rest of the text is not read. When every tool is kept, every component is too (the
    /// catalog is whole). Like [`Catalog::from_generated_json`], only for text compiled into the
    /// program, with the index harness-gen wrote beside it. Should the text no longer be what
    /// the index was made from (line endings converted by a checkout, say), it is read whole:
    /// the index makes reading faster, never different.
    pub fn from_generated_index(
        text: &'static str,
        index: &CatalogIndex,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<GeneratedCatalog, ContractErrors> {
        let left_out: BTreeSet<String> = index
            .tools
            .iter()
            .filter(|tool| !(tool.enabled && keep(tool.name)))
            .map(|tool| tool.name.to_string())
            .collect();
        let catalog = match (Reader { text }).catalog(index, &left_out) {
            Some(catalog) => catalog,
            None => {
                let mut catalog = Self::parse(text)?;
                catalog.retain_tools(|entry| !left_out.contains(entry.name.as_str()));
                catalog
            }
        };
        Ok(GeneratedCatalog { catalog, left_out })
    }
}

/// Parts of a generated catalog read without its tools: what a program that mounts the
/// catalog beside other sources needs before (or besides) the tools it reads.
impl CatalogIndex {
    /// The catalog's `info` and `cli` (parent commands) records, read from `text` (the text
    /// the index was made from); `None` when the text is not that one.
    pub fn read_head(&self, text: &'static str) -> Option<(Option<Info>, Option<CliTree>)> {
        let reader = Reader { text };
        let info = match self.info {
            Some(at) => Some(reader.read(at)?),
            None => None,
        };
        let cli = match self.cli {
            Some(at) => Some(reader.read(at)?),
            None => None,
        };
        Some((info, cli))
    }

    /// The components named in `names` and every component they reach, read from `text`;
    /// a name the catalog does not have is left out (its references are the validators' to
    /// report). `None` when the text is not the one the index was made from.
    pub fn read_components(
        &self,
        text: &'static str,
        names: Vec<String>,
    ) -> Option<BTreeMap<String, SchemaDoc>> {
        (Reader { text }).closure(names, self.components)
    }
}

/// Reads the parts of a catalog's text by their spans; `None` when a span does not hold what
/// the index says.
struct Reader {
    text: &'static str,
}

impl Reader {
    fn catalog(&self, index: &CatalogIndex, left_out: &BTreeSet<String>) -> Option<Catalog> {
        let (info, cli) = index.read_head(self.text)?;
        let mut tools = Vec::new();
        for tool in index.tools {
            if left_out.contains(tool.name) {
                continue;
            }
            let entry: Entry = self.read(tool.at)?;
            if entry.name.as_str() != tool.name {
                return None;
            }
            tools.push(entry);
        }
        let schemas = if left_out.is_empty() {
            index
                .components
                .iter()
                .map(|(name, at)| Some(((*name).to_string(), self.read(*at)?)))
                .collect::<Option<BTreeMap<_, _>>>()?
        } else {
            self.reached(&tools, index.components)?
        };
        Some(Catalog {
            schema_version: super::SchemaVersion,
            info,
            cli,
            tools,
            components: (!index.components.is_empty()).then_some(Components { schemas }),
        })
    }

    fn read<T: DeserializeOwned>(&self, at: Span) -> Option<T> {
        serde_json::from_str(self.text.get(at.0..at.1)?).ok()
    }

    /// The components `tools` reach, through references in their schemas and the components'.
    fn reached(
        &self,
        tools: &[Entry],
        components: &[(&str, Span)],
    ) -> Option<BTreeMap<String, SchemaDoc>> {
        let mut pending = Vec::new();
        for entry in tools {
            references(entry.input_schema.as_value(), &mut pending);
            for schema in [&entry.output_schema, &entry.error_schema]
                .into_iter()
                .flatten()
            {
                references(schema.as_value(), &mut pending);
            }
        }
        self.closure(pending, components)
    }

    /// The components named in `pending` and those they reach, through references.
    fn closure(
        &self,
        mut pending: Vec<String>,
        components: &[(&str, Span)],
    ) -> Option<BTreeMap<String, SchemaDoc>> {
        let mut reached = BTreeMap::new();
        let mut seen = BTreeSet::new();
        while let Some(name) = pending.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            // A reference to no component is the validators' to report, as for a whole catalog.
            let Ok(found) = components.binary_search_by(|(n, _)| (*n).cmp(name.as_str())) else {
                continue;
            };
            let schema: SchemaDoc = self.read(components[found].1)?;
            references(schema.as_value(), &mut pending);
            reached.insert(name, schema);
        }
        Some(reached)
    }
}

/// Adds the names of the components `schema` refers to.
fn references(schema: &Value, names: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => {
                        if let RefTarget::Component { name, .. } = classify(reference) {
                            names.push(name);
                        }
                    }
                    _ => references(value, names),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, names)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalog's text and an index of it, leaked as generated crates hold them.
    fn indexed(catalog: Value) -> (&'static str, &'static CatalogIndex) {
        let text: &'static str = Box::leak(
            serde_json::to_string_pretty(&catalog)
                .unwrap()
                .into_boxed_str(),
        );
        let layout = Layout::of(text).unwrap();
        let parsed = Catalog::from_json(text).unwrap();
        let tools: Vec<IndexedTool> = parsed
            .tools
            .iter()
            .zip(&layout.tools)
            .map(|(entry, at)| IndexedTool {
                name: leak(entry.name.as_str()),
                at: *at,
                enabled: true,
                command: Some(IndexedCommand {
                    path: Box::leak(
                        entry
                            .cli
                            .command
                            .words()
                            .map(leak)
                            .collect::<Vec<_>>()
                            .into_boxed_slice(),
                    ),
                    aliases: &[],
                    hidden: false,
                    title: leak(entry.command_title()),
                }),
            })
            .collect();
        let components: Vec<(&'static str, Span)> = layout
            .components
            .iter()
            .map(|(name, at)| (leak(name), *at))
            .collect();
        let index = Box::leak(Box::new(CatalogIndex {
            info: layout.info,
            cli: layout.cli,
            groups: &[],
            tools: Box::leak(tools.into_boxed_slice()),
            components: Box::leak(components.into_boxed_slice()),
        }));
        (text, index)
    }

    fn leak(text: &str) -> &'static str {
        Box::leak(text.to_string().into_boxed_str())
    }

    fn tool(name: &str, command: &str, input: Value) -> Value {
        serde_json::json!({
            "name": name,
            "inputSchema": input,
            "governance": {"audiences": ["cli", "mcp", "catalog", "dashboard", "agent"]},
            "cli": {"command": [command, name], "hidden": false},
            "deferLoading": false
        })
    }

    fn sample() -> Value {
        serde_json::json!({
            "schema_version": "harn-tools/2.0",
            "info": {"name": "Pets", "version": "1"},
            "tools": [
                tool("list", "pets", serde_json::json!({"type": "object", "properties": {"filter": {"$ref": "#/components/schemas/Filter"}}})),
                tool("get", "pets", serde_json::json!({"type": "object"})),
            ],
            "components": {"schemas": {
                "Filter": {"properties": {"by": {"$ref": "#/components/schemas/Field"}}},
                "Field": {"enum": ["name", "age"]},
                "Unused": {"type": "string"}
            }}
        })
    }

    #[test]
    fn an_index_reads_only_the_kept_tools_and_the_components_they_reach() {
        let (text, index) = indexed(sample());
        let catalog = Catalog::from_generated_index(text, index, &|name| name == "list")
            .unwrap()
            .into_catalog();
        assert_eq!(catalog.tools.len(), 1);
        assert_eq!(catalog.tools[0].name.as_str(), "list");
        let names: Vec<&String> = catalog.component_schemas().unwrap().keys().collect();
        assert_eq!(names, ["Field", "Filter"]);
        assert_eq!(catalog.info.unwrap().name.as_str(), "Pets");
    }

    #[test]
    fn an_index_keeping_every_tool_reads_the_whole_catalog() {
        let (text, index) = indexed(sample());
        let whole = Catalog::from_generated_index(text, index, &|_| true)
            .unwrap()
            .into_catalog();
        assert_eq!(whole, Catalog::from_json(text).unwrap());
    }

    #[test]
    fn an_index_that_does_not_match_the_text_reads_it_whole() {
        let (text, index) = indexed(sample());
        let only_list = |name: &str| name == "list";
        let expected = Catalog::from_generated_index(text, index, &only_list)
            .unwrap()
            .into_catalog();
        let shifted: &'static [IndexedTool] = Box::leak(Box::new([
            IndexedTool {
                at: (index.tools[0].at.0 + 1, index.tools[0].at.1),
                ..index.tools[0]
            },
            index.tools[1],
        ]));
        // A span of another tool is caught by its name.
        let swapped: &'static [IndexedTool] = Box::leak(Box::new([
            IndexedTool {
                at: index.tools[1].at,
                ..index.tools[0]
            },
            index.tools[1],
        ]));
        for tools in [shifted, swapped] {
            let wrong = CatalogIndex { tools, ..*index };
            let read = Catalog::from_generated_index(text, &wrong, &only_list)
                .unwrap()
                .into_catalog();
            assert_eq!(read.tools, expected.tools);
        }
    }

    #[test]
    fn tools_retained_away_are_left_out_so_publishing_sets_their_handlers_aside() {
        let (text, index) = indexed(sample());
        let catalog = Catalog::from_generated_index(text, index, &|_| true)
            .unwrap()
            .retain_tools(|entry| entry.name.as_str() == "get");
        assert!(catalog.left_out("list"));
        assert!(!catalog.left_out("get"));
        let names: Vec<String> = catalog
            .into_catalog()
            .tools
            .iter()
            .map(|e| e.name.as_str().to_string())
            .collect();
        assert_eq!(names, ["get"]);
    }
}

//! The agent projection's discovery: the initial tool list (deferred tools left out) and tool
//! search. Both run over a registry that is already projected to one audience, so nothing
//! outside it can appear.

use serde_json::{Value, json};

use crate::catalog::{Audience, Entry};
use crate::harness::ir::{CapabilityKind, Revision};
use crate::registry::ToolRegistry;
use crate::schema::listing::Role;

/// An LLM API whose tool-definition format the agent projection can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI function tools: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAi,
    /// Anthropic tools: `{name, description, input_schema}`.
    Anthropic,
}

impl ToolRegistry {
    /// The tools `audience` is shown up front: visible ones without `deferLoading`.
    pub fn initial_tools(&self, audience: Audience) -> impl Iterator<Item = &Entry> {
        self.list(audience).filter(|e| !e.defer_loading)
    }

    /// Tools visible to `audience` that match every word of `query` in their name, title,
    /// description, namespace or tags (case-insensitive), best first: a match in the name
    /// counts most, then title, namespace and tags, then description; ties keep registry order.
    pub fn search(&self, audience: Audience, query: &str, limit: usize) -> Vec<&Entry> {
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(u32, usize, &Entry)> = self
            .list(audience)
            .enumerate()
            .filter_map(|(order, entry)| score(entry, &words).map(|s| (s, order, entry)))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().take(limit).map(|(_, _, e)| e).collect()
    }
}

impl ToolRegistry {
    /// Tool definitions for `provider`, one per tool in `tools` (typically
    /// [`ToolRegistry::initial_tools`] or a [`ToolRegistry::search`] result of an agent
    /// projection), each with its input schema as listings show it ([`ToolRegistry::listable`]:
    /// bounded, never failing).
    pub fn provider_tools<'a>(
        &self,
        provider: Provider,
        tools: impl IntoIterator<Item = &'a Entry>,
    ) -> Vec<Value> {
        tools
            .into_iter()
            .map(|entry| {
                let at = format!("{}.inputSchema", entry.name.as_str());
                let schema = self.listable(entry.input_schema.as_value(), &at, Role::Input);
                let description = entry
                    .description_for(Audience::Agent)
                    .or(entry.title.as_deref())
                    .unwrap_or(entry.name.as_str());
                match provider {
                    Provider::OpenAi => json!({
                        "type": "function",
                        "function": {"name": entry.name, "description": description, "parameters": schema}
                    }),
                    Provider::Anthropic => json!({
                        "name": entry.name, "description": description, "input_schema": schema
                    }),
                }
            })
            .collect()
    }
}

fn score(entry: &Entry, words: &[String]) -> Option<u32> {
    let fields: [(Option<&str>, u32); 4] = [
        (Some(entry.name.as_str()), 4),
        (entry.title.as_deref(), 2),
        (entry.namespace.as_deref(), 2),
        (entry.description.as_deref(), 1),
    ];
    let tags = entry.tags().map(|tag| (tag.to_lowercase(), 2));
    let lowered: Vec<(String, u32)> = fields
        .iter()
        .filter_map(|(text, weight)| text.map(|t| (t.to_lowercase(), *weight)))
        .chain(tags)
        .collect();
    let mut total = 0;
    for word in words {
        let best = lowered
            .iter()
            .filter(|(text, _)| text.contains(word.as_str()))
            .map(|(_, weight)| *weight)
            .max()?;
        total += best;
    }
    Some(total)
}

impl ToolRegistry {
    /// The agent surface of one role: this registry's agent projection, restricted to the
    /// tools that agent `agent` requires in `revision` (a harness tool id names a registry tool
    /// by its name or by `namespace.name`). `None` when the revision has no such agent.
    pub fn for_role(&self, revision: &Revision, agent: &str) -> Option<ToolRegistry> {
        let role = revision.agents.iter().find(|a| a.id == agent)?;
        let required: Vec<&str> = role
            .capabilities
            .iter()
            .filter(|id| {
                revision
                    .resolved
                    .capabilities
                    .iter()
                    .any(|c| c.id == **id && c.kind == CapabilityKind::Tool)
            })
            .map(String::as_str)
            .collect();
        Some(
            self.project(Audience::Agent)
                .retain(|entry| required.iter().any(|id| entry.is_named(id))),
        )
    }
}

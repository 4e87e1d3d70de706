//! Which tools a server offers: all its MCP tools, or those chosen when it starts (by name, by
//! exclusion, read-only only). A tool left out does not exist for the server's clients: it is
//! not listed, and a call to it is answered exactly like a call to an unknown tool.

use crate::{Audience, ToolRegistry};

/// A choice of tools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Only these tools (all when empty).
    pub tools: Vec<String>,
    /// Not these tools.
    pub exclude: Vec<String>,
    /// Only tools whose annotations say they are read-only (`readOnlyHint: true`).
    pub read_only: bool,
}

impl Selection {
    /// The MCP tools of `registry` this selection keeps. A name that is not one of them is an
    /// error listing the valid names (a typo never silently serves fewer tools).
    pub fn apply(&self, registry: &ToolRegistry) -> Result<ToolRegistry, String> {
        let mcp = registry.project(Audience::Mcp);
        let known = |name: &String| mcp.lookup(Audience::Mcp, name).is_some();
        if let Some(unknown) = self.tools.iter().chain(&self.exclude).find(|n| !known(n)) {
            let valid: Vec<&str> = mcp.entries().map(|e| e.name.as_str()).collect();
            return Err(format!(
                "unknown tool `{unknown}`; the MCP tools are: {}",
                valid.join(", ")
            ));
        }
        Ok(mcp.retain(|entry| {
            let name = entry.name.to_string();
            let read_only = entry
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
            (self.tools.is_empty() || self.tools.contains(&name))
                && !self.exclude.contains(&name)
                && (!self.read_only || read_only)
        }))
    }
}

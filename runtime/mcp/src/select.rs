//! Which tools a server offers: all its MCP tools, or those chosen when it starts (by name, by
//! tag, by exclusion, read-only only). A tool left out does not exist for the server's clients:
//! it is not listed, and a call to it is answered exactly like a call to an unknown tool.

use harness_gen_contract::Audience;
use harness_gen_registry::ToolRegistry;

/// A choice of tools.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Selection {
    /// Only these tools, and those of `tags` (all when both are empty).
    pub tools: Vec<String>,
    /// Only tools with one of these tags (`Entry::tags`), and those of `tools`.
    pub tags: Vec<String>,
    /// Not these tools.
    pub exclude: Vec<String>,
    /// Only tools whose annotations say they are read-only (`readOnlyHint: true`).
    pub read_only: bool,
}

impl Selection {
    /// The choice of `tools` and the tools with one of `tags` (all when both are empty) without
    /// `exclude`, read-only ones only when `read_only`; the names sorted and without repeats, so
    /// one choice is one value however it was spelled.
    pub fn new(
        mut tools: Vec<String>,
        mut tags: Vec<String>,
        mut exclude: Vec<String>,
        read_only: bool,
    ) -> Self {
        for names in [&mut tools, &mut tags, &mut exclude] {
            names.sort();
            names.dedup();
        }
        Self {
            tools,
            tags,
            exclude,
            read_only,
        }
    }

    /// The choice a URL's query makes: `tool` and `tag` (repeated, or names separated by
    /// commas), `exclude_tool` (the same) and `read_only` (`true` or `false`). Anything else is
    /// an error naming it.
    pub fn from_uri(uri: &axum::http::Uri) -> Result<Self, String> {
        let axum::extract::Query(pairs) =
            axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri)
                .map_err(|_| "the query is not a valid URL query".to_string())?;
        let (mut tools, mut tags, mut exclude, mut read_only) =
            (Vec::new(), Vec::new(), Vec::new(), false);
        for (key, value) in pairs {
            let names = value
                .split(',')
                .filter(|n| !n.is_empty())
                .map(str::to_string);
            match key.as_str() {
                "tool" | "tools" => tools.extend(names),
                "tag" | "tags" => tags.extend(names),
                "exclude_tool" | "exclude_tools" => exclude.extend(names),
                "read_only" => {
                    read_only = match value.as_str() {
                        "true" | "" => true,
                        "false" => false,
                        _ => return Err(format!("read_only is true or false, not `{value}`")),
                    }
                }
                other => {
                    return Err(format!(
                        "unknown parameter `{other}`; the tools are chosen with tool, tag, exclude_tool and read_only"
                    ));
                }
            }
        }
        Ok(Selection::new(tools, tags, exclude, read_only))
    }

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
        let known_tags: std::collections::BTreeSet<&str> =
            mcp.entries().flat_map(|e| e.tags()).collect();
        if let Some(unknown) = self.tags.iter().find(|t| !known_tags.contains(t.as_str())) {
            return Err(format!(
                "unknown tag `{unknown}`; the MCP tools' tags are: {}",
                if known_tags.is_empty() {
                    "none".to_string()
                } else {
                    known_tags.into_iter().collect::<Vec<_>>().join(", ")
                }
            ));
        }
        let named = |names: &[String], name: &str| names.iter().any(|n| n == name);
        let chosen = |entry: &crate::catalog::Entry| {
            (self.tools.is_empty() && self.tags.is_empty())
                || named(&self.tools, &entry.name)
                || entry.tags().any(|tag| named(&self.tags, tag))
        };
        Ok(mcp.retain(|entry| {
            let name = entry.name.as_str();
            let read_only = entry
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
            chosen(entry) && !named(&self.exclude, name) && (!self.read_only || read_only)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_chooses_tools_by_name_exclusion_and_read_only() {
        let from_query =
            |query: &str| Selection::from_uri(&format!("/mcp?{query}").parse().unwrap());
        let selection =
            from_query("tool=b&tool=a%2Cc&tag=pets&exclude_tool=d&read_only=true").unwrap();
        assert_eq!(
            selection,
            Selection {
                tools: vec!["a".into(), "b".into(), "c".into()],
                tags: vec!["pets".into()],
                exclude: vec!["d".into()],
                read_only: true,
            }
        );
        assert_eq!(from_query("").unwrap(), Selection::default());
        let unknown = from_query("groups=pets").unwrap_err();
        assert!(unknown.contains("`groups`"), "{unknown}");
        assert!(from_query("read_only=maybe").is_err());
    }
}

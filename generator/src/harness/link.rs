//! Linking harness tools to registry tools (spec §8): a harness `tool` whose id equals a
//! catalog tool's name, or its `namespace.name`, is that tool; the identifiers its `input { … }`
//! and `output { … }` declare must be properties of the tool's input and output schemas.

use std::collections::BTreeSet;

use harness_gen_contract::Catalog;
use harness_gen_contract::catalog::Entry;
use serde_json::Value;

use super::Compiled;
use super::diag::{Code, Diagnostic, Sources};
use super::syntax::Decl;

/// The catalog tool a harness tool id names, if any.
pub fn linked<'a>(catalog: &'a Catalog, id: &str) -> Option<&'a Entry> {
    catalog.tools.iter().find(|entry| entry.is_named(id))
}

/// Every declared input or output of a linked harness tool that its registry tool lacks.
pub fn check(sources: &Sources, compiled: &Compiled, catalog: &Catalog) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let tools = compiled
        .parsed
        .iter()
        .flat_map(|p| &p.decls)
        .filter_map(|d| match d {
            Decl::Tool(tool) => Some(tool),
            _ => None,
        });
    for tool in tools {
        let Some(entry) = linked(catalog, &tool.name.text) else {
            continue;
        };
        let inputs = properties(catalog, Some(entry.input_schema.as_value()));
        let outputs = properties(catalog, entry.output_schema.as_ref().map(|s| s.as_value()));
        for (declared, known, what) in [
            (&tool.inputs, &inputs, "input"),
            (&tool.outputs, &outputs, "output"),
        ] {
            for name in declared {
                if known.contains(name.text.as_str()) {
                    continue;
                }
                let have = if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.iter().cloned().collect::<Vec<_>>().join(", ")
                };
                let message = format!(
                    "tool '{}' is linked to registry tool '{}', whose {what} schema has no property '{}' (it has: {have}); fix the name or remove it from `{what} {{ … }}`",
                    tool.name.text,
                    entry.name.as_str(),
                    name.text
                );
                diags.push(sources.diagnostic(Code::LinkMismatch, name.span, message));
            }
        }
    }
    diags
}

/// The property names a schema declares: its own `properties`, those of local `$ref` targets
/// among the catalog's components, and of every `allOf`/`anyOf`/`oneOf` branch.
fn properties(catalog: &Catalog, schema: Option<&Value>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut pending: Vec<&Value> = schema.into_iter().collect();
    let mut visited = 0;
    while let Some(schema) = pending.pop() {
        visited += 1;
        if visited > 256 {
            break;
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            names.extend(props.keys().cloned());
        }
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .and_then(|name| catalog.components.as_ref()?.schemas.get(name))
        {
            pending.push(target.as_value());
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                pending.extend(branches);
            }
        }
    }
    names
}

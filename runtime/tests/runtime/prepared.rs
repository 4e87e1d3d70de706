//! The prepared registry: validators compile lazily and at most once; projections share them.

use crate::common::*;
use harness_gen_runtime::Audience;
use serde_json::json;

fn many(n: usize) -> Vec<serde_json::Value> {
    (0..n)
        .map(|i| {
            entry_with(
                &format!("tool_{i}"),
                json!({
                    "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}},
                    "outputSchema": {"type": "object"},
                    "errorSchema": {"type": "object"}
                }),
            )
        })
        .collect()
}

#[test]
fn publishing_compiles_no_validator() {
    let registry = registry(many(200), vec![]);
    assert_eq!(registry.compiled_validators(), 0);
    assert_eq!(registry.list(Audience::Cli).count(), 200);
    assert_eq!(registry.compiled_validators(), 0);
}

#[test]
fn a_call_compiles_only_the_validators_it_uses_once() {
    let registry = registry(many(50), vec![]);
    block_on(registry.invoke(Audience::Cli, "tool_7", json!({"x": 1}))).unwrap();
    assert_eq!(registry.compiled_validators(), 2, "input and output");
    for _ in 0..3 {
        block_on(registry.invoke(Audience::Cli, "tool_7", json!({"x": 2}))).unwrap();
    }
    assert_eq!(registry.compiled_validators(), 2);
}

#[test]
fn projections_share_compiled_validators() {
    let registry = registry(many(5), vec![]);
    let agent = registry.project(Audience::Agent);
    block_on(agent.invoke(Audience::Agent, "tool_1", json!({}))).unwrap();
    block_on(registry.invoke(Audience::Mcp, "tool_1", json!({}))).unwrap();
    assert_eq!(registry.compiled_validators(), 2);
}

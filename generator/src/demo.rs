//! A small registry built in code, used by `harness-gen demo` to show the catalog format until
//! the OpenAPI ingest produces real ones.

use std::collections::BTreeMap;

use harness_runtime::catalog::Catalog;
use harness_runtime::{ContractErrors, Handler, ToolRegistry};
use serde_json::json;

/// The demonstration registry: two pet-store tools with echoing handlers.
pub fn registry() -> Result<ToolRegistry, ContractErrors> {
    let catalog = Catalog::from_value(json!({
        "schema_version": "harn-tools/2.0",
        "info": {"name": "demo-pets", "version": "0.1.0", "description": "A registry built in code."},
        "cli": {"commands": [{"command": ["pets"], "title": "Pets", "aliases": [], "hidden": false}]},
        "tools": [
            {
                "name": "list_pets",
                "title": "List pets",
                "inputSchema": {
                    "type": "object",
                    "properties": {"limit": {"type": "integer", "minimum": 1}},
                    "additionalProperties": false
                },
                "outputSchema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
                "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
                "governance": {"audiences": ["cli", "mcp", "catalog", "dashboard", "agent"]},
                "cli": {"command": ["pets", "list"], "aliases": ["ls"], "hidden": false},
                "deferLoading": false,
                "policy": {"kind": "fetch", "side_effect_level": "network"}
            },
            {
                "name": "delete_pet",
                "title": "Delete a pet",
                "inputSchema": {
                    "type": "object",
                    "properties": {"pet_id": {"type": "integer"}},
                    "required": ["pet_id"],
                    "additionalProperties": false
                },
                "errorSchema": {
                    "type": "object",
                    "properties": {"kind": {"const": "http_404"}, "status": {"const": 404}},
                    "required": ["kind", "status"]
                },
                "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true},
                "governance": {"audiences": ["cli", "catalog", "dashboard"]},
                "cli": {"command": ["pets", "delete"], "hidden": false, "arguments": {"pet_id": {"position": 0}}},
                "deferLoading": true,
                "policy": {"kind": "execute", "side_effect_level": "network"}
            }
        ],
        "components": {"schemas": {"Pet": {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "required": ["id", "name"]
        }}}
    }))?;
    let mut handlers = BTreeMap::new();
    handlers.insert(
        "list_pets".to_string(),
        Handler::new(|_| async { Ok(json!([{"id": 1, "name": "Rex"}])) }),
    );
    handlers.insert(
        "delete_pet".to_string(),
        Handler::new(|_| async { Ok(serde_json::Value::Null) }),
    );
    ToolRegistry::publish(catalog, handlers)
}

//! Pure renderings of one [`ToolError`] for each adapter: the CLI failure envelope with its exit
//! code, and the MCP error projection. Adapters call these and add nothing of their own.

use serde_json::{Value, json};

use crate::catalog::CONTRACT_META_KEY;
use crate::invoke::ToolError;

/// Process exit codes of a generated CLI, one per failure kind.
pub mod exit_code {
    /// The tool succeeded.
    pub const SUCCESS: i32 = 0;
    /// Usage error or invalid input (also an unknown command).
    pub const INVALID_INPUT: i32 = 2;
    /// The tool returned a declared application error.
    pub const APPLICATION: i32 = 3;
    /// A runtime error (transport, timeout, undeclared error, panic, …).
    pub const RUNTIME: i32 = 4;
    /// The tool broke its own contract.
    pub const CONTRACT_VIOLATION: i32 = 5;
}

/// The exit code for `error`.
pub fn cli_exit_code(error: &ToolError) -> i32 {
    match error {
        ToolError::UnknownTool { .. } | ToolError::InvalidInput { .. } => exit_code::INVALID_INPUT,
        ToolError::Application { .. } => exit_code::APPLICATION,
        ToolError::Runtime { .. } | ToolError::Reply { .. } => exit_code::RUNTIME,
        ToolError::ContractViolation { .. } => exit_code::CONTRACT_VIOLATION,
    }
}

/// The closed CLI failure envelope: `{"ok": false, "error": {"kind": …}}`. Application errors
/// carry their declared data; a reply outside the contract its status, content type and first
/// bytes (`reply`); every other kind carries a value-free message.
pub fn cli_failure_envelope(error: &ToolError) -> Value {
    let body = match error {
        ToolError::Application { tool, data } => json!({
            "kind": "application",
            "tool": tool,
            "data": data,
        }),
        ToolError::UnknownTool { .. } => json!({
            "kind": "invalid_input",
            "message": error.to_string(),
        }),
        ToolError::InvalidInput { tool, issues } => json!({
            "kind": "invalid_input",
            "tool": tool,
            "message": error.to_string(),
            "issues": issues,
        }),
        ToolError::Runtime { tool, category, .. } => json!({
            "kind": "runtime",
            "tool": tool,
            "category": category,
            "message": error.to_string(),
        }),
        ToolError::Reply {
            tool,
            category,
            reply,
        } => json!({
            "kind": "runtime",
            "tool": tool,
            "category": category,
            "message": error.to_string(),
            "reply": reply,
        }),
        ToolError::ContractViolation {
            tool,
            phase,
            issues,
        } => json!({
            "kind": "contract_violation",
            "tool": tool,
            "phase": phase,
            "message": error.to_string(),
            "issues": issues,
        }),
    };
    envelope(body)
}

/// The CLI failure envelope of a command line that could not become an input (a bad
/// `--input-json`, an option value of the wrong type): `invalid_input` with the tool and the
/// reason, before any call is made.
pub fn cli_usage_envelope(tool: &str, message: &str) -> Value {
    envelope(json!({
        "kind": "invalid_input",
        "tool": tool,
        "message": message,
    }))
}

fn envelope(error: Value) -> Value {
    json!({ "ok": false, "error": error })
}

/// How an MCP server answers a failed `tools/call`.
#[derive(Clone, Debug, PartialEq)]
pub enum McpFailure {
    /// A JSON-RPC error (`-32602`, invalid params): the tool is unknown to this audience.
    InvalidParams {
        /// The error message.
        message: String,
    },
    /// A `CallToolResult` with `isError: true`.
    ToolResult(Value),
}

/// JSON-RPC's invalid-params code.
pub const JSONRPC_INVALID_PARAMS: i64 = -32602;

/// The MCP answer for `error`: an unknown (or out-of-audience) tool is a protocol error; every
/// other failure is an `isError` result with a value-free text block, and application errors
/// add their data under `_meta["com.harnlang/toolContract"].applicationError`. Never
/// `structuredContent` for an error.
pub fn mcp_failure(error: &ToolError) -> McpFailure {
    let text = error.to_string();
    match error {
        ToolError::UnknownTool { .. } => McpFailure::InvalidParams { message: text },
        ToolError::Application { tool, data } => McpFailure::ToolResult(json!({
            "content": [{ "type": "text", "text": text }],
            "isError": true,
            "_meta": { CONTRACT_META_KEY: { "applicationError": { "tool": tool, "data": data } } },
        })),
        // The other kinds, as the CLI envelope says them (value-free), so a client (the
        // bridge) can tell invalid input, a runtime failure and a contract violation apart.
        _ => {
            let mut failure = cli_failure_envelope(error)["error"].take();
            if let Some(failure) = failure.as_object_mut() {
                failure.remove("message");
            }
            McpFailure::ToolResult(json!({
                "content": [{ "type": "text", "text": text }],
                "isError": true,
                "_meta": { CONTRACT_META_KEY: { "failure": failure } },
            }))
        }
    }
}

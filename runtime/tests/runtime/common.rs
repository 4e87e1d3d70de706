//! Helpers shared by the runtime's specification tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use harness_gen_runtime::{Catalog, ContractErrors, ErrorCode, Handler, Thrown, ToolRegistry};
use serde_json::{Value, json};

/// A minimal valid entry named `name` at command `[name]`, visible to every audience.
pub fn entry(name: &str) -> Value {
    json!({
        "name": name,
        "inputSchema": {"type": "object"},
        "governance": {"audiences": ["cli", "mcp", "catalog", "dashboard", "agent"]},
        "cli": {"command": [name], "hidden": false},
        "deferLoading": false
    })
}

/// `entry(name)` with `patch`'s top-level fields replaced.
pub fn entry_with(name: &str, patch: Value) -> Value {
    let mut base = entry(name);
    if let (Value::Object(base), Value::Object(patch)) = (&mut base, patch) {
        base.extend(patch);
    }
    base
}

/// A catalog document holding `tools`.
pub fn catalog(tools: Vec<Value>) -> Value {
    json!({"schema_version": "harn-tools/2.0", "tools": tools})
}

/// Parses `doc` and returns its errors, failing the test if it was accepted.
pub fn refused(doc: Value) -> ContractErrors {
    match Catalog::from_value(doc) {
        Ok(_) => panic!("the catalog was accepted"),
        Err(errors) => errors,
    }
}

/// Asserts `doc` is refused with `code` at `path`.
pub fn assert_refused(doc: Value, code: ErrorCode, path: &str) {
    let errors = refused(doc);
    assert!(
        errors.has(code, path),
        "expected {code} at {path}, got:\n{errors}"
    );
}

/// Publishes `tools` with a handler per tool that answers from `answers` (by tool name).
pub fn registry(tools: Vec<Value>, answers: Vec<(&str, Answer)>) -> ToolRegistry {
    let catalog = Catalog::from_value(catalog(tools)).expect("valid catalog");
    let mut handlers = BTreeMap::new();
    let mut answers: BTreeMap<&str, Answer> = answers.into_iter().collect();
    for tool in &catalog.tools {
        let answer = answers.remove(tool.name.as_str()).unwrap_or(Answer::Echo);
        handlers.insert(tool.name.to_string(), answer.handler());
    }
    ToolRegistry::publish(catalog, handlers).expect("publishes")
}

/// What a test handler does.
#[derive(Clone)]
pub enum Answer {
    /// Returns its input.
    Echo,
    /// Returns this value.
    Return(Value),
    /// Throws this value.
    Throw(Value),
    /// Panics.
    Panic,
}

impl Answer {
    /// The handler that gives this answer.
    pub fn into_handler(self) -> Handler {
        self.handler()
    }

    fn handler(self) -> Handler {
        Handler::new(move |input| {
            let answer = self.clone();
            async move {
                match answer {
                    Answer::Echo => Ok(input),
                    Answer::Return(value) => Ok(value),
                    Answer::Throw(value) => Err(Thrown::Value(value)),
                    Answer::Panic => panic!("handler failure for tests"),
                }
            }
        })
    }
}

/// Runs a future to completion on a fresh runtime.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(future)
}

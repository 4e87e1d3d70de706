//! Reading the shared real-world corpus (`../shared/corpus/`) in tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The corpus directory; CI and developers have `shared/` beside the repository.
pub fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    assert!(
        dir.join("index.json").exists(),
        "the shared corpus is missing: expected it at {}",
        dir.display()
    );
    dir
}

/// One document listed in `index.json`.
pub struct Listed {
    /// Path below the corpus directory.
    pub path: String,
    /// The `openapi` version string.
    pub openapi: String,
    /// `valid`, `either` or `diagnose`.
    pub expect: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// Every document of the index.
pub fn listed() -> Vec<Listed> {
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("index.json")).unwrap()).unwrap();
    index["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Listed {
            path: d["path"].as_str().unwrap().to_string(),
            openapi: d["openapi"].as_str().unwrap_or_default().to_string(),
            expect: d["expect"].as_str().unwrap_or_default().to_string(),
            bytes: d["bytes"].as_u64().unwrap_or_default(),
        })
        .collect()
}

/// Loads a JSON or YAML document as JSON (YAML keys become strings; dates stay strings).
pub fn load(path: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(path)).unwrap();
    if path.ends_with(".json") {
        serde_json::from_str(&text).unwrap()
    } else {
        let yaml: yaml_serde::Value = yaml_serde::from_str(&text).unwrap();
        yaml_to_json(yaml)
    }
}

fn yaml_to_json(value: yaml_serde::Value) -> Value {
    use yaml_serde::Value as Y;
    match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64().map(Value::from).unwrap_or(Value::Null)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let key = match k {
                    Y::String(s) => s,
                    other => match yaml_to_json(other) {
                        Value::String(s) => s,
                        v => v.to_string(),
                    },
                };
                out.insert(key, yaml_to_json(v));
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => yaml_to_json(tagged.value),
    }
}

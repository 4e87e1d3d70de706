//! Writes (or checks) the catalog format's generated artifacts: the JSON Schema and the
//! TypeScript declaration produced from `harness-gen-runtime`'s Rust types.

use std::path::{Path, PathBuf};

use harness_gen::output::write_if_changed;
use harness_gen_contract::artifacts::{JSON_SCHEMA_FILE, TYPESCRIPT_FILE, json_schema, typescript};

/// The artifacts as `(file name, contents)`.
pub fn files() -> [(&'static str, String); 2] {
    [
        (JSON_SCHEMA_FILE, json_schema()),
        (TYPESCRIPT_FILE, typescript()),
    ]
}

/// Writes the artifacts into `dir`, rewriting only files whose contents changed. Returns the
/// files written.
pub fn write(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, contents) in files() {
        let path = dir.join(name);
        if write_if_changed(&path, &contents)? {
            written.push(path);
        }
    }
    Ok(written)
}

/// The artifacts in `dir` that are missing or differ from what the types generate.
pub fn stale(dir: &Path) -> Vec<PathBuf> {
    files()
        .into_iter()
        .map(|(name, contents)| (dir.join(name), contents))
        .filter(|(path, contents)| {
            std::fs::read_to_string(path).ok().as_deref() != Some(contents.as_str())
        })
        .map(|(path, _)| path)
        .collect()
}

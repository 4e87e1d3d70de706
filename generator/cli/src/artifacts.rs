//! Writes (or checks) the generated artifacts: the catalog format's JSON Schema and TypeScript
//! declaration produced from `harness-gen-runtime`'s Rust types, and the book's reference pages
//! (`reference`).

use std::path::{Path, PathBuf};

use harness_gen::output::write_if_changed;
use harness_gen_contract::artifacts::{JSON_SCHEMA_FILE, TYPESCRIPT_FILE, json_schema, typescript};

/// The artifacts as `(path, contents)`: the catalog format's in `dir`, the reference pages in
/// `docs`; `cli` is `harness-gen`'s own command, which one page describes.
pub fn files(dir: &Path, docs: &Path, cli: &clap::Command) -> Vec<(PathBuf, String)> {
    let mut files = vec![
        (dir.join(JSON_SCHEMA_FILE), json_schema()),
        (dir.join(TYPESCRIPT_FILE), typescript()),
    ];
    for (name, contents) in crate::reference::pages(cli) {
        files.push((docs.join(name), contents));
    }
    files
}

/// Writes `files`, rewriting only those whose contents changed. Returns the files written.
pub fn write(files: Vec<(PathBuf, String)>) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (path, contents) in files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if write_if_changed(&path, &contents)? {
            written.push(path);
        }
    }
    Ok(written)
}

/// Those of `files` that are missing or differ from what the code generates.
pub fn stale(files: Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    files
        .into_iter()
        .filter(|(path, contents)| {
            std::fs::read_to_string(path).ok().as_deref() != Some(contents.as_str())
        })
        .map(|(path, _)| path)
        .collect()
}

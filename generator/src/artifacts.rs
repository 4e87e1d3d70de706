//! Writes (or checks) the catalog format's generated artifacts: the JSON Schema and the
//! TypeScript declaration produced from `harness-gen-runtime`'s Rust types.

use std::path::{Path, PathBuf};

use harness_gen_runtime::artifacts::{JSON_SCHEMA_FILE, TYPESCRIPT_FILE, json_schema, typescript};

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

/// Writes `contents` to `path` (atomically) unless it already holds exactly that; returns
/// whether it wrote.
pub fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<bool> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(false);
    }
    write_atomically(path, contents)?;
    Ok(true)
}

/// Writes `contents` to `path` through a temporary file in the same folder and a rename, so a
/// reader never sees half a file and an interrupted run leaves the old one.
pub fn write_atomically(path: &Path, contents: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

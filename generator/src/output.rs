//! Writing generated files safely: only inside the output directory, only files that changed,
//! each atomically; a marker file lists what harness-gen owns there, so stale files it wrote
//! before are removed and nothing else is ever touched. A non-empty directory without the marker
//! is refused.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The marker file, listing the files harness-gen owns in the directory.
pub const MARKER: &str = ".harness-gen";

const MARKER_HEADER: &str = "# Written by harness-gen. The files below are generated; harness-gen rewrites and removes only these.\n";

/// One difference between the directory and what would be generated.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// A file to create.
    Added(String),
    /// A file whose contents differ.
    Changed(String),
    /// A file harness-gen wrote before and no longer generates.
    Removed(String),
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Added(p) => write!(f, "added:   {p}"),
            Change::Changed(p) => write!(f, "changed: {p}"),
            Change::Removed(p) => write!(f, "removed: {p}"),
        }
    }
}

/// Why the output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The directory has files and no marker: harness-gen did not create it.
    #[error(
        "{0} is not empty and was not created by harness-gen (no {MARKER} file): choose an empty or new directory, or remove its contents"
    )]
    Foreign(PathBuf),
    /// A generated path would leave the directory.
    #[error("refusing to write outside the output directory: {0}")]
    Escape(String),
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The differences between `dir` and `files`, without writing anything.
pub fn plan(dir: &Path, files: &BTreeMap<String, String>) -> Result<Vec<Change>, OutputError> {
    let owned = owned(dir)?;
    let mut changes = Vec::new();
    for (relative, contents) in files {
        check_relative(relative)?;
        match std::fs::read(dir.join(relative)) {
            Ok(existing) if existing == contents.as_bytes() => {}
            Ok(_) => changes.push(Change::Changed(relative.clone())),
            Err(_) => changes.push(Change::Added(relative.clone())),
        }
    }
    for stale in owned.iter().filter(|p| !files.contains_key(*p)) {
        if dir.join(stale).exists() {
            changes.push(Change::Removed(stale.clone()));
        }
    }
    Ok(changes)
}

/// Writes `files` into `dir` (created if missing): changed files only, atomically; removes
/// files harness-gen wrote before and no longer generates. Returns what changed.
pub fn write(dir: &Path, files: &BTreeMap<String, String>) -> Result<Vec<Change>, OutputError> {
    let changes = plan(dir, files)?;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // Stage every new file first: if any write fails (disk full, interrupted run), the staged
    // files are removed and the previous output is left exactly as it was.
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let stage = |relative: &str,
                 contents: &str,
                 staged: &mut Vec<(PathBuf, PathBuf)>|
     -> Result<(), OutputError> {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
        let tmp = path.with_file_name(format!(".{name}.{}.staged", std::process::id()));
        std::fs::write(&tmp, contents).map_err(io(&tmp))?;
        staged.push((tmp, path));
        Ok(())
    };
    let marker = marker_text(files);
    let mut result = Ok(());
    for change in &changes {
        if let Change::Added(relative) | Change::Changed(relative) = change {
            result = stage(relative, &files[relative], &mut staged);
            if result.is_err() {
                break;
            }
        }
    }
    if result.is_ok()
        && std::fs::read_to_string(dir.join(MARKER)).ok().as_deref() != Some(marker.as_str())
    {
        result = stage(MARKER, &marker, &mut staged);
    }
    if let Err(error) = result {
        for (tmp, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(error);
    }
    // Then move them into place (each rename is atomic) and remove what is stale.
    for (tmp, path) in &staged {
        std::fs::rename(tmp, path).map_err(io(path))?;
    }
    for change in &changes {
        if let Change::Removed(relative) = change {
            let path = dir.join(relative);
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(changes)
}

fn marker_text(files: &BTreeMap<String, String>) -> String {
    let mut text = MARKER_HEADER.to_string();
    for path in files.keys() {
        text.push_str(path);
        text.push('\n');
    }
    text
}

/// The files the marker lists; refuses a non-empty directory without one.
fn owned(dir: &Path) -> Result<BTreeSet<String>, OutputError> {
    match std::fs::read_to_string(dir.join(MARKER)) {
        Ok(text) => Ok(text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter(|l| check_relative(l).is_ok())
            .map(str::to_string)
            .collect()),
        Err(_) => {
            let non_empty = std::fs::read_dir(dir)
                .map(|mut entries| entries.next().is_some())
                .unwrap_or(false);
            if non_empty {
                Err(OutputError::Foreign(dir.to_path_buf()))
            } else {
                Ok(BTreeSet::new())
            }
        }
    }
}

fn check_relative(relative: &str) -> Result<(), OutputError> {
    let path = Path::new(relative);
    let inside = path.components().all(|c| matches!(c, Component::Normal(_)));
    if inside && !relative.is_empty() {
        Ok(())
    } else {
        Err(OutputError::Escape(relative.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("harness-gen-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn files(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        entries
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect()
    }

    #[test]
    fn writes_only_what_changed_and_removes_only_what_it_owned() {
        let dir = scratch("owned");
        let first = files(&[("a.rs", "1"), ("src/b.rs", "2")]);
        assert_eq!(
            write(&dir, &first).unwrap(),
            [
                Change::Added("a.rs".into()),
                Change::Added("src/b.rs".into())
            ]
        );
        assert!(write(&dir, &first).unwrap().is_empty());
        std::fs::write(dir.join("mine.txt"), "user file").unwrap();
        let second = files(&[("a.rs", "1!")]);
        assert_eq!(
            write(&dir, &second).unwrap(),
            [
                Change::Changed("a.rs".into()),
                Change::Removed("src/b.rs".into())
            ]
        );
        assert!(!dir.join("src/b.rs").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("mine.txt")).unwrap(),
            "user file"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_foreign_non_empty_directory_is_refused() {
        let dir = scratch("foreign");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("important.txt"), "keep").unwrap();
        assert!(matches!(
            write(&dir, &files(&[("a.rs", "1")])),
            Err(OutputError::Foreign(_))
        ));
        assert_eq!(
            std::fs::read_to_string(dir.join("important.txt")).unwrap(),
            "keep"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn paths_cannot_leave_the_directory() {
        let dir = scratch("escape");
        assert!(matches!(
            write(&dir, &files(&[("../x", "1")])),
            Err(OutputError::Escape(_))
        ));
        assert!(matches!(
            write(&dir, &files(&[("/etc/x", "1")])),
            Err(OutputError::Escape(_))
        ));
    }

    #[test]
    fn a_failed_run_leaves_the_previous_output_intact() {
        let dir = scratch("interrupted");
        let first = files(&[("a.rs", "old a"), ("src/b.rs", "old b")]);
        write(&dir, &first).unwrap();
        // `src/b.rs/x` cannot be created (b.rs is a file): the run fails after staging a.rs.
        let second = files(&[("a.rs", "new a"), ("src/b.rs/x", "new")]);
        assert!(write(&dir, &second).is_err());
        assert_eq!(std::fs::read_to_string(dir.join("a.rs")).unwrap(), "old a");
        assert_eq!(
            std::fs::read_to_string(dir.join("src/b.rs")).unwrap(),
            "old b"
        );
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".staged"))
            .collect();
        assert!(leftovers.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn plan_reports_without_writing() {
        let dir = scratch("plan");
        let planned = plan(&dir, &files(&[("a.rs", "1")])).unwrap();
        assert_eq!(planned, [Change::Added("a.rs".into())]);
        assert!(!dir.exists());
    }
}

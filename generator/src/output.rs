//! Writing generated files safely: only inside the output directory, only files that changed,
//! each atomically; a marker file lists what harness-gen owns there, so stale files it wrote
//! before are removed and nothing else is ever touched. A non-empty directory without the marker
//! is refused.
//!
//! A write stages every new file beside its destination first and only then renames them into
//! place. A run that fails or is interrupted ([`interrupt`]) while staging removes what it staged:
//! the previous output is left exactly as it was. An interrupt that arrives while renaming waits
//! for the renames to finish, so the output is never half old, half new. A process killed outright
//! (SIGKILL) while staging leaves the previous output too, plus staged files the next write
//! removes; the marker is widened to the old and new files before the first rename, so even a kill
//! between renames leaves a directory the next run recognizes and completes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

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
    /// The run was interrupted before anything was renamed into place.
    #[error("interrupted: nothing was written, the previous output is unchanged")]
    Interrupted,
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// Set by [`interrupt`]; a write checks it between staged files.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Held for the whole of a write, so [`interrupt`] can wait for one to end.
static WRITING: Mutex<()> = Mutex::new(());

/// A pause after each staged file and each rename (tests of interrupted runs only).
#[cfg(feature = "test-hooks")]
static STEP_DELAY_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Asks any write in progress to stop, and returns once none is running: a write still staging
/// removes what it staged (the previous output stays), one already renaming finishes (the new
/// output is whole). Later writes refuse to start. Call it from a signal handler, then exit.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    drop(WRITING.lock().unwrap_or_else(PoisonError::into_inner));
}

/// Pauses `ms` after each staged file and each rename, so tests can interrupt a write midway
/// (feature `test-hooks`, which only this crate's tests enable).
#[cfg(feature = "test-hooks")]
pub fn set_step_delay_for_tests(ms: u64) {
    STEP_DELAY_MS.store(ms, Ordering::SeqCst);
}

#[cfg(feature = "test-hooks")]
fn step() {
    let ms = STEP_DELAY_MS.load(Ordering::SeqCst);
    if ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

#[cfg(not(feature = "test-hooks"))]
fn step() {}

/// Whether [`interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The differences between `dir` and `files`, without writing anything.
pub fn plan(dir: &Path, files: &BTreeMap<String, String>) -> Result<Vec<Change>, OutputError> {
    changes(dir, files, &owned(dir)?)
}

/// The differences between `dir`, whose generated files are `owned`, and `files`.
fn changes(
    dir: &Path,
    files: &BTreeMap<String, String>,
    owned: &BTreeSet<String>,
) -> Result<Vec<Change>, OutputError> {
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
    let _writing = WRITING.lock().unwrap_or_else(PoisonError::into_inner);
    if interrupted() {
        return Err(OutputError::Interrupted);
    }
    let current = std::fs::read_to_string(dir.join(MARKER)).ok();
    let owned = owned_by(dir, current.as_deref())?;
    let changes = changes(dir, files, &owned)?;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let marker = marker_text(files.keys());
    let marker_changed = current.as_deref() != Some(marker.as_str());
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    if let Err(error) = stage_all(
        dir,
        files,
        &changes,
        marker_changed.then_some(&marker),
        &mut staged,
    ) {
        for (tmp, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(error);
    }
    // From here on the write completes: an interrupt waits for it.
    if marker_changed {
        // Own the old and the new files while both may be present.
        let both = marker_text(owned.iter().chain(files.keys()).collect::<BTreeSet<_>>());
        replace(dir, MARKER, &both)?;
    }
    for (tmp, path) in &staged {
        std::fs::rename(tmp, path).map_err(io(path))?;
        step();
    }
    for change in &changes {
        if let Change::Removed(relative) = change {
            let path = dir.join(relative);
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    remove_leftovers(dir, files.keys());
    Ok(changes)
}

/// Stages the added and changed files (and the new marker, last, so it is renamed into place
/// after every file it lists), stopping at the first failure or interrupt.
fn stage_all(
    dir: &Path,
    files: &BTreeMap<String, String>,
    changes: &[Change],
    marker: Option<&String>,
    staged: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), OutputError> {
    let updated = changes.iter().filter_map(|change| match change {
        Change::Added(relative) | Change::Changed(relative) => {
            Some((relative.as_str(), &files[relative]))
        }
        Change::Removed(_) => None,
    });
    for (relative, contents) in updated.chain(marker.map(|m| (MARKER, m))) {
        if interrupted() {
            return Err(OutputError::Interrupted);
        }
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let tmp = staging_path(&path);
        std::fs::write(&tmp, contents).map_err(io(&tmp))?;
        staged.push((tmp, path));
        step();
    }
    if interrupted() {
        return Err(OutputError::Interrupted);
    }
    Ok(())
}

/// Writes `relative` in `dir` at once: staged (under a name of its own, apart from the files
/// [`stage_all`] staged), then renamed over the old file.
fn replace(dir: &Path, relative: &str, contents: &str) -> Result<(), OutputError> {
    let path = dir.join(relative);
    let tmp = staging_path(&path).with_extension("now.staged");
    std::fs::write(&tmp, contents).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

/// Where `path` is staged: `.<name>.<pid>.staged` beside it.
fn staging_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    path.with_file_name(format!(".{name}.{}.staged", std::process::id()))
}

/// Whether `name` is a staged copy of `file` from any run (`.<file>.<pid>[.now].staged`).
fn is_staged_copy(name: &str, file: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_prefix(file))
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(".staged"))
        .and_then(|n| n.split('.').next())
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` looks like any staged file.
fn is_staged(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".staged")
}

/// Removes staged copies of `files` that a killed run left behind.
fn remove_leftovers<'a>(dir: &Path, files: impl Iterator<Item = &'a String>) {
    let mut by_dir: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for relative in files.map(String::as_str).chain([MARKER]) {
        let path = dir.join(relative);
        if let (Some(parent), Some(name)) = (path.parent(), path.file_name()) {
            by_dir
                .entry(parent.to_path_buf())
                .or_default()
                .insert(name.to_string_lossy().into_owned());
        }
    }
    for (parent, names) in by_dir {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if names.iter().any(|file| is_staged_copy(&name, file)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Whether `dir` is missing, empty, or holds nothing but staged files (a first run killed
/// while staging).
fn only_leftovers(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |entries| {
        entries.flatten().all(|entry| {
            let path = entry.path();
            if path.is_dir() {
                only_leftovers(&path)
            } else {
                is_staged(&entry.file_name().to_string_lossy())
            }
        })
    })
}

fn marker_text<'a>(paths: impl IntoIterator<Item = &'a String>) -> String {
    let mut text = MARKER_HEADER.to_string();
    for path in paths {
        text.push_str(path);
        text.push('\n');
    }
    text
}

/// The files the marker lists; refuses a non-empty directory without one.
fn owned(dir: &Path) -> Result<BTreeSet<String>, OutputError> {
    owned_by(
        dir,
        std::fs::read_to_string(dir.join(MARKER)).ok().as_deref(),
    )
}

/// The files `marker` (the marker's text, if `dir` has one) lists; refuses a non-empty
/// directory without one.
fn owned_by(dir: &Path, marker: Option<&str>) -> Result<BTreeSet<String>, OutputError> {
    match marker {
        Some(text) => Ok(text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter(|l| check_relative(l).is_ok())
            .map(str::to_string)
            .collect()),
        None => {
            if !only_leftovers(dir) {
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
    fn leftovers_of_a_killed_run_are_removed_by_the_next_write_and_nothing_else() {
        let dir = scratch("leftovers");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        for leftover in [
            ".a.rs.999.staged",
            "src/.b.rs.999.staged",
            "..harness-gen.999.now.staged",
        ] {
            std::fs::write(dir.join(leftover), "half").unwrap();
        }
        // A first run killed while staging leaves only these: the directory is still ours.
        write(&dir, &files(&[("a.rs", "a"), ("src/b.rs", "b")])).unwrap();
        std::fs::write(dir.join(".mine.1.staged"), "user file").unwrap();
        std::fs::write(dir.join(".a.rs.1000.staged"), "half").unwrap();
        write(&dir, &files(&[("a.rs", "a2"), ("src/b.rs", "b")])).unwrap();
        let mut left: Vec<String> = Vec::new();
        for sub in [dir.clone(), dir.join("src")] {
            for entry in std::fs::read_dir(sub).unwrap().flatten() {
                left.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        left.sort();
        assert_eq!(
            left,
            [".harness-gen", ".mine.1.staged", "a.rs", "b.rs", "src"]
        );
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

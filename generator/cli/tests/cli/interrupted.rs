//! Generator runs interrupted mid-write (brief, quality: reliability): `harness-gen openapi`
//! regenerating a crate is stopped while it stages files, while it renames them into place, and
//! killed outright; the directory is afterwards exactly the previous output or exactly the new
//! one, never a mixture, and the next run cleans up whatever a killed run left. The test hook
//! `HARNESS_GEN_TEST_STEP_DELAY_MS` slows each staged file and rename down so the signal lands
//! where each test means it to.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "harness-gen-interrupted-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn sample(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../specs")
        .join(file)
}

/// `harness-gen openapi` of the pet store into `out`; with the `.harness` file the crate gains
/// files and others change, so it is the "new" output and without it the "old" one.
fn generate(out: &Path, with_harness: bool, step_delay_ms: u64) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_harness-gen"));
    command
        .arg("openapi")
        .arg(sample("petstore.yaml"))
        .arg("--out")
        .arg(out)
        .env("HARNESS_GEN_TEST_STEP_DELAY_MS", step_delay_ms.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if with_harness {
        command.arg("--harness").arg(sample("petstore.harness"));
    }
    command.spawn().unwrap()
}

fn generated(out: &Path, with_harness: bool) -> BTreeMap<String, Vec<u8>> {
    let status = generate(out, with_harness, 0).wait().unwrap();
    assert!(status.success());
    snapshot(out)
}

/// Every file under `dir` (hidden ones included) by relative path.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    // Taken while a run may be renaming files: one that is gone between listing and reading
    // (renamed or removed) is left out; the next poll sees where it went.
    fn present<T>(result: std::io::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => panic!("{error}"),
        }
    }
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<String, Vec<u8>>) {
        let Some(entries) = present(std::fs::read_dir(dir)) else {
            return;
        };
        for entry in entries {
            let Some(entry) = present(entry) else {
                continue;
            };
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, into);
            } else if let Some(bytes) = present(std::fs::read(&path)) {
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                into.insert(relative, bytes);
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}

fn staged(files: &BTreeMap<String, Vec<u8>>) -> usize {
    files.keys().filter(|p| p.ends_with(".staged")).count()
}

/// Polls `dir` until `ready` holds (at most 30 s).
fn wait_until(dir: &Path, ready: impl Fn(&BTreeMap<String, Vec<u8>>) -> bool) {
    let start = Instant::now();
    while !(dir.exists() && ready(&snapshot(dir))) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the run never got there"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

/// The new output as a complete run writes it into `out` (the command line, `out` included, is
/// recorded in the crate); `out` is left absent.
fn the_new_output(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let new = generated(out, true);
    std::fs::remove_dir_all(out).unwrap();
    new
}

#[test]
fn an_interrupt_while_staging_leaves_the_previous_output_exactly() {
    for name in ["INT", "TERM"] {
        let out = scratch(&format!("staging-{name}"));
        let old = generated(&out, false);
        let run = generate(&out, true, 200);
        wait_until(&out, |files| staged(files) > 0);
        signal(&run, name);
        let done = run.wait_with_output().unwrap();
        assert_eq!(done.status.code(), Some(130), "SIG{name}");
        assert!(
            snapshot(&out) == old,
            "SIG{name}: the previous output changed"
        );
    }
}

#[test]
fn an_interrupt_while_renaming_lets_the_new_output_finish() {
    let out = scratch("renaming");
    let new = the_new_output(&out);
    let old = generated(&out, false);
    let run = generate(&out, true, 200);
    // The marker is widened just before the first rename.
    wait_until(&out, |files| {
        files.get(".harness-gen") != old.get(".harness-gen")
    });
    signal(&run, "INT");
    let done = run.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(130));
    assert!(snapshot(&out) == new, "the new output is not whole");
}

#[test]
fn a_killed_run_leaves_the_previous_output_and_the_next_run_cleans_up() {
    let out = scratch("killed");
    let new = the_new_output(&out);
    let old = generated(&out, false);
    let mut run = generate(&out, true, 200);
    wait_until(&out, |files| staged(files) > 1);
    run.kill().unwrap();
    run.wait().unwrap();
    let after = snapshot(&out);
    assert!(staged(&after) > 0, "the kill landed while staging");
    let unstaged: BTreeMap<String, Vec<u8>> = after
        .into_iter()
        .filter(|(p, _)| !p.ends_with(".staged"))
        .collect();
    assert!(unstaged == old, "the previous output changed");
    assert!(snapshot(&out) != new);
    assert!(
        generated(&out, true) == new,
        "the next run completes and cleans up"
    );
}

#[test]
fn a_first_run_killed_while_staging_does_not_make_its_directory_foreign() {
    let out = scratch("first-killed");
    let new = the_new_output(&out);
    let mut run = generate(&out, true, 200);
    wait_until(&out, |files| staged(files) > 1);
    run.kill().unwrap();
    run.wait().unwrap();
    assert!(generated(&out, true) == new);
}

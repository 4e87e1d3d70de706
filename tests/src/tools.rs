//! The external tools some tests drive (TypeScript, Prism, the official MCP SDK, Chromium and
//! ChromeDriver), found where the README's test command (`scripts/test.sh`) installs them. Standard library only: the runtime's
//! tests include this file too.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The repository root.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The tool at `relative` (from the repository root), or `None` when it is not installed.
///
/// Under `scripts/test.sh` (which sets `HARNESS_REQUIRE_TOOLS`) and in CI a missing tool fails
/// the test. Otherwise the group of tests that needs it is skipped, and one line per group says
/// so on the terminal (written past the test harness's output capture, so it is seen).
pub fn tool(group: &str, relative: &str) -> Option<PathBuf> {
    let how = "run `scripts/test.sh` (it installs the test tools into the checkout), or see the README's \"Tests\" section";
    found(group, repository_root().join(relative), how)
}

/// The system program at `path` (installed by the system's package manager, not into the
/// checkout; `how` says how to install it), or `None` as [`tool`] decides.
pub fn system_tool(group: &str, path: &str, how: &str) -> Option<PathBuf> {
    found(group, PathBuf::from(path), how)
}

fn found(group: &str, path: PathBuf, how: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let path = path.display();
    assert!(
        std::env::var_os("HARNESS_REQUIRE_TOOLS").is_none() && std::env::var_os("CI").is_none(),
        "{group} needs {path}, which is not installed: {how}"
    );
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|g| g == group) {
        said.push(group.to_string());
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {group}: {path} is not installed; {how}"
        );
    }
    None
}

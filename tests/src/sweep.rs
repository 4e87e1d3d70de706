//! The secrets sweep's bookkeeping (brief, quality: "Secrets stay secret"), shared by the sweep
//! of the generator's commands (`generator/tests/generator/secrets.rs`, which includes this file) and the
//! sweep of the generated programs (`tests/tests/e2e/secrets.rs`): the credentials every swept
//! process gets in its environment, and a record of everything the processes printed or wrote,
//! checked at the end for any of them. Standard library only, so both crates can include it.

use std::path::Path;
use std::process::{Command, Output};

/// The bearer token the sample's server accepts.
pub const TOKEN: &str = "tok_petstore_e2e_31f9";

/// The API key the sample's `getInventory` may send.
pub const API_KEY: &str = "key_petstore_e2e_6a0c";

/// Every swept process runs with these set: the sample API's own credentials, and ones a
/// developer's shell commonly holds for other services, which nothing of ours may ever print.
pub const SECRETS: &[(&str, &str)] = &[
    ("PETSTORE_TOKEN", TOKEN),
    ("PETSTORE_API_KEY", API_KEY),
    ("HARNESS_TOKEN", "hrn_sweep_4be2d7e1"),
    ("GITHUB_TOKEN", "ghp_sweep_90c1aa7d"),
    ("OPENAI_API_KEY", "sk-sweep-7f3e21c9"),
    ("ANTHROPIC_API_KEY", "sk-ant-sweep-d04c5b"),
    ("AWS_SECRET_ACCESS_KEY", "aws_sweep_5e81b92f"),
    (
        "DATABASE_URL",
        "postgres://app:pw_sweep_c3a0f4@db.internal/app",
    ),
];

/// What the swept commands printed and wrote, by label.
#[derive(Default)]
pub struct Sweep {
    records: Vec<(String, Vec<u8>)>,
}

impl Sweep {
    /// Keeps `bytes` (something a command printed, wrote or returned) under `label`.
    pub fn record(&mut self, label: impl Into<String>, bytes: impl AsRef<[u8]>) {
        self.records.push((label.into(), bytes.as_ref().to_vec()));
    }

    /// Runs `command` with [`SECRETS`] in its environment, keeps its standard output and error,
    /// and returns what it did.
    pub fn run(&mut self, label: impl Into<String>, command: &mut Command) -> Output {
        let label = label.into();
        let output = command
            .envs(SECRETS.iter().copied())
            .output()
            .unwrap_or_else(|e| panic!("{label}: the command runs: {e}"));
        self.record(format!("{label} (stdout)"), &output.stdout);
        self.record(format!("{label} (stderr)"), &output.stderr);
        output
    }

    /// Keeps the name and contents of every file under `dir`.
    pub fn tree(&mut self, label: &str, dir: &Path) {
        let entries = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{label}: {} is readable: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry is readable").path();
            let name = format!("{label}: {}", path.display());
            if path.is_dir() {
                self.tree(label, &path);
            } else {
                let contents =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{name} is readable: {e}"));
                self.record(name.clone(), path.display().to_string());
                self.record(name, contents);
            }
        }
    }

    /// Panics naming every record that contains one of [`SECRETS`], and the variable it came
    /// from.
    pub fn assert_clean(&self) {
        // A sweep that saw nothing proves nothing.
        assert!(!self.records.is_empty(), "the sweep recorded nothing");
        let leaks: Vec<String> = self
            .records
            .iter()
            .flat_map(|(label, bytes)| {
                SECRETS
                    .iter()
                    .filter(|(_, secret)| contains(bytes, secret.as_bytes()))
                    .map(move |(variable, _)| format!("{label} contains ${variable}"))
            })
            .collect();
        assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

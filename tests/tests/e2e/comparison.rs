//! `docs/src/sdk-comparison.md`: the page's lengths are the programs' own, no generated program is
//! longer than its peer's, every program is as rustfmt prints it, and the GitHub programs
//! compile against the crate generated from the GHES description. (The OpenAI programs are
//! compiled and run against the stand-in by `openai.rs`.)

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.
use std::process::{Command, Stdio};

use harness_e2e::comparison::{self, Task, lines};

/// The API a task's program is written against, as the page's table names it.
fn api(task: &Task) -> &'static str {
    match task.file.split('/').next() {
        Some("openai") => "OpenAI",
        Some("github") => "GitHub",
        other => panic!("{}: no API {other:?}", task.title),
    }
}

#[test]
fn the_page_says_each_programs_length_and_no_generated_program_is_longer() {
    let page = std::fs::read_to_string(comparison::page()).unwrap();
    let tasks = comparison::tasks();
    assert_eq!(tasks.len(), 10, "five OpenAI tasks and five GitHub ones");
    for task in &tasks {
        let (ours, theirs) = (lines(&task.ours), lines(&task.peer.1));
        let row = format!(
            "| {}: {} | {ours} | {theirs} | {} |",
            api(task),
            task.title.to_lowercase(),
            task.peer.0
        );
        assert!(page.contains(&row), "the table should say {row}");
        assert!(
            ours <= theirs,
            "{}: the generated program has {ours} lines, {}'s {theirs}",
            task.title,
            task.peer.0
        );
    }
}

#[test]
fn every_program_of_the_page_is_as_rustfmt_prints_it() {
    for task in comparison::tasks() {
        for (who, code) in [
            ("generated", &task.ours),
            (task.peer.0.as_str(), &task.peer.1),
        ] {
            let mut rustfmt = Command::new("rustfmt")
                .args(["--edition", "2024", "--emit", "stdout"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("rustfmt runs (rustup component add rustfmt)");
            use std::io::Write;
            rustfmt
                .stdin
                .take()
                .unwrap()
                .write_all(code.as_bytes())
                .unwrap();
            let out = rustfmt.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let printed = String::from_utf8(out.stdout).unwrap();
            assert_eq!(
                printed, *code,
                "{} ({who}) is not as rustfmt prints it",
                task.title
            );
        }
    }
}

#[test]
fn the_github_programs_compile_against_the_crate_generated_from_ghes() {
    let mut examples = Vec::new();
    for task in comparison::tasks() {
        if let Some(file) = task.file.strip_prefix("github/") {
            examples.push((file.to_string(), task.ours.clone()));
        }
    }
    assert_eq!(examples.len(), 5);
    let dir = harness_e2e::scratch_crate(
        "ghes-3.6.descriptions-next.2023-03-08.json",
        "github",
        "comparison-github",
        &examples,
    );
    let mut cargo = Command::new(env!("CARGO"));
    harness_e2e::in_shared_target(&mut cargo)
        .args(["check", "--quiet", "--offline", "--no-default-features"])
        .args(["--features", "repos,issues"])
        .current_dir(&dir);
    for (file, _) in &examples {
        cargo.args(["--example", file.trim_end_matches(".rs")]);
    }
    let out = cargo.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

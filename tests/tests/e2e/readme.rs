//! The first five minutes: the README's first command and the command it shows next, run as
//! the README prints them from the checkout's root, succeed: the crate it writes builds where
//! it was written and its CLI answers.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::process::Command;

use harness_e2e::root;

/// The README's shell commands.
fn readme_commands() -> Vec<String> {
    super::docs::shell_commands(&root().join("README.md"))
}

/// Runs `command` with `sh` from the checkout's root, building in the target directory the
/// generated-crate tests share (this test's own is locked while tests run) with their flags.
fn sh(command: &str) -> std::process::Output {
    harness_e2e::in_shared_target(&mut Command::new("sh"))
        .args(["-c", command])
        .current_dir(root())
        .output()
        .unwrap()
}

/// Both tests write `target/my-petstore`, one at a time.
static CRATE: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn the_readmes_first_command_and_the_next_one_it_shows_work_as_printed() {
    let _crate = CRATE.lock().unwrap_or_else(|e| e.into_inner());
    let commands = readme_commands();
    let first = &commands[0];
    assert!(
        first.starts_with("cargo run -p harness-gen-cli -- openapi "),
        "{first}"
    );
    let next = commands
        .iter()
        .find(|c| c.starts_with("cd target/my-petstore && "))
        .expect("the README shows what to run in the crate it wrote");

    let generated = sh(first);
    let said = String::from_utf8_lossy(&generated.stderr);
    assert!(generated.status.success(), "{first}: {said}");
    // The generator says what to run next, from where the README's command ran.
    assert!(
        said.contains("next: cd target/my-petstore && cargo run --features cli -- --help"),
        "{said}"
    );
    let crate_dir = root().join("target/my-petstore");
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(r#"harness-gen-runtime = { version = "0.1.0", path = "../../runtime""#),
        "the checkout's runtime, as a path from the crate: {manifest}"
    );
    harness_e2e::as_workspace_builds(&crate_dir);

    let ran = sh(next);
    let help = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{next}: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(help.contains("--limit"), "{help}");
}

#[test]
fn the_readmes_first_call_reaches_the_stand_in_it_starts() {
    let commands = readme_commands();
    let stand_in = commands
        .iter()
        .find(|c| c.contains("prism mock "))
        .expect("the README starts a stand-in");
    let call = commands
        .iter()
        .find(|c| c.starts_with("cd target/my-petstore && ") && c.contains("_BASE_URL="))
        .expect("the README calls the stand-in");
    // The stand-in as the README starts it, on a free port instead of the README's 4010.
    let spec = stand_in
        .split_whitespace()
        .skip_while(|w| *w != "mock")
        .nth(1)
        .unwrap();
    let Some(prism) = super::prism::prism() else {
        return;
    };
    let (_mock, url) = super::prism::mock(&prism, &root().join(spec));
    assert!(call.contains("http://127.0.0.1:4010"), "{call}");
    let call = call.replace("http://127.0.0.1:4010", &url);
    // The crate the first command writes.
    let _crate = CRATE.lock().unwrap_or_else(|e| e.into_inner());
    let generated = sh(&commands[0]);
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    harness_e2e::as_workspace_builds(&root().join("target/my-petstore"));
    let ran = sh(&call);
    let out = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{call}: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let pets: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(pets.as_array().is_some_and(|p| !p.is_empty()), "{out}");
}

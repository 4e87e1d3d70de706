//! The documentation cannot drift: every Rust block of the README and the book is a program
//! these tests compile (`docs/examples/`, included below), every relative link and anchor
//! resolves, and every MCP client configuration parses and starts the server it names.

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use harness_e2e::root;

// The programs the pages show, compiled here (never run: they call servers by name).
#[path = "../../../docs/examples/mod.rs"]
mod examples;

/// The pages users read: the README, the contributors' pages and every page of the book.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "ARCHITECTURE.md",
        "SECURITY.md",
    ]
    .iter()
    .map(|p| root().join(p))
    .collect();
    let mut dirs = vec![root().join("docs/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The shell commands a page shows: the lines of its ```sh blocks, comments dropped, in order.
pub(crate) fn shell_commands(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    blocks(&text, "sh")
        .iter()
        .flat_map(|(_, body)| body.lines())
        .map(|line| line.split("  #").next().unwrap_or(line).trim())
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

/// The fenced blocks of `text` whose info string starts with `language`, as (info, body).
fn blocks(text: &str, language: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, usize, Vec<String>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut open {
            None if trimmed.starts_with("```") => {
                let indent = line.len() - trimmed.len();
                open = Some((trimmed[3..].trim().to_string(), indent, Vec::new()));
            }
            Some((info, _, body)) if trimmed.starts_with("```") => {
                if info.split(',').next() == Some(language) {
                    found.push((info.clone(), body.join("\n")));
                }
                open = None;
            }
            Some((_, indent, body)) => {
                body.push(line.get(*indent..).unwrap_or(line.trim_start()).to_string());
            }
            None => {}
        }
    }
    found
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The example programs, by path, and the module list that compiles them.
fn examples() -> (Vec<(PathBuf, String)>, String) {
    let dir = root().join("docs/examples");
    let modules = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "mod.rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    (files, modules)
}

/// The lines between `// ANCHOR: name` and `// ANCHOR_END: name`, as mdBook includes them.
fn anchored(text: &str, name: &str) -> Option<String> {
    let start = text.find(&format!("// ANCHOR: {name}\n"))?;
    let rest = &text[start..];
    let body = &rest[rest.find('\n')? + 1..rest.find(&format!("// ANCHOR_END: {name}"))?];
    let lines: Vec<&str> = body.lines().collect();
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    Some(
        lines
            .iter()
            .map(|l| l.get(indent..).unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

#[test]
fn every_rust_block_of_the_readme_and_the_book_is_a_compiled_program() {
    let (files, modules) = examples();
    for (path, _) in &files {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        assert!(
            modules.contains(&format!("mod {stem};")),
            "docs/examples/mod.rs does not compile {stem}.rs"
        );
    }
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (info, body) in blocks(&text, "rust") {
            checked += 1;
            let where_ = format!("a ```{info} block of {}", relative(&page));
            if let Some(include) = body.trim().strip_prefix("{{#include ") {
                let target = include.trim_end_matches("}}").trim();
                let (file, anchor) = target.split_once(':').unwrap_or((target, ""));
                let path = page.parent().unwrap().join(file);
                let path = path.canonicalize().unwrap_or(path);
                // A program of docs/examples/, or a source file of the workspace's example
                // crate (`examples/petstore-build`, a member the tests build).
                let text = files
                    .iter()
                    .find(|(p, _)| p.canonicalize().ok().as_ref() == Some(&path))
                    .map(|(_, text)| text.clone())
                    .or_else(|| {
                        let member = root().join("examples").canonicalize().ok()?;
                        path.starts_with(member)
                            .then(|| std::fs::read_to_string(&path).ok())?
                    })
                    .unwrap_or_else(|| panic!("{where_} includes {file}, not a compiled program"));
                let text = &text;
                assert!(
                    anchor.is_empty() || anchored(text, anchor).is_some(),
                    "{where_} includes anchor `{anchor}`, which {file} does not have"
                );
                continue;
            }
            let found = files.iter().any(|(_, text)| text.contains(body.trim()));
            assert!(
                found,
                "{where_} is in no program of docs/examples/ (which the tests compile): \
                 put it there and include it, or repeat it verbatim:\n{body}"
            );
        }
    }
    assert!(checked >= 5, "only {checked} Rust blocks found");
}

/// The anchors mdBook and GitHub give a page's headings.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut anchors = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        let slug: String = heading
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        anchors.push(slug);
    }
    anchors
}

/// The targets of a page's Markdown links, outside code.
fn links(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut links = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        // Inline code is not a link.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            links.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    links
}

#[test]
fn every_relative_link_and_anchor_of_the_readme_and_the_book_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", relative(&page)));
                continue;
            }
            if !anchor.is_empty() {
                let text = std::fs::read_to_string(&target).unwrap_or_default();
                if !anchors(&text).iter().any(|a| a == anchor) {
                    broken.push(format!("{}: {link}: no such heading", relative(&page)));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 40, "only {checked} links found");
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed = links(&summary);
    for page in pages() {
        let Ok(inside) = page.strip_prefix(&src) else {
            continue;
        };
        let name = inside.display().to_string();
        if name == "SUMMARY.md" {
            continue;
        }
        assert!(
            listed.contains(&name),
            "docs/src/{name} is not in SUMMARY.md"
        );
    }
}

/// The MCP client configurations the pages show: every JSON block that has servers.
fn configurations() -> Vec<(String, serde_json::Value)> {
    let mut found = Vec::new();
    for page in [
        root().join("README.md"),
        root().join("docs/src/mcp-clients.md"),
    ] {
        let text = std::fs::read_to_string(&page).unwrap();
        for (_, body) in blocks(&text, "json") {
            let value: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|e| {
                panic!(
                    "{}: a JSON block does not parse: {e}\n{body}",
                    relative(&page)
                )
            });
            found.push((relative(&page), value));
        }
    }
    found
}

#[test]
fn every_mcp_client_configuration_parses_and_its_command_starts_the_server() {
    let configurations = configurations();
    assert!(configurations.len() >= 4, "{configurations:?}");
    let server = harness_e2e::petstore_mcp();
    let mut started = 0;
    for (page, configuration) in configurations {
        let servers = configuration
            .get("mcpServers")
            .or_else(|| configuration.get("servers"))
            .and_then(|s| s.as_object())
            .unwrap_or_else(|| panic!("{page}: a configuration without servers"));
        for (name, entry) in servers {
            if let Some(url) = entry.get("url").and_then(|u| u.as_str()) {
                assert!(
                    url.ends_with("/mcp"),
                    "{page}: {name}: {url} is not the /mcp endpoint"
                );
                continue;
            }
            let command = entry["command"].as_str().unwrap();
            assert!(command.ends_with("-mcp"), "{page}: {name}: {command}");
            // The generated server the snippet names, started as the client would start it
            // (its arguments and environment), answers `initialize` on standard input.
            let mut child = std::process::Command::new(&server);
            for arg in entry
                .get("args")
                .and_then(|a| a.as_array())
                .into_iter()
                .flatten()
            {
                child.arg(arg.as_str().unwrap());
            }
            for (key, value) in entry
                .get("env")
                .and_then(|e| e.as_object())
                .into_iter()
                .flatten()
            {
                child.env(key, value.as_str().unwrap());
            }
            let mut child = child
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let request = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"docs","version":"1"}}}"#;
            writeln!(child.stdin.as_mut().unwrap(), "{request}").unwrap();
            let mut line = String::new();
            std::io::BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut line)
                .unwrap();
            let _ = child.kill();
            let _ = child.wait();
            assert!(line.contains("serverInfo"), "{page}: {name}: {line}");
            started += 1;
        }
    }
    assert!(started >= 4, "{started}");
}

/// `1.88` or `1.88.0` as numbers.
fn version(text: &str) -> Vec<u64> {
    text.split('.').map(|part| part.parse().unwrap()).collect()
}

#[test]
fn the_declared_rust_version_is_the_highest_any_locked_dependency_declares() {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let needed = packages
        .iter()
        .filter(|p| !p["source"].is_null())
        .filter_map(|p| Some((version(p["rust_version"].as_str()?), p["name"].as_str()?)))
        .max()
        .unwrap();
    // The workspace's own packages; the published ones (the runtime's and the generator's)
    // must declare one.
    let ours: Vec<(&str, &str)> = packages
        .iter()
        .filter(|p| p["source"].is_null())
        .filter_map(|p| {
            let name = p["name"].as_str().unwrap();
            let published = name.starts_with("harness-gen");
            match p["rust_version"].as_str() {
                Some(declared) => Some((name, declared)),
                None if published => panic!("{name} declares no rust-version"),
                None => None,
            }
        })
        .collect();
    for (name, declared) in ours {
        let mut declared = version(declared);
        declared.resize(3, 0);
        let mut wanted = needed.0.clone();
        wanted.resize(3, 0);
        assert_eq!(
            declared, wanted,
            "{name} declares rust-version {declared:?}, but {} needs {:?}: set the workspace's rust-version to it",
            needed.1, needed.0
        );
    }
}

#[test]
fn the_generated_programs_reference_page_is_what_the_runtime_accepts() {
    use harness_gen_runtime::render::exit_code;
    let exit_codes = [
        (exit_code::SUCCESS, "the call succeeded"),
        (
            exit_code::INVALID_INPUT,
            "usage error or invalid input (nothing was sent)",
        ),
        (
            exit_code::APPLICATION,
            "the API answered with one of the operation's declared errors",
        ),
        (
            exit_code::RUNTIME,
            "a runtime error: transport, timeout, missing credentials, an undeclared reply",
        ),
        (
            exit_code::CONTRACT_VIOLATION,
            "the reply broke the operation's contract",
        ),
    ];
    let page = harness_gen_cli::reference::programs(
        &harness_gen_runtime::cli::root("<crate>", "<version>"),
        &harness_gen_runtime::mcp::command("<crate>-mcp", "<version>"),
        &exit_codes,
    );
    let path = root().join("docs/src/reference/programs.md");
    if std::env::var_os("HARNESS_BLESS").is_some() {
        std::fs::write(&path, &page).unwrap();
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == page,
        "docs/src/reference/programs.md is stale: run `HARNESS_BLESS=1 cargo test -p harness-e2e --test e2e docs::`"
    );
}

#[test]
fn the_runtime_api_version_the_pages_show_is_the_runtimes() {
    let said = format!("require_api!(api = {},", harness_gen_runtime::API_VERSION);
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (at, _) in text.match_indices("require_api!(api = ") {
            assert!(
                text[at..].starts_with(&said),
                "{} shows another runtime API version than {said}",
                relative(&page)
            );
        }
    }
}

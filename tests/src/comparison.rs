//! The programs of `docs/src/sdk-comparison.md`: each task's generated program (a code block
//! whose info string says `file=<api>/<name>.rs`) and its peer's (`peer=<crate>`), and the
//! page's table of their lengths.

use std::path::PathBuf;

/// One task of the page: its heading, the generated program and the peer's.
#[derive(Debug)]
pub struct Task {
    /// The `###` heading it sits under.
    pub title: String,
    /// Where the generated program goes (`openai/chat.rs`).
    pub file: String,
    /// The generated program's code.
    pub ours: String,
    /// The peer crate's name, and its program's code.
    pub peer: (String, String),
}

/// The page's path.
pub fn page() -> PathBuf {
    crate::root().join("docs/src/sdk-comparison.md")
}

/// Every task of the page, in order. Panics on a section without exactly one program of each
/// kind, which is a broken page.
pub fn tasks() -> Vec<Task> {
    let text = std::fs::read_to_string(page()).expect("docs/src/sdk-comparison.md is readable");
    let mut tasks = Vec::new();
    let mut title = String::new();
    // A block's info string and code; the section's generated program and peer program so far.
    type Block = Option<(String, String)>;
    let (mut ours, mut peer): (Block, Block) = (None, None);
    let mut block: Block = None;
    for line in text.lines() {
        if let Some((info, code)) = &mut block {
            if line == "```" {
                let info = std::mem::take(info);
                let code = std::mem::take(code);
                block = None;
                if let Some(file) = info.strip_prefix("rust file=") {
                    ours = Some((file.to_string(), code));
                } else if let Some(name) = info.strip_prefix("rust peer=") {
                    peer = Some((name.to_string(), code));
                }
                if ours.is_some()
                    && peer.is_some()
                    && let (Some((file, ours)), Some(peer)) = (ours.take(), peer.take())
                {
                    tasks.push(Task {
                        title: title.clone(),
                        file,
                        ours,
                        peer,
                    });
                }
            } else {
                code.push_str(line);
                code.push('\n');
            }
            continue;
        }
        if let Some(heading) = line.strip_prefix("### ") {
            assert!(
                ours.is_none() && peer.is_none(),
                "{title}: a program without its pair"
            );
            title = heading.to_string();
        } else if let Some(info) = line.strip_prefix("```") {
            block = Some((info.to_string(), String::new()));
        }
    }
    assert!(
        ours.is_none() && peer.is_none(),
        "{title}: a program without its pair"
    );
    tasks
}

/// A program's length as the page counts it: its non-blank lines.
pub fn lines(code: &str) -> usize {
    code.lines().filter(|l| !l.trim().is_empty()).count()
}

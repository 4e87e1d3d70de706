//! The open documents and what is on disk: parsed, indexed, and positions in their text.

use super::*;

/// One `.harness` file of the workspace (its text is the same file of [`Workspace::sources`]).
pub(super) struct Document {
    pub(super) uri: lsp::Url,
    /// Whether the client has it open (its text is the editor's, not the disk's).
    pub(super) open: bool,
}

/// The files, their compilation and their names.
#[derive(Default)]
pub struct Workspace {
    pub(super) documents: Vec<Document>,
    /// The files' texts, in `documents` order, each named by its URI: what is compiled.
    pub(super) sources: Sources,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) names: Vec<Occurrence>,
}

impl Workspace {
    /// Adds every `.harness` file under `folder` (to a depth of 8, not following links).
    pub(super) fn scan(&mut self, folder: &Path, depth: usize) {
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let is_link = path
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
            if path.is_dir() && depth < 8 && !is_link {
                let hidden = path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.') || n == "target");
                if !hidden {
                    self.scan(&path, depth + 1);
                }
            } else if path.extension().is_some_and(|e| e == "harness")
                && let (Ok(uri), Ok(text)) = (
                    lsp::Url::from_file_path(&path),
                    std::fs::read_to_string(&path),
                )
            {
                self.set(uri, text, false);
            }
        }
    }

    pub(super) fn set(&mut self, uri: lsp::Url, text: String, open: bool) {
        match self.file(&uri) {
            Some(file) => {
                self.sources.files[file].1 = text;
                self.documents[file].open |= open;
            }
            None => {
                self.sources.files.push((uri.to_string(), text));
                self.documents.push(Document { uri, open });
            }
        }
    }

    /// A file as the disk holds it now, unless the editor has it open: read again, or gone
    /// from the workspace when it is gone from the disk.
    pub(super) fn reload(&mut self, uri: &lsp::Url) {
        let Some(file) = self.file(uri) else {
            if let Some(text) = disk(uri) {
                self.set(uri.clone(), text, false);
            }
            return;
        };
        if self.documents[file].open {
            return;
        }
        match disk(uri) {
            Some(text) => self.sources.files[file].1 = text,
            None => {
                self.documents.remove(file);
                self.sources.files.remove(file);
            }
        }
    }

    /// A document closed in the editor: back to what the disk holds (gone if it is gone).
    pub(super) fn close(&mut self, uri: &lsp::Url) {
        if let Some(file) = self.file(uri) {
            self.documents[file].open = false;
        }
        self.reload(uri);
    }

    pub(super) fn text(&self, file: usize) -> &str {
        &self.sources.files[file].1
    }

    /// Compiles every file together and indexes the names.
    pub fn check(&mut self) {
        let (parsed, bundle) = harness_gen_lang::compile_parts(&self.sources);
        self.diagnostics = bundle.err().unwrap_or_default();
        self.names = index(&parsed);
    }

    pub(super) fn file(&self, uri: &lsp::Url) -> Option<usize> {
        self.documents.iter().position(|d| &d.uri == uri)
    }

    /// The diagnostics of every file, by URI (an empty list for a file without any, which
    /// clears what the client showed).
    pub(super) fn published(&self) -> Vec<lsp::PublishDiagnosticsParams> {
        self.documents
            .iter()
            .zip(&self.sources.files)
            .map(|(document, (name, text))| {
                let diagnostics = self
                    .diagnostics
                    .iter()
                    .filter(|d| &d.file == name)
                    .map(|d| {
                        let start = position(text, d.line, d.column);
                        let length = word_length(text, d.line, d.column).max(1);
                        let end = position(text, d.line, d.column + length);
                        lsp::Diagnostic {
                            range: lsp::Range { start, end },
                            severity: Some(lsp::DiagnosticSeverity::ERROR),
                            code: Some(lsp::NumberOrString::String(d.code.to_string())),
                            source: Some("harness-gen".into()),
                            message: d.message.clone(),
                            ..lsp::Diagnostic::default()
                        }
                    })
                    .collect();
                lsp::PublishDiagnosticsParams {
                    uri: document.uri.clone(),
                    diagnostics,
                    version: None,
                }
            })
            .collect()
    }

    /// The name at `at` in the document `uri`.
    pub(super) fn at(&self, uri: &lsp::Url, at: lsp::Position) -> Option<&Occurrence> {
        let file = self.file(uri)?;
        let (line, column) = span_of(self.text(file), at);
        self.names.iter().find(|o| {
            o.span.file == file
                && o.span.line == line
                && column >= o.span.column
                && column < o.span.column + o.name.chars().count() as u32
        })
    }

    /// Every occurrence of what `of` names.
    pub(super) fn same(&self, of: &Occurrence) -> impl Iterator<Item = &Occurrence> {
        let (kind, name) = (of.kind, of.name.clone());
        self.names
            .iter()
            .filter(move |o| o.name == name && o.kind.meets(kind))
    }

    pub(super) fn location(&self, occurrence: &Occurrence) -> lsp::Location {
        let file = occurrence.span.file;
        let text = self.text(file);
        let start = position(text, occurrence.span.line, occurrence.span.column);
        let length = occurrence.name.chars().count() as u32;
        let end = position(text, occurrence.span.line, occurrence.span.column + length);
        lsp::Location {
            uri: self.documents[file].uri.clone(),
            range: lsp::Range { start, end },
        }
    }
}

/// What the disk holds at `uri`, if it is a readable file.
pub(super) fn disk(uri: &lsp::Url) -> Option<String> {
    std::fs::read_to_string(uri.to_file_path().ok()?).ok()
}

/// The LSP position of a 1-based line and character column of `text` (UTF-16 units).
pub(super) fn position(text: &str, line: u32, column: u32) -> lsp::Position {
    let row = text
        .split('\n')
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    let character: usize = row
        .chars()
        .take(column.saturating_sub(1) as usize)
        .map(char::len_utf16)
        .sum();
    lsp::Position {
        line: line.saturating_sub(1),
        character: character as u32,
    }
}

/// The 1-based line and character column of an LSP position in `text`.
pub(super) fn span_of(text: &str, at: lsp::Position) -> (u32, u32) {
    let row = text.split('\n').nth(at.line as usize).unwrap_or("");
    let mut units = 0;
    let mut column = 1;
    for c in row.chars() {
        if units >= at.character as usize {
            break;
        }
        units += c.len_utf16();
        column += 1;
    }
    (at.line + 1, column)
}

/// How many characters the word at a 1-based line and column is long (0 when none starts
/// there).
pub(super) fn word_length(text: &str, line: u32, column: u32) -> u32 {
    let row = text
        .split('\n')
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    row.chars()
        .skip(column.saturating_sub(1) as usize)
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .count() as u32
}

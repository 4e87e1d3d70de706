//! `harness-gen harness lsp`: the language server of `.harness` files, over stdio.
//!
//! Protocol types come from `lsp-types` and the framing (`Content-Length` headers, JSON-RPC
//! messages) from `lsp-server`, rust-analyzer's scaffold: small, synchronous, maintained.
//! The loop is ours rather than `lsp-server`'s `Connection`, whose reader thread stops at the
//! first message that is not JSON; here such a message is answered with a parse error and the
//! server keeps serving (a request that fails, or even panics, is answered with an error too).
//!
//! The workspace is every `.harness` file of the client's folders, the open documents in their
//! edited state over what is on disk. Every change re-checks the whole workspace with the
//! compiler (the same `HL` diagnostics as `harness compile`; a 1,000-declaration file takes a
//! few milliseconds) and indexes its names: declarations and references of skills, tools, MCP
//! connections, workflows, runtimes and targets, agents and harnesses, for hover, definition,
//! references, rename, completion and document symbols. Formatting is `harness fmt`'s.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use serde_json::Value;

use harness_gen_contract::harness::ir::CapabilityKind;
use harness_gen_lang::diag::{Diagnostic, Sources, Span};
use harness_gen_lang::syntax::{Decl, Name, Parsed};

mod index;
mod workspace;

pub use index::{Kind, Occurrence, index};
pub use workspace::Workspace;
use workspace::span_of;

/// The server: the workspace, and whether `shutdown` was asked.
#[derive(Default)]
pub struct Server {
    workspace: Workspace,
    shutting_down: bool,
}

/// Why a request failed.
struct Failure(ErrorCode, String);

impl Server {
    /// Serves `input` until `exit` or its end, writing to `output`.
    pub fn serve(&mut self, mut input: &mut dyn BufRead, mut output: &mut dyn Write) {
        loop {
            let message = match Message::read(&mut input) {
                Ok(Some(message)) => message,
                Ok(None) => return,
                // A frame whose body is not a JSON-RPC message: the frame was read whole, so
                // the next one can be.
                Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                    let response = Response::new_err(
                        RequestId::from(0),
                        ErrorCode::ParseError as i32,
                        format!("not a JSON-RPC message: {error}"),
                    );
                    let mut response = serde_json::to_value(response).unwrap_or_default();
                    response["id"] = Value::Null;
                    if write_raw(&mut output, &response).is_err() {
                        return;
                    }
                    continue;
                }
                Err(_) => return,
            };
            let outgoing = match message {
                Message::Request(request) => vec![Message::Response(self.request(request))],
                Message::Notification(notification) if notification.method == "exit" => return,
                Message::Notification(notification) => self.notification(notification),
                Message::Response(_) => Vec::new(),
            };
            for message in outgoing {
                if message.write(&mut output).is_err() {
                    return;
                }
            }
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        if self.shutting_down && request.method != "shutdown" {
            return Response::new_err(
                id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".into(),
            );
        }
        // A request that panics is answered as an internal error; the server goes on.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.answer(&request.method, request.params)
        }));
        match outcome {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(Failure(code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("`{}` failed inside the server", request.method),
            ),
        }
    }

    fn answer(&mut self, method: &str, params: Value) -> Result<Value, Failure> {
        fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, Failure> {
            serde_json::from_value(params)
                .map_err(|error| Failure(ErrorCode::InvalidParams, error.to_string()))
        }
        match method {
            "initialize" => {
                let params: lsp::InitializeParams = parse(params)?;
                self.initialize(&params);
                json(&lsp::InitializeResult {
                    capabilities: capabilities(),
                    server_info: Some(lsp::ServerInfo {
                        name: "harness-gen".into(),
                        version: Some(env!("CARGO_PKG_VERSION").into()),
                    }),
                })
            }
            "shutdown" => {
                self.shutting_down = true;
                Ok(Value::Null)
            }
            "textDocument/hover" => {
                let params: lsp::HoverParams = parse(params)?;
                let at = &params.text_document_position_params;
                json(&self.hover(&at.text_document.uri, at.position))
            }
            "textDocument/definition" => {
                let params: lsp::GotoDefinitionParams = parse(params)?;
                let at = &params.text_document_position_params;
                let found: Vec<lsp::Location> =
                    match self.workspace.at(&at.text_document.uri, at.position) {
                        Some(name) => self
                            .workspace
                            .same(name)
                            .filter(|o| o.declaration)
                            .map(|o| self.workspace.location(o))
                            .collect(),
                        None => Vec::new(),
                    };
                json(&found)
            }
            "textDocument/references" => {
                let params: lsp::ReferenceParams = parse(params)?;
                let at = &params.text_document_position;
                let declarations = params.context.include_declaration;
                let found: Vec<lsp::Location> =
                    match self.workspace.at(&at.text_document.uri, at.position) {
                        Some(name) => self
                            .workspace
                            .same(name)
                            .filter(|o| declarations || !o.declaration)
                            .map(|o| self.workspace.location(o))
                            .collect(),
                        None => Vec::new(),
                    };
                json(&found)
            }
            "textDocument/rename" => {
                let params: lsp::RenameParams = parse(params)?;
                let at = &params.text_document_position;
                json(&self.rename(&at.text_document.uri, at.position, &params.new_name)?)
            }
            "textDocument/completion" => {
                let params: lsp::CompletionParams = parse(params)?;
                let at = &params.text_document_position;
                json(&self.complete(&at.text_document.uri, at.position))
            }
            "textDocument/documentSymbol" => {
                let params: lsp::DocumentSymbolParams = parse(params)?;
                json(&self.symbols(&params.text_document.uri))
            }
            "textDocument/formatting" => {
                let params: lsp::DocumentFormattingParams = parse(params)?;
                json(&self.format(&params.text_document.uri))
            }
            other => Err(Failure(
                ErrorCode::MethodNotFound,
                format!("`{other}` is not supported by this server"),
            )),
        }
    }

    fn initialize(&mut self, params: &lsp::InitializeParams) {
        let folders: Vec<PathBuf> = match &params.workspace_folders {
            Some(folders) => folders
                .iter()
                .filter_map(|f| f.uri.to_file_path().ok())
                .collect(),
            #[allow(deprecated)]
            None => params
                .root_uri
                .iter()
                .filter_map(|u| u.to_file_path().ok())
                .collect(),
        };
        for folder in folders {
            self.workspace.scan(&folder, 0);
        }
        self.workspace.check();
    }

    fn notification(&mut self, notification: Notification) -> Vec<Message> {
        let before: Vec<lsp::Url> = self
            .workspace
            .documents
            .iter()
            .map(|d| d.uri.clone())
            .collect();
        let changed = match notification.method.as_str() {
            "textDocument/didOpen" => {
                serde_json::from_value::<lsp::DidOpenTextDocumentParams>(notification.params)
                    .map(|p| {
                        self.workspace
                            .set(p.text_document.uri, p.text_document.text, true)
                    })
                    .is_ok()
            }
            "textDocument/didChange" => {
                serde_json::from_value::<lsp::DidChangeTextDocumentParams>(notification.params)
                    .ok()
                    .and_then(|p| {
                        // Full synchronization: the last change holds the whole text.
                        let text = p.content_changes.into_iter().next_back()?.text;
                        self.workspace.set(p.text_document.uri, text, true);
                        Some(())
                    })
                    .is_some()
            }
            "textDocument/didClose" => {
                serde_json::from_value::<lsp::DidCloseTextDocumentParams>(notification.params)
                    .map(|p| self.workspace.close(&p.text_document.uri))
                    .is_ok()
            }
            "workspace/didChangeWatchedFiles" => {
                serde_json::from_value::<lsp::DidChangeWatchedFilesParams>(notification.params)
                    .map(|p| {
                        for change in p.changes {
                            self.workspace.reload(&change.uri);
                        }
                    })
                    .is_ok()
            }
            _ => false,
        };
        if !changed {
            return Vec::new();
        }
        self.workspace.check();
        let mut published = self.workspace.published();
        // A file that left the workspace (closed, and gone from disk) is cleared in the client.
        for uri in before {
            if !published.iter().any(|p| p.uri == uri) {
                published.push(lsp::PublishDiagnosticsParams {
                    uri,
                    diagnostics: Vec::new(),
                    version: None,
                });
            }
        }
        published
            .into_iter()
            .map(|params| {
                Message::Notification(Notification::new(
                    "textDocument/publishDiagnostics".into(),
                    params,
                ))
            })
            .collect()
    }

    fn hover(&self, uri: &lsp::Url, at: lsp::Position) -> Option<lsp::Hover> {
        let name = self.workspace.at(uri, at)?;
        let declarations: Vec<&Occurrence> = self
            .workspace
            .same(name)
            .filter(|o| o.declaration)
            .collect();
        let mut text = match declarations.first() {
            Some(declared) => format!("**{}** `{}`", declared.kind.word(), declared.name),
            None if name.kind == Kind::Tool => format!(
                "**tool** `{}`: not declared here; a tool the runtime provides",
                name.name
            ),
            None => format!(
                "**{}** `{}`: not declared anywhere in the workspace",
                name.kind.word(),
                name.name
            ),
        };
        for declared in &declarations {
            let file = &self.workspace.documents[declared.span.file].uri;
            let file = file
                .path_segments()
                .and_then(|mut s| s.next_back())
                .unwrap_or("");
            text.push_str(&format!(
                "\n\ndeclared in `{file}` line {}",
                declared.span.line
            ));
            if let Some(about) = &declared.about {
                text.push_str(&format!("\n\n{about}"));
            }
        }
        Some(lsp::Hover {
            contents: lsp::HoverContents::Markup(lsp::MarkupContent {
                kind: lsp::MarkupKind::Markdown,
                value: text,
            }),
            range: Some(self.workspace.location(name).range),
        })
    }

    fn rename(
        &self,
        uri: &lsp::Url,
        at: lsp::Position,
        new_name: &str,
    ) -> Result<Option<lsp::WorkspaceEdit>, Failure> {
        let Some(name) = self.workspace.at(uri, at) else {
            return Ok(None);
        };
        let segment = |s: &str| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                && !harness_gen_lang::lexer::is_keyword(s)
        };
        let qualified = matches!(name.kind, Kind::Tool | Kind::Capability);
        let valid = if qualified {
            new_name.split('.').all(segment)
        } else {
            segment(new_name)
        };
        if !valid {
            return Err(Failure(
                ErrorCode::InvalidParams,
                format!(
                    "`{new_name}` is not a valid {} name (letters, digits, `_` and `-`, starting with a letter, not a keyword)",
                    name.kind.word()
                ),
            ));
        }
        let mut changes: std::collections::HashMap<lsp::Url, Vec<lsp::TextEdit>> =
            std::collections::HashMap::new();
        for occurrence in self.workspace.same(name) {
            let location = self.workspace.location(occurrence);
            changes
                .entry(location.uri)
                .or_default()
                .push(lsp::TextEdit {
                    range: location.range,
                    new_text: new_name.to_string(),
                });
        }
        Ok(Some(lsp::WorkspaceEdit {
            changes: Some(changes),
            ..lsp::WorkspaceEdit::default()
        }))
    }

    fn complete(&self, uri: &lsp::Url, at: lsp::Position) -> Vec<lsp::CompletionItem> {
        let text = self
            .workspace
            .file(uri)
            .map(|f| self.workspace.text(f))
            .unwrap_or("");
        let row = text.split('\n').nth(at.line as usize).unwrap_or("");
        let (_, column) = span_of(text, at);
        let before: String = row.chars().take(column as usize - 1).collect();
        let words: Vec<&str> = before.split_whitespace().collect();
        // The word being typed is not a complete word before the cursor.
        let typing = !before.ends_with(char::is_whitespace);
        let previous = words
            .len()
            .checked_sub(if typing { 2 } else { 1 })
            .map(|i| words[i]);
        let wanted: Option<&[Kind]> = match previous {
            Some("skill") if words.first() == Some(&"use") => Some(&[Kind::Skill]),
            Some("tool") if words.first() == Some(&"require") => Some(&[Kind::Tool]),
            Some("mcp") if words.first() == Some(&"connect") => Some(&[Kind::Mcp]),
            Some("workflow") if words.len() <= 2 && before.starts_with(char::is_whitespace) => {
                Some(&[Kind::Workflow])
            }
            Some("for" | "[" | ",") => Some(&[Kind::Runtime]),
            Some("binding") => Some(&[Kind::Skill, Kind::Tool, Kind::Mcp]),
            _ => None,
        };
        let mut items: BTreeMap<(String, bool), lsp::CompletionItem> = BTreeMap::new();
        for name in self.workspace.names.iter().filter(|o| o.declaration) {
            if wanted.is_some_and(|kinds| !kinds.contains(&name.kind)) {
                continue;
            }
            items
                .entry((name.name.clone(), false))
                .or_insert(lsp::CompletionItem {
                    label: name.name.clone(),
                    kind: Some(name.kind.shown().1),
                    detail: Some(name.kind.word().to_string()),
                    ..lsp::CompletionItem::default()
                });
        }
        if wanted.is_none() {
            for keyword in harness_gen_lang::lexer::KEYWORDS {
                items
                    .entry((keyword.to_string(), true))
                    .or_insert(lsp::CompletionItem {
                        label: keyword.to_string(),
                        kind: Some(lsp::CompletionItemKind::KEYWORD),
                        ..lsp::CompletionItem::default()
                    });
            }
        }
        items.into_values().collect()
    }

    fn symbols(&self, uri: &lsp::Url) -> Vec<lsp::SymbolInformation> {
        let Some(file) = self.workspace.file(uri) else {
            return Vec::new();
        };
        self.workspace
            .names
            .iter()
            .filter(|o| o.declaration && o.span.file == file)
            .map(|o| {
                #[allow(deprecated)]
                lsp::SymbolInformation {
                    name: o.name.clone(),
                    kind: o.kind.shown().0,
                    tags: None,
                    deprecated: None,
                    location: self.workspace.location(o),
                    container_name: Some(o.kind.word().to_string()),
                }
            })
            .collect()
    }

    fn format(&self, uri: &lsp::Url) -> Option<Vec<lsp::TextEdit>> {
        let file = self.workspace.file(uri)?;
        let text = self.workspace.text(file);
        // A file that does not parse is not formatted: its diagnostics say why.
        let formatted = harness_gen_lang::format::format(&self.workspace.sources, file).ok()?;
        if formatted == text {
            return Some(Vec::new());
        }
        let lines = text.split('\n').count() as u32;
        Some(vec![lsp::TextEdit {
            range: lsp::Range {
                start: lsp::Position::new(0, 0),
                end: lsp::Position::new(lines, 0),
            },
            new_text: formatted,
        }])
    }
}

/// What the server offers.
fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Kind(
            lsp::TextDocumentSyncKind::FULL,
        )),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp::OneOf::Left(true)),
        references_provider: Some(lsp::OneOf::Left(true)),
        rename_provider: Some(lsp::OneOf::Left(true)),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        document_formatting_provider: Some(lsp::OneOf::Left(true)),
        completion_provider: Some(lsp::CompletionOptions {
            trigger_characters: Some(vec![" ".into(), ".".into()]),
            ..lsp::CompletionOptions::default()
        }),
        ..lsp::ServerCapabilities::default()
    }
}

/// Writes a JSON-RPC message that `lsp_server::Message` cannot hold (a response with a null
/// id), framed as every message is.
fn write_raw(output: &mut impl Write, value: &Value) -> std::io::Result<()> {
    let text = value.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    output.flush()
}

/// An answer as JSON.
fn json<T: serde::Serialize>(value: &T) -> Result<Value, Failure> {
    serde_json::to_value(value)
        .map_err(|error| Failure(ErrorCode::InternalError, error.to_string()))
}

/// `harness-gen harness lsp`: serves standard input and output until `exit`.
pub fn run() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    Server::default().serve(&mut stdin.lock(), &mut stdout.lock());
}

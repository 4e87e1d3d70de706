//! `harness-gen harness lsp`, driven as an editor drives it: the real binary over stdio,
//! framed JSON-RPC, a workspace folder of `.harness` files (the standard fixture split in two
//! files, so names cross files).

#![allow(clippy::unwrap_used)] // Tests state their expectations with unwrap.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// The fixture's skills and workflow in one file, the rest (harness, bindings, targets) in
/// another.
fn workspace(name: &str) -> PathBuf {
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/fixtures/harness/standard-coding.harness"),
    )
    .unwrap();
    let split = fixture.find("harness standard-coding").unwrap();
    let dir = std::env::temp_dir().join(format!("harness-lsp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("capabilities.harness"), &fixture[..split]).unwrap();
    std::fs::write(dir.join("team.harness"), &fixture[split..]).unwrap();
    dir
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

struct Client {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    fn start(folder: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_harness-gen"))
            .args(["harness", "lsp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if output.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                output.read_exact(&mut body).unwrap();
                if sender.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            input,
            messages,
            next_id: 0,
            notifications: Vec::new(),
        };
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(folder), "capabilities": {}}),
        );
        assert_eq!(
            init["result"]["capabilities"]["renameProvider"], true,
            "{init}"
        );
        client.notify("initialized", json!({}));
        client
    }

    fn send_raw(&mut self, body: &str) {
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.input.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        self.send_raw(&body);
    }

    fn next(&mut self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answers")
    }

    /// Sends a request; returns its response (notifications meanwhile are kept).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.send_raw(&body);
        loop {
            let message = self.next();
            if message["id"] == id {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        loop {
            if let Some(at) = self.notifications.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            }) {
                let found = self.notifications.remove(at);
                return found["params"]["diagnostics"].as_array().unwrap().clone();
            }
            let message = self.next();
            self.notifications.push(message);
        }
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "harness", "version": 1, "text": text}}),
        );
    }

    fn at(&mut self, method: &str, path: &Path, line: u32, character: u32, extra: Value) -> Value {
        let mut params = json!({
            "textDocument": {"uri": uri(path)},
            "position": {"line": line, "character": character},
        });
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        self.request(method, params)
    }

    fn finish(mut self) {
        let shutdown = self.request("shutdown", Value::Null);
        assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success());
    }
}

/// The string `key` of each item of a response's result list.
fn field<'a>(response: &'a Value, key: &str) -> Vec<&'a str> {
    response["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[key].as_str().unwrap())
        .collect()
}

/// The (0-based) line and character where `needle` first occurs in `text` after `after`.
fn find(text: &str, needle: &str, after: &str) -> (u32, u32) {
    let start = text.find(after).unwrap();
    let at = start + text[start..].find(needle).unwrap();
    let line = text[..at].matches('\n').count() as u32;
    let character = (at - text[..at].rfind('\n').map_or(0, |n| n + 1)) as u32;
    (line, character)
}

#[test]
fn diagnostics_arrive_when_a_file_breaks_and_clear_when_it_is_fixed() {
    let dir = workspace("diagnostics");
    let team = dir.join("team.harness");
    let text = std::fs::read_to_string(&team).unwrap();
    let mut client = Client::start(&dir);
    let broken = text.replace("use skill impact-analysis", "use skill impact-analysys");
    client.open(&team, &broken);
    let diagnostics = client.diagnostics(&uri(&team));
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let (line, character) = find(&broken, "impact-analysys", "agent author");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": line, "character": character})
    );
    assert_eq!(
        diagnostics[0]["range"]["end"]["character"],
        character + "impact-analysys".len() as u32
    );
    assert!(diagnostics[0]["code"].as_str().unwrap().starts_with("HL"));
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("impact-analysys")
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&team), "version": 2}, "contentChanges": [{"text": text}]}),
    );
    assert_eq!(client.diagnostics(&uri(&team)), Vec::<Value>::new());
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_definition_and_references_follow_a_name_across_files() {
    let dir = workspace("navigate");
    let (capabilities, team) = (dir.join("capabilities.harness"), dir.join("team.harness"));
    let text = std::fs::read_to_string(&team).unwrap();
    let mut client = Client::start(&dir);
    client.open(&team, &text);
    let (line, character) = find(&text, "impact-analysis", "agent author");

    let hover = client.at("textDocument/hover", &team, line, character + 3, json!({}));
    let shown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.starts_with("**skill** `impact-analysis`"), "{shown}");
    assert!(
        shown.contains("declared in `capabilities.harness` line 5"),
        "{shown}"
    );
    assert!(shown.contains("map the blast radius"), "{shown}");

    let definition = client.at("textDocument/definition", &team, line, character, json!({}));
    assert_eq!(
        definition["result"],
        json!([{"uri": uri(&capabilities), "range": {
            "start": {"line": 4, "character": 6}, "end": {"line": 4, "character": 21}
        }}])
    );

    let references = client.at(
        "textDocument/references",
        &team,
        line,
        character,
        json!({"context": {"includeDeclaration": true}}),
    );
    let found: Vec<(String, u64)> = references["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().to_string(),
                l["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    // The declaration, the author's `use skill`, and the binding.
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.contains(&(uri(&capabilities), 4)));
    assert_eq!(found.iter().filter(|(u, _)| *u == uri(&team)).count(), 2);

    // An agent used in the workflow of the other file leads to its declaration here.
    let workflow = std::fs::read_to_string(&capabilities).unwrap();
    let (line, character) = find(&workflow, "verifier", "workflow coding-loop");
    let definition = client.at(
        "textDocument/definition",
        &capabilities,
        line,
        character,
        json!({}),
    );
    assert_eq!(definition["result"][0]["uri"], uri(&team));
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completion_offers_the_declared_names_a_position_expects_and_keywords_elsewhere() {
    let dir = workspace("complete");
    let team = dir.join("team.harness");
    let text = std::fs::read_to_string(&team).unwrap().replace(
        "    require tool process.exec\n",
        "    require tool process.exec\n    use skill \n",
    );
    let mut client = Client::start(&dir);
    client.open(&team, &text);
    let (line, character) = find(&text, "use skill \n", "agent verifier");
    let items = client.at(
        "textDocument/completion",
        &team,
        line,
        character + "use skill ".len() as u32,
        json!({}),
    );
    assert_eq!(
        field(&items, "label"),
        ["impact-analysis", "verification-before-complete"]
    );

    let items = client.at("textDocument/completion", &team, 0, 0, json!({}));
    let labels = field(&items, "label");
    assert!(
        labels.contains(&"harness") && labels.contains(&"binding"),
        "{labels:?}"
    );
    assert!(labels.contains(&"coding-loop"), "{labels:?}");
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rename_changes_every_occurrence_in_every_file_and_refuses_a_keyword() {
    let dir = workspace("rename");
    let (capabilities, team) = (dir.join("capabilities.harness"), dir.join("team.harness"));
    let text = std::fs::read_to_string(&capabilities).unwrap();
    let mut client = Client::start(&dir);
    let (line, character) = find(&text, "impact-analysis", "skill ");
    let edit = client.at(
        "textDocument/rename",
        &capabilities,
        line,
        character,
        json!({"newName": "blast-radius"}),
    );
    let changes = edit["result"]["changes"].as_object().unwrap();
    assert_eq!(changes[&uri(&capabilities)].as_array().unwrap().len(), 1);
    assert_eq!(changes[&uri(&team)].as_array().unwrap().len(), 2);
    assert!(
        changes
            .values()
            .flat_map(|edits| edits.as_array().unwrap())
            .all(|e| e["newText"] == "blast-radius")
    );
    let refused = client.at(
        "textDocument/rename",
        &capabilities,
        line,
        character,
        json!({"newName": "workflow"}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn formatting_and_document_symbols() {
    let dir = workspace("format");
    let team = dir.join("team.harness");
    let mut client = Client::start(&dir);
    let crammed = "target pi uses adapter.pi\ntarget   qoder uses adapter.qoder";
    client.open(&team, crammed);
    let edits = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri(&team)}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(
        edits["result"][0]["newText"],
        "target pi uses adapter.pi\ntarget qoder uses adapter.qoder\n"
    );
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&team)}}),
    );
    assert_eq!(field(&symbols, "name"), ["pi", "qoder"]);
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_messages_unknown_methods_and_vanished_files_do_not_stop_the_server() {
    let dir = workspace("robust");
    let team = dir.join("team.harness");
    let mut client = Client::start(&dir);
    client.send_raw("{this is not json");
    let parse_error = client.next();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    assert_eq!(parse_error["id"], Value::Null);

    let unknown = client.request("textDocument/teleport", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let bad_params = client.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(bad_params["error"]["code"], -32602, "{bad_params}");

    // A half-typed file, then the file removed from disk and closed.
    client.open(&team, "harness standard-coding {\n  agent au");
    assert!(!client.diagnostics(&uri(&team)).is_empty());
    std::fs::remove_file(&team).unwrap();
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&team)}}),
    );
    // Gone from the workspace: its diagnostics are cleared.
    assert_eq!(client.diagnostics(&uri(&team)), Vec::<Value>::new());
    let nowhere = client.at("textDocument/hover", &team, 0, 3, json!({}));
    assert_eq!(nowhere["result"], Value::Null, "{nowhere}");

    // Still serving.
    let capabilities = dir.join("capabilities.harness");
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&capabilities)}}),
    );
    assert_eq!(symbols["result"].as_array().unwrap().len(), 3, "{symbols}");
    client.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

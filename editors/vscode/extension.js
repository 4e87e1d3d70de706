// Starts `harness-gen harness lsp` for .harness files. Everything the editor shows (errors,
// hover, navigation, rename, completion, formatting) comes from that server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("harness").get("server.path", "harness-gen");
  const server = { command, args: ["harness", "lsp"] };
  client = new LanguageClient(
    "harness",
    "Harness language server",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "harness" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.harness") },
    },
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

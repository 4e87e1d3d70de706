// Tokenizes a file with a TextMate grammar through VS Code's own engine (vscode-textmate with
// the Oniguruma regular expressions VS Code uses) and prints, per line, each token's text and
// scopes as JSON: [[{"text", "scopes"}…]…].
//
//   node tools/textmate/tokenize.js GRAMMAR.tmLanguage.json FILE
const fs = require("fs");
const path = require("path");
const textmate = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

async function main() {
  const [grammarPath, file] = process.argv.slice(2);
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer);
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () =>
      textmate.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath),
  });
  const grammar = await registry.loadGrammar("source.harness");
  let state = textmate.INITIAL;
  const lines = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const result = grammar.tokenizeLine(line, state);
    lines.push(
      result.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes })),
    );
    state = result.ruleStack;
  }
  process.stdout.write(JSON.stringify(lines));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

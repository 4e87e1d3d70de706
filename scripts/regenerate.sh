#!/usr/bin/env bash
# Regenerates the checked-in crates under generated/ from their specs (openapi.md §5, reviewed
# codegen). With --check, writes nothing and fails listing the stale files (CI runs this).
#
#   scripts/regenerate.sh           # rewrite generated/
#   scripts/regenerate.sh --check   # exit 1 if anything under generated/ is stale
set -euo pipefail
cd "$(dirname "$0")/.."
check=()
[ "${1:-}" = "--check" ] && check=(--check)

# HARNESS_GEN names a harness-gen binary already built (CI passes the one the tests built, so
# nothing is compiled again with other features); otherwise this checkout's is built.
# PETSTORE_MCP does the same for the pet store's MCP server, below.
if [ -n "${HARNESS_GEN:-}" ]; then
  gen=$HARNESS_GEN
else
  cargo build -q -p harness-gen-cli
  gen=target/debug/harness-gen
fi
status=0
run() {
  "$gen" openapi "$@" --runtime-path ../../runtime "${check[@]}" || status=1
}
run specs/petstore.yaml --out generated/petstore --crate-name petstore --harness specs/petstore.harness
run specs/pages.yaml --out generated/pages --crate-name pages
run specs/streams.yaml --out generated/streams --crate-name streams
# One schema for requests and replies, readOnly and writeOnly properties taken by direction.
run specs/directions.yaml --out generated/directions --crate-name directions
# Names that are keywords or collide once converted, wherever a document gives one.
run specs/keywords.yaml --out generated/keywords --crate-name keywords
# The MCP conformance suite's tool scenarios as an HTTP API (tests/tests/e2e/conformance.rs).
run specs/conformance.yaml --out generated/conformance --crate-name conformance
run ../shared/corpus/examples/train-travel.openapi.yaml --out generated/train-travel --crate-name train-travel
# Typed bindings of the petstore's catalog (the language bridge, in process and over MCP).
"$gen" bindings generated/petstore/catalog.json --out generated/petstore-bindings \
  --crate-name petstore-bindings --runtime-path ../../runtime "${check[@]}" || status=1
# Typed bindings of the streams crate's catalog: tools whose operations stream events.
"$gen" bindings generated/streams/catalog.json --out generated/streams-bindings \
  --crate-name streams-bindings --runtime-path ../../runtime "${check[@]}" || status=1
# The same tools read from the petstore's running MCP server (stdio) instead of its catalog.
# PETSTORE_MCP names one already built (CI passes the tests'), linked where the crate's
# recorded command finds it.
if [ -n "${PETSTORE_MCP:-}" ]; then
  mkdir -p target/debug
  ln -sf "$(realpath "$PETSTORE_MCP")" target/debug/petstore-mcp
else
  cargo build -q -p petstore --features mcp --bin petstore-mcp
fi
"$gen" bindings --from-mcp target/debug/petstore-mcp --out generated/petstore-mcp-bindings \
  --crate-name petstore-mcp-bindings --runtime-path ../../runtime "${check[@]}" || status=1
exit $status

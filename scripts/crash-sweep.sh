#!/usr/bin/env bash
# The heavy crash sweep (issue 42): every command of the CLI of every corpus document, the large
# ones included, with --help and with a minimal valid input, and every tool of its MCP server
# listed and called: no panic, no undocumented exit code. CI sweeps the small documents.
#
#   scripts/crash-sweep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -q -p harness-e2e --test e2e crash_sweep::no_command_or_tool_of_any_corpus_document_panics \
  -- --ignored --nocapture --test-threads 1

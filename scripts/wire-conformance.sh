#!/usr/bin/env bash
# The heavy wire check (issue 42): every document of ../shared/corpus that generates, the large
# ones included, called operation by operation against Prism (and, for form bodies, the form
# judge), with the summary table on standard output. Prism comes from the test command's install
# (scripts/test.sh); run that once first. WIRE_ONLY=<part of a path> narrows it to some documents.
#
#   scripts/wire-conformance.sh                 # the whole corpus (about 10 minutes)
#   WIRE_ONLY=spec3 scripts/wire-conformance.sh # Stripe alone
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x tools/prism/node_modules/.bin/prism ]; then
  echo "error: Prism is not installed: run scripts/test.sh once (it installs it into tools/prism)" >&2
  exit 2
fi
cargo test -q -p harness-e2e --test e2e wire::every_corpus_document_conforms_on_the_wire \
  -- --ignored --nocapture --test-threads 1

#!/usr/bin/env bash
# Checks that a generated crate passes `cargo package` (with verification: it is built from the
# packaged sources). harness-runtime is not on crates.io yet, so it is packaged alongside and the
# generated crate is verified against that local package. About two minutes; not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo package -p harness-runtime -p petstore --allow-dirty "$@"

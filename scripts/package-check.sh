#!/usr/bin/env bash
# Checks that a generated crate passes `cargo package` (with verification: it is built from the
# packaged sources). harness-runtime is not on crates.io yet, so it is packaged alongside and the
# generated crate is verified against that local package. About two minutes; not part of CI
# (run it before releases).
set -euo pipefail
cd "$(dirname "$0")/.."
# Cargo keeps the locally packaged runtime in its registry caches under the same version; a stale
# copy from an earlier run would be verified against instead of the current sources.
home="${CARGO_HOME:-$HOME/.cargo}"
rm -rf "$home"/registry/src/-*/harness-runtime-* "$home"/registry/cache/-*/harness-runtime-*
cargo package -p harness-runtime -p petstore --allow-dirty "$@"

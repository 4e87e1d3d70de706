#!/usr/bin/env bash
# What generating from build.rs costs a user (issue 38): a cold `cargo build` (debug, fresh
# target directory, offline) of the example crate `examples/petstore-build` as a user's own
# crate would build it: copied outside this workspace, so with Cargo's default profile (this
# workspace compiles dependencies at opt-level 2 for its tests, which a user's crate does not),
# depending on the generator and the runtime of the checkout at ROOT by path, with ROOT's
# Cargo.lock so both sides of a comparison compile the versions they were written against.
#
#   scripts/build-rs-weight.sh [ROOT]    # ROOT: a checkout, this one by default
#
# Prints the packages compiled and the seconds taken, and the packages `cargo tree` resolves for
# the generator library alone (normal and build dependencies). Minutes; run by scripts/bench.sh,
# not CI. For a before/after figure, run it on a worktree of the older commit too.
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/..}" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The example's own files, at the same distance from the spec its build.rs names.
mkdir -p "$WORK/examples" "$WORK/specs"
cp -r "$ROOT/examples/petstore-build" "$WORK/examples/"
rm -rf "$WORK/examples/petstore-build/tests"
cp "$ROOT/specs/petstore.yaml" "$WORK/specs/"
cat > "$WORK/examples/petstore-build/Cargo.toml" <<TOML
[package]
name = "petstore-build"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
harness-gen-runtime = { path = "$ROOT/runtime", features = ["client", "registry", "dates"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[build-dependencies]
harness-gen = { path = "$ROOT/generator" }
TOML
cp "$ROOT/Cargo.lock" "$WORK/examples/petstore-build/Cargo.lock"

cd "$WORK/examples/petstore-build"
start=$(date +%s.%N)
count=$(CARGO_TARGET_DIR="$WORK/target" cargo build --offline ${TIMINGS:+--timings} 2>&1 | tee "$WORK/build.log" | grep -c '^ *Compiling ') || {
  cat "$WORK/build.log"
  exit 1
}
end=$(date +%s.%N)
[ -n "${TIMINGS:-}" ] && cp "$WORK"/target/cargo-timings/cargo-timing.html "$TIMINGS"
library=$(cargo tree --offline -p harness-gen -e normal,build --prefix none | sed 's/ (\*)$//' | sort -u | grep -vc '^harness-gen v')
printf '%-52s %9s %9s\n' "cold cargo build of the build.rs example (debug)" "packages" "seconds"
printf '%-52s %9d %9.1f\n' "$(git -C "$ROOT" rev-parse --short HEAD)" "$count" "$(echo "$end - $start" | bc)"
echo "the generator library's normal and build tree: $library packages besides itself (goal <= 40)"

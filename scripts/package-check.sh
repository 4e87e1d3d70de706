#!/usr/bin/env bash
# Publishing, end to end and offline for our own crates: packages the runtime (its packages and the façade), the generator and
# the generated pet store together and verifies each (compiles it from its .crate file). Cargo
# verifies a package against the other packages of the same run, so the generated crate is
# built against the packaged runtime, never against anything of that name on the crates
# registry. CI runs it; it takes a few minutes (verification compiles in target/package).
#
#   scripts/package-check.sh              # package and verify
#   scripts/package-check.sh --list       # only list each package's files
set -euo pipefail
cd "$(dirname "$0")/.."
# Every publishable package, in dependency order (each is verified against the ones before it).
packages=(harness-gen-wire harness-gen-macros harness-gen-types harness-gen-contract harness-gen-registry harness-gen-client
  harness-gen-command harness-gen-serve harness-gen-mcp harness-gen-dashboard harness-gen-bridge
  harness-gen-runtime harness-gen-lang harness-gen harness-gen-cli petstore)
if [ "${1:-}" = "--list" ]; then
  exec cargo package "${packages[@]/#/-p}" --allow-dirty --list
fi
# Cargo keeps the locally packaged crates in its registry caches under the same version; a stale
# copy from an earlier run would be verified against instead of the current sources.
home="${CARGO_HOME:-$HOME/.cargo}"
for crate in "${packages[@]}"; do
  rm -rf "$home"/registry/src/-*/"$crate"-[0-9]* "$home"/registry/cache/-*/"$crate"-[0-9]*
done
# Cargo never rebuilds a registry package it compiled before (registry sources cannot change),
# and the verification builds in target/debug: drop what was compiled of our crates there, or
# petstore would be verified against a runtime compiled from an earlier run's sources.
rm -rf target/debug/.fingerprint/{harness-gen,petstore}-* \
  target/debug/deps/lib{harness_gen,petstore}-* target/debug/deps/libharness_gen_*-*
# A dirty tree is allowed so the check can run before committing; CI runs it on a clean clone.
cargo package "${packages[@]/#/-p}" --allow-dirty "$@"
ls -l target/package/*.crate

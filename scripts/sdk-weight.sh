#!/usr/bin/env bash
# The weight of a generated SDK for its user (issue 14): a cold `cargo build` (default features,
# fresh target directory) of the generated pet-store crate against a baseline crate that depends
# only on what any hand-written SDK would: reqwest (same TLS features), serde, serde_json and
# tokio. Prints packages compiled and seconds for each, and the ratios (goal: at most 1.3x).
# Both use this workspace's Cargo.lock, so both compile the same versions. Minutes; run by
# scripts/bench.sh, not CI.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cargo build -q -p harness-gen-cli
# The SDK as a user gets it: no path to the runtime in its manifest; the runtime comes from
# this checkout through [patch] (as it would come from the registry once published).
target/debug/harness-gen openapi specs/petstore.yaml --out "$WORK/sdk/petstore" --crate-name petstore >/dev/null
cat > "$WORK/sdk/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = ["petstore"]

[patch.crates-io]
harness-gen-runtime = { path = "$ROOT/runtime" }
TOML

mkdir -p "$WORK/baseline/src"
cat > "$WORK/baseline/Cargo.toml" <<'TOML'
[package]
name = "baseline"
version = "0.1.0"
edition = "2024"

[dependencies]
reqwest = { version = "0.12", default-features = false, features = ["rustls-tls"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
tokio = { version = "1", default-features = false, features = ["time"] }
TOML
cat > "$WORK/baseline/src/lib.rs" <<'RS'
//! What a hand-written SDK compiles at least.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Pet {
    pub name: String,
}
pub async fn get(client: &reqwest::Client, url: &str) -> Result<Pet, Box<dyn std::error::Error>> {
    let text = client.get(url).send().await?.text().await?;
    tokio::time::sleep(std::time::Duration::from_millis(0)).await;
    Ok(serde_json::from_str(&text)?)
}
RS

# cold_build DIR: prints "packages seconds".
cold_build() {
  cp "$ROOT/Cargo.lock" "$1/Cargo.lock"
  local start end count
  start=$(date +%s.%N)
  count=$(cd "$1" && CARGO_TARGET_DIR="$1/target" cargo build --offline 2>&1 | grep -c '^ *Compiling ')
  end=$(date +%s.%N)
  echo "$count $(echo "$end - $start" | bc)"
}

read -r base_pkgs base_secs < <(cold_build "$WORK/baseline")
read -r sdk_pkgs sdk_secs < <(cold_build "$WORK/sdk")
printf '%-40s %9s %9s\n' "cold cargo build (debug, default features)" "packages" "seconds"
printf '%-40s %9d %9.1f\n' "baseline: reqwest+serde+serde_json+tokio" "$base_pkgs" "$base_secs"
printf '%-40s %9d %9.1f\n' "generated pet-store SDK" "$sdk_pkgs" "$sdk_secs"
printf '%-40s %9.2f %9.2f   goal <= 1.3\n' "ratio" "$(echo "$sdk_pkgs / $base_pkgs" | bc -l)" "$(echo "$sdk_secs / $base_secs" | bc -l)"
(cd "$WORK/sdk" && cargo tree --offline -p petstore -e normal --prefix none | sort -u > "$WORK/tree")
for heavy in schemars ts-rs clap rmcp axum jsonschema fancy-regex; do
  if grep -q "^$heavy v" "$WORK/tree"; then echo "the SDK's tree holds $heavy"; exit 1; fi
done
echo "the SDK's tree holds none of schemars, ts-rs, clap, rmcp, axum, jsonschema, fancy-regex"

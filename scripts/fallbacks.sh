#!/usr/bin/env bash
# How many schemas of the corpus' valid documents fall back to serde_json::Value (warning
# HG0504), per document and in all: the "faithful types" measure of issue 17.
#
#   scripts/fallbacks.sh            # the ten documents with the most, and the total
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p harness-gen-cli
gen=target/release/harness-gen
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total=0
documents=0
report=""
while read -r path; do
  n=$("$gen" openapi "../shared/corpus/$path" --out "$out/crate" --crate-name x --check 2>&1 \
    | grep -c 'warning\[HG0504\]' || true)
  total=$((total + n))
  documents=$((documents + 1))
  report+="$n $path"$'\n'
done < <(python3 -c 'import json; [print(d["path"]) for d in json.load(open("../shared/corpus/index.json"))["documents"] if d["expect"] == "valid"]')
printf '%s' "$report" | sort -rn | head -10
echo "valid documents: $documents, HG0504 fallbacks: $total"

#!/usr/bin/env bash
# Compile cost of generated crates (issue 22): for each large corpus document, generates the
# crate, builds its dependencies once, then times `cargo check` of the generated crate alone
# (CARGO_INCREMENTAL=0, dependencies prebuilt) for the SDK (default features) and with the tool
# registry (`--features registry`), and for the SDK of its largest operation group alone
# (`--no-default-features --features <group>`). Prints generated lines, seconds and rustc's
# peak memory.
# Minutes; run by scripts/bench.sh, not CI.
#
#   scripts/compile-cost.sh                 # GHES 3.6, Stripe 2023, OpenAI
#   scripts/compile-cost.sh SPEC [SPEC...]  # other documents
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CORPUS="${CORPUS:-../shared/corpus}"
WORK=target/compile-cost
if [ $# -eq 0 ]; then
  set -- "$CORPUS/large/ghes-3.6.descriptions-next.2023-03-08.json" \
         "$CORPUS/large/spec3.2023-09-12.yaml" \
         "$CORPUS/large/openai.openapi.2026-08-21.json"
fi

cargo build -q --release -p harness-gen-cli
mkdir -p "$WORK"

# check DIR FEATURES...: prints "seconds peak_MiB" of `cargo check` of the crate in DIR alone
# (its dependencies built first, untimed).
check() {
  local dir=$1; shift
  (cd "$dir" && CARGO_TARGET_DIR="$ROOT/$WORK/target" cargo check -q --offline "$@" >/dev/null 2>&1)
  touch "$dir/crate/src/lib.rs"
  (cd "$dir" && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$ROOT/$WORK/target" \
    /usr/bin/time -f '%e %M' -o "$ROOT/$WORK/time" cargo check -q --offline "$@" >/dev/null)
  read -r secs kib < "$ROOT/$WORK/time"
  echo "$secs $((kib / 1024))"
}
printf '%-16s %5s %7s %7s %8s %7s %8s %-20s %7s %8s\n' "crate" "ops" "lines" "sdk s" "sdk MiB" "reg s" "reg MiB" "largest group" "group s" "grp MiB"
for spec in "$@"; do
  case $(basename "$spec") in
    ghes-3.6*) name=ghes-3-6 ;;
    spec3.2023*) name=stripe-2023 ;;
    *) name=$(basename "$spec" | cut -d. -f1 | tr '_A-Z' '-a-z' | sed 's/[^a-z0-9-]//g; s/^[^a-z]*//') ;;
  esac
  dir="$WORK/$name"
  rm -rf "$dir"
  "$ROOT/target/release/harness-gen" openapi "$spec" --out "$dir/crate" --crate-name "cc-$name" \
    --runtime-path "$ROOT/runtime" >/dev/null 2>&1
  printf '[workspace]\nmembers = ["crate"]\nresolver = "3"\n' > "$dir/Cargo.toml"
  cp Cargo.lock "$dir/Cargo.lock"
  lines=$(cat "$dir"/crate/src/*.rs | wc -l)
  ops=$(grep -c ': BindingText = ' "$dir/crate/src/client.rs" || true)
  read -r sdk_s sdk_m < <(check "$dir")
  read -r reg_s reg_m < <(check "$dir" --features registry)
  # Cargo.toml lists each group as "# N operations: …" above "group = []".
  group=$(awk '/^# [0-9]+ operations?:/ { n = $2; next } n && /^[A-Za-z0-9_-]+ = \[\]$/ { if (n > best) { best = n; name = $1 } n = 0 }
               END { print name }' "$dir/crate/Cargo.toml")
  if [ -n "$group" ]; then
    read -r grp_s grp_m < <(check "$dir" --no-default-features --features "$group")
    group="$group ($(grep -B1 "^$group = \[\]" "$dir/crate/Cargo.toml" | head -1 | cut -d' ' -f2))"
  else
    group="(no groups)" grp_s=- grp_m=-
  fi
  printf '%-16s %5s %7s %7s %8s %7s %8s %-20s %7s %8s\n' "$name" "$ops" "$lines" "$sdk_s" "$sdk_m" "$reg_s" "$reg_m" "$group" "$grp_s" "$grp_m"
done
echo "targets (issue 52): GHES <= 0.2x openapi-generator's check and <= 0.8 GiB, its repos group <= 3 s"

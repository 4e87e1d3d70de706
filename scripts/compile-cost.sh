#!/usr/bin/env bash
# Compile cost of generated crates (issue 22): for each large corpus document, generates the
# crate, builds its dependencies once, then times `cargo check` of the generated crate alone
# (CARGO_INCREMENTAL=0, dependencies prebuilt) for the SDK (default features) and with the tool
# registry (`--features registry`), and for the SDK of its largest operation group alone
# (`--no-default-features --features <group>`). Prints generated lines, seconds and rustc's
# peak memory.
# Minutes; run by scripts/bench.sh, not CI.
#
# Paired with openapi-generator 7.26's `rust` crate for the same document (issue 52): its
# venv (pip `openapi-generator-cli`, which bundles the generator; it needs Java) is installed
# into target/tools/openapi-generator on first use; without Java or pip the figures are ours
# alone, said so. The two SDK checks alternate, PAIRS times each (default 3), so the machine's
# drift hits both; the ratio is of the medians.
#
#   scripts/compile-cost.sh                 # GHES 3.6, Stripe 2023, OpenAI
#   scripts/compile-cost.sh SPEC [SPEC...]  # other documents
#   PAIRS=0 scripts/compile-cost.sh         # without openapi-generator
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
PAIRS="${PAIRS:-3}"
PEER_VENV=target/tools/openapi-generator
peer=""
if [ "$PAIRS" -gt 0 ]; then
  if ! command -v java >/dev/null; then
    echo "openapi-generator needs Java (apt-get install default-jre-headless): figures unpaired" >&2
  elif [ -x "$PEER_VENV/bin/openapi-generator-cli" ] || { python3 -m venv "$PEER_VENV" \
      && "$PEER_VENV/bin/pip" install -q "openapi-generator-cli==7.26.0"; }; then
    peer="$ROOT/$PEER_VENV/bin/openapi-generator-cli"
  else
    echo "openapi-generator could not be installed into $PEER_VENV: figures unpaired" >&2
  fi
fi

# median: the median of the numbers on standard input.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timed DIR FEATURES...: "seconds peak_MiB" of one check of DIR's crate, dependencies built.
timed() {
  local dir=$1; shift
  touch "$dir/crate/src/lib.rs"
  (cd "$dir" && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$ROOT/$WORK/target" \
    /usr/bin/time -f '%e %M' -o "$ROOT/$WORK/time" cargo check -q --offline "$@" >/dev/null 2>&1) || true
  # A check that fails (openapi-generator's GHES crate) has time's "exited with" line first.
  read -r secs kib < <(tail -n 1 "$ROOT/$WORK/time")
  echo "$secs $((kib / 1024))"
}
# check DIR FEATURES...: prints "seconds peak_MiB" of `cargo check` of the crate in DIR alone
# (its dependencies built first, untimed).
check() {
  local dir=$1; shift
  (cd "$dir" && CARGO_TARGET_DIR="$ROOT/$WORK/target" cargo check -q --offline "$@" >/dev/null 2>&1)
  timed "$dir" "$@"
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
  [ -n "$peer" ] || continue
  # openapi-generator's crate for the same document, checked alternately with ours. Its crate
  # may not compile (GHES's names a missing type, `models::Null`): its check is timed all the
  # same, as the issue measured it.
  pdir="$WORK/$name-openapi-generator"
  rm -rf "$pdir"
  # It refuses GHES without --skip-validate-spec (examples that are not objects), and Stripe's
  # YAML without a higher bound on a document's code points.
  if ! JAVA_OPTS="${JAVA_OPTS:+$JAVA_OPTS }-DmaxYamlCodePoints=99999999" "$peer" generate -g rust -i "$spec" -o "$pdir/crate" --package-name "ogc-$name" \
      --additional-properties packageVersion=1.0.0 --skip-validate-spec >/dev/null 2>&1; then
    echo "  openapi-generator did not generate a crate for $name" >&2
    continue
  fi
  printf '[workspace]\nmembers = ["crate"]\nresolver = "3"\n' > "$pdir/Cargo.toml"
  # (Its crate's version is set: it writes the document's own, Stripe's `2023-08-16`, which
  # Cargo refuses.) Its dependencies, fetched and built once, untimed (its crate's errors are
  # expected); a crate whose manifest Cargo cannot load is not timed.
  if ! (cd "$pdir" && cargo metadata -q --no-deps --format-version 1 >/dev/null 2>&1); then
    echo "  openapi-generator's crate for $name has a manifest Cargo refuses: not paired" >&2
    continue
  fi
  (cd "$pdir" && CARGO_TARGET_DIR="$ROOT/$WORK/target" cargo check -q >/dev/null 2>&1) || true
  ours=() theirs=() ours_m=0 theirs_m=0
  for _ in $(seq "$PAIRS"); do
    read -r s m < <(timed "$dir"); ours+=("$s"); if (( m > ours_m )); then ours_m=$m; fi
    read -r s m < <(timed "$pdir"); theirs+=("$s"); if (( m > theirs_m )); then theirs_m=$m; fi
  done
  o=$(printf '%s\n' "${ours[@]}" | median) t=$(printf '%s\n' "${theirs[@]}" | median)
  echo "  paired SDK check, $PAIRS pairs: ours ${ours[*]} s (median $o s, $ours_m MiB);" \
    "openapi-generator ${theirs[*]} s (median $t s, $theirs_m MiB); ratio $(awk -v o="$o" -v t="$t" 'BEGIN {printf "%.2f", o / t}')"
done
echo "targets (issue 52): GHES <= 0.2x openapi-generator's check and <= 0.8 GiB, its repos group <= 3 s"

#!/usr/bin/env bash
# The test command (README, and CI through .ci/run): installs the tools the tests drive into the
# checkout — TypeScript, Stoplight Prism, the MCP Inspector and VS Code's TextMate engine from npm (tools/*/node_modules), the official MCP SDK
# from PyPI (target/mcp-venv) — each only when missing or when its lock file changed, then runs
# every test of the workspace. Arguments go to `cargo test` (e.g. `scripts/test.sh -p harness-gen`).
# Headless Chromium and ChromeDriver (the dashboard's browser tests) and Redis (the replicated
# MCP task store's tests) are system packages: this script installs them with apt-get when it can
# (root, or sudo without a password), and otherwise says the command that would.
set -euo pipefail
cd "$(dirname "$0")/.."

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "error: the tests need \`$1\`, which is not installed: $2" >&2
    exit 2
  fi
}
need cargo "install Rust from https://rustup.rs"
need npm "install Node.js 18 or later with npm (Debian: apt-get install nodejs npm)"
need python3 "install Python 3.10 or later with venv (Debian: apt-get install python3 python3-venv)"
# System packages: installed here when this user can (root, or sudo without a password, with
# apt-get); otherwise the one command that would.
missing=()
{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || missing+=(chromium chromium-driver)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  as_root=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root="sudo -n"
    else
      as_root="none"
    fi
  fi
  if [ "$as_root" != "none" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing ${missing[*]} (Debian's packages) for the dashboard's browser tests and the replicated task store's tests"
    $as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi
for program in /usr/bin/chromium /usr/bin/chromedriver /usr/bin/redis-server; do
  if [ ! -x "$program" ]; then
    echo "error: the tests need $program, which is not installed and this script cannot install it (it needs root or sudo without a password, and apt-get): run \`sudo apt-get install chromium chromium-driver redis-server\`, then this script again" >&2
    exit 2
  fi
done

npm_tools() {
  local dir=$1 stamp=$1/node_modules/.harness-installed
  if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
    echo "== installing $dir (npm ci)"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
    touch "$stamp"
  fi
}
npm_tools tools/ts
npm_tools tools/prism
npm_tools tools/textmate
npm_tools tools/inspector
npm_tools tools/conformance

venv=target/mcp-venv
if [ ! -f "$venv/.harness-installed" ] || [ tests/mcp/requirements.txt -nt "$venv/.harness-installed" ]; then
  echo "== installing the MCP SDK into $venv (pip)"
  if ! python3 -m venv "$venv"; then
    echo "error: python3 cannot create a virtual environment (Debian: apt-get install python3-venv)" >&2
    exit 2
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
  touch "$venv/.harness-installed"
fi

# Every tool is in place: a test that cannot find one fails instead of skipping.
export HARNESS_REQUIRE_TOOLS=1
# The security tests open a thousand slow connections to a server: raise the open-file limit to
# what the system allows (a soft limit of 1,024 is common).
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
  ulimit -Sn 4096
else
  echo "warning: the open-file limit is $hard; the slow-connection test needs about 2,100 (raise it with ulimit -Hn as root)" >&2
  ulimit -Sn "$hard"
fi

exec cargo test --workspace --all-features "$@"

#!/usr/bin/env bash
# Load on the generated MCP server over Streamable HTTP (issue 55): calls per second and
# latency (p50, p99) of `tools/call get_pet` in both protocol eras, next to the same machine's
# bare upstream (the pet store's loopback stand-in, GET /pets/1) and a JSON-RPC `ping` through
# the server, each with 1, 64 and 512 concurrent connections, and the same call through
# FastMCP's `from_openapi` server for the same document (installed into target/fastmcp-venv
# from PyPI on first use); then the server's resident memory idle and with 1,000 open sessions.
# wrk drives the load (Debian: apt-get install wrk).
# A benchmark, not a test: bench.sh runs it; figures go to docs/src/performance.md.
#
#   scripts/mcp-load.sh                 # 5 s per row
#   SECONDS_PER_ROW=10 scripts/mcp-load.sh
#   SOAK_MINUTES=10 scripts/mcp-load.sh # then a soak: 8 connections of tools/call for that long,
#                                       # the server's memory sampled every 30 s
#   FAULTS=reset:0.05,stall:0.01:200 scripts/mcp-load.sh
#                                       # the faults row's upstream: resets 5 % of what it relays,
#                                       # holds 1 % for 200 ms (default reset:0.01,stall:0.01:200)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "error: needs wrk (Debian: sudo apt-get install wrk)" >&2; exit 2; }
command -v curl >/dev/null || { echo "error: needs curl" >&2; exit 2; }
DURATION="${SECONDS_PER_ROW:-5}s"
OUT=target/mcp-load
rm -rf "$OUT"
mkdir -p "$OUT"

cargo build -q --release -p petstore --features mcp --bin petstore-mcp
cargo build -q --release -p harness-e2e --example petstore_upstream

# The upstream: its URL and token on its first two lines; it stops when its input closes.
mkfifo "$OUT/upstream-in"
target/release/examples/petstore_upstream < "$OUT/upstream-in" > "$OUT/upstream" &
UPSTREAM_PID=$!
exec 7>"$OUT/upstream-in"
for _ in $(seq 50); do [ "$(wc -l < "$OUT/upstream")" -ge 2 ] && break; sleep 0.1; done
UPSTREAM=$(sed -n 1p "$OUT/upstream")
TOKEN=$(sed -n 2p "$OUT/upstream")

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
PETSTORE_BASE_URL=$UPSTREAM PETSTORE_TOKEN=$TOKEN RUST_LOG=error \
  target/release/petstore-mcp --http "127.0.0.1:$PORT" 2>"$OUT/server.log" &
SERVER=$!
MCP="http://127.0.0.1:$PORT/mcp"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done

# FastMCP, when it can be installed (pinned: the version these figures were taken with).
FASTMCP_VENV=target/fastmcp-venv
FASTMCP=""
if [ -x "$FASTMCP_VENV/bin/python" ] || { python3 -m venv "$FASTMCP_VENV" \
    && "$FASTMCP_VENV/bin/pip" install -q "fastmcp==4.2.3" pyyaml; }; then
  FASTMCP_PORT=$(free_port)
  "$FASTMCP_VENV/bin/python" scripts/fastmcp/petstore_server.py specs/petstore.yaml "$UPSTREAM" \
    "$TOKEN" "$FASTMCP_PORT" > "$OUT/fastmcp.log" 2>&1 &
  FASTMCP=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$FASTMCP_PORT/mcp" && break
    sleep 0.1
  done
else
  echo "warning: FastMCP could not be installed into $FASTMCP_VENV (pip and PyPI needed): its rows are left out" >&2
fi
trap 'kill $SERVER $FASTMCP 2>/dev/null; exec 7>&-' EXIT

# wrk's script: POSTs $BODY with the headers $HEADERS names ("name: value|name: value"), the
# JSON-RPC id `ID` in the body replaced by one of its own for each request (requests of one
# session must not share an id while they are under way).
cat > "$OUT/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
for pair in string.gmatch(os.getenv("HEADERS") or "", "[^|]+") do
  local name, value = pair:match("^%s*(.-)%s*:%s*(.-)%s*$")
  wrk.headers[name] = value
end
local template = os.getenv("BODY")
local id = 0
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16))
  id = math.random(1, 1000000) * 1000000
end
function request()
  id = id + 1
  return wrk.format(nil, nil, nil, (template:gsub('"id":"ID"', '"id":' .. id)))
end
LUA
# The same, counting the replies that are tool errors (`"isError":true`, an HTTP 200).
cat "$OUT/post.lua" - > "$OUT/post-counted.lua" <<'LUA'
tool_errors = 0
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function response(status, headers, body)
  if body and body:find('"isError":true', 1, true) then
    tool_errors = tool_errors + 1
  end
end
function done(summary, latency, requests)
  local n = 0
  for _, thread in ipairs(threads) do
    n = n + (thread:get("tool_errors") or 0)
  end
  io.write("tool errors: " .. n .. "\n")
end
LUA

MODERN_META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
ACCEPT='accept: application/json, text/event-stream'

# A session of the `initialize` era at the MCP endpoint $1 (ours by default), initialized;
# prints its id.
legacy_session() {
  local id url=${1:-$MCP}
  id=$(curl -s -D - -o /dev/null "$url" -H 'content-type: application/json' -H "$ACCEPT" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}' \
    | tr -d '\r' | awk 'tolower($1) == "mcp-session-id:" { print $2 }')
  curl -s -o /dev/null "$url" -H 'content-type: application/json' -H "$ACCEPT" \
    -H "mcp-session-id: $id" -H 'mcp-protocol-version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$id"
}

# The CPU time (user and system, in clock ticks) process $1 has used.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

# row NAME CONNECTIONS URL [wrk args...]: requests per second, p50, p99, non-2xx and errors,
# and, with CPU_OF=pid, the CPU time that process spent per request (the server's own cost of
# a request, which latency hides: a `tools/call` against a `ping` is what the call path costs).
row() {
  local name=$1 connections=$2 url=$3
  shift 3
  local threads=$((connections < 2 ? 1 : 2))
  local before=0
  [ -n "${CPU_OF:-}" ] && before=$(cpu_ticks "$CPU_OF")
  wrk -t"$threads" -c"$connections" -d"$DURATION" --latency "$@" "$url" > "$OUT/wrk.txt"
  local rps p50 p99 bad requests cpu=-
  rps=$(awk '/^Requests\/sec/ { printf "%d", $2 }' "$OUT/wrk.txt")
  p50=$(awk '$1 == "50%" { print $2 }' "$OUT/wrk.txt")
  p99=$(awk '$1 == "99%" { print $2 }' "$OUT/wrk.txt")
  bad=$(awk '/Non-2xx/ { n += $NF } /Socket errors/ { n += 1 } END { print n + 0 }' "$OUT/wrk.txt")
  requests=$(awk '/requests in/ { print $1 }' "$OUT/wrk.txt")
  if [ -n "${CPU_OF:-}" ] && [ "${requests:-0}" -gt 0 ]; then
    cpu="$(( ($(cpu_ticks "$CPU_OF") - before) * 1000000 / HZ / requests ))us"
  fi
  printf '%-38s %6s %10s %10s %10s %8s %9s\n' "$name" "$connections" "$rps" "$p50" "$p99" "$bad" "$cpu"
}

printf '%-38s %6s %10s %10s %10s %8s %9s\n' "what" "conns" "per second" "p50" "p99" "failed" "CPU/req"
SESSION=$(legacy_session)
[ -n "$FASTMCP" ] && FASTMCP_SESSION=$(legacy_session "http://127.0.0.1:$FASTMCP_PORT/mcp")
for connections in 1 64 512; do
  CPU_OF=$UPSTREAM_PID row "upstream alone: GET /pets/1" "$connections" "$UPSTREAM/pets/1" \
    -H "authorization: Bearer $TOKEN"
  # `ping` is of the `initialize` era (the 2026-07-28 era has none).
  BODY='{"jsonrpc":"2.0","id":"ID","method":"ping"}' \
  HEADERS="mcp-protocol-version: 2025-11-25|mcp-session-id: $SESSION" \
    CPU_OF=$SERVER row "MCP ping (2025-11-25)" "$connections" "$MCP" -s "$OUT/post.lua"
  BODY="{\"jsonrpc\":\"2.0\",\"id\":\"ID\",\"method\":\"tools/call\",\"params\":{\"name\":\"get_pet\",\"arguments\":{\"pet_id\":1},$MODERN_META}}" \
  HEADERS='mcp-protocol-version: 2026-07-28|mcp-method: tools/call|mcp-name: get_pet' \
    CPU_OF=$SERVER row "MCP tools/call get_pet (2026-07-28)" "$connections" "$MCP" -s "$OUT/post.lua"
  BODY='{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"get_pet","arguments":{"pet_id":1}}}' \
  HEADERS="mcp-protocol-version: 2025-11-25|mcp-session-id: $SESSION" \
    CPU_OF=$SERVER row "MCP tools/call get_pet (2025-11-25)" "$connections" "$MCP" -s "$OUT/post.lua"
  if [ -n "$FASTMCP" ]; then
    BODY='{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"getPet","arguments":{"petId":1}}}' \
    HEADERS="mcp-protocol-version: 2025-11-25|mcp-session-id: $FASTMCP_SESSION" \
      CPU_OF=$FASTMCP row "FastMCP tools/call getPet (2025-11-25)" "$connections" \
        "http://127.0.0.1:$FASTMCP_PORT/mcp" -s "$OUT/post.lua"
  fi
done

# Faults: the same call through a proxy in front of the upstream that resets some of what it
# relays (an RST, nothing answered) and holds some for a while. get_pet is a GET, which the
# server's client retries after a reset, so no call should fail; what it costs shows in the
# rate and p99.
FAULTS=${FAULTS:-reset:0.01,stall:0.01:200}
mkfifo "$OUT/faulty-in"
FAULTS=$FAULTS target/release/examples/petstore_upstream < "$OUT/faulty-in" > "$OUT/faulty" &
exec 8>"$OUT/faulty-in"
for _ in $(seq 50); do [ "$(wc -l < "$OUT/faulty")" -ge 2 ] && break; sleep 0.1; done
FAULTY_PORT=$(free_port)
PETSTORE_BASE_URL=$(sed -n 1p "$OUT/faulty") PETSTORE_TOKEN=$TOKEN RUST_LOG=error \
  target/release/petstore-mcp --http "127.0.0.1:$FAULTY_PORT" 2>"$OUT/faulty-server.log" &
FAULTY_SERVER=$!
trap 'kill $SERVER $FASTMCP $FAULTY_SERVER 2>/dev/null; exec 7>&- 8>&-' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$FAULTY_PORT/healthz" && break; sleep 0.1; done
echo
BODY="{\"jsonrpc\":\"2.0\",\"id\":\"ID\",\"method\":\"tools/call\",\"params\":{\"name\":\"get_pet\",\"arguments\":{\"pet_id\":1},$MODERN_META}}" \
HEADERS='mcp-protocol-version: 2026-07-28|mcp-method: tools/call|mcp-name: get_pet' \
  row "faults ($FAULTS) tools/call" 64 "http://127.0.0.1:$FAULTY_PORT/mcp" -s "$OUT/post-counted.lua"
printf '%-38s %s\n' "" "$(grep 'tool errors' "$OUT/wrk.txt")"

# Memory: resident set idle (after the load above), then with 1,000 more sessions open.
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$SERVER/status"; }
before=$(rss)
for _ in $(seq 1000); do legacy_session >/dev/null; done
after=$(rss)
echo
printf 'server resident memory: %d MiB; with 1,000 more open sessions: %d MiB (%d KiB per session)\n' \
  $((before / 1024)) $((after / 1024)) $(((after - before) / 1000))

# The soak: a steady load of tools/call from 8 connections for SOAK_MINUTES, the server's
# resident memory sampled every 30 s (it should stay flat) and every failed call counted (there
# should be none).
if [ "${SOAK_MINUTES:-0}" -gt 0 ]; then
  BODY="{\"jsonrpc\":\"2.0\",\"id\":\"ID\",\"method\":\"tools/call\",\"params\":{\"name\":\"get_pet\",\"arguments\":{\"pet_id\":1},$MODERN_META}}" \
  HEADERS='mcp-protocol-version: 2026-07-28|mcp-method: tools/call|mcp-name: get_pet' \
    wrk -t1 -c8 -d"${SOAK_MINUTES}m" --latency -s "$OUT/post.lua" "$MCP" > "$OUT/soak.txt" &
  load=$!
  samples=()
  while kill -0 "$load" 2>/dev/null; do
    samples+=("$(( $(rss) / 1024 ))")
    for _ in $(seq 30); do kill -0 "$load" 2>/dev/null || break; sleep 1; done
  done
  wait "$load"
  calls=$(awk '/requests in/ { print $1 }' "$OUT/soak.txt")
  failed=$(awk '/Non-2xx/ { n += $NF } /Socket errors/ { n += 1 } END { print n + 0 }' "$OUT/soak.txt")
  p99=$(awk '$1 == "99%" { print $2 }' "$OUT/soak.txt")
  echo
  printf 'soak, %s min of tools/call from 8 connections: %s calls, %s failed, p99 %s; resident MiB every 30 s: %s\n' \
    "$SOAK_MINUTES" "$calls" "$failed" "$p99" "${samples[*]}"
fi

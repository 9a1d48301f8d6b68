#!/usr/bin/env bash
# The MCP gateways side by side (BENCHMARKS.md "MCP gateways"), in one run on this
# machine: the demo server's `echo`, called
#   (a) directly: `switchboard demo-server --http` (rmcp Streamable HTTP, no gateway),
#   (b) through Switchboard's REST proxy (POST /api/mcp/proxy/demo/tools/echo/call),
#   (c) through Switchboard's MCP gateway (/mcp, tool mcp__demo__echo),
#   (d) through mcp-proxy 0.13 (PyPI), and
#   (e) through fastmcp 3.x's proxy (PyPI),
# where (b) to (e) all run the demo server over stdio (`switchboard demo-server`). Each is
# driven by wrk (scripts/bench/call.lua) with one POST per call, every answer checked (status
# 200, the echoed text, no tool error): the MCP ones in the stateless form, the 2026-07-28
# revision with `_meta` where the server speaks it (rmcp: a, c), else a session-less POST of
# 2025-06-18 to a server in stateless mode (d, e). Reported: the median latency with one
# connection, calls/s with 16 and 64 connections, and for (b) and (c) the CPU time `serve`
# used per call with 64 connections (user and system, from /proc; the demo server behind it
# is a process of its own and not counted).
#
#   scripts/bench-gateways.sh            # BENCH_DURATION=10s per measurement by default
#   SWITCHBOARD_BIN=target/debug/switchboard BENCH_DURATION=2s scripts/bench-gateways.sh  # a try
#
# Needs: cargo, python3 (>= 3.10, venv), wrk (Debian: apt-get install wrk). Installs the two
# Python gateways into .peers/bench-mcp-proxy and .peers/bench-fastmcp (SWITCHBOARD_PEERS
# overrides .peers) from scripts/peers/requirements-bench-*.txt. Not part of CI or test.sh.

set -euo pipefail
cd "$(dirname "$0")/.."

PEERS=${SWITCHBOARD_PEERS:-$PWD/.peers}
DURATION=${BENCH_DURATION:-10s}
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d)
PIDS=()

die() { echo "bench-gateways: $*" >&2; exit 1; }

cleanup() {
    for pid in "${PIDS[@]}"; do
        # Each was started in its own process group (setsid): end the group, upstreams too.
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v wrk >/dev/null || die "wrk is needed (Debian: apt-get install wrk)"

install_venv() {
    local name=$1 venv=$PEERS/bench-$1
    if [[ -x $venv/bin/python ]] && cmp -s "scripts/peers/requirements-bench-$name.txt" "$venv/.requirements"; then
        return
    fi
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -r "scripts/peers/requirements-bench-$name.txt"
    cp "scripts/peers/requirements-bench-$name.txt" "$venv/.requirements"
}
install_venv mcp-proxy
install_venv fastmcp

# SWITCHBOARD_BIN runs another build (a debug one, to try the script); the figures are the
# release build's.
BIN=${SWITCHBOARD_BIN:-}
if [[ -z $BIN ]]; then
    cargo build --release --quiet -p switchboard
    BIN=$TARGET/release/switchboard
fi

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts "$@" in its own process group with its output in $WORK/$name.log.
start() {
    local name=$1
    shift
    setsid "$@" >"$WORK/$name.log" 2>&1 &
    PIDS+=("$!")
}

# Waits until $1 (a log file) has a line matching $2.
wait_for_line() {
    local file=$1 pattern=$2 tries=0
    until grep -q -- "$pattern" "$file" 2>/dev/null; do
        ((++tries > 300)) && die "gave up waiting for '$pattern' in $file: $(tail -5 "$file")"
        sleep 0.1
    done
}

# Waits until 127.0.0.1:$1 accepts connections.
wait_for_port() {
    local port=$1 tries=0
    until "$PYTHON" -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
        ((++tries > 300)) && die "nothing listens on port $port"
        sleep 0.1
    done
}

# (a) the demo server over Streamable HTTP.
DEMO_PORT=$(free_port)
start demo "$BIN" demo-server --http "127.0.0.1:$DEMO_PORT"
wait_for_port "$DEMO_PORT"

# (b), (c) switchboard serve on a fresh store: the first start gives the admin the demo server
# (stdio) and prints the admin's token.
SB_PORT=$(free_port)
# Tools run through /mcp without asking (the demo's echo is not auto-approved; the REST proxy
# does not ask either).
start serve "$BIN" --data-dir "$WORK/data" serve --listen "127.0.0.1:$SB_PORT" \
    --gateway-unapproved run
# `start` ran it under setsid, which became `serve` itself: its pid is the group's.
SERVE_PID=${PIDS[-1]}
wait_for_line "$WORK/serve.log" "admin API token"
TOKEN=$(sed -n 's/^admin API token (shown once, keep it): //p' "$WORK/serve.log")

# (d) mcp-proxy, stateless Streamable HTTP, in front of the demo server over stdio.
PROXY_PORT=$(free_port)
start mcp-proxy "$PEERS/bench-mcp-proxy/bin/mcp-proxy" --host 127.0.0.1 --port "$PROXY_PORT" \
    --stateless --log-level WARNING -- "$BIN" demo-server
wait_for_port "$PROXY_PORT"

# (e) fastmcp's proxy, stateless Streamable HTTP, in front of the same.
FASTMCP_PORT=$(free_port)
start fastmcp "$PEERS/bench-fastmcp/bin/python" scripts/bench/fastmcp_proxy.py \
    "$FASTMCP_PORT" "$BIN" demo-server
wait_for_port "$FASTMCP_PORT"

EXPECT=hello-bench
JSON='Content-Type: application/json'
ACCEPT='Accept: application/json, text/event-stream'

# An MCP tools/call: $1 the tool, $2 "modern" (2026-07-28, `_meta`) or "legacy".
mcp_body() {
    local meta=""
    if [[ $2 == modern ]]; then
        meta=',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"}}'
    fi
    printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":{"text":"%s"}%s}}' \
        "$1" "$EXPECT" "$meta"
}

# One measurement: wrk with $1 connections for DURATION against URL $2 with body $3 and headers
# $4; prints "p50_us requests bad".
measure() {
    local connections=$1 url=$2 body=$3 headers=$4 threads=2 out
    ((connections == 1)) && threads=1
    out=$(BENCH_BODY=$body BENCH_HEADERS=$headers BENCH_EXPECT=$EXPECT \
        wrk -t"$threads" -c"$connections" -d"$DURATION" --latency -s scripts/bench/call.lua "$url")
    if grep -q '^BENCH first_bad=' <<<"$out"; then
        grep '^BENCH first_bad=' <<<"$out" >&2
    fi
    local seconds=${DURATION%s}
    sed -n 's/^BENCH p50_us=\([0-9]*\) requests=\([0-9]*\) bad=\([0-9]*\)$/\1 \2 \3/p' <<<"$out" |
        awk -v s="$seconds" '{ printf "%d %d %d %.0f\n", $1, $2, $3, $2 / s }'
}

# CPU time (user + system, in clock ticks) process $1 has used so far.
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# One row: name, url, body, headers, and the pid of Switchboard's `serve` when the row goes
# through it (its CPU per call with 64 connections is then reported).
row() {
    local name=$1 url=$2 body=$3 headers=$4 pid=${5:-} p50 rate16 rate64 calls64 bad=0 b
    local cpu="–" before
    # Warm: the first call starts the upstream (stdio) and fills the caches.
    measure 1 "$url" "$body" "$headers" >/dev/null
    read -r p50 _ b _ <<<"$(measure 1 "$url" "$body" "$headers")"
    bad=$((bad + b))
    read -r _ _ b rate16 <<<"$(measure 16 "$url" "$body" "$headers")"
    bad=$((bad + b))
    [[ -n $pid ]] && before=$(cpu_ticks "$pid")
    read -r _ calls64 b rate64 <<<"$(measure 64 "$url" "$body" "$headers")"
    bad=$((bad + b))
    if [[ -n $pid ]]; then
        cpu=$(awk -v t="$(($(cpu_ticks "$pid") - before))" -v hz="$(getconf CLK_TCK)" \
            -v n="$calls64" '{ } END { printf "%.1f µs", t / hz * 1e6 / n }' </dev/null)
    fi
    printf '| %s | %s µs | %s | %s | %s | %s |\n' "$name" "$p50" "$rate16" "$rate64" "$cpu" "$bad"
}

echo "switchboard $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk $DURATION per measurement"
echo
echo "| path to the demo server's echo | p50, 1 connection | calls/s, 16 | calls/s, 64 | serve's CPU per call, 64 | bad answers |"
echo "|---|---:|---:|---:|---:|---:|"
# 2026-07-28 requests name their method and tool in headers too (SEP-2243).
MODERN="$ACCEPT
$JSON
MCP-Protocol-Version: 2026-07-28
Mcp-Method: tools/call"
LEGACY="$ACCEPT
$JSON
MCP-Protocol-Version: 2025-06-18"
row "(a) direct, rmcp Streamable HTTP" "http://127.0.0.1:$DEMO_PORT/mcp" \
    "$(mcp_body echo modern)" "$MODERN
Mcp-Name: echo"
row "(b) Switchboard REST proxy" "http://127.0.0.1:$SB_PORT/api/mcp/proxy/demo/tools/echo/call" \
    "{\"text\":\"$EXPECT\"}" "$JSON
Authorization: Bearer $TOKEN" "$SERVE_PID"
row "(c) Switchboard /mcp" "http://127.0.0.1:$SB_PORT/mcp" \
    "$(mcp_body mcp__demo__echo modern)" "$MODERN
Mcp-Name: mcp__demo__echo
Authorization: Bearer $TOKEN" "$SERVE_PID"
row "(d) mcp-proxy 0.13" "http://127.0.0.1:$PROXY_PORT/mcp" \
    "$(mcp_body echo legacy)" "$LEGACY"
row "(e) fastmcp 3 proxy" "http://127.0.0.1:$FASTMCP_PORT/mcp" \
    "$(mcp_body echo legacy)" "$LEGACY"

#!/usr/bin/env bash
# Connections Switchboard opens to one remote MCP server under load: wrk drives the
# REST proxy with 64 connections; the upstream is `switchboard demo-server --http` (Streamable
# HTTP). Run once with the default share of connections per upstream (32) and once with it
# effectively unbounded; prints calls/s and the connections to the upstream, sampled with ss
# every 100 ms (distinct client ports seen, and the most at once).
#
#   scripts/bench-upstream-pool.sh [BINARY]
#
# Needs wrk (Debian: apt-get install wrk). DURATION (6s) sets each run's length.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/switchboard}
duration=${DURATION:-6s}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

demo_port=$(free_port)
"$bin" demo-server --http "127.0.0.1:$demo_port" >"$work/demo.log" 2>&1 &
pids+=($!)

run() {
  local share=$1 dir="$work/data-$1" port
  port=$(free_port)
  "$bin" --data-dir "$dir" serve --listen "127.0.0.1:$port" --write-burst 1000000 \
    --http-connections-per-upstream "$share" >"$work/out-$share" 2>"$work/err-$share" &
  local pid=$!
  pids+=("$pid")
  until grep -q "admin API token" "$work/out-$share" 2>/dev/null; do sleep 0.1; done
  local token
  token=$(sed -n 's/^admin API token (shown once, keep it): //p' "$work/out-$share")
  curl -s -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"name\":\"up\",\"transport\":\"streamable_http\",\"url\":\"http://127.0.0.1:$demo_port/mcp\",\"headers\":{}}" \
    "http://127.0.0.1:$port/api/mcp-servers"
  : >"$work/ports-$share"
  (
    while kill -0 "$pid" 2>/dev/null; do
      ss -Htn state established "( dport = :$demo_port )" | awk '{print $3}' |
        tee -a "$work/ports-$share" | wc -l >>"$work/counts-$share"
      sleep 0.1
    done
  ) &
  local sampler=$!
  local result
  result=$(BENCH_BODY='{"text":"hello-bench"}' BENCH_EXPECT=hello-bench \
    BENCH_HEADERS=$'Content-Type: application/json\nAuthorization: Bearer '"$token" \
    wrk -t2 -c64 -d"$duration" -s scripts/bench/call.lua \
    "http://127.0.0.1:$port/api/mcp/proxy/up/tools/echo/call" 2>&1)
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  kill "$sampler" 2>/dev/null || true
  local rate seen most
  rate=$(awk '/Requests\/sec/ {print $2}' <<<"$result")
  seen=$(sort -u "$work/ports-$share" | wc -l)
  most=$(sort -n "$work/counts-$share" | tail -1)
  printf '| %s | %s | %s | %s |\n' "$share" "$rate" "$seen" "$most"
  grep -i "bad" <<<"$result" || true
}

echo "| connections per upstream | calls/s (64 connections) | upstream connections seen | most at once |"
echo "|---|---:|---:|---:|"
run 32
run 64
run 100000

#!/usr/bin/env bash
# What serve holds in memory: idle, per configured server, per open event stream,
# per running stdio server. Reads VmRSS from /proc; prints one table.
#
#   scripts/bench-memory.sh [BINARY]
#
# BINARY defaults to target/release/switchboard. SERVERS (1000) sets how many servers are
# configured, STREAMS (200) how many event streams are opened.
set -euo pipefail
bin=${1:-target/release/switchboard}
servers=${SERVERS:-1000}
streams=${STREAMS:-200}
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  kill "$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
"$bin" --data-dir "$dir" serve --listen 127.0.0.1:0 --max-servers $((servers + 1)) \
  --max-event-streams $((streams + 8)) --max-connections $((streams + 64)) \
  --write-burst 100000 >"$dir/out" 2>"$dir/err" &
pid=$!
until grep -q "listening on" "$dir/err" 2>/dev/null; do
  kill -0 "$pid" || { cat "$dir/err"; exit 1; }
  sleep 0.1
done
base=$(sed -n 's/^switchboard is listening on //p' "$dir/err")
token=$(sed -n 's/^admin API token (shown once, keep it): //p' "$dir/out")
auth=(-H "Authorization: Bearer $token")
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
# The process's own memory (heap, stacks): RSS less the pages of the binary's code and data
# it shares with the page cache.
anon_kb() { awk '/RssAnon/ {print $2}' "/proc/$pid/status"; }
settle() { sleep 1; }

settle
idle=$(rss_kb)
idle_anon=$(anon_kb)
# One request of each kind first, so what is measured next is the data, not first-use code.
curl -s -o /dev/null "${auth[@]}" "$base/api/mcp-servers"
settle
warm=$(rss_kb)

python3 - "$servers" >"$dir/import.json" <<'PY'
import json, sys
n = int(sys.argv[1])
text = json.dumps({"mcpServers": {f"s{i}": {"url": "http://127.0.0.1:9/mcp"} for i in range(n)}})
print(json.dumps({"text": text}))
PY
curl -s -o /dev/null "${auth[@]}" -H 'Content-Type: application/json' \
  --data-binary @"$dir/import.json" "$base/api/import/mcp-servers"
for _ in 1 2 3; do curl -s -o /dev/null "${auth[@]}" "$base/api/mcp-servers"; done
settle
configured=$(rss_kb)
configured_anon=$(anon_kb)

for _ in $(seq "$streams"); do
  curl -s -N -o /dev/null "${auth[@]}" "$base/api/events" &
  pids+=($!)
done
settle
streaming=$(rss_kb)
streaming_anon=$(anon_kb)
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
pids=()

# The demo server (stdio, one process) started by a call.
curl -s -o /dev/null "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"text":"hi"}' "$base/api/mcp/proxy/demo/tools/echo/call" || true
settle
with_demo=$(rss_kb)
demo_anon=$(anon_kb)

awk -v idle="$idle" -v warm="$warm" -v conf="$configured" -v str="$streaming" \
  -v demo="$with_demo" -v n="$servers" -v s="$streams" -v ia="$idle_anon" \
  -v ca="$configured_anon" -v sa="$streaming_anon" -v da="$demo_anon" 'BEGIN {
  printf "| state | RSS | of which its own (anonymous) | per item |\n|---|---:|---:|---:|\n"
  printf "| idle (fresh store, demo server configured, not started) | %.1f MB | %.1f MB | |\n", idle / 1024, ia / 1024
  printf "| after one listing | %.1f MB | | |\n", warm / 1024
  printf "| %d servers configured, listed 3 times | %.1f MB | %.1f MB | %.1f KB per server |\n", n, conf / 1024, ca / 1024, (conf - warm) / n
  printf "| %d event streams open | %.1f MB | %.1f MB | %.1f KB per stream |\n", s, str / 1024, sa / 1024, (str - conf) / s
  printf "| streams closed, the demo stdio server connected | %.1f MB | %.1f MB | |\n", demo / 1024, da / 1024
}'

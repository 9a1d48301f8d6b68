#!/usr/bin/env bash
# Re-creates web/vendor/: the browser libraries the web UI uses, copied from npm at pinned
# versions with their licences. The files are committed, so neither `cargo run` nor the tests
# need this script or Node; run it only to change a version (then commit the result).
#
#   preact 10 + preact/hooks   components and state          (MIT)
#   htm                        JSX-like templates, no build  (Apache-2.0)
#   marked                     Markdown to HTML              (MIT)
#   dompurify                  sanitises that HTML           (Apache-2.0 or MPL-2.0)
#
# One change is made: preact/hooks imports "preact" by its bare name, which a browser can
# only resolve through an import map (an inline script, which our Content-Security-Policy
# refuses); it is rewritten to the file beside it. Source-map comments are dropped, since
# the maps are not vendored.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PACKAGES=(preact@10.29.8 htm@3.1.1 marked@18.2.1 dompurify@3.4.18)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --ignore-scripts --loglevel=error "${PACKAGES[@]}")
from=$work/node_modules
to=web/vendor
rm -rf "$to"
mkdir -p "$to/licenses"

copy() { sed -e '/^\/\/# sourceMappingURL=/d' -e 's|//# sourceMappingURL=.*$||' "$1" >"$to/$2"; }
copy "$from/preact/dist/preact.module.js" preact.js
copy "$from/preact/hooks/dist/hooks.module.js" hooks.js
sed -i 's|from"preact"|from"./preact.js"|g; s|from "preact"|from "./preact.js"|g' "$to/hooks.js"
copy "$from/htm/dist/htm.module.js" htm.js
copy "$from/marked/lib/marked.esm.js" marked.js
copy "$from/dompurify/dist/purify.es.mjs" purify.js

cp "$from/preact/LICENSE" "$to/licenses/preact.txt"
cp "$from/htm/LICENSE" "$to/licenses/htm.txt"
cp "$from/marked/LICENSE" "$to/licenses/marked.txt"
cp "$from/dompurify/LICENSE" "$to/licenses/dompurify.txt"

{
    echo "# Vendored browser libraries"
    echo
    echo "Copied from npm by \`scripts/vendor-web.sh\`; do not edit by hand."
    echo
    echo "| file | package | licence |"
    echo "|---|---|---|"
    echo "| preact.js | preact@10.29.8 \`dist/preact.module.js\` | MIT (licenses/preact.txt) |"
    echo "| hooks.js | preact@10.29.8 \`hooks/dist/hooks.module.js\`, import of \"preact\" made relative | MIT (licenses/preact.txt) |"
    echo "| htm.js | htm@3.1.1 \`dist/htm.module.js\` | Apache-2.0 (licenses/htm.txt) |"
    echo "| marked.js | marked@18.2.1 \`lib/marked.esm.js\` | MIT (licenses/marked.txt) |"
    echo "| purify.js | dompurify@3.4.18 \`dist/purify.es.mjs\` | Apache-2.0 or MPL-2.0 (licenses/dompurify.txt) |"
} >"$to/README.md"
echo "web/vendor/ re-created"

#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) in server mode against
# the MCP server inside conformance/fixtures.html, reached through the page bridge.
#
#   conformance/official.sh                          both requirement sets (2025-11-25, 2026-07-28)
#                                                    and the extension scenarios no set names
#   conformance/official.sh --requirements 2026-07-28
#   conformance/official.sh --requirements extensions  the Skills extension's scenarios only
#   conformance/official.sh --keep                   keep the suite's per-scenario results
#
# The suite needs Node >= 22 (the machine's may be older): this script takes Node 24 from
# scripts/modern-node.sh (which installs it when missing) and installs the suite into
# conformance/.tools/ (gitignored) when it is missing or not the pinned version, then runs
# conformance/official.mjs with that Node. It ends with the pass/fail tallies and fails on a
# failure conformance/expected-failures.txt does not list, or on a listed scenario that now
# passes. Needs dist/ (make build) and Chromium (make deps).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TOOLS=conformance/.tools
SUITE_VERSION=0.2.0-alpha.12
NODE="$(scripts/modern-node.sh)"
NPM_CLI="$(dirname "$NODE")/../lib/node_modules/npm/bin/npm-cli.js"
SUITE_PKG="$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json"

mkdir -p "$TOOLS"
installed_suite=""
if [ -f "$SUITE_PKG" ]; then
  installed_suite="$("$NODE" -p "require('./$SUITE_PKG').version")"
fi
if [ "$installed_suite" != "$SUITE_VERSION" ]; then
  echo "official.sh: installing @modelcontextprotocol/conformance@$SUITE_VERSION into $TOOLS" >&2
  [ -f "$TOOLS/package.json" ] || echo '{ "private": true }' > "$TOOLS/package.json"
  (cd "$TOOLS" && "$NODE" "$NPM_CLI" install --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$SUITE_VERSION")
fi

exec "$NODE" conformance/official.mjs "$@"

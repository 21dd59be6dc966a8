#!/usr/bin/env bash
# Real MCP clients, unchanged, against the engine's stdio example:
#   - the official TypeScript client (@modelcontextprotocol/client) over its StdioClientTransport;
#   - the MCP inspector's CLI (@modelcontextprotocol/inspector --cli).
# Both in the 2025 handshake era and the 2026-07-28 stateless era.
#
# Installs what it needs, idempotently: Node >= 22.19 (the inspector's floor; Node 24 from
# scripts/modern-node.sh when the node on PATH is older), `npm ci` when
# node_modules is missing, and `cargo build --example stdio_server`. Prints the test report, then
# a final line "N passed, N failed". Exit status: 0 only when nothing failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

node_ok() { # node_ok <node binary>: is it >= 22.19?
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)' 2>/dev/null
}

if command -v node >/dev/null && node_ok "$(command -v node)"; then
  NODE="$(command -v node)"
  npm_cmd=(npm)
else
  NODE="$("$root/scripts/modern-node.sh")"
  # The wheel's bin/npm is a copied script, not a link; run npm's own entry point.
  npm_cmd=("$NODE" "$(dirname "$NODE")/../lib/node_modules/npm/bin/npm-cli.js")
fi
export PATH="$(dirname "$NODE"):$PATH"
echo "run.sh: node $("$NODE" --version) at $NODE" >&2

if ! [ -d node_modules ]; then
  echo "run.sh: npm ci" >&2
  "${npm_cmd[@]}" ci --no-audit --no-fund >&2
fi

echo "run.sh: cargo build --example stdio_server" >&2
(cd "$root" && cargo build --quiet --example stdio_server)
export STDIO_SERVER_BIN="${STDIO_SERVER_BIN:-$root/target/debug/examples/stdio_server}"

tap="$(mktemp)"
trap 'rm -f "$tap"' EXIT
status=0
"$NODE" --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$tap" \
  sdk-client.test.mjs inspector-cli.test.mjs || status=$?

pass="$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tap" | tail -1)"
fail="$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tap" | tail -1)"
pass="${pass:-0}"
fail="${fail:-0}"
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then
  fail=1 # the runner itself failed (e.g. a file did not load)
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

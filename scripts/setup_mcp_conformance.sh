#!/usr/bin/env bash
# Installs the MCP conformance suite (@modelcontextprotocol/conformance, npm) into build/tools/mcp-conformance, the
# official TypeScript SDK (@modelcontextprotocol/sdk) into build/tools/mcp-ts-sdk, and
# Node 22 (the suite needs it; from npm's `node` package) into build/tools/node22 when the system's node is older.
# tests/e2e/test_mcp_conformance.py finds both there (or $SLIPSTREAM_MCP_CONFORMANCE / $SLIPSTREAM_NODE).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
SUITE_VERSION="${MCP_CONFORMANCE_VERSION:-0.1.16}"
NODE_VERSION="${MCP_CONFORMANCE_NODE:-22}"

if ! command -v npm >/dev/null; then
  echo "installing nodejs and npm (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs npm >/dev/null
fi

mkdir -p "$DEST"
SUITE="$DEST/mcp-conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ ! -f "$SUITE" ]] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$DEST/mcp-conformance/node_modules/@modelcontextprotocol/conformance/package.json"; then
  npm install --prefix "$DEST/mcp-conformance" --no-audit --no-fund --silent "@modelcontextprotocol/conformance@$SUITE_VERSION"
fi

# The official TypeScript SDK, whose client tests/e2e/test_mcp_ts_client.py runs against our server.
TS_SDK_VERSION="${MCP_TS_SDK_VERSION:-1.32.2}"
if ! grep -qs "\"version\": \"$TS_SDK_VERSION\"" "$DEST/mcp-ts-sdk/node_modules/@modelcontextprotocol/sdk/package.json"; then
  npm install --prefix "$DEST/mcp-ts-sdk" --no-audit --no-fund --silent "@modelcontextprotocol/sdk@$TS_SDK_VERSION"
fi

major="$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || echo 0)"
if [[ "${major:-0}" -lt 22 && ! -x "$DEST/node22/node_modules/.bin/node" ]]; then
  npm install --prefix "$DEST/node22" --no-audit --no-fund --silent "node@$NODE_VERSION"
fi
echo "MCP conformance suite $SUITE_VERSION: $SUITE"

#!/usr/bin/env bash
# Prerequisites of the MCP tests: real MCP peers, installed from PyPI and npm.
# - target/mcp-venv:  the official Python SDK 1.x (`mcp>=1.9,<2`), the line
#   that speaks 2025-11-25 and older with `initialize`;
# - target/mcp2-venv: the official Python SDK 2.x (`mcp==2.3.0`), which
#   speaks 2026-07-28 (`server/discover`, per-request `_meta`) and, in its
#   legacy mode, the older revisions; also its Streamable HTTP client/server;
# - target/mcp-npm:   the official TypeScript SDK and the reference servers
#   `@modelcontextprotocol/server-everything`, `-memory`, `-filesystem`.
# The tests look for them there (or at $STC_MCP_PYTHON, $STC_MCP2_PYTHON,
# $STC_MCP_NPM). Idempotent.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
cd "$(dirname "$0")/../.."
MCP1_SPEC='mcp>=1.9,<2'
MCP2_SPEC='mcp==2.3.0'
NPM_DIR=target/mcp-npm
NPM_PACKAGES=(
  '@modelcontextprotocol/sdk@1.32.2'
  '@modelcontextprotocol/server-everything@2026.8.31'
  '@modelcontextprotocol/server-memory@2026.8.31'
  '@modelcontextprotocol/server-filesystem@2026.8.31'
)

have_python_venv() { python3 -c 'import venv, ensurepip' 2>/dev/null; }

if ! have_python_venv; then
  apt_install python3-venv
fi

# venv DIR SPEC CHECK: a venv at DIR holding SPEC, where CHECK imports.
venv() {
  local dir=$1 spec=$2 check=$3
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" 2>/dev/null; then
    return 0
  fi
  mkdir -p target
  python3 -m venv "$dir"
  "$dir/bin/python" -m pip install -q --disable-pip-version-check "$spec"
  "$dir/bin/python" -c "$check"
  echo "30-mcp.sh: $spec installed in $dir"
}

venv target/mcp-venv "$MCP1_SPEC" 'import mcp.server.fastmcp'
venv target/mcp2-venv "$MCP2_SPEC" 'import importlib.metadata as m, mcp.server.mcpserver; assert m.version("mcp") == "2.3.0"'

if ! command -v npm >/dev/null 2>&1; then
  echo "30-mcp.sh: npm not found (Node 20 with npm is expected on the machine)" >&2
  exit 1
fi
stamp="$NPM_DIR/.installed-$(printf '%s\n' "${NPM_PACKAGES[@]}" | sha256sum | cut -c1-16)"
if [ ! -e "$stamp" ]; then
  mkdir -p "$NPM_DIR"
  [ -e "$NPM_DIR/package.json" ] || printf '{"name":"stc-mcp-test-peers","private":true}\n' > "$NPM_DIR/package.json"
  (cd "$NPM_DIR" && npm install --silent --no-audit --no-fund "${NPM_PACKAGES[@]}")
  touch "$stamp"
  echo "30-mcp.sh: ${NPM_PACKAGES[*]} installed in $NPM_DIR"
fi

#!/usr/bin/env bash
# Prerequisites of the MCP tests (stc-cli/tests/mcp.rs): a Python venv with the
# official `mcp` SDK, used to run the fixture MCP server that `stc mcp-proxy`
# wraps. The venv lives in target/mcp-venv (git-ignored); the tests look for it
# there, or at $STC_MCP_PYTHON when that is set. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=target/mcp-venv
MCP_SPEC='mcp>=1.9,<2'

have_python_venv() { python3 -c 'import venv, ensurepip' 2>/dev/null; }

if ! have_python_venv; then
  if [ "$(id -u)" != 0 ]; then
    echo "30-mcp.sh: need root to apt-get install python3-venv; install it and rerun" >&2
    exit 1
  fi
  if [ -z "${STC_APT_UPDATED:-}" ]; then
    apt-get update -qq
    export STC_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
fi

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import mcp.server.fastmcp' 2>/dev/null; then
  exit 0
fi
mkdir -p target
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "$MCP_SPEC"
"$VENV/bin/python" -c 'import mcp.server.fastmcp' 
echo "30-mcp.sh: MCP SDK installed in $VENV"

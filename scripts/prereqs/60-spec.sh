#!/usr/bin/env bash
# Prerequisite of the spec check (spec/check_abnf.py, run by scripts/test-all.sh):
# a Python venv with the PyPI `abnf` package, in target/abnf-venv (git-ignored).
# Idempotent; python3-venv itself is installed by 30-mcp.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=target/abnf-venv
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import abnf' 2>/dev/null; then
  exit 0
fi
mkdir -p target
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check 'abnf==2.9.1'
echo "60-spec.sh: abnf installed in $VENV"

#!/usr/bin/env bash
# stc-stash tests start their own redis-server (Debian package redis-server).
# Idempotent: installs only when the binary is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
apt_install redis-server
# The package may start a system instance; the tests start their own on a free port.
command -v redis-server >/dev/null

#!/usr/bin/env bash
# stc-stash tests start their own redis-server processes (Debian package
# redis-server): a single server, and a Redis Cluster of six nodes joined with
# redis-cli --cluster create (Debian package redis-tools, a dependency of
# redis-server; installed explicitly in case it is missing).
# Idempotent: installs only what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
apt_install "${missing[@]}"
# The package may start a system instance; the tests start their own on free ports.
command -v redis-server >/dev/null && command -v redis-cli >/dev/null

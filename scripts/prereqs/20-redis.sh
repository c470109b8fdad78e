#!/usr/bin/env bash
# stc-stash tests start their own redis-server (Debian package redis-server).
# Idempotent: installs only when the binary is missing.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "20-redis.sh: need root to apt-get install redis-server; install it and rerun" >&2
  exit 1
fi
if [ -z "${STC_APT_UPDATED:-}" ]; then
  apt-get update -qq
  export STC_APT_UPDATED=1
fi
echo "20-redis.sh: installing redis-server from Debian"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server
# The package may start a system instance; the tests start their own on a free port.
command -v redis-server >/dev/null

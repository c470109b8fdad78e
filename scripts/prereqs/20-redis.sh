#!/usr/bin/env bash
# stc-stash tests start their own redis-server processes (Debian package
# redis-server): a single server, and a Redis Cluster of six nodes joined with
# redis-cli --cluster create (Debian package redis-tools, a dependency of
# redis-server; installed explicitly in case it is missing).
# Idempotent: installs only what is missing.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "20-redis.sh: need root to apt-get install ${missing[*]}; install them and rerun" >&2
  exit 1
fi
# Another prereq script of the same run may have refreshed the lists already
# (STC_APT_UPDATED is only seen when the scripts share one shell).
if [ -z "${STC_APT_UPDATED:-}" ]; then
  apt-get update -qq
  export STC_APT_UPDATED=1
fi
echo "20-redis.sh: installing ${missing[*]} from Debian"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
# The package may start a system instance; the tests start their own on free ports.
command -v redis-server >/dev/null && command -v redis-cli >/dev/null

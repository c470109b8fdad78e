#!/usr/bin/env bash
# stc-http and `stc proxy` tests: python3 (runs stc-http/tests/upstream.py, the
# upstream process; standard library only) and curl (a client of
# stc-cli/tests/proxy.rs). Idempotent: installs only what is missing.
set -euo pipefail
missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v curl >/dev/null 2>&1 || missing+=(curl)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "10-http.sh: need root to apt-get install ${missing[*]}; install them and rerun" >&2
  exit 1
fi
if [ -z "${STC_APT_UPDATED:-}" ]; then
  apt-get update -qq
  export STC_APT_UPDATED=1
fi
echo "10-http.sh: installing ${missing[*]} from Debian"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

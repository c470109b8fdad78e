#!/usr/bin/env bash
# stc-serve tests: python3 runs stc-serve/tests/seed_client.py, a client of
# the TCP service written from seed 003 (standard library only). Idempotent:
# installs only what is missing.
set -euo pipefail
command -v python3 >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "40-serve.sh: need root to apt-get install python3; install it and rerun" >&2
  exit 1
fi
if [ -z "${STC_APT_UPDATED:-}" ]; then
  apt-get update -qq
  export STC_APT_UPDATED=1
fi
echo "40-serve.sh: installing python3 from Debian"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3

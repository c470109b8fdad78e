#!/usr/bin/env bash
# stc-http and `stc proxy` tests: python3 (runs stc-http/tests/upstream.py, the
# upstream process; standard library only) and curl (a client of
# stc-cli/tests/it/proxy.rs). Idempotent: installs only what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v curl >/dev/null 2>&1 || missing+=(curl)
[ "${#missing[@]}" -eq 0 ] && exit 0
apt_install "${missing[@]}"

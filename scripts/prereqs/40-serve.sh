#!/usr/bin/env bash
# stc-serve tests: python3 runs stc-serve/tests/seed_client.py, a client of
# the TCP service written from seed 003 (standard library only). Idempotent:
# installs only what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
command -v python3 >/dev/null 2>&1 && exit 0
apt_install python3

#!/usr/bin/env bash
# stc-conformance-run tests (conformance/tests/runner.rs) and stc --lines
# tests (stc-cli/tests/it/lines.rs): python3 (conformance/tools/oracle_program.py,
# standard library only), and kill(1) from procps (the runner ends a timed-out
# program's whole process group with it; the tests' watchdogs use it).
# Idempotent: installs only what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ -x /bin/kill ] || [ -x /usr/bin/kill ] || missing+=(procps)
[ "${#missing[@]}" -eq 0 ] && exit 0
apt_install "${missing[@]}"

#!/usr/bin/env bash
# stc-conformance-run tests (conformance/tests/runner.rs) and stc --lines
# tests (stc-cli/tests/lines.rs): python3 (conformance/tools/oracle_program.py,
# standard library only), and kill(1) from procps (the runner ends a timed-out
# program's whole process group with it; the tests' watchdogs use it).
# Idempotent: installs only what is missing.
set -euo pipefail
missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ -x /bin/kill ] || [ -x /usr/bin/kill ] || missing+=(procps)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "50-conformance-runner.sh: need root to apt-get install ${missing[*]}; install them and rerun" >&2
  exit 1
fi
if [ -z "${STC_APT_UPDATED:-}" ]; then
  apt-get update -qq
  export STC_APT_UPDATED=1
fi
echo "50-conformance-runner.sh: installing ${missing[*]} from Debian"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

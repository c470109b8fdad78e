#!/usr/bin/env bash
# stc-cli's fleet tests (stc-cli/tests/fleet) put HAProxy (Debian package
# haproxy) in front of several gateway processes. The tests start their own
# haproxy with a generated configuration; the package's system service, if
# the package starts one, is not used. Idempotent: installs only when missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/apt.sh"
if command -v haproxy >/dev/null 2>&1; then
  exit 0
fi
apt_install haproxy
command -v haproxy >/dev/null

# Sourced (not run) by scripts/prereqs/*.sh and bindings-wasm/test.sh.
#
# apt_install [--with-recommends] PACKAGE...: installs Debian packages as
# root. `apt-get update` runs at most once per test command: scripts/test-all.sh
# exports STC_APT_STAMP, a file name, and the first script that updates
# creates that file; the others see it and skip the update. Run alone (no
# STC_APT_STAMP), a script updates before it installs.
apt_install() {
  local recommends=--no-install-recommends
  if [ "${1:-}" = --with-recommends ]; then
    recommends=
    shift
  fi
  local me
  me="$(basename "$0")"
  if [ "$(id -u)" -ne 0 ]; then
    echo "$me: need root to apt-get install $*; install them and rerun" >&2
    exit 1
  fi
  if [ -z "${STC_APT_STAMP:-}" ] || [ ! -e "$STC_APT_STAMP" ]; then
    apt-get update -qq
    if [ -n "${STC_APT_STAMP:-}" ]; then
      touch "$STC_APT_STAMP"
    fi
  fi
  echo "$me: installing $* from Debian"
  # shellcheck disable=SC2086 # $recommends is one flag or nothing
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $recommends "$@"
}

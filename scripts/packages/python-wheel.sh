#!/usr/bin/env bash
# The Python package checked as a package: the wheel file, installed with
# pip into a fresh venv (with its `test` and `http` extras, from PyPI), must
# import from that venv, carry the license files, and pass the binding's
# whole pytest suite run against that install (not the source tree).
#
#   bash scripts/packages/python-wheel.sh DIST/stc_json-*.whl
#
# Called by bindings-python/test.sh after it builds the wheel. Environment:
# PYTHON (interpreter for the venv, default python3).
set -euo pipefail
wheel="$(realpath "${1:?usage: python-wheel.sh WHEEL}")"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

listing="$(python3 -m zipfile -l "$wheel")"
for license in LICENSE-MIT LICENSE-APACHE; do
  if ! grep -q "/$license " <<<"$listing"; then
    echo "python-wheel.sh: $wheel lacks $license" >&2
    exit 1
  fi
done

"${PYTHON:-python3}" -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check "$wheel[test,http]"

# From an empty directory, so that nothing beside the tests shadows the install.
cd "$work"
where="$("$py" -c 'import stc, stc._stc as m; print(m.__file__)')"
case "$where" in
  "$work/venv/"*) ;;
  *) echo "python-wheel.sh: stc was imported from $where, not from the fresh venv" >&2; exit 1 ;;
esac
echo "python-wheel.sh: $(basename "$wheel") installed in a fresh venv ($where); pytest:"
"$py" -m pytest -q -p no:cacheprovider --rootdir "$repo/bindings-python" -c "$repo/bindings-python/pyproject.toml" \
  "$repo/bindings-python/tests"

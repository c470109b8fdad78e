#!/usr/bin/env bash
# Builds and installs the `stc` Python package into a virtualenv, then runs its
# whole test suite: pytest (the conformance corpus in ../conformance/cases, the
# API, errors and hostile input, hypothesis properties, the gate) and
# `mypy --strict` on the typed example and the tests; then the opt-in `abi3`
# build through the fast-path and conformance tests. Exits non-zero on any
# failure. Works on a fresh machine with Python >= 3.9, a Rust toolchain and
# access to PyPI and crates.io.
#
#   bash bindings-python/test.sh
#
# Environment: PYTHON (interpreter for the venv, default python3),
# STC_PYTHON_VENV (venv location, default bindings-python/.venv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${STC_PYTHON_VENV:-$here/.venv}"

if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
# maturin, the PEP 517 backend, is called by name: the venv's bin goes first.
export PATH="$venv/bin:$PATH"
export VIRTUAL_ENV="$venv"

python -m pip install --quiet --upgrade pip
python -m pip install --quiet -r "$here/requirements-dev.txt"
echo "== building and installing stc (maturin, release) =="
# The shipped configuration (the default features: the full C API of this
# CPython version).
python -m pip install --quiet --no-build-isolation --force-reinstall --no-deps "$here"

cd "$here"
echo "== pytest =="
python -m pytest -q tests
echo "== mypy --strict =="
python -m mypy --strict examples/typing_example.py tests

# The opt-in portable build (`--features abi3`: the stable ABI of CPython
# 3.10+, pyo3's safe constructors, no unsafe code): a debug build run through
# the tests of the fast paths and the conformance corpus, in place of the
# installed module.
echo "== abi3 build (--features abi3, debug): fast paths and conformance =="
abi3="$(mktemp -d)"
trap 'rm -rf "$abi3"' EXIT
PYO3_PYTHON="$venv/bin/python" cargo build --quiet --manifest-path "$here/Cargo.toml" --features abi3
target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" |
    python -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
cp -r "$here/python/stc" "$abi3/stc"
rm -f "$abi3"/stc/_stc*.so
cp "$target_dir/debug/lib_stc.so" "$abi3/stc/_stc.abi3.so"
loaded="$(PYTHONPATH="$abi3" python -c 'import stc._stc as m; print(m.__file__)')"
if [ "$loaded" != "$abi3/stc/_stc.abi3.so" ]; then
    echo "the abi3 build is not the module loaded: $loaded" >&2
    exit 1
fi
PYTHONPATH="$abi3" python -m pytest -q -p no:cacheprovider tests/test_fast_paths.py tests/test_dumps_fast_paths.py \
    tests/test_conformance.py tests/test_properties.py

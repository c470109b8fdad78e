#!/usr/bin/env bash
# Builds and installs the `stc` Python package into a virtualenv, then runs its
# whole test suite: pytest (the conformance corpus in ../conformance/cases, the
# API, errors and hostile input, hypothesis properties, the gate) and
# `mypy --strict` on the typed example and the tests; checks that the `abi3`
# build (the stable-ABI fallback) still compiles. Exits non-zero on any
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
# The shipped configuration: a module for this interpreter's CPython version
# (full C API, src/pyobj.rs), as maturin builds it by default.
python -m pip install --quiet --no-build-isolation --force-reinstall --no-deps "$here"
echo "== the abi3 fallback compiles (cargo check --features abi3) =="
PYO3_PYTHON="$venv/bin/python" cargo check --quiet --manifest-path "$here/Cargo.toml" --features abi3

cd "$here"
echo "== pytest =="
python -m pytest -q tests
echo "== mypy --strict =="
python -m mypy --strict examples/typing_example.py tests

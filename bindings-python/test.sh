#!/usr/bin/env bash
# Builds the `stc` Python package's wheel, installs the wheel file into a
# fresh virtualenv and runs the whole test suite against that install
# (../scripts/packages/python-wheel.sh: pytest over the conformance corpus in
# ../conformance/cases, the API, errors and hostile input, hypothesis
# properties, the gate); `mypy --strict` on the typed example and the tests
# (in the build venv, with the same wheel installed); then the opt-in `abi3`
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
echo "== building the wheel (maturin, release) =="
# The shipped configuration (the default features: the full C API of this
# CPython version).
dist="$(mktemp -d)"
abi3="$(mktemp -d)"
trap 'rm -rf "$dist" "$abi3"' EXIT
(cd "$here" && maturin build --quiet --release --interpreter "$venv/bin/python" --out "$dist")
wheel="$(ls "$dist"/*.whl)"
python -m pip install --quiet --force-reinstall --no-deps "$wheel"

echo "== the wheel installed from its file into a fresh venv: pytest =="
bash "$here/../scripts/packages/python-wheel.sh" "$wheel"

cd "$here"
echo "== mypy --strict =="
python -m mypy --strict examples/typing_example.py tests

# The opt-in portable build (`--features abi3`: the stable ABI of CPython
# 3.10+, pyo3's safe constructors, no unsafe code): a debug build run through
# the tests of the fast paths and the conformance corpus, in place of the
# installed module.
echo "== abi3 build (--features abi3, debug): fast paths and conformance =="
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

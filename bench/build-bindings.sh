#!/usr/bin/env bash
# Builds each binding the way bench/run.sh measures it: release builds, with
# the bench peers installed (orjson and toon_format for Python,
# @toon-format/toon for Node). Called by bench/run.sh before it measures the
# bindings, so a fresh clone measures them too; each build that fails leaves
# bench/out/<binding>.skip with the reason, and the report says "not
# measured" for that binding only.
#
#   bash bench/build-bindings.sh OUT_DIR
#
# Needs what the bindings' own test.sh need (python3 -m venv, cargo, npm; the
# wasm build installs its wasm32 target and wasm-bindgen-cli itself).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: bench/build-bindings.sh OUT_DIR}"
mkdir -p "$OUT"

# key, then the command; its output goes to OUT/build-KEY.log.
build() {
  local key="$1"
  shift
  echo "-- building $key" >&2
  if ! (cd "$ROOT" && "$@") > "$OUT/build-$key.log" 2>&1; then
    echo "its build failed (bench/build-bindings.sh; last line: $(tail -n 1 "$OUT/build-$key.log" | cut -c1-200))" > "$OUT/$key.skip"
    return 1
  fi
}

python_binding() {
  set -e
  local venv=bindings-python/.venv
  [ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
  export PATH="$PWD/$venv/bin:$PATH" VIRTUAL_ENV="$PWD/$venv"
  python -m pip install --quiet --upgrade pip
  python -m pip install --quiet -r bindings-python/requirements-dev.txt -r bindings-python/bench/requirements.txt
  local dist
  dist="$(mktemp -d)"
  (cd bindings-python && maturin build --quiet --release --interpreter "$VIRTUAL_ENV/bin/python" --out "$dist")
  python -m pip install --quiet --force-reinstall --no-deps "$dist"/*.whl
  rm -rf "$dist"
}

npm_binding() { # directory
  set -e
  cd "$1"
  npm ci --no-audit --no-fund --silent
  npm run build
}

build python python_binding || true
build node npm_binding bindings-node || true
build wasm npm_binding bindings-wasm || true

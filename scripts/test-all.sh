#!/usr/bin/env bash
# Every test of every part: the Rust codec, CLI and conformance harness, then
# each binding's own suite (each installs what it needs: Python venv and
# maturin, npm packages, the wasm32 target and wasm-bindgen-cli, Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n==== %s\n' "$*"; }

step "rust: format and lints"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt -p stc-core -p stc-cli -p stc-conformance -- --check
cargo clippy --quiet -p stc-core -p stc-cli -p stc-conformance --all-targets -- -D warnings
cargo clippy --quiet -p stc-core --no-default-features -- -D warnings

step "rust: stc-core, stc-cli, conformance (unit, doc, property, snapshot, corpus tests)"
cargo test -p stc-core -p stc-cli -p stc-conformance

for binding in bindings-python bindings-node bindings-wasm; do
  if [ -f "$binding/test.sh" ]; then
    step "$binding"
    bash "$binding/test.sh"
  fi
done

step "all suites passed"

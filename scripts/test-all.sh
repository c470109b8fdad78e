#!/usr/bin/env bash
# Every test of every part: the Rust codec, CLI, conformance harness and
# services (HTTP, MCP, TCP, stash), then each binding's own suite (each
# installs what it needs: Python venv and maturin, npm packages, the wasm32
# target and wasm-bindgen-cli, Chromium). What the service tests need (for
# example redis-server) is installed by scripts/prereqs/*.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n==== %s\n' "$*"; }

step "rust: format and lints"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
rust_crates=(-p stc-core -p stc-cli -p stc-conformance -p stc-http -p stc-mcp -p stc-serve -p stc-stash)
cargo fmt "${rust_crates[@]}" -- --check
cargo clippy --quiet "${rust_crates[@]}" --all-targets -- -D warnings
cargo clippy --quiet -p stc-core --no-default-features -- -D warnings
# The browser build of the stash: memory store only, no SQLite, Redis or Unix APIs.
cargo clippy --quiet -p stc-stash --no-default-features -- -D warnings

step "prerequisites of the service tests"
for prereq in scripts/prereqs/*.sh; do
  [ -e "$prereq" ] || continue
  echo "-- $prereq"
  bash "$prereq"
done

step "spec: stc.abnf is valid ABNF, accepts and rejects its examples, and README.md quotes it verbatim"
target/abnf-venv/bin/python spec/check_abnf.py

step "rust: stc-core, stc-cli, conformance, services (unit, doc, property, snapshot, corpus, service tests)"
cargo test "${rust_crates[@]}"

# The bindings' HTTP client tests put `stc proxy` in front of a real upstream.
export STC_BIN="$PWD/target/debug/stc"

for binding in bindings-python bindings-node bindings-wasm; do
  if [ -f "$binding/test.sh" ]; then
    step "$binding"
    bash "$binding/test.sh"
  fi
done

step "all suites passed"

#!/usr/bin/env bash
# Every test of every part: the Rust codec, CLI, conformance harness and
# services (HTTP, MCP, TCP, stash), then each binding's own suite (each
# installs what it needs: Python venv and maturin, npm packages, the wasm32
# target and wasm-bindgen-cli, Chromium). What the service tests need (for
# example redis-server) is installed by scripts/prereqs/*.sh. The packages
# are checked as packages: every publishable crate by `cargo package`
# (scripts/packages/crates.sh), the Python wheel and the npm tarballs by the
# bindings' test.sh (scripts/packages/python-wheel.sh, npm.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# `apt-get update` at most once for the whole command (scripts/lib/apt.sh).
STC_APT_STAMP="$(mktemp -u "${TMPDIR:-/tmp}/stc-apt-updated.XXXXXX")"
export STC_APT_STAMP
trap 'rm -f "$STC_APT_STAMP"' EXIT

step() { printf '\n==== %s\n' "$*"; }

step "rust: format and lints"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
rust_crates=(-p stc-core -p stc-cli -p stc-conformance -p stc-http -p stc-mcp -p stc-serve -p stc-stash)
cargo fmt "${rust_crates[@]}" -- --check
cargo clippy --quiet "${rust_crates[@]}" --all-targets -- -D warnings
cargo clippy --quiet -p stc-core --no-default-features -- -D warnings
# The browser build of the stash: memory store only, no SQLite, Redis or Unix APIs.
cargo clippy --quiet -p stc-stash --no-default-features -- -D warnings

step "rust: the declared minimum Rust version (rust-version) builds, and the docs have no warnings"
msrv="$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)"
rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1 || true
cargo "+$msrv" check --quiet "${rust_crates[@]}"
# The libraries' API docs (stc-cli is a binary: its doc comments are its --help text).
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --lib "${rust_crates[@]}"

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

step "rust: every publishable crate packaged and built from its package"
bash scripts/packages/crates.sh

# The bindings' HTTP client tests put `stc proxy` in front of a real upstream.
export STC_BIN="$PWD/target/debug/stc"

for binding in bindings-python bindings-node bindings-wasm; do
  if [ -f "$binding/test.sh" ]; then
    step "$binding"
    bash "$binding/test.sh"
  fi
done

step "all suites passed"

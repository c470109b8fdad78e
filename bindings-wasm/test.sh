#!/usr/bin/env bash
# The whole check of the browser package on a fresh Debian machine:
# prerequisites (wasm32 target, wasm-bindgen-cli, binaryen, Debian's chromium),
# npm install, build, fmt and clippy of the crate (wasm32), then every test
# (Node conformance, API, types, counters, deep input; the conformance corpus,
# real documents and deep input in headless Chromium; the demo page with
# screenshots in test-output/), then the package as a package: `npm pack`,
# installed from the tarball into a fresh project and imported
# (../scripts/packages/npm.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

source ../scripts/lib/apt.sh

missing=()
command -v wasm-opt >/dev/null || missing+=(binaryen)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
  # Chromium with its recommends (fonts, among others: the demo page's screenshots).
  apt_install --with-recommends "${missing[@]}"
fi

# wasm32 target and wasm-bindgen-cli are installed by the build script.
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
npm run build
# Lints of the crate as it is built (wasm32; scripts/test-all.sh lints the native crates).
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt -p stc-wasm -- --check
# Each module's feature set: the codec (default), decode-only, the stash.
for features in "" "--no-default-features" "--no-default-features --features stash"; do
  # shellcheck disable=SC2086 # the feature flags are separate words
  CARGO_TARGET_DIR="${STC_WASM_TARGET_DIR:-$PWD/../target/wasm}" \
    cargo clippy --quiet -p stc-wasm --target wasm32-unknown-unknown $features -- -D warnings
done
npm test
bash ../scripts/packages/npm.sh .

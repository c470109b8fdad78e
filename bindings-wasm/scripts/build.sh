#!/usr/bin/env bash
# Builds the wasm-bindgen package: pkg/web (ES module, browsers) and pkg/node
# (CommonJS for Node). Installs what is missing on a fresh machine:
# the wasm32 target, wasm-bindgen-cli at exactly the crate's pinned version,
# and binaryen's wasm-opt (Debian apt, else the npm `binaryen` package).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

# The exact wasm-bindgen version pinned in Cargo.toml (`=0.2.x`).
version="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)"
[ -n "$version" ] || { echo "build: no exact wasm-bindgen pin in Cargo.toml" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "build: adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bindgen="${WASM_BINDGEN:-wasm-bindgen}"
have="$("$bindgen" --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" != "$version" ]; then
  echo "build: installing wasm-bindgen-cli $version (found: ${have:-none})"
  cargo install wasm-bindgen-cli --version "$version"
  bindgen=wasm-bindgen
fi

# Size-first release build. The root Cargo.toml's [profile.release] is shared
# by every crate, so the overrides go through the environment, and a separate
# target dir keeps these artifacts from invalidating the native builds.
export CARGO_TARGET_DIR="${STC_WASM_TARGET_DIR:-$here/../target/wasm}"
CARGO_PROFILE_RELEASE_OPT_LEVEL="${STC_WASM_OPT_LEVEL:-z}" \
CARGO_PROFILE_RELEASE_LTO=true \
CARGO_PROFILE_RELEASE_PANIC=abort \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
CARGO_PROFILE_RELEASE_DEBUG=false \
  cargo build --release -p stc-wasm --target wasm32-unknown-unknown
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/stc_wasm.wasm"

rm -rf pkg
"$bindgen" --target web --out-dir pkg/web --out-name stc_wasm "$wasm"
"$bindgen" --target nodejs --out-dir pkg/node --out-name stc_wasm "$wasm"
# The declarations import the generated unions (ErrorCode, Profile) of
# js-shared's stc_rules; in the node folder its types are `stc_rules.d.mts`.
sed -i "s#from './stc_rules.js';#from './stc_rules.mjs';#" pkg/node/stc_wasm.d.ts
grep -q "from './stc_rules.mjs';" pkg/node/stc_wasm.d.ts \
  || { echo "build: pkg/node/stc_wasm.d.ts does not import ./stc_rules.mjs" >&2; exit 1; }

# wasm-opt: npm's binaryen (a dev dependency, recent enough for the
# reference-types code wasm-bindgen emits), else Debian's binaryen (its
# version 108 in bookworm cannot read that code: then the unoptimized output
# is kept and the reason printed).
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
          --enable-mutable-globals --enable-reference-types --enable-multivalue)
optimized=""
for optimizer in node_modules/.bin/wasm-opt wasm-opt; do
  command -v "$optimizer" >/dev/null || continue
  ok=1
  for dir in pkg/web pkg/node; do
    if ! "$optimizer" -Oz --strip-debug --strip-producers "${features[@]}" \
        "$dir/stc_wasm_bg.wasm" -o "$dir/stc_wasm_bg.opt.wasm"; then
      ok=""
      echo "build: $optimizer ($("$optimizer" --version)) failed on $dir; trying the next wasm-opt" >&2
      break
    fi
  done
  if [ -n "$ok" ]; then
    for dir in pkg/web pkg/node; do mv "$dir/stc_wasm_bg.opt.wasm" "$dir/stc_wasm_bg.wasm"; done
    optimized="$optimizer ($("$optimizer" --version))"
    break
  fi
  rm -f pkg/*/stc_wasm_bg.opt.wasm
done
if [ -n "$optimized" ]; then
  echo "build: optimized with $optimized"
else
  echo "build: SKIPPED wasm-opt: no usable wasm-opt (npm install brings binaryen; Debian's binaryen 108 is too old)"
fi
# The node output is CommonJS; mark the folder so Node does not read it as ESM.
echo '{"type": "commonjs"}' > pkg/node/package.json

# The JS entries (`stc-wasm`: pkg/*/stc.js|mjs, `stc-wasm/fetch`:
# pkg/*/stc_fetch.js|mjs) and the rules shared with stc-node (js-shared/:
# stc_rules, stc_fetch_core), ES modules in both (`.mjs` in the CommonJS node
# folder).
node ../js-shared/install.mjs pkg/web .js
node ../js-shared/install.mjs pkg/node .mjs
cp js/web/* pkg/web/
cp js/node/* pkg/node/

raw=$(wc -c < pkg/web/stc_wasm_bg.wasm)
gz=$(gzip -9 -c pkg/web/stc_wasm_bg.wasm | wc -c)
echo "build: pkg/web/stc_wasm_bg.wasm $raw bytes, $gz bytes gzipped (-9)"

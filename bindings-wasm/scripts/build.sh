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
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/stc_wasm.wasm"
rm -rf pkg
# Three modules from the one crate, each through wasm-bindgen for both
# targets (pkg/*/<module>*):
# - stc_decode_wasm (`--no-default-features`): `stc-wasm/decode`, the reader
#   and JSON writer; no encoder, planner, estimate or stash;
# - stc_wasm (default feature `encode`): `stc-wasm`, the codec (encode and
#   decode, the gate, stringify) without the stash;
# - stc_stash_wasm (`--no-default-features --features stash`):
#   `stc-wasm/stash` (MemoryStash, truncate, retrieve only), which
#   `stc-wasm`'s `loadStash()` imports on demand.
for module in stc_decode_wasm stc_wasm stc_stash_wasm; do
  case "$module" in
    stc_decode_wasm) cargo_features=(--no-default-features) ;;
    stc_stash_wasm) cargo_features=(--no-default-features --features stash) ;;
    *) cargo_features=() ;;
  esac
  CARGO_PROFILE_RELEASE_OPT_LEVEL="${STC_WASM_OPT_LEVEL:-z}" \
  CARGO_PROFILE_RELEASE_LTO=true \
  CARGO_PROFILE_RELEASE_PANIC=abort \
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo build --release -p stc-wasm --target wasm32-unknown-unknown "${cargo_features[@]}"
  "$bindgen" --target web --out-dir pkg/web --out-name "$module" "$wasm"
  "$bindgen" --target nodejs --out-dir pkg/node --out-name "$module" "$wasm"
done

# The declarations import the generated unions (ErrorCode, Profile, ...) of
# js-shared's stc_rules and the option types of js-shared's api.d.ts; in the
# node folder their types are `stc_rules.d.mts` and `api.d.mts`.
for dts in pkg/node/{stc_wasm,stc_decode_wasm,stc_stash_wasm}.d.ts; do
  sed -i -e "s#from './stc_rules.js';#from './stc_rules.mjs';#" -e "s#from './api.js';#from './api.mjs';#" "$dts"
  for m in stc_rules api; do
    grep -q "from './$m.mjs';" "$dts" || { echo "build: $dts does not import ./$m.mjs" >&2; exit 1; }
  done
done

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
  for file in pkg/{web,node}/{stc_wasm,stc_decode_wasm,stc_stash_wasm}_bg.wasm; do
    if ! "$optimizer" -Oz --strip-debug --strip-producers "${features[@]}" \
        "$file" -o "${file%.wasm}.opt.wasm"; then
      ok=""
      echo "build: $optimizer ($("$optimizer" --version)) failed on $file; trying the next wasm-opt" >&2
      break
    fi
  done
  if [ -n "$ok" ]; then
    for file in pkg/{web,node}/{stc_wasm,stc_decode_wasm,stc_stash_wasm}_bg.wasm; do mv "${file%.wasm}.opt.wasm" "$file"; done
    optimized="$optimizer ($("$optimizer" --version))"
    break
  fi
  rm -f pkg/*/*.opt.wasm
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
# The STC versions this build reads, for code that needs them before the web
# build's init() (stcFetch checks `version` and the response's version before
# the first decode): generated from the module's versionNames() (stc-core's
# Version::NAMES), never written by hand.
names="$(node -e "process.stdout.write(JSON.stringify(require('./pkg/node/stc_wasm.js').versionNames()))")"
for out in pkg/web/stc_names.js pkg/node/stc_names.mjs; do
  printf '%s\n%s\n' \
    "// Generated by scripts/build.sh from the wasm module's versionNames() (stc-core's Version::NAMES): do not edit." \
    "export const VERSION_NAMES = Object.freeze($names);" > "$out"
done

for file in pkg/web/{stc_decode_wasm,stc_wasm,stc_stash_wasm}_bg.wasm; do
  echo "build: $file $(wc -c < "$file") bytes, $(gzip -9 -c "$file" | wc -c) bytes gzipped (-9)"
done

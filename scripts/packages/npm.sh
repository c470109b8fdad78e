#!/usr/bin/env bash
# An npm package checked as a package: `npm pack` of a built package
# directory, the tarball's contents (README and license files), then the
# tarball installed offline into a fresh project that imports the package
# by name and runs a smoke test: a parse/stringify round trip and an error
# with its kind and position. As ESM always; as CommonJS when the package
# exports a `require` entry (stc-node); and for stc-wasm also its browser
# build (`stc-wasm/web`), initialised from the packaged .wasm file.
#
#   bash scripts/packages/npm.sh bindings-node    # after its `npm run build`
#   bash scripts/packages/npm.sh bindings-wasm
set -euo pipefail
dir="$(realpath "${1:?usage: npm.sh PACKAGE_DIR}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

name="$(node -p "require('$dir/package.json').name")"
tarball="$work/$(cd "$dir" && npm pack --silent --pack-destination "$work")"
listing="$(tar tzf "$tarball")"
for needed in README.md LICENSE-MIT LICENSE-APACHE; do
  if ! grep -qx "package/$needed" <<<"$listing"; then
    echo "npm.sh: $(basename "$tarball") lacks $needed" >&2
    exit 1
  fi
done

mkdir "$work/project"
cd "$work/project"
printf '{"name": "smoke", "private": true}\n' > package.json
npm install --silent --offline --no-audit --no-fund "$tarball"

# The same checks for every way in: `stc` is the imported package.
cat > check.cjs <<'JS'
const assert = require('node:assert/strict');
module.exports = function check(stc, how) {
  const value = { id: 7, tags: ['a', 'b'], rows: [{ x: 1, y: 'é' }, { x: 2.5, y: null }] };
  const text = stc.stringify(value);
  assert.equal(typeof text, 'string');
  assert.deepEqual(stc.parse(text), value, `${how}: parse(stringify(v)) is v`);
  let error;
  try {
    stc.parse('{a: 1,\n b: [2]: 3}');
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof stc.StcError, `${how}: an StcError, not ${error}`);
  assert.equal(typeof error.code, 'string');
  assert.deepEqual([error.offset, error.line, error.column].map((n) => Number.isInteger(n)), [true, true, true],
    `${how}: the error has offset, line and column: ${error.message}`);
  assert.equal(error.line, 2, `${how}: the error is on line 2: ${error.message}`);
  console.log(`npm.sh: ${how}: round trip and ${error.code} at line ${error.line}, column ${error.column} (byte ${error.offset})`);
};
JS
cat > esm.mjs <<JS
import { createRequire } from 'node:module';
import * as stc from '$name';
createRequire(import.meta.url)('./check.cjs')(stc, 'import "$name" (ESM)');
JS
node esm.mjs
# The installed package's manifest (its `exports` need not list package.json).
exports() { node -p "JSON.stringify(require('./node_modules/$name/package.json').exports?.$1 ?? null)"; }
if [ "$(exports "['.']?.require")" != null ]; then
  cat > cjs.cjs <<JS
require('./check.cjs')(require('$name'), 'require("$name") (CommonJS)');
JS
  node cjs.cjs
fi
if [ "$(exports "['./web']")" != null ]; then
  cat > web.mjs <<JS
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import init, * as stc from '$name/web';
const wasm = new URL('stc_wasm_bg.wasm', import.meta.resolve('$name/web'));
await init({ module_or_path: readFileSync(wasm) });
createRequire(import.meta.url)('./check.cjs')(stc, 'import "$name/web" (the browser build, ESM)');
JS
  node web.mjs
fi
echo "npm.sh: $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB) installed from the tarball and imported"

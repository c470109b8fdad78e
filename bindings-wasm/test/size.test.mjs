// Size budgets of the browser package's modules, gzipped at level 9 (node's
// zlib; `gzip -9 -c FILE | wc -c` gives a few hundred bytes less). A module
// that grows past its budget fails here: find what took the bytes with
// `twiggy top` on the cargo output (see README, Size) before raising one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './load.mjs';

// Measured sizes (zlib level 9: 34,593; 71,198; 139,579; 3,919; 4,900;
// 4,157 bytes) plus about 3%. The goals: 30 KB for the decode-only
// module and 60 KB for the package a page loads to encode and decode
// (stc_wasm_bg.wasm; the stash module is loaded only by `loadStash()`);
// README (Size) says what bounds them today.
const BUDGETS = {
  'stc_decode_wasm_bg.wasm': 35_650,
  'stc_wasm_bg.wasm': 73_350,
  'stc_stash_wasm_bg.wasm': 143_800,
  'stc_decode_wasm.js': 4_050,
  'stc_wasm.js': 5_050,
  'stc_stash_wasm.js': 4_300,
};

for (const [file, budget] of Object.entries(BUDGETS)) {
  test(`pkg/web/${file} gzipped stays within ${budget} bytes`, () => {
    const bytes = readFileSync(join(ROOT, 'pkg/web', file));
    const gz = gzipSync(bytes, { level: 9 }).length;
    assert.ok(gz <= budget, `pkg/web/${file}: ${gz} bytes gzipped (${bytes.length} raw), budget ${budget}`);
  });
}

test('each module is smaller than the next by most of what it leaves out', () => {
  const size = (f) => gzipSync(readFileSync(join(ROOT, 'pkg/web', f)), { level: 9 }).length;
  // decode-only < codec (no encoder, planner, estimate) < stash (no stash, blake3).
  assert.ok(size('stc_decode_wasm_bg.wasm') * 1.5 < size('stc_wasm_bg.wasm'));
  assert.ok(size('stc_wasm_bg.wasm') * 1.5 < size('stc_stash_wasm_bg.wasm'));
});

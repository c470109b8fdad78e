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

// Measured sizes (zlib level 9: 43,622; 161,066; 3,919; 5,794 bytes) plus
// about 3%. The goal is 30 KB for the decode-only module and 60 KB
// for the full one; README (Size) says what bounds them today.
const BUDGETS = {
  'stc_decode_wasm_bg.wasm': 45_000,
  'stc_wasm_bg.wasm': 166_000,
  'stc_decode_wasm.js': 4_200,
  'stc_wasm.js': 6_200,
};

for (const [file, budget] of Object.entries(BUDGETS)) {
  test(`pkg/web/${file} gzipped stays within ${budget} bytes`, () => {
    const bytes = readFileSync(join(ROOT, 'pkg/web', file));
    const gz = gzipSync(bytes, { level: 9 }).length;
    assert.ok(gz <= budget, `pkg/web/${file}: ${gz} bytes gzipped (${bytes.length} raw), budget ${budget}`);
  });
}

test('the decode-only module is smaller than the full one by most of the encoder', () => {
  const size = (f) => gzipSync(readFileSync(join(ROOT, 'pkg/web', f)), { level: 9 }).length;
  assert.ok(size('stc_decode_wasm_bg.wasm') * 2 < size('stc_wasm_bg.wasm'));
});

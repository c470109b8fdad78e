// js-shared/test/api.mjs (the API test both JavaScript packages run) against stc-wasm's Node build.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { join } from 'node:path';
import { apiTests } from '../../js-shared/test/api.mjs';
import { thrown } from '../../js-shared/test/processes.mjs';
import { ROOT, stc } from './load.mjs';

apiTests({
  name: 'stc-wasm',
  stc,
  native: createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js')),
  installed: join(ROOT, 'pkg/node'),
  ext: '.mjs',
  tokenizers: ['estimate'],
});

// An exception the shared cases do not reach: raised inside the wasm layer
// while it reads JavaScript values. It must come back as the same object
// (issue 15), not as StcError `aborted`.
test('stc-wasm: an array index getter that throws comes back as the same object', () => {
  const mine = new Error('from an index getter');
  const items = [1, 2];
  Object.defineProperty(items, 1, {
    get() {
      throw mine;
    },
  });
  for (const bigint of [false, true]) {
    assert.equal(thrown(() => stc.stringify({ items }, { bigint })), mine);
  }
  assert.equal(stc.stringify({ items: [1, 2] }), '{items:[1,2]}');
});

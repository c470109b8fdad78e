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

// The exceptions the shared cases cannot reach from the API's checks: ones
// raised inside the wasm layer while it builds or reads JavaScript values.
// They must come back as the same object (issue 15), not as StcError `aborted`.
test('stc-wasm: an exception raised while parse builds the value is re-thrown as is', () => {
  const mine = new Error('from a setter');
  // A setter on Object.prototype is called when parse sets a member of that
  // name (as in the Node package, which sets properties the same way).
  Object.defineProperty(Object.prototype, 'stcTrap', {
    set() {
      throw mine;
    },
    configurable: true,
  });
  try {
    assert.equal(thrown(() => stc.parse('{stcTrap: 1}', { bigint: true })), mine);
    assert.equal(thrown(() => stc.parse('[{a: 1, stcTrap: [2]}]', { bigint: true })), mine);
  } finally {
    delete Object.prototype.stcTrap;
  }
  // The module still works afterwards.
  assert.deepEqual(stc.parse('{stcTrap: 1}', { bigint: true }), { stcTrap: 1 });
});

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
  assert.equal(stc.stringify({ items: [1, 2] }), '{items[2]:1,2}');
});

// The stash as a module of its own (`stc-wasm/stash`, pkg/*/stc_stash*): the
// codec module (`stc-wasm`'s stc_wasm_bg.wasm) holds none of it, the stash
// module holds it, and `stc-wasm`'s stash names and `loadStash()` are the
// stash entry's. (In the browser, test/browser.test.mjs checks that the stash
// module is fetched only by loadStash().)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, stc } from './load.mjs';

const stashEntry = await import(join(ROOT, 'pkg/node/stc_stash.mjs'));
const STASH_EXPORTS = ['truncate', 'retrieve', 'memorystash_new'];
const exportsOf = (dir, file) =>
  WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(ROOT, 'pkg', dir, file)))).map((e) => e.name);

test('the codec module exports the codec and no stash function; the stash module exports the stash', () => {
  for (const dir of ['web', 'node']) {
    const codec = exportsOf(dir, 'stc_wasm_bg.wasm');
    for (const name of ['encode', 'decode', 'parse', 'stringify', 'encodeGated', 'countTokens']) {
      assert.ok(codec.includes(name), `${dir}: stc_wasm_bg.wasm lacks ${name}`);
    }
    for (const name of STASH_EXPORTS) {
      assert.ok(!codec.includes(name), `${dir}: stc_wasm_bg.wasm exports ${name}`);
    }
    const stash = exportsOf(dir, 'stc_stash_wasm_bg.wasm');
    for (const name of STASH_EXPORTS) {
      assert.ok(stash.includes(name), `${dir}: stc_stash_wasm_bg.wasm lacks ${name}`);
    }
  }
});

test("stc-wasm's stash names are the stash entry's, and loadStash() resolves to that entry", async () => {
  assert.equal(stc.truncate, stashEntry.truncate);
  assert.equal(stc.retrieve, stashEntry.retrieve);
  assert.equal(stc.MemoryStash, stashEntry.MemoryStash);
  assert.equal(await stc.loadStash(), await stc.loadStash());
  assert.equal((await stc.loadStash()).truncate, stashEntry.truncate);
});

test('a truncation by the stash entry decodes with the codec module and retrieves its original', () => {
  const json = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item ${i}` })));
  const stash = new stashEntry.MemoryStash();
  const out = stashEntry.truncate(json, { stash, budget: 300 });
  assert.equal(out.truncated, true);
  assert.ok(stc.decode(out.text).length < json.length);
  assert.equal(stc.retrieve(out.keys[0], { stash }), json);
  // The argument checks are js-shared's, as in every other function.
  assert.throws(() => stashEntry.truncate(json, { stash: null, version: '2' }), TypeError);
});

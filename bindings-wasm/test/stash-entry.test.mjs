// The stash as a module of its own (`stc-wasm/stash`, pkg/*/stc_stash*): the
// codec module (`stc-wasm`'s stc_wasm_bg.wasm) holds none of it, the stash
// module holds it and none of the codec's functions, the two encode alike
// (the codec module reads JSON with stc-core's general reader into a
// DocumentBuilder; the stash module's truncate encodes what it keeps whole
// with stc-core's own encode_with), and `stc-wasm`'s stash names and `loadStash()` are the
// stash entry's. (In the browser, test/browser.test.mjs checks that the stash
// module is fetched only by loadStash().)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, stc, caseFiles, CORPUS_DIR } from './load.mjs';
import { flatten } from './cases.mjs';

const stashEntry = await import(join(ROOT, 'pkg/node/stc_stash.mjs'));
const STASH_EXPORTS = ['truncate', 'retrieve', 'memorystash_new'];
const exportsOf = (dir, file) =>
  WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(ROOT, 'pkg', dir, file)))).map((e) => e.name);

test('the codec module exports the codec and no stash function; the stash module the stash and no codec function', () => {
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
    for (const name of ['encode', 'decode', 'parse', 'stringify', 'encodeGated', 'countTokens']) {
      assert.ok(!stash.includes(name), `${dir}: stc_stash_wasm_bg.wasm exports ${name}`);
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

// The codec module reads JSON with stc-core's general reader (the one `decode`
// uses) into stc-core's DocumentBuilder. The stash module's `truncate` with
// no store and no budget keeps the document whole and returns
// stc_core::encode_with's text (Document::parse_json, the compact profile);
// invalid JSON is refused by stc-core's reader there too.
const require = createRequire(import.meta.url);
const codec = require(join(ROOT, 'pkg/node/stc_wasm.js'));
const reference = (json, options) => stashEntry.truncate(json, { stash: null, ...options });
const outcome = (f) => {
  try {
    return { text: f() };
  } catch (e) {
    return { error: [e.name, e.code, e.offset, e.line, e.column, e.message] };
  }
};

test('the codec module encodes every corpus document as stc-core\'s encode_with does (the stash module\'s truncate)', () => {
  const docs = readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.json')).sort();
  assert.ok(docs.length >= 10, `corpus at ${CORPUS_DIR}: ${docs}`);
  for (const doc of docs) {
    const json = readFileSync(join(CORPUS_DIR, doc), 'utf8');
    for (const version of [1, 2]) {
      const whole = reference(json, { version });
      assert.equal(whole.truncated, false, `${doc} v${version}`);
      assert.ok(codec.encode(json, { version }) === whole.text, `${doc} v${version}`);
    }
  }
});

test('the codec module refuses invalid JSON with stc-core\'s errors (the stash module\'s)', () => {
  const cases = flatten(caseFiles()).filter((c) => ['invalid', 'json-invalid'].includes(c.category) || c.error);
  let compared = 0;
  for (const c of cases) {
    const input = c.input_hex !== undefined ? Buffer.from(c.input_hex, 'hex') : c.input;
    if (input === undefined) continue;
    const options = c.options?.max_depth === undefined ? {} : { maxDepth: c.options.max_depth };
    const want = outcome(() => reference(input, options).text);
    assert.deepEqual(outcome(() => codec.encode(input, options)), want, `${c.file} ${c.name}`);
    compared++;
  }
  assert.ok(compared > 50, `${compared} cases compared`);
});

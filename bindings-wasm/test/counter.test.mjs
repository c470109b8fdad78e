// The gate with the caller's token counter (issue 12, "Package footprint"):
// the wasm build has no exact BPE tables, so `encodeGated(json, { tokenizer:
// countTokens })` takes a counting function, here gpt-tokenizer's exact
// o200k_base one, through stc-core's counter hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { thrown } from '../../js-shared/test/processes.mjs';
import { ROOT, CORPUS_DIR, stc } from './load.mjs';

// The wasm module as the package entry calls it (checked options).
const native = createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js'));
const rows = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, name: `user${i}`, active: i % 2 === 0 })));

test('exact counts from gpt-tokenizer: the gate reports the function\'s counts of minified JSON and of the STC', () => {
  for (const name of ['twitter.json', 'citm_catalog.json', 'github_events.json']) {
    const json = readFileSync(join(CORPUS_DIR, name), 'utf8');
    const minified = native.decode(json);
    const stcText = native.encode(json);
    for (const [label, count] of [['o200k_base', o200k], ['cl100k_base', cl100k]]) {
      const g = native.encodeGated(json, { tokenizer: count });
      assert.equal(g.jsonTokens, count(minified), `${name} ${label}: JSON tokens`);
      assert.equal(g.stcTokens, count(stcText), `${name} ${label}: STC tokens`);
      assert.equal(g.chosen, g.stcTokens <= g.jsonTokens * 0.95 && g.stcTokens < g.jsonTokens ? 'stc' : 'json');
      assert.equal(g.text, g.chosen === 'stc' ? stcText : minified);
      // The estimate differs from the exact count: the function really was used.
      if (label === 'o200k_base') assert.notEqual(native.encodeGated(json).stcTokens, g.stcTokens, name);
    }
  }
});

test('the function decides the choice and sees minified JSON, then the STC text', () => {
  const seen = [];
  const slashes = (text) => {
    seen.push(text);
    return text.length + 1000 * text.split('/').length;
  };
  const g = native.encodeGated(rows, { tokenizer: slashes, minSaving: 0 });
  assert.deepEqual(seen, [rows, native.encode(rows)]);
  assert.equal(g.chosen, 'json');
  assert.equal(g.text, rows);
  assert.deepEqual([g.jsonTokens, g.stcTokens], [slashes(seen[0]), slashes(seen[1])]);
  // min_saving applies to the function's numbers: bytes, STC saves about half.
  const bytes = (t) => new TextEncoder().encode(t).length;
  const saved = 1 - bytes(native.encode(rows)) / bytes(rows);
  assert.equal(native.encodeGated(rows, { tokenizer: bytes, minSaving: saved - 0.01 }).chosen, 'stc');
  assert.equal(native.encodeGated(rows, { tokenizer: bytes, minSaving: saved + 0.01 }).chosen, 'json');
  // countTokens takes a function too.
  assert.equal(native.countTokens('hello world', o200k), o200k('hello world'));
});

test('what the function throws comes back as the same object; a result that is not a count is a TypeError', () => {
  const mine = new Error('tokenizer offline');
  assert.equal(thrown(() => native.encodeGated(rows, { tokenizer: () => { throw mine; } })), mine);
  let calls = 0;
  const second = () => {
    if (++calls === 2) throw mine;
    return 10;
  };
  assert.equal(thrown(() => native.encodeGated(rows, { tokenizer: second })), mine);
  assert.equal(calls, 2);
  const notThrown = Symbol('thrown as it is');
  assert.equal(thrown(() => native.countTokens('x', () => { throw notThrown; })), notThrown);
  for (const [bad, shown] of [[-1, '-1'], [1.5, '1.5'], ['3', '"3"'], [null, 'null'], [[1, 2], 'object'], [NaN, 'NaN']]) {
    const e = thrown(() => native.encodeGated(rows, { tokenizer: () => bad }));
    assert.equal(e.constructor, TypeError);
    assert.equal(e.message, `the tokenizer function must return a non-negative integer, got ${shown}`);
  }
  // Invalid JSON is the codec's error: the function is never called.
  const e = thrown(() => native.encodeGated('[1,', { tokenizer: () => assert.fail('counted a refused input') }));
  assert.deepEqual([e.name, e.code], ['StcError', 'unexpected_end']);
});

// Through the package entry (js-shared's checks wrap the function, counterOf).
test('the package entry: encodeGated(json, { tokenizer: countTokens }) with gpt-tokenizer', () => {
  const g = stc.encodeGated(rows, { tokenizer: o200k });
  assert.deepEqual([g.jsonTokens, g.stcTokens], [o200k(rows), o200k(stc.encode(rows))]);
  const mine = new Error('offline');
  assert.equal(thrown(() => stc.encodeGated(rows, { tokenizer: () => { throw mine; } })), mine);
});

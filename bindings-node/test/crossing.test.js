'use strict';
// The crossing between V8 and stc-core (bench/CANDIDATES.md candidates 13-):
// texts from 128 KiB on leave the addon as external strings (V8 reads the
// addon's bytes in place; a finalizer frees them), shorter ones are copied.
// Each path is checked at its edges against JSON's own functions.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parse, stringify, decode, encode } = require('..');

const KIB = 1024;
const EDGE = 128 * KIB;

/** A JSON array of strings whose minified text is exactly `n` bytes long, each string built of `unit`. */
function jsonOfLength(n, unit) {
  // ["xxx...x"] has 4 bytes of punctuation; fill the rest with ASCII, put `unit` near the end.
  const pad = n - 4 - Buffer.byteLength(unit);
  return JSON.stringify(['a'.repeat(pad) + unit]);
}

test('parse and decode around the external-string edge: ASCII, Latin-1, beyond Latin-1, pairs', () => {
  for (const unit of ['', 'é', 'ÿ', '日', '😀', '\u0100']) {
    for (const n of [EDGE - 9, EDGE - 1, EDGE, EDGE + 1, EDGE + 7, 3 * EDGE]) {
      const json = jsonOfLength(n, unit);
      const value = JSON.parse(json);
      const stc = encode(json);
      assert.deepEqual(parse(stc), value, `parse, ${n} bytes, ${JSON.stringify(unit)}`);
      assert.equal(decode(stc), json, `decode, ${n} bytes, ${JSON.stringify(unit)}`);
      assert.equal(decode(Buffer.from(stc)), json);
      assert.equal(stringify(value), stc);
    }
  }
});

test('external strings outlive many calls and garbage collections', () => {
  const value = { rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `név ${i} 日本`, ok: i % 2 === 0 })) };
  const json = JSON.stringify(value);
  const stc = encode(json);
  const kept = [];
  for (let i = 0; i < 40; i++) {
    const text = decode(stc);
    if (i % 8 === 0) kept.push(text);
    assert.deepEqual(parse(stc), value);
    // Garbage that makes V8 collect meanwhile.
    Array.from({ length: 20000 }, (_, k) => ({ k }));
  }
  for (const text of kept) assert.equal(text, json);
  assert.equal(kept[0].slice(0, 20), json.slice(0, 20));
  assert.equal(kept[0].length, json.length);
});

'use strict';
// The crossing between V8 and stc-core (bench/CANDIDATES.md candidate 14):
// a string argument with no character beyond U+00FF (index.js asks V8 with
// a regular expression) is read as Latin-1 and converted to UTF-8 by the
// addon (ASCII runs 16 bytes at a time); any other string takes the UTF-16
// copy. Both reads must give the same text, the same results and the same
// error positions, at every edge of the ASCII runs.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const native = require('../stc.node');
const { parse, stringify, decode, encode } = require('..');

/** What a native text call gives (its result or its error's fields), read with and without the one-byte hint. */
function both(call) {
  const run = (hint) => {
    try {
      return { ok: call(hint) };
    } catch (e) {
      return { code: e.code, offset: e.offset, line: e.line, column: e.column, index: e.index, message: e.message };
    }
  };
  const hinted = run(true);
  assert.deepEqual(hinted, run(false));
  return hinted;
}

const decodeBoth = (stc) => both((hint) => native.decode(stc, undefined, undefined, hint));
const latin1Both = (stc) => both((hint) => JSON.parse(native.decodeLatin1(stc, undefined, undefined, hint)));
const encodeBoth = (json) => both((hint) => native.encode(json, undefined, undefined, undefined, hint));

test('one character beyond ASCII at each position of the first words, in strings, keys and errors', () => {
  for (const ch of ['é', 'ÿ', '\u0080', '\u00a0']) {
    for (let p = 0; p <= 40; p++) {
      const s = 'a'.repeat(p) + ch + 'b'.repeat(40 - p);
      const value = { [s]: [s, p], k: s.slice(0, p) };
      const json = JSON.stringify(value);
      const stc = encodeBoth(json).ok;
      assert.equal(stc, encode(json));
      assert.equal(decodeBoth(stc).ok, json);
      assert.deepEqual(latin1Both(stc).ok, value);
      assert.deepEqual(parse(stc), value);
      assert.equal(stringify(value), stc);
      // An error after the character: the same position from both reads.
      const bad = decodeBoth(`["${s}", }`);
      assert.equal(bad.code, 'unexpected_char');
      assert.equal(bad.index, 46);
      assert.equal(encodeBoth(`{"${s}": tru}`).code, 'unexpected_char');
    }
  }
});

test('a character beyond U+00FF or a lone surrogate at each position takes the UTF-16 read', () => {
  for (const ch of ['\u0100', '日', '😀', '\ud800', '\udfff']) {
    for (let p = 0; p <= 34; p++) {
      const s = 'é'.repeat(p % 3) + 'a'.repeat(p) + ch + 'z'.repeat(34 - p);
      const stc = `["${s}"]`;
      if (ch === '\ud800' || ch === '\udfff') {
        // No UTF-8 form: the core's invalid_utf8, at the surrogate.
        assert.throws(() => decode(stc), (e) => e.code === 'invalid_utf8' && e.index === 2 + (p % 3) + p);
        assert.throws(() => parse(stc), (e) => e.code === 'invalid_utf8' && e.index === 2 + (p % 3) + p);
        assert.throws(() => encode(JSON.stringify([s]).replace('\\ud800', '\ud800').replace('\\udfff', '\udfff')), (e) => e.code === 'invalid_utf8');
        continue;
      }
      assert.equal(decode(stc), JSON.stringify([s]));
      assert.deepEqual(parse(stc), [s]);
      assert.equal(encode(JSON.stringify([s])), stc);
    }
  }
});

test('empty and whitespace input, and long strings of 100,000 units', () => {
  for (const text of ['', ' ', '\n']) {
    const d = decodeBoth(text);
    assert.ok(d.code !== undefined, 'empty STC is an error');
    assert.ok(encodeBoth(text).code !== undefined, 'empty JSON is an error');
  }
  const long = ['x'.repeat(100000), 'é'.repeat(100000), ('é' + 'a'.repeat(15)).repeat(6250), 'a'.repeat(99999) + 'ÿ'];
  // A two-byte string holding only Latin-1 characters (the test scans it all, then reads it as Latin-1).
  const twoByte = ('日' + 'ü'.repeat(100000)).slice(1);
  long.push(twoByte);
  for (const s of long) {
    assert.equal(s.length >= 100000, true);
    const json = JSON.stringify({ s, list: [s.slice(0, 70000), s.slice(30000)] });
    const stc = encodeBoth(json).ok;
    assert.equal(decodeBoth(stc).ok, json);
    assert.deepEqual(latin1Both(stc).ok, JSON.parse(json));
    assert.deepEqual(parse(stc), JSON.parse(json));
    assert.equal(stringify(JSON.parse(json)), stc);
  }
});

test('bytes in (Buffer, Uint8Array) ignore the hint', () => {
  const stc = encode(JSON.stringify({ a: 'café', b: [1, 2] }));
  const bytes = Buffer.from(stc);
  assert.equal(native.decode(bytes, undefined, undefined, true), native.decode(stc));
  assert.equal(native.decode(new Uint8Array(bytes), undefined, undefined, true), native.decode(stc));
  assert.deepEqual(parse(bytes), { a: 'café', b: [1, 2] });
});

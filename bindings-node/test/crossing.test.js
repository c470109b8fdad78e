'use strict';
// The crossing between V8 and stc-core (bench/CANDIDATES.md candidate 16):
// a string argument is copied out of V8 as UTF-16 and converted to UTF-8 by
// the addon, ASCII runs 16 units at a time, other characters one by one.
// A string must give the same text, results and error positions as its
// UTF-8 bytes (a Buffer, which stc-core checks itself), at every edge of the
// 16-unit words.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const native = require('../stc.node');
const { parse, stringify, decode, encode } = require('..');

/** What a native text call gives (its result or its error's fields), for a string and for its UTF-8 bytes. */
function both(call, text) {
  const run = (arg) => {
    try {
      return { ok: call(arg) };
    } catch (e) {
      return { code: e.code, offset: e.offset, line: e.line, column: e.column, message: e.message };
    }
  };
  const fromString = run(text);
  assert.deepEqual(fromString, run(Buffer.from(text)));
  return fromString;
}

const decodeBoth = (stc) => both((t) => native.decode(t), stc);
const latin1Both = (stc) => both((t) => JSON.parse(native.decodeLatin1(t)), stc);
const encodeBoth = (json) => both((t) => native.encode(t), json);

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
      assert.throws(() => decode(`["${s}", }`), (e) => e.index === 46);
      // parse and encode read a string without units beyond U+00FF as Latin-1 bytes (candidate 30).
      assert.throws(() => parse(`["${s}", }`), (e) => e.code === 'unexpected_char' && e.index === 46);
      const badJson = encodeBoth(`{"${s}": tru}`);
      assert.throws(() => encode(`{"${s}": tru}`), (e) => e.code === badJson.code && e.offset === badJson.offset);
      assert.equal(native.encode(json, undefined, undefined, undefined, true), stc);
      assert.equal(native.decodeLatin1(stc, undefined, undefined, true), native.decodeLatin1(stc));
      assert.equal(native.decode(stc, undefined, undefined, true), json);
      assert.equal(encodeBoth(`{"${s}": tru}`).code, 'unexpected_char');
    }
  }
});

test('a character beyond U+00FF or a lone surrogate at each position of the first words', () => {
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
      assert.equal(decodeBoth(stc).ok, JSON.stringify([s]));
      assert.deepEqual(latin1Both(stc).ok, [s]);
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
  // A two-byte string holding only Latin-1 characters.
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

test('text results converted in the kept buffers: long and short, Latin-1 and UTF-16 and ASCII, one after another', () => {
  // Results with characters beyond ASCII are converted into buffers the addon
  // keeps between calls (bench/CANDIDATES.md candidate 28): a result must
  // never show what an earlier, longer one left there.
  const kinds = [
    (n) => 'é'.repeat(n), // Latin-1
    (n) => 'ā日'.repeat(n >> 1) + '😀', // UTF-16, with a pair
    (n) => 'x'.repeat(n), // ASCII
    (n) => 'ÿ'.repeat(n) + '\u0100', // Latin-1 until its last character
  ];
  for (const n of [150_000, 7, 60_000, 1, 0, 100_001]) {
    for (const kind of kinds) {
      const s = kind(n);
      const json = JSON.stringify({ s, t: [s.slice(0, 3), n] });
      const stc = encode(json);
      assert.equal(native.encode(Buffer.from(json)), stc);
      assert.equal(decode(stc), json);
      assert.equal(native.decode(Buffer.from(stc)), json);
      assert.deepEqual(parse(stc), JSON.parse(json));
    }
  }
});

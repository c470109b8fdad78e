'use strict';
// decodeLatin1 (parse's fast path) writes into an output buffer the addon
// keeps per thread, shrunk back to 16 MiB when a document grew it past that
// (src/codec.rs, KEPT_OUTPUT). Each result must be exactly its own document's
// one-byte JSON: no bytes of an earlier, longer result, whatever the order of
// sizes around the shrink size, and after errors. The expected text is
// decode's UTF-8 JSON with every UTF-16 unit beyond U+00FF as a \uXXXX escape,
// computed here.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const native = require('../stc.node');
const { parse } = require('..');

const MIB = 1 << 20;
const KEPT = 16 * MIB;

/** The one-byte form of JSON text, independently of the addon. */
function latin1Of(json) {
  return json.replace(/[\u0100-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** An STC document whose JSON is about `n` bytes, its filler made of `fill`. */
function doc(n, fill) {
  return `{k[3]: "${fill.repeat(Math.max(0, n - 40))}","é日😀${fill}",${n}}`;
}

function check(stc) {
  const got = native.decodeLatin1(stc);
  const json = native.decode(stc);
  assert.equal(got.length, latin1Of(json).length);
  assert.ok(got === latin1Of(json), `decodeLatin1 differs from decode's one-byte form (${stc.length} bytes of STC)`);
  return json.length;
}

test('sizes around the kept buffer, growing then shrinking: every result is its own', () => {
  // The buffer reserves 1.5x the STC's length, so both the input sizes where
  // that reservation crosses 16 MiB and the outputs near 16 MiB are visited.
  const sizes = [
    1000,
    Math.floor(KEPT / 1.5) - 64,
    Math.floor(KEPT / 1.5) + 64,
    KEPT - 1,
    KEPT,
    KEPT + 1,
    2 * KEPT,
  ];
  const order = [...sizes, ...sizes.slice().reverse(), 10, 2 * KEPT, 10];
  order.forEach((n, i) => {
    const fill = 'abcdefghij'[i % 10];
    const len = check(doc(n, fill));
    assert.ok(Math.abs(len - n) < 64, `document ${i}: ${len} bytes of JSON, wanted about ${n}`);
  });
});

test('repeated calls with shrinking sizes, errors between them', () => {
  for (let n = 4 * MIB, i = 0; n >= 8; n = Math.floor(n / 3), i++) {
    check(doc(n, i % 2 ? 'x' : 'y'));
    assert.throws(() => native.decodeLatin1(`{k[2]: "${'z'.repeat(n)}"}`), { code: 'count_mismatch' });
    // A value built by parse from the kept buffer, after the error.
    const value = parse(doc(n, 'w'));
    assert.equal(value.k[0].length, Math.max(0, n - 40));
    assert.equal(value.k[1], 'é日😀w');
    assert.equal(value.k[2], n);
  }
  assert.equal(native.decodeLatin1('[]'), '[]');
  assert.equal(native.decodeLatin1('"\u00ff\u0100"'), '"\u00ff\\u0100"');
});

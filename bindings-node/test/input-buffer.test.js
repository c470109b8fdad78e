'use strict';
// A string argument is converted to UTF-8 into a buffer the addon keeps per
// thread and reuses for the next string argument (src/input.rs, KEPT_UTF8:
// one grown past 16 MiB is dropped). Each call must read exactly its own
// text: no bytes of an earlier, longer argument, whatever the order of sizes,
// after a lone surrogate cut the conversion short, after errors, and when a
// call runs inside another one (encodeGated's counter calling the codec).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const native = require('../stc.node');
const { parse, encode, decode, encodeGated } = require('..');

const MIB = 1 << 20;
const KEPT = 16 * MIB;

/** An STC document of about `n` UTF-8 bytes, its filler made of `fill`. */
function doc(n, fill) {
  return `{k[3]: "${fill.repeat(Math.max(0, Math.floor((n - 40) / Buffer.byteLength(fill))))}","é日😀${fill}",${n}}`;
}

/** Decodes `stc` as a string and as its UTF-8 bytes (no kept buffer): both must agree. */
function check(stc) {
  const fromString = native.decode(stc);
  assert.ok(fromString === native.decode(Buffer.from(stc)), `string and bytes differ (${stc.length} units)`);
  return fromString;
}

test('sizes around the kept UTF-8 buffer, growing then shrinking, ASCII and wider fillers', () => {
  // UTF-8 sizes below, at and past the kept size (the buffer reserves 1.25x
  // the UTF-16 length, so inputs near KEPT / 1.25 cross it too).
  const sizes = [100, Math.floor(KEPT / 1.25) - 64, Math.floor(KEPT / 1.25) + 64, KEPT + 1, 2 * KEPT];
  const fills = ['a', 'é', '日', 'b😀'];
  const order = [...sizes, ...sizes.slice(0, -1).reverse(), 10, KEPT + 1, 10];
  order.forEach((n, i) => {
    const fill = fills[i % fills.length];
    const json = check(doc(n, fill));
    const value = JSON.parse(json);
    assert.equal(value.k[1], `é日😀${fill}`);
    assert.equal(value.k[2], n);
  });
});

test('a lone surrogate, then shorter texts: no stale bytes of the longer one', () => {
  const long = `"${'x'.repeat(100000)}\ud800${'y'.repeat(100000)}"`;
  assert.throws(() => native.decode(long), { code: 'invalid_utf8' });
  assert.throws(() => native.encode(`[${long}]`), { code: 'invalid_utf8' });
  for (let n = 50000; n > 0; n = Math.floor(n / 7)) {
    const stc = `"${'z'.repeat(n)}"`;
    assert.equal(decode(stc), `"${'z'.repeat(n)}"`);
    assert.equal(parse(stc), 'z'.repeat(n));
    assert.equal(decode(encode(`["é${'q'.repeat(n)}"]`)), `["é${'q'.repeat(n)}"]`);
  }
  assert.equal(decode('1'), '1');
  assert.equal(decode(' '.repeat(3) + '[]'), '[]');
});

test('errors between calls: each error is about its own text', () => {
  for (let n = 1 * MIB, i = 0; n >= 8; n = Math.floor(n / 5), i++) {
    const bad = `{k[2]: "${'é'.repeat(n)}"}`;
    assert.throws(() => native.decode(bad), (e) => e.code === 'count_mismatch' && e.line === 1);
    assert.equal(parse(doc(n, i % 2 ? 'x' : '日')).k[2], n);
    // The trailing comma's ']' is at UTF-16 index 3 + 2n: column 4 + 2n.
    assert.throws(() => encode(`[1,${'2,'.repeat(n)}]`), (e) => e.code === 'unexpected_char' && e.column === 4 + 2 * n);
    assert.equal(encode('[1,2]'), native.encode(Buffer.from('[1,2]')));
  }
});

test('a call inside another (the gate counter runs the codec): both read their own text', () => {
  const outer = JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `név ${'w'.repeat(i % 17)}` })) });
  const inner = `{k[2]: "${'i'.repeat(200000)}","日"}`;
  let calls = 0;
  const counter = (text) => {
    calls++;
    // Longer and shorter texts than the outer one, through the same buffer.
    assert.equal(parse(inner).k[0].length, 200000);
    assert.equal(decode('[1]'), '[1]');
    return Buffer.byteLength(text);
  };
  const gated = encodeGated(outer, { tokenizer: counter, minSaving: 0 });
  assert.ok(calls >= 2);
  const plain = encodeGated(outer, { minSaving: 0 });
  assert.equal(gated.chosen, 'stc');
  assert.equal(decode(gated.text), decode(plain.text));
  assert.deepEqual(parse(gated.text), JSON.parse(outer));
});

'use strict';
// Round-trip properties with fast-check. Seeded for reproducible runs; set
// STC_FC_SEED to explore other seeds, STC_FC_RUNS to run more cases.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { parse, stringify, encode, decode, StcError } = require('..');

const seed = process.env.STC_FC_SEED ? Number(process.env.STC_FC_SEED) : 20261129;
const numRuns = process.env.STC_FC_RUNS ? Number(process.env.STC_FC_RUNS) : 300;
const params = { seed, numRuns };

// Strings with any UTF-16 code unit, lone surrogates included.
const str = fc.string({ unit: 'binary', maxLength: 8 });
const key = fc.oneof(fc.constantFrom('id', 'name', '_x1', '__proto__', 'a b', '', 'é', '[2]', 'x"y'), str);
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e21, 1.5e-7, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE),
);
const primitive = fc.oneof(fc.constant(null), fc.boolean(), number, str);

// Arrays of flat objects with one key sequence: the columnar case.
const table = fc
  .uniqueArray(key, { minLength: 1, maxLength: 4 })
  .chain((keys) =>
    fc.array(
      fc.tuple(...keys.map(() => primitive)).map((cells) => Object.fromEntries(keys.map((k, i) => [k, cells[i]]))),
      { maxLength: 5 },
    ),
  );

const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    primitive,
    table,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(primitive, { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));

test('decode(encode(json, profile)) is the minified JSON, for both profiles and pretty input', () => {
  fc.assert(
    fc.property(value, fc.constantFrom('compact', 'readable'), (v, profile) => {
      const minified = JSON.stringify(v);
      assert.equal(decode(encode(minified, { profile })), minified);
      assert.equal(decode(encode(JSON.stringify(v, null, 2), { profile })), minified);
      assert.equal(decode(Buffer.from(encode(Buffer.from(minified), { profile }))), minified);
    }),
    params,
  );
});

/** What parse(text, { bigint: true }) gives for JSON.parse's value of JSON.stringify output. */
function bigintView(x) {
  if (typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x) && Math.abs(x) < 1e21) return BigInt(JSON.stringify(x));
  if (Array.isArray(x)) return x.map(bigintView);
  if (x !== null && typeof x === 'object') {
    const out = {};
    for (const k of Object.keys(x)) {
      Object.defineProperty(out, k, { value: bigintView(x[k]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return x;
}

test('parse(stringify(v)) equals JSON.parse(JSON.stringify(v)), both parse and stringify paths', () => {
  fc.assert(
    fc.property(value, fc.constantFrom('compact', 'readable'), (v, profile) => {
      const expected = JSON.parse(JSON.stringify(v));
      const viaJson = stringify(v, { profile });
      const viaWalker = stringify(v, { profile, bigint: true });
      assert.equal(viaWalker, viaJson);
      assert.deepEqual(parse(viaJson), expected);
      assert.deepEqual(parse(viaJson, { bigint: true }), bigintView(expected));
    }),
    params,
  );
});

test('BigInt values survive stringify/parse with bigint: true', () => {
  const withBig = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
      primitive,
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(key, tie('v'), { maxKeys: 4 }),
    ),
  })).v;
  const safe = (x) => {
    if (typeof x === 'bigint') {
      return x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;
    }
    if (typeof x === 'number') return JSON.parse(JSON.stringify(x));
    if (Array.isArray(x)) return x.map(safe);
    if (x !== null && typeof x === 'object') {
      const out = {};
      for (const k of Object.keys(x)) Object.defineProperty(out, k, { value: safe(x[k]), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return x;
  };
  fc.assert(
    fc.property(withBig, (v) => {
      assert.deepEqual(parse(stringify(v, { bigint: true }), { bigint: true }), safe(v));
    }),
    params,
  );
});

test('arbitrary and mutated input: a value or an StcError, the same from every path', () => {
  const mutated = fc
    .tuple(value, fc.nat(), fc.constantFrom('', ',', ':', '/', '[', ']', '{', '}', '"', '[2]', '0', ' ', '\\', 'é'))
    .map(([v, at, insert]) => {
      const s = encode(JSON.stringify(v));
      const i = at % (s.length + 1);
      return s.slice(0, i) + insert + s.slice(i + (at % 2));
    });
  const input = fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), fc.string({ unit: 'binary' }), mutated);
  fc.assert(
    fc.property(input, (s) => {
      let json;
      try {
        json = decode(s);
      } catch (e) {
        assert.ok(e instanceof StcError, String(e));
        assert.ok(e.offset >= 0 && e.offset <= Buffer.byteLength(s));
        assert.ok(e.line >= 1 && e.column >= 1);
        for (const bigint of [false, true]) {
          try {
            parse(s, { bigint });
            assert.fail('parse accepted what decode refused');
          } catch (e2) {
            assert.deepEqual([e2.code, e2.offset], [e.code, e.offset]);
          }
        }
        return;
      }
      assert.deepEqual(parse(s), JSON.parse(json));
      assert.deepEqual(parse(s, { bigint: true }), bigintView(JSON.parse(json)));
    }),
    params,
  );
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
      try {
        decode(bytes);
        parse(bytes, { bigint: true });
      } catch (e) {
        assert.ok(e instanceof StcError, String(e));
      }
    }),
    params,
  );
});

'use strict';
// The fast paths of the value builder (parse with bigint: true) and of the
// walker (stringify with bigint: true), bench/CANDIDATES.md candidates 7 and
// 11: integers read in one pass, one-byte strings for Latin-1 text,
// null/true/false fetched once per call, the key cache, strings read into a
// kept buffer. Each is checked at its edges against the default paths
// (JSON.parse of decode's text, JSON.stringify), which take none of them.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parse, decode, encode } = require('..');

const viaJson = (stc) => JSON.parse(decode(stc));
const viaValues = (stc) => parse(stc, { bigint: true });

test('integers up to 15 digits take the one-pass reader; the others, -0 and fractions the float parser', () => {
  const lexemes = [
    '0', '-0', '7', '-7', '10', '-10', '999999999999999', '-999999999999999', '100000000000000',
    '1000000000000000', '9007199254740991', '-9007199254740991', '0.0', '-0.0', '1e2', '-1E-2', '12.5',
    '123456789012345', '1234567890123456', '00',
  ].filter((l) => l !== '00');
  const stc = `([${lexemes.length}]: ${lexemes.join(',')})`;
  const got = viaValues(stc);
  const want = viaJson(stc);
  assert.equal(got.length, lexemes.length);
  lexemes.forEach((l, i) => assert.ok(Object.is(got[i], want[i]), `${l}: ${got[i]} vs ${want[i]}`));
  assert.ok(Object.is(viaValues('-0'), -0));
  assert.ok(Object.is(viaValues('{a: -0}').a, -0));
  assert.equal(viaValues('-999999999999999'), -999999999999999);
  // A 16-digit integer beyond 2^53 is a BigInt with bigint: true.
  assert.equal(viaValues('9999999999999999'), 9999999999999999n);
});

test('strings: ASCII, Latin-1, beyond Latin-1, pairs and lone surrogates, with and without escapes', () => {
  const strings = ['', 'plain', 'café', 'ÿ\u0080', '日本語', 'a😀b', '\u00ff\u0100', 'x\ud800y', '\udfff', 'tab\there', 'é\n', '\u0000'];
  const value = { s: strings, o: Object.fromEntries(strings.map((s, i) => [s, i])) };
  const stc = encode(JSON.stringify(value));
  assert.deepEqual(viaValues(stc), value);
  assert.deepEqual(viaValues(stc), viaJson(stc));
  for (const s of strings) {
    assert.equal(viaValues(JSON.stringify(s)), s, JSON.stringify(s));
  }
});

test('null, true and false, many times and in every place', () => {
  const value = { a: [null, true, false, null], b: null, c: true, d: false, rows: Array.from({ length: 50 }, (_, i) => ({ n: null, t: i % 2 === 0, f: false })) };
  const stc = encode(JSON.stringify(value));
  assert.deepEqual(viaValues(stc), value);
  assert.equal(viaValues('null'), null);
  assert.equal(viaValues('true'), true);
  assert.equal(viaValues('false'), false);
});

test('the key cache: repeated, non-ASCII, __proto__ and duplicate keys, and more keys than it holds', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ id: i, 'clé': 'v', '鍵': i, [`k${i}`]: i }));
  const stc = encode(JSON.stringify(rows));
  assert.deepEqual(viaValues(stc), rows);
  // __proto__ is an own data property every time it appears, cached or not.
  const protos = viaValues('[{"__proto__": 1}, {"__proto__": {"x": 2}}, {"__proto__": 3, "a": 1}]');
  for (const o of protos) {
    assert.ok(Object.prototype.hasOwnProperty.call(o, '__proto__'));
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
  }
  assert.deepEqual(protos.map((o) => o.__proto__), [1, { x: 2 }, 3]);
  // The last duplicate wins, as with JSON.parse.
  assert.deepEqual(viaValues('{"a": 1, "b": 2, "a": 3}'), JSON.parse('{"a": 1, "b": 2, "a": 3}'));
  // 6,000 distinct keys (the cache keeps 4,096), each used twice.
  const wide = Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`key${i}`, { [`key${i}`]: i }]));
  assert.deepEqual(viaValues(encode(JSON.stringify(wide))), wide);
});

test('a huge array of small integers and of short rows', () => {
  const ints = Array.from({ length: 200000 }, (_, i) => (i % 3 === 1 ? -i : i));
  const got = viaValues(encode(JSON.stringify(ints)));
  assert.equal(got.length, ints.length);
  assert.deepEqual(got, ints);
  const rows = Array.from({ length: 20000 }, (_, i) => ({ id: i, ok: i % 2 === 0, name: `n${i}`, v: null }));
  assert.deepEqual(viaValues(encode(JSON.stringify(rows))), rows);
});

test('objects: member order, nesting, duplicate keys and deep nesting as with JSON.parse', () => {
  const stc = '{trap: 1, inner: {trap: [{trap: 2}], z: 1, a: 2}, "": {}, rows[2]{trap,b}: 1,{trap:3} / 2,[]}';
  const got = viaValues(stc);
  assert.deepEqual(got, viaJson(stc));
  assert.deepEqual(Object.keys(got), ['trap', 'inner', '', 'rows']);
  assert.deepEqual(Object.keys(got.inner), ['trap', 'z', 'a']);
  // A duplicate key keeps its first position and its last value.
  const dup = viaValues('{"b": 1, "a": 2, "b": 3}');
  assert.deepEqual(Object.entries(dup), [['b', 3], ['a', 2]]);
  // Deeply nested objects.
  const deep = parse('{"a":'.repeat(500) + '1' + ', "z": 2}'.repeat(500), { bigint: true, maxDepth: 1000 });
  let o = deep;
  for (let i = 0; i < 499; i++) o = o.a;
  assert.deepEqual(o, { a: 1, z: 2 });
});

test('stringify (bigint: true, the walker) reads strings and keys of every length around its buffer, lone surrogates kept', () => {
  const { stringify } = require('..');
  const lengths = [0, 1, 254, 255, 256, 257, 511, 512, 513, 5000, 100000, 3];
  const strings = lengths.flatMap((n) => ['a'.repeat(n), 'é'.repeat(n), '😀'.repeat(Math.ceil(n / 2)).slice(0, n), `${'x'.repeat(Math.max(0, n - 1))}\ud800`]);
  const value = {
    list: strings,
    keyed: Object.fromEntries(lengths.map((n, i) => [`${'k'.repeat(n)}${i}`, 'é'.repeat(n % 300)])),
  };
  const viaWalker = stringify(value, { bigint: true });
  assert.equal(viaWalker, stringify(value));
  assert.deepEqual(parse(viaWalker), value);
  // A surrogate pair cut at the buffer's end (255 units fit beside the NUL) is read whole.
  const cut = `${'y'.repeat(254)}😀tail`;
  assert.equal(parse(stringify([cut], { bigint: true }))[0], cut);
  assert.equal(stringify({ [cut]: 1n }, { bigint: true }), stringify({ [cut]: 1 }));
});

test('the walker shares a handle scope among 64 elements: containers at and around the batch edges, an exception mid-batch', () => {
  const { stringify } = require('..');
  const mixed = Array.from({ length: 1000 }, (_, i) =>
    [62, 63, 64, 65, 127, 128, 129].includes(i % 200) || i % 7 === 0 ? { i, inner: [i, { s: `v${i}` }] } : i % 3 === 0 ? `s${i}` : i,
  );
  const value = { mixed, wide: Object.fromEntries(mixed.slice(0, 300).map((v, i) => [`k${i}`, v])), big: 5n };
  const text = stringify(value, { bigint: true });
  assert.equal(text, stringify({ ...value, big: 5 }));
  assert.deepEqual(parse(text, { bigint: true }), { ...value, big: 5 });
  // A getter that throws at element 130 of a container inside a batch: the
  // same exception comes back, and the walker works afterwards.
  const mine = new RangeError('element 130');
  const arr = Array.from({ length: 200 }, (_, i) => ({ i }));
  Object.defineProperty(arr, 130, { get() { throw mine; }, enumerable: true });
  const holder = { before: Array.from({ length: 70 }, (_, i) => [i]), arr, after: 1n };
  assert.throws(() => stringify(holder, { bigint: true }), (e) => e === mine);
  assert.equal(stringify({ ok: [1n, { a: 2 }] }, { bigint: true }), stringify({ ok: [1, { a: 2 }] }));
});

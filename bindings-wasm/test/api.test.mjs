// The JavaScript API of the Node build: names, options, errors, values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { stc, ROOT, CORPUS_DIR } from './load.mjs';
import { thrown } from '../../js-shared/test/processes.mjs';

// Names, values, StcError's fields and messages and the option errors both
// packages share are tested once, in js-shared/test/api.mjs
// (test/shared-api.test.mjs); this file keeps what is the wasm build's own.

test('Uint8Array (and Buffer) inputs are UTF-8 bytes', () => {
  assert.equal(stc.decode(new TextEncoder().encode('{k: "é"}')), '{"k":"é"}');
  assert.equal(stc.encode(Buffer.from('{"k": ["é"]}')), '{k:["é"]}');
  const e = thrown(() => stc.decode(Uint8Array.from([0x5b, 0x22, 0xff, 0x22, 0x5d])));
  assert.equal(e.code, 'invalid_utf8');
  assert.equal(e.offset, 2);
});

test('codec errors are Error with code, offset (bytes), line, column and the Display message', () => {
  const e = thrown(() => stc.decode('{a: 1,\n b 2}'));
  assert.ok(e instanceof Error);
  assert.ok(e instanceof SyntaxError, 'a SyntaxError, like JSON.parse and the Node package');
  assert.equal(e.name, 'StcError');
  assert.equal(e.code, 'unexpected_char');
  assert.equal(e.offset, 10);
  assert.equal(e.line, 2);
  assert.equal(e.column, 4);
  assert.equal(e.message, "expected ':' after object key, found '2' at line 2 column 4");
  assert.equal(e.reason, "expected ':' after object key, found '2'");
  assert.equal(e.index, 10);
  // Offsets count UTF-8 bytes, columns count characters.
  const u = thrown(() => stc.decode('["é", :]'));
  assert.equal(u.code, 'unexpected_char');
  assert.equal(u.offset, 7);
  assert.equal(u.column, 7);
  assert.equal(u.index, 6, 'UTF-16 index of the byte offset');
  assert.equal('["é", :]'.slice(u.index), ':]');
  const astral = thrown(() => stc.parse('["😀", :]', { bigint: true }));
  assert.deepEqual([astral.offset, astral.index, astral.column], [9, 7, 7]);
  // Bytes have no string index.
  assert.equal(thrown(() => stc.decode(Buffer.from('["é", :]'))).index, undefined);
  // Too few values is count_mismatch at the count, however the body ends (design D.3).
  for (const [text, at] of [['([3]: 1,2', 2], ['{ids[3]: 1,2}', 5], ['([3]:  1', 2]]) {
    assert.deepEqual([thrown(() => stc.decode(text)).code, thrown(() => stc.decode(text)).offset], ['count_mismatch', at], text);
  }
  assert.equal(thrown(() => stc.decode('([3]: 1,2,3,4)')).code, 'unexpected_char');
  assert.equal(thrown(() => stc.encode('{"a": NaN}')).code, 'unexpected_char');
  assert.equal(thrown(() => stc.parse('[1,]')).code, 'unexpected_char');
});

test('maxDepth is honoured by every function', () => {
  const deep = '[[[1]]]';
  assert.equal(stc.decode(deep, { maxDepth: 3 }), '[[[1]]]');
  assert.equal(thrown(() => stc.decode(deep, { maxDepth: 2 })).code, 'depth_limit');
  assert.equal(thrown(() => stc.encode(deep, { maxDepth: 2 })).code, 'depth_limit');
  assert.equal(thrown(() => stc.parse(deep, { maxDepth: 2 })).code, 'depth_limit');
  assert.equal(thrown(() => stc.parse(deep, { maxDepth: 2, bigint: true })).code, 'depth_limit');
  assert.equal(thrown(() => stc.stringify([[[1]]], { maxDepth: 2 })).code, 'depth_limit');
  assert.equal(thrown(() => stc.encodeGated(deep, { maxDepth: 2 })).code, 'depth_limit');
  // Default limit is 128.
  assert.equal(thrown(() => stc.decode('['.repeat(129) + ']'.repeat(129))).code, 'depth_limit');
  assert.equal(stc.decode('['.repeat(128) + ']'.repeat(128)).length, 256);
});

test('parse: numbers like JSON.parse by default', () => {
  const v = stc.parse('{users[2]{id,name}: 1,"a" / 2,"b", big: 12345678901234567890, x: 1.5e2}');
  assert.deepEqual(v, { users: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }], big: 12345678901234567890, x: 150 });
  assert.equal(typeof v.big, 'number');
});

test('parse with bigint: integers beyond 2^53 become BigInt, others stay numbers', () => {
  const text = '{big: 12345678901234567890, neg: -9007199254740993, safe: 9007199254740991, f: 1.0, e: 1e400, z: -0}';
  const v = stc.parse(text, { bigint: true });
  assert.equal(v.big, 12345678901234567890n);
  assert.equal(v.neg, -9007199254740993n);
  assert.equal(v.safe, 9007199254740991);
  assert.equal(v.f, 1);
  assert.equal(v.e, Infinity);
  assert.ok(Object.is(v.z, -0));
  // Otherwise the same values as the default mode, on a real document too.
  const doc = readFileSync(join(CORPUS_DIR, 'citm_catalog.json'), 'utf8');
  assert.deepEqual(stc.parse(stc.encode(doc), { bigint: true }), JSON.parse(doc));
});

test('parse keeps what JSON.parse keeps: __proto__ keys, duplicates, lone surrogates', () => {
  for (const bigint of [false, true]) {
    const v = stc.parse('{"__proto__": {x: 1}, a: 1, a: 2, s: "\\ud800", t: "\\ud83d\\ude00"}', { bigint });
    assert.deepEqual(Object.keys(v), ['__proto__', 'a', 's', 't']);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(v['__proto__'], { x: 1 });
    assert.equal(v.a, 2);
    assert.equal(v.s, '\ud800');
    assert.equal(v.t, '😀');
  }
});

test('stringify follows JSON.stringify; BigInt only with bigint: true', () => {
  const value = {
    id: 1, name: 'x"y', skip: undefined, f() {}, tags: ['a', undefined, () => 1], n: NaN, inf: -Infinity,
    big: 12345678901234567890n, date: new Date(0), boxed: [new Number(2), new String('s'), new Boolean(false)],
    rows: [{ a: 1, b: 'p' }, { a: 2, b: 'q' }], lone: '\udc00', neg: -0, small: 5e-7, large: 1e21,
  };
  assert.throws(() => stc.stringify(value), TypeError, 'BigInt throws by default, as in JSON.stringify');
  const out = stc.stringify(value, { bigint: true });
  assert.equal(
    out,
    '{id:1,name:"x\\"y",tags:["a",null,null],n:null,inf:null,big:12345678901234567890,' +
      'date:"1970-01-01T00:00:00.000Z",boxed:[2,"s",false],rows[2]{a,b}:1,"p"/2,"q",lone:"\\udc00",' +
      'neg:0,small:5e-7,large:1e+21}',
  );
  // Without BigInt, the same text as encoding JSON.stringify's output.
  const { big, ...plain } = value;
  assert.equal(stc.stringify(plain, { profile: 'readable' }), stc.encode(JSON.stringify(plain), { profile: 'readable' }));
  assert.deepEqual(stc.parse(stc.stringify(plain)), JSON.parse(JSON.stringify(plain)));
  for (const nothing of [undefined, () => 1, Symbol('s'), { toJSON: () => undefined }]) {
    assert.equal(stc.stringify(nothing), undefined);
    assert.equal(JSON.stringify(nothing), undefined);
  }
  const cyclic = { a: [] };
  cyclic.a.push(cyclic);
  assert.equal(thrown(() => stc.stringify(cyclic)).message, 'Converting circular structure to STC'); // a TypeError (issue 15)
});

test('encodeGated with the estimate tokenizer', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ id: i, name: `user${i}`, active: true }));
  const g = stc.encodeGated(JSON.stringify(rows));
  assert.equal(g.chosen, 'stc');
  assert.ok(g.text.startsWith('([20]{id,name,active}:'));
  assert.ok(g.stcTokens < g.jsonTokens * 0.95);
  assert.equal(g.jsonTokens, stc.countTokens(JSON.stringify(rows)));
  assert.equal(g.stcTokens, stc.countTokens(g.text));
  const flat = stc.encodeGated('[1, 2, 3]');
  assert.deepEqual(flat, { text: '[1,2,3]', chosen: 'json', jsonTokens: flat.jsonTokens, stcTokens: flat.stcTokens });
  // minSaving 1 can never be met: JSON comes back, minified.
  const never = stc.encodeGated(JSON.stringify(rows, null, 2), { minSaving: 1 });
  assert.equal(never.chosen, 'json');
  assert.equal(never.text, JSON.stringify(rows));
  const readable = stc.encodeGated(JSON.stringify(rows), { profile: 'readable', minSaving: 0 });
  assert.equal(readable.text, stc.encode(JSON.stringify(rows), { profile: 'readable' }));
  assert.equal(thrown(() => stc.encodeGated('{"a":')).code, 'unexpected_end');
  // Bytes too; invalid UTF-8 is stc-core's invalid_utf8 at its byte offset.
  assert.deepEqual(stc.encodeGated(Buffer.from(JSON.stringify(rows))), g);
  const bad = thrown(() => stc.encodeGated(Uint8Array.from([0x5b, 0x31, 0x2c, 0xc3, 0x5d])));
  assert.deepEqual([bad.code, bad.offset], ['invalid_utf8', 3]);
  assert.deepEqual(stc.encodeGated(JSON.stringify(rows), { tokenizer: 'estimate' }), g);
});

test('countTokens is the estimate: grows with text, zero for empty', () => {
  assert.equal(stc.countTokens(''), 0);
  const a = stc.countTokens('{"id":1,"name":"users"}');
  assert.ok(a > 5 && a < 15, String(a));
  assert.ok(stc.countTokens('hello world '.repeat(100)) > stc.countTokens('hello world'));
  assert.equal(stc.countTokens('{"id":1,"name":"users"}', 'estimate'), a);
});

test('the .d.ts declares typed signatures for both builds', () => {
  for (const build of ['web', 'node']) {
    const dts = readFileSync(join(ROOT, 'pkg', build, 'stc_wasm.d.ts'), 'utf8');
    assert.match(dts, /export function decode\(stc: Input, options\?: DecodeOptions\): string;/);
    assert.match(dts, /export function parse\(stc: Input, options\?: ParseOptions\): any;/);
    assert.match(dts, /export function encodeGated\(json: Input, options\?: GateOptions\): Gated;/);
    // The unions come from js-shared's generated stc_rules types, the option
    // types from js-shared/api.d.ts (`.d.mts` in the node folder).
    const ext = build === 'web' ? '.js' : '.mjs';
    assert.ok(
      dts.includes(`import type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion } from './stc_rules${ext}';`),
      `${build}: imports ./stc_rules${ext}`,
    );
    assert.ok(dts.includes(`} from './api${ext}';`), `${build}: imports ./api${ext}`);
    assert.doesNotMatch(dts, /'count_mismatch'|'readable'/, 'no hand-written error-code or profile union');
    assert.match(dts, /export function stringify\(value: unknown, options\?: StringifyOptions\): string \| undefined;/);
    assert.match(dts, /export function countTokens\(text: string, tokenizer\?: TokenizerName \| TokenCounter\): number;/);
  }
});

test('a raw lone surrogate in a string input has no UTF-8 form: invalid_utf8 at its position, as in the Node package', () => {
  const text = '{"é": "x\udc00y"}';
  for (const name of ['parse', 'decode', 'decodeStc', 'encode', 'encodeGated']) {
    const e = thrown(() => stc[name](text));
    assert.equal(e.name, 'StcError', name);
    assert.deepEqual([e.code, e.offset, e.index, e.line, e.column], ['invalid_utf8', 9, 8, 1, 9], name);
  }
  // A well-formed pair is fine, and escaped lone surrogates are data.
  assert.equal(stc.parse('"\\ud83d\\ude00 \ud83d\ude00"'), '\ud83d\ude00 \ud83d\ude00');
  assert.equal(stc.parse('"\\udc00"'), '\udc00');
});

test('the build wrote the module\'s version list (for the web build before init()) as the core gives it', async () => {
  const native = createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js'));
  for (const file of ['pkg/web/stc_names.js', 'pkg/node/stc_names.mjs']) {
    const { VERSION_NAMES } = await import(join(ROOT, file));
    assert.deepEqual(VERSION_NAMES, native.versionNames(), file);
    assert.ok(Object.isFrozen(VERSION_NAMES));
  }
  assert.ok(native.versionNames().includes('2'));
});

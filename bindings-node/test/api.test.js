'use strict';
// The JSON-like API: parse, stringify, encode, decode, the gate, errors.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const stc = require('..');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
// Exact o200k_base counts: the opt-in the addon documents (a devDependency).
const { countTokens: o200k } = require('gpt-tokenizer');
const { thrown: catchErr, stcBinary } = require('../../js-shared/test/processes.mjs');
const { parse, stringify, encode, decode, decodeStc, encodeGated, countTokens, StcError } = stc;

/** Both parse paths: the default (decode + JSON.parse) and the napi value builder. */
const parsers = [
  ['default', (t, o) => parse(t, o)],
  ['bigint', (t, o) => parse(t, { ...o, bigint: true })],
];

test('parse reads STC and plain JSON', () => {
  for (const [name, p] of parsers) {
    assert.deepEqual(p('{name: "foo", tags[2]: "a","b", rows[2]{id,ok}: 1,true / 2,false}'), {
      name: 'foo',
      tags: ['a', 'b'],
      rows: [{ id: 1, ok: true }, { id: 2, ok: false }],
    }, name);
    assert.deepEqual(p('([2]{a,b}: null,"x" / 1.5,[])'), [{ a: null, b: 'x' }, { a: 1.5, b: [] }], name);
    assert.deepEqual(p(' {"a": [1, {"b": null}], "c": "\\u00e9\\n"} '), { a: [1, { b: null }], c: 'é\n' }, name);
    assert.equal(p('"x"'), 'x', name);
    assert.equal(p('null'), null, name);
    assert.deepEqual(p('([0]:)'), [], name);
  }
});

test('parse accepts Buffer and Uint8Array', () => {
  for (const [name, p] of parsers) {
    assert.deepEqual(p(Buffer.from('{é[2]: 1,2}'.replace('é', '"é"'))), { é: [1, 2] }, name);
    assert.deepEqual(p(new TextEncoder().encode('([3]: 1,2,3)')), [1, 2, 3], name);
    assert.deepEqual(p(new Uint8Array(0).subarray(0, 0).length === 0 ? Buffer.from('[]') : null), [], name);
  }
});

test('lone surrogates come through as lone surrogates', () => {
  for (const [name, p] of parsers) {
    const s = p('{k: "a\\ud800b", "\\udc00": 1}');
    assert.equal(s.k.length, 3, name);
    assert.equal(s.k.charCodeAt(1), 0xd800, name);
    assert.deepEqual(Object.keys(s), ['k', '\udc00'], name);
  }
  assert.equal(decode('"\\uD800"'), '"\\ud800"');
  for (const bigint of [false, true]) {
    const text = stringify({ s: 'x\ud800y', '\udfff': ['\ud83d'] }, { bigint });
    assert.equal(text, '{s:"x\\ud800y","\\udfff":["\\ud83d"]}', `bigint ${bigint}`);
    assert.deepEqual(parse(text), { s: 'x\ud800y', '\udfff': ['\ud83d'] });
  }
});

test('a raw lone surrogate in a string input has no UTF-8 form: invalid_utf8 at its position', () => {
  const text = '{"é": "x\udc00y"}';
  for (const [name, fn] of [...parsers, ['decode', decode], ['encode', encode], ['encodeGated', encodeGated]]) {
    const e = catchErr(() => fn(text));
    assert.ok(e instanceof StcError, name);
    assert.deepEqual([e.code, e.offset, e.index, e.line, e.column], ['invalid_utf8', 9, 8, 1, 9], name);
  }
  // A well-formed pair is fine, and escaped lone surrogates are data.
  assert.equal(parse('"\\ud83d\\ude00 \ud83d\ude00"'), '\ud83d\ude00 \ud83d\ude00');
});

test('__proto__ is an own key and duplicate keys keep the last value, like JSON.parse', () => {
  for (const [name, p] of parsers) {
    const o = p('{__proto__: {polluted: 1}, "a": 1, a: 2}');
    assert.equal(Object.getPrototypeOf(o), Object.prototype, name);
    assert.deepEqual(Object.keys(o), ['__proto__', 'a'], name);
    assert.equal(o.a, 2, name);
    assert.deepEqual(Object.getOwnPropertyDescriptor(o, '__proto__').value, { polluted: 1 }, name);
    assert.equal({}.polluted, undefined, name);
    const escaped = p('{"\\u005f_proto__": 1}');
    assert.deepEqual(Object.keys(escaped), ['__proto__'], name);
  }
  assert.equal(decode('{"a":1,a:2}'), '{"a":1,"a":2}');
});

test('numbers: default like JSON.parse, bigint option for unsafe integers', () => {
  for (const [name, p] of parsers) {
    const v = p('[1.0, 1e3, -0, 1e400, 0.1, 9007199254740991, -9007199254740991]');
    assert.deepEqual(v, [1, 1000, -0, Infinity, 0.1, 9007199254740991, -9007199254740991], name);
    assert.ok(Object.is(v[2], -0), name);
  }
  const big = '{id: 12345678901234567890, neg: -9007199254740992, edge: 9007199254740992, safe: 9007199254740991, f: 12345678901234567890.5, e: 1e20}';
  assert.deepEqual(parse(big), {
    id: 12345678901234567000,
    neg: -9007199254740992,
    edge: 9007199254740992,
    safe: 9007199254740991,
    f: 12345678901234567000,
    e: 1e20,
  });
  assert.deepEqual(parse(big, { bigint: true }), {
    id: 12345678901234567890n,
    neg: -9007199254740992n,
    edge: 9007199254740992n,
    safe: 9007199254740991,
    f: 12345678901234567000,
    e: 1e20,
  });
  const huge = '1' + '0'.repeat(60);
  assert.equal(parse(`([1]: ${huge})`, { bigint: true })[0], 10n ** 60n);
  // decode never touches lexemes.
  assert.equal(decode(`{n[3]: ${huge},1.50,-0.0e+01}`), `{"n":[${huge},1.50,-0.0e+01]}`);
});

test('stringify follows JSON.stringify rules', () => {
  const date = new Date(0);
  const value = {
    a: [1, undefined, () => 1, Symbol('s'), NaN, -Infinity, -0, 1e21, 1.5e-7],
    skipped: undefined,
    fn() {},
    [Symbol('k')]: 1,
    date,
    boxed: [new Number(3), new String('s'), new Boolean(false)],
    custom: { toJSON(key) { return `key=${key}`; } },
    nested: { deeper: { toJSON() { return undefined; } }, kept: 1 },
  };
  for (const bigint of [false, true]) {
    const expectedJson = JSON.stringify(value);
    const out = stringify(value, { bigint });
    assert.equal(decode(out), expectedJson, `bigint ${bigint}`);
    assert.equal(out, encode(expectedJson), `bigint ${bigint}`);
    assert.equal(stringify(undefined, { bigint }), undefined);
    assert.equal(stringify(() => 1, { bigint }), undefined);
    assert.equal(stringify(Symbol('x'), { bigint }), undefined);
    assert.equal(stringify({ toJSON() { return undefined; } }, { bigint }), undefined);
    assert.equal(stringify('x', { bigint }), '"x"');
    assert.equal(stringify(-0, { bigint }), '0');
    const cyclic = { a: [] };
    cyclic.a.push(cyclic);
    assert.throws(() => stringify(cyclic, { bigint }), TypeError);
    assert.throws(() => stringify({ get x() { throw new RangeError('getter'); } }, { bigint }), RangeError);
  }
  assert.throws(() => stringify({ n: 1n }), TypeError);
  assert.equal(stringify({ n: 12345678901234567890n, m: [1n, -2n] }, { bigint: true }), '{n:12345678901234567890,m:[1,-2]}');
  assert.equal(stringify(Object(5n), { bigint: true }), '5');
});

test('stringify profiles', () => {
  const value = { id: 7, tags: ['a', 'b'], rows: [{ x: 1, y: 'p' }, { x: 2, y: 'q' }], 'two words': null };
  for (const bigint of [false, true]) {
    assert.equal(stringify(value, { bigint }), '{id:7,tags:["a","b"],rows[2]{x,y}:1,"p"/2,"q","two words":null}');
    assert.equal(
      stringify(value, { profile: 'readable', bigint }),
      // Readable: one table row per line (spec 5.6).
      '{id: 7, tags: ["a", "b"], rows[2]{x,y}:\n  1,"p" /\n  2,"q", "two words": null}',
    );
  }
});

test('encode and decode are text functions; decodeStc is decode', () => {
  const json = '[{"id": 1, "name": "users", "method": "GET"}, {"id": 2, "name": "orders", "method": "POST"}]';
  const readable = encode(json, { profile: 'readable' });
  assert.equal(readable, '([2]{id,name,method}:\n  1,"users","GET" /\n  2,"orders","POST")');
  assert.equal(encode(json), '([2]{id,name,method}:1,"users","GET"/2,"orders","POST")');
  assert.equal(decode(readable), JSON.stringify(JSON.parse(json)));
  assert.equal(decodeStc, decode);
  assert.equal(decodeStc(Buffer.from(readable)), decode(readable));
  assert.equal(encode(Buffer.from(json)), encode(json));
});

test('parse: text beyond Latin-1 (the one-byte fast path writes \\u escapes) gives JSON.parse\'s values', () => {
  const value = {
    'é€😀中': ['ÿ', 'Ā', '\u0100\u00ff', '"€\\', '\\u20ac', 'a😀b', '\ud83d\ude00', 'x'.repeat(40) + '€'],
    '中文': { 'ключ': 'значение', '\u007f\u0080': '\u2028\u2029' },
  };
  const json = JSON.stringify(value);
  for (const input of [encode(json), json, Buffer.from(encode(json))]) {
    for (const [name, p] of parsers) assert.deepEqual(p(input), value, name);
  }
  assert.equal(decode(encode(json)), json);
});

test('errors carry code, offset, line, column, index and a message', () => {
  // The class, fields and message: js-shared/test/api.mjs (both packages).
  assert.match(catchErr(() => decode('{a: 1,\n b 2}')).stack, /StcError/);

  // Offsets count UTF-8 bytes; index counts UTF-16 units of the string. Too
  // few values is count_mismatch at the count's first byte (design D.3).
  const text = '{"é😀": [3]: 1,2}';
  for (const [name, p] of [...parsers, ['decode', (t) => decode(t)]]) {
    const e = catchErr(() => p(text));
    assert.equal(e.code, 'count_mismatch', name);
    assert.equal(e.offset, Buffer.byteLength(text.slice(0, e.index)), name);
    assert.equal(e.index, text.indexOf('3'), name);
    assert.equal(e.column, [...text.slice(0, e.index)].length + 1, name);
    const fromBytes = catchErr(() => p(Buffer.from(text)));
    assert.deepEqual([fromBytes.code, fromBytes.offset, fromBytes.index], ['count_mismatch', e.offset, undefined], name);
  }

  const utf8 = catchErr(() => decode(Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d])));
  assert.deepEqual([utf8.code, utf8.offset], ['invalid_utf8', 2]);
  const json = catchErr(() => encode('{a: 1}'));
  assert.deepEqual([json.code, json.offset], ['unexpected_char', 1]);
  const counts = catchErr(() => parse('([1.5]: 1'));
  assert.equal(counts.code, 'invalid_count');
  const short = catchErr(() => parse('([1000000]: 1'));
  assert.deepEqual([short.code, short.offset], ['count_mismatch', 2]);
  // count_too_large only for a count no input could satisfy (above 2^64 - 1).
  const tooLarge = catchErr(() => parse('([18446744073709551616]: 1'));
  assert.equal(tooLarge.code, 'count_too_large');
  assert.ok(stc.ERROR_CODES.includes('count_mismatch'));
});

test('hostile input throws and never crashes', () => {
  const deep = '['.repeat(100000) + ']'.repeat(100000);
  for (const [name, p] of [...parsers, ['decode', decode], ['encode', encode]]) {
    assert.equal(catchErr(() => p(deep)).code, 'depth_limit', name);
    // The limit is only a policy (no clamp): 100,000 levels read and write.
    assert.ok(p(deep, { maxDepth: 1e9 }), name);
    assert.equal(catchErr(() => p('[1,2')).code, 'unexpected_end', name);
    assert.equal(catchErr(() => p('')).code, 'unexpected_end', name);
    assert.equal(catchErr(() => p('"\u0001"')).code, 'control_character', name);
  }
  assert.deepEqual(parse('[[[1]]]', { maxDepth: 3 }), [[[1]]]);
  assert.equal(catchErr(() => parse('[[[1]]]', { maxDepth: 2 })).code, 'depth_limit');
  let nested = 1;
  for (let i = 0; i < 200; i++) nested = [nested];
  for (const bigint of [false, true]) {
    assert.equal(catchErr(() => stringify(nested, { bigint })).code, 'depth_limit');
    assert.equal(parse(stringify(nested, { bigint, maxDepth: 300 }), { maxDepth: 300 }).length, 1);
  }
  assert.equal(catchErr(() => parse('([4294967296000]{a}: 1')).code, 'count_mismatch');
  assert.equal(catchErr(() => parse('([99999999999999999999]{a}: 1')).code, 'count_too_large');
});

test('arguments and options are checked', () => {
  assert.throws(() => parse(42), TypeError);
  assert.throws(() => decode(null), TypeError);
  assert.throws(() => encode({}), TypeError);
  assert.throws(() => encode('[]', { profile: 'fancy' }), RangeError);
  assert.throws(() => stringify([], { profile: 'fancy' }), RangeError);
  assert.throws(() => parse('[]', { maxDepth: -1 }), RangeError);
  assert.throws(() => parse('[]', { maxDepth: 1.5 }), RangeError);
  assert.throws(() => parse('[]', 'options'), TypeError);
  assert.throws(() => encodeGated('[]', { tokenizer: 'p50k' }), RangeError);
  assert.throws(() => encodeGated('[]', { minSaving: 'a lot' }), TypeError);
  assert.throws(() => countTokens('x', 'gpt2'), RangeError);
  assert.throws(() => countTokens(Buffer.from('x')), TypeError);
});

test('encodeGated returns JSON where STC loses and STC where it wins', () => {
  const small = encodeGated('[1, 2, 3]');
  assert.deepEqual(small, { text: '[1,2,3]', chosen: 'json', jsonTokens: small.jsonTokens, stcTokens: small.stcTokens });
  assert.ok(small.stcTokens >= small.jsonTokens * 0.95);

  const rows = Array.from({ length: 20 }, (_, i) => ({ id: i, name: `user${i}`, active: i % 2 === 0 }));
  const table = JSON.stringify(rows, null, 2);
  for (const [name, tokenizer] of [['estimate', 'estimate'], ['gpt-tokenizer', o200k]]) {
    const g = encodeGated(table, { tokenizer });
    assert.equal(g.chosen, 'stc', name);
    assert.ok(g.text.startsWith('([20]{id,name,active}:'), name);
    assert.ok(g.stcTokens < g.jsonTokens * 0.95, name);
    assert.deepEqual(parse(g.text), rows, name);
    assert.equal(g.jsonTokens, countTokens(JSON.stringify(rows), tokenizer), name);
    assert.equal(g.stcTokens, countTokens(encode(table), tokenizer), name);
  }
  const readable = encodeGated(table, { profile: 'readable' });
  assert.equal(readable.text, encode(table, { profile: 'readable' }));
  // Nothing can save 100 % of the tokens.
  assert.equal(encodeGated(table, { minSaving: 1 }).chosen, 'json');
  assert.equal(encodeGated(table, { minSaving: 1 }).text, JSON.stringify(rows));
  assert.equal(catchErr(() => encodeGated('[1,]')).code, 'unexpected_char');
});

test('countTokens: the estimate built in, exact counts through a counting function', () => {
  assert.equal(countTokens('hello world', o200k), 2);
  assert.equal(countTokens(''), 0);
  const estimate = countTokens('{"id":1,"name":"users"}');
  assert.equal(countTokens('{"id":1,"name":"users"}', 'estimate'), estimate);
  assert.ok(estimate > 5 && estimate < 15);
  // The addon has no BPE tables: the names say how to get exact counts.
  for (const name of ['o200k_base', 'cl100k_base']) {
    const e = catchErr(() => countTokens('x', name));
    assert.equal(e.constructor, RangeError);
    assert.match(e.message, /not in this package .*gpt-tokenizer/);
    assert.equal(catchErr(() => encodeGated('[1]', { tokenizer: name })).constructor, RangeError);
  }
});

test('encodeGated with a counting function: its counts decide, its errors come back as they are', () => {
  const rows = JSON.stringify(Array.from({ length: 30 }, (_, i) => ({ id: i, name: `user${i}` })));
  const seen = [];
  const byLength = (text) => {
    seen.push(text);
    return text.length;
  };
  const g = encodeGated(rows, { tokenizer: byLength });
  // Called on minified JSON, then on the STC candidate; the result holds its numbers.
  assert.deepEqual(seen, [rows, encode(rows)]);
  assert.deepEqual(g, { text: encode(rows), chosen: 'stc', jsonTokens: rows.length, stcTokens: encode(rows).length });
  // A function that finds STC dearer turns the choice around.
  const stcDear = (text) => (text.startsWith('[{') ? 10 : 1000);
  assert.deepEqual(encodeGated(rows, { tokenizer: stcDear }), { text: rows, chosen: 'json', jsonTokens: 10, stcTokens: 1000 });
  // minSaving applies to its numbers: 100 vs 96 saves 4 %.
  const close = (text) => (text.startsWith('[{') ? 100 : 96);
  assert.equal(encodeGated(rows, { tokenizer: close }).chosen, 'json');
  assert.equal(encodeGated(rows, { tokenizer: close, minSaving: 0.04 }).chosen, 'stc');
  // Bytes input is copied before the function runs (it may change the buffer).
  const bytes = Buffer.from(rows);
  const g2 = encodeGated(bytes, { tokenizer: (t) => { bytes.fill(0x20); return t.length; } });
  assert.equal(g2.text, encode(rows));
  const mine = new Error('counter failed');
  assert.equal(catchErr(() => encodeGated(rows, { tokenizer: () => { throw mine; } })), mine);
  for (const [bad, shown] of [[-1, '-1'], [1.5, '1.5'], ['7', '"7"'], [undefined, 'undefined'], [2 ** 53, '9007199254740992']]) {
    const e = catchErr(() => encodeGated(rows, { tokenizer: () => bad }));
    assert.equal(e.constructor, TypeError);
    assert.equal(e.message, `the tokenizer function must return a non-negative integer, got ${shown}`);
  }
  // Invalid JSON is an StcError before anything is counted.
  let calls = 0;
  assert.equal(catchErr(() => encodeGated('[1,]', { tokenizer: () => ++calls })).code, 'unexpected_char');
  assert.equal(calls, 0);
});

test("exact counts with gpt-tokenizer equal the CLI's o200k_base figures (stc stats)", () => {
  const corpus = path.join(__dirname, '..', '..', '..', 'shared', 'corpus');
  for (const file of ['github_events.json', 'twitter_api_response.json', 'google_maps_api_response.json']) {
    const out = execFileSync(stcBinary(), ['stats', '--tokenizer', 'o200k_base', path.join(corpus, file)], { encoding: 'utf8' });
    const block = out.slice(out.indexOf('o200k_base'));
    const header = block.split('\n')[0].trim().split(/\s+/).slice(1);
    const figures = block.split('\n')[1].trim().split(/\s+/).slice(1).map(Number);
    const cli = Object.fromEntries(header.map((h, i) => [h, figures[i]]));
    const json = fs.readFileSync(path.join(corpus, file));
    const minified = decode(json);
    assert.equal(countTokens(minified, o200k), cli.minified, `${file} minified`);
    assert.equal(countTokens(encode(json), o200k), cli.compact, `${file} compact`);
    const g = encodeGated(json, { tokenizer: o200k });
    assert.deepEqual([g.jsonTokens, g.stcTokens], [cli.minified, cli.compact], file);
    assert.equal(countTokens(g.text, o200k), cli.gated, `${file} gated`);
  }
});

test('ES module entry exports the same functions', async () => {
  const esm = await import('../index.mjs');
  for (const name of ['parse', 'stringify', 'encode', 'decode', 'decodeStc', 'encodeGated', 'countTokens', 'StcError']) {
    assert.equal(esm[name], stc[name], name);
  }
  assert.equal(esm.default, stc);
  assert.equal(stc.default, stc);
  assert.equal(stc.MEDIA_TYPE, 'application/stc+json');
});

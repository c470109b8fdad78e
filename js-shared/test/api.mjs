// One API test for both JavaScript packages: run by bindings-node/test/
// shared-api.test.mjs and bindings-wasm/test/shared-api.test.mjs with the
// package under test. The same calls must give the same values, the same
// error classes, fields and messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, thrown } from './processes.mjs';
import { apiTypes, rulesTypes } from '../install.mjs';
import { VERSIONS } from '../stc_rules.mjs';

/** The codes of stc-core's `ErrorKind::code`, read from stc-core/src/error.rs. */
export function coreErrorCodes() {
  const src = readFileSync(join(REPO, 'stc-core', 'src', 'error.rs'), 'utf8');
  const body = src.slice(src.indexOf('pub fn code(self)'));
  const codes = [...body.slice(0, body.indexOf('\n    }\n')).matchAll(/ErrorKind::\w+ => "(\w+)"/g)].map((m) => m[1]);
  if (codes.length === 0) throw new Error('no `ErrorKind::X => "code"` arms found in stc-core/src/error.rs');
  return codes;
}

/**
 * Registers the tests for one package.
 * - `stc`: the package as users load it;
 * - `native`: its native layer (the napi addon, the wasm-bindgen module);
 * - `installed`: the folder its build copied js-shared's files into, and `ext` ('.mjs' or '.js');
 * - `tokenizers`: the tokenizers it has;
 * - `pending`: { case name: reason } for cases waiting on a fix elsewhere (reported as TODO).
 */
export function apiTests({ name, stc, native, installed, ext, tokenizers, pending = {} }) {
  const t = (title, fn) => test(`${name}: ${title}`, { todo: pending[title] ?? false }, fn);

  t('the names every package exports', () => {
    for (const f of ['parse', 'stringify', 'encode', 'decode', 'decodeStc', 'encodeGated', 'countTokens']) {
      assert.equal(typeof stc[f], 'function', f);
    }
    assert.equal(typeof stc.StcError, 'function');
    assert.ok(Object.isFrozen(stc.ERROR_CODES));
  });

  t('ERROR_CODES is the native list (else stc-core ErrorKind codes from error.rs)', () => {
    const exported = native.errorCodes ?? native.ERROR_CODES;
    const want = exported === undefined ? coreErrorCodes() : typeof exported === 'function' ? exported() : exported;
    assert.deepEqual([...stc.ERROR_CODES].sort(), [...want].sort());
  });

  t('the installed TypeScript unions are generated from the one list', () => {
    const types = ext === '.mjs' ? '.d.mts' : '.d.ts';
    assert.equal(readFileSync(join(installed, `stc_rules${types}`), 'utf8'), rulesTypes());
    assert.equal(readFileSync(join(installed, `api${types}`), 'utf8'), apiTypes(ext), 'the option types are js-shared/api.d.ts');
    assert.equal(
      readFileSync(join(installed, `stc_rules${ext}`), 'utf8'),
      readFileSync(join(REPO, 'js-shared', 'stc_rules.mjs'), 'utf8'),
      'the package holds the current js-shared/stc_rules.mjs (rebuild it)',
    );
  });

  t('encode, decode, parse, stringify, both profiles', () => {
    const json = '{"name": "foo", "tags": ["a", "b"], "n": 1.0}';
    assert.equal(stc.encode(json), '{name:"foo",tags:["a","b"],n:1.0}');
    assert.equal(stc.encode(json, { profile: 'readable' }), '{name: "foo", tags: ["a", "b"], n: 1.0}');
    assert.equal(stc.decode('{name: "foo", tags[2]: "a","b", n: 1.0}'), '{"name":"foo","tags":["a","b"],"n":1.0}');
    assert.equal(stc.decodeStc('([2]: 1e3,-0)'), '[1e3,-0]');
    assert.equal(stc.encode(new TextEncoder().encode('{"k": ["é"]}')), '{k:["é"]}');
    const value = { rows: [{ id: 1, ok: true }, { id: 2, ok: false }], s: 'x' };
    for (const bigint of [false, true]) {
      assert.equal(stc.stringify(value, { bigint }), '{rows[2]{id,ok}:1,true/2,false,s:"x"}');
      assert.deepEqual(stc.parse(stc.stringify(value, { bigint, profile: 'readable' }), { bigint }), value);
      assert.equal(stc.stringify(undefined, { bigint }), undefined);
      assert.equal(stc.stringify({ d: new Date(0), f() {}, u: undefined, n: NaN }, { bigint }), '{d:"1970-01-01T00:00:00.000Z",n:null}');
    }
  });

  t('encodeGated and countTokens', () => {
    const rows = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, name: `user${i}`, active: i % 2 === 0 })));
    const g = stc.encodeGated(rows);
    assert.equal(g.chosen, 'stc');
    assert.ok(g.stcTokens < g.jsonTokens);
    assert.equal(stc.decode(g.text), rows);
    const tiny = stc.encodeGated('[1,2]', { minSaving: 1 });
    assert.deepEqual(tiny, { text: '[1,2]', chosen: 'json', jsonTokens: tiny.jsonTokens, stcTokens: tiny.stcTokens });
    // Outside 0 to 1 is stc-core's error (no clamping), as on every surface.
    assert.throws(() => stc.encodeGated('[1,2]', { minSaving: -5 }), { name: 'RangeError', message: 'invalid min_saving -5 (expected a number from 0 to 1)' });
    for (const tok of tokenizers) {
      assert.ok(stc.countTokens('hello world', tok) > 0, tok);
      assert.equal(typeof stc.encodeGated(rows, { tokenizer: tok }).jsonTokens, 'number');
    }
  });

  t('countTokens with a counting function', () => {
    const seen = [];
    assert.equal(stc.countTokens('hello', (text) => (seen.push(text), text.length)), 5);
    assert.deepEqual(seen, ['hello']);
    const mine = new Error('mine');
    assert.equal(thrown(() => stc.countTokens('x', () => { throw mine; })), mine);
  });

  t('encodeGated with a counting function', () => {
    const rows = JSON.stringify(Array.from({ length: 30 }, (_, i) => ({ id: i, name: `user${i}` })));
    const stcText = stc.encode(rows);
    assert.deepEqual(stc.encodeGated(rows, { tokenizer: (text) => text.length }), {
      text: stcText, chosen: 'stc', jsonTokens: rows.length, stcTokens: stcText.length,
    });
    const stcDear = (text) => (text === rows ? 10 : 1000);
    assert.deepEqual(stc.encodeGated(rows, { tokenizer: stcDear }), { text: rows, chosen: 'json', jsonTokens: 10, stcTokens: 1000 });
    const mine = new Error('mine');
    assert.equal(thrown(() => stc.encodeGated(rows, { tokenizer: () => { throw mine; } })), mine);
    assert.equal(thrown(() => stc.encodeGated(rows, { tokenizer: () => 0.5 })).constructor, TypeError);
  });

  t('version: 1 and 2 in every function that takes options', () => {
    const json = '[{"id":1,"tags":["a"]},{"id":2,"tags":[]}]';
    for (const version of [undefined, 1, 2]) {
      const text = stc.encode(json, { version });
      assert.equal(stc.decode(text, { version }), json, `version ${version}`);
      assert.deepEqual(stc.parse(text, { version }), JSON.parse(json));
      assert.deepEqual(stc.parse(text, { version, bigint: true }), JSON.parse(json));
      for (const bigint of [false, true]) assert.equal(stc.decode(stc.stringify(JSON.parse(json), { version, bigint }), { version }), json);
      assert.equal(stc.decode(stc.encodeGated(json, { version }).text, { version }), json);
    }
    // Both stringify paths write the version asked for (the walker too).
    const rows = [{ id: 1, user: { id: 5, name: 'bob' }, t: 'hi' }, { id: 2, user: { id: 6, name: 'al' }, t: 'yo' }];
    for (const version of [1, 2]) {
      const text = stc.stringify(rows, { version });
      assert.equal(stc.stringify(rows, { version, bigint: true }), text, `version ${version}`);
      assert.equal(text, stc.encode(JSON.stringify(rows), { version }));
      assert.deepEqual(stc.parse(text, { version }), rows);
    }
    // A version 2 reader reads version 1.
    assert.equal(stc.decode('([2]{a}: 1 / 2)', { version: 2 }), '[{"a":1},{"a":2}]');
    const bad = [
      [3, RangeError, 'unknown version "3" (expected one of: 1, 2)'],
      [1.5, RangeError, 'unknown version "1.5" (expected one of: 1, 2)'],
      ['2', TypeError, 'version must be a number, got "2"'],
      [null, TypeError, 'version must be a number, got null'],
    ];
    for (const [version, cls, message] of bad) {
      for (const f of [
        () => stc.decode('[1]', { version }), () => stc.parse('[1]', { version }), () => stc.encode('[1]', { version }),
        () => stc.stringify([1], { version }), () => stc.encodeGated('[1]', { version }),
      ]) {
        const e = thrown(f);
        assert.equal(e.constructor, cls, String(f));
        assert.equal(e.message, message);
      }
    }
  });

  t('version 1 refuses version 2 constructs (newer_version); version 2 reads them', () => {
    const groups = '([2]{id,user{id,name}}: 1,5,"bob" / 2,6,"al")';
    const e = thrown(() => stc.decode(groups));
    assert.ok(e instanceof stc.StcError);
    assert.equal(e.code, 'newer_version');
    assert.equal(thrown(() => stc.parse(groups, { version: 1 })).code, 'newer_version');
    const want = [{ id: 1, user: { id: 5, name: 'bob' } }, { id: 2, user: { id: 6, name: 'al' } }];
    assert.equal(stc.decode(groups, { version: 2 }), JSON.stringify(want));
    for (const bigint of [false, true]) assert.deepEqual(stc.parse(groups, { version: 2, bigint }), want);
  });

  t('StcError: the same class, fields and message', () => {
    const e = thrown(() => stc.decode('{a: 1,\n b 2}'));
    assert.ok(e instanceof stc.StcError);
    assert.ok(e instanceof SyntaxError);
    assert.equal(e.name, 'StcError');
    assert.equal(e.code, 'unexpected_char');
    assert.deepEqual([e.offset, e.line, e.column, e.index], [10, 2, 4, 10]);
    assert.equal(e.message, "expected ':' after object key, found '2' at line 2 column 4");
    assert.equal(e.reason, "expected ':' after object key, found '2'");
    for (const f of [stc.parse, (x) => stc.parse(x, { bigint: true }), stc.encode, stc.encodeGated]) {
      const u = thrown(() => f('["é", :]'));
      assert.ok(u instanceof stc.StcError);
      assert.deepEqual([u.code, u.offset, u.line, u.column, u.index], ['unexpected_char', 7, 1, 7, 6]);
    }
    const bytes = thrown(() => stc.decode(Uint8Array.from([0x5b, 0x22, 0xff, 0x22, 0x5d])));
    assert.deepEqual([bytes.code, bytes.offset, bytes.index], ['invalid_utf8', 2, undefined]);
    assert.equal(thrown(() => stc.decode('([3]: 1,2')).code, 'count_mismatch');
    assert.equal(thrown(() => stc.decode('{ids[3]: 1,2}')).code, 'count_mismatch');
    assert.equal(thrown(() => stc.parse('"\ud800"')).code, 'invalid_utf8');
    const deep = thrown(() => stc.stringify([[[1]]], { maxDepth: 2 }));
    assert.deepEqual([deep.name, deep.code], ['StcError', 'depth_limit']);
    const made = new stc.StcError('m', { code: 'aborted', offset: 1, line: 1, column: 2, reason: 'r' });
    assert.deepEqual([made.name, made.code, made.offset, made.line, made.column, made.reason, made.index], ['StcError', 'aborted', 1, 1, 2, 'r', undefined]);
  });

  t('bad arguments: the same classes and messages', () => {
    const cases = [
      [() => stc.parse('[1]', 5), TypeError, 'options must be an object'],
      [() => stc.parse(5), TypeError, 'text must be a string, Buffer or Uint8Array, got number'],
      [() => stc.decode(null), TypeError, 'stcText must be a string, Buffer or Uint8Array, got null'],
      [() => stc.encode({}), TypeError, 'jsonText must be a string, Buffer or Uint8Array, got object'],
      [() => stc.parse('[1]', { maxDepth: -1 }), RangeError, 'maxDepth must be a non-negative integer, got -1'],
      [() => stc.decode('[1]', { maxDepth: 1.5 }), RangeError, 'maxDepth must be a non-negative integer, got 1.5'],
      [() => stc.encode('[1]', { profile: 'pretty' }), RangeError, 'unknown profile "pretty" (expected one of: compact, readable)'],
      [() => stc.stringify([1], { profile: 'pretty' }), RangeError, 'unknown profile "pretty" (expected one of: compact, readable)'],
      [() => stc.stringify([1], { profile: 3 }), TypeError, 'profile must be a string, got 3'],
      [() => stc.parse('[1]', { bigint: 1 }), TypeError, 'bigint must be a boolean, got 1'],
      [() => stc.stringify([1], { bigint: 'yes' }), TypeError, 'bigint must be a boolean, got "yes"'],
      [() => stc.encodeGated('[1]', { minSaving: 'a' }), TypeError, 'minSaving must be a number, got "a"'],
      [() => stc.encodeGated('[1]', { minSaving: NaN }), RangeError, 'invalid min_saving NaN (expected a number from 0 to 1)'],
      [() => stc.countTokens(5), TypeError, 'text must be a string, got number'],
      [() => stc.countTokens('x', 'p50k'), RangeError, `unknown tokenizer "p50k" (expected one of: ${tokenizers.join(', ')})`],
      [() => stc.countTokens('x', () => -1), TypeError, 'the tokenizer function must return a non-negative integer, got -1'],
      [() => stc.countTokens('x', () => '1'), TypeError, 'the tokenizer function must return a non-negative integer, got "1"'],
      [() => stc.encodeGated('[1]', { tokenizer: 'o200k_base' }), RangeError, /^tokenizer "o200k_base" is not in this package .* gpt-tokenizer's countTokens$/],
      [() => stc.encodeGated('[1]', { tokenizer: 7 }), TypeError, 'tokenizer must be a string or a function, got 7'],
      [() => stc.encode('[1]', { profile: Object.create(null) }), TypeError, 'profile must be a string, got object'],
      [() => stc.encode('[1]', { maxDepth: Symbol('d') }), RangeError, 'maxDepth must be a non-negative integer, got Symbol(d)'],
    ];
    for (const [call, cls, message] of cases) {
      const e = thrown(call);
      assert.equal(e.constructor, cls, String(call));
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
    }
  });

  t('BigInt: exact integers only with bigint: true', () => {
    const big = '[12345678901234567890, -9007199254740993, 9007199254740991, 1.5, 1e400]';
    assert.deepEqual(stc.parse(big, { bigint: true }), [12345678901234567890n, -9007199254740993n, 9007199254740991, 1.5, Infinity]);
    assert.deepEqual(stc.parse(big), JSON.parse(big));
    assert.equal(thrown(() => stc.stringify({ n: 1n })).constructor, TypeError);
    assert.equal(stc.stringify({ n: 12345678901234567890n }, { bigint: true }), '{n:12345678901234567890}');
  });

  t('a circular object is a TypeError, as in JSON.stringify', () => {
    const cyclic = { a: [] };
    cyclic.a.push(cyclic);
    for (const bigint of [false, true]) {
      assert.equal(thrown(() => stc.stringify(cyclic, { bigint })).constructor, TypeError, `bigint: ${bigint}`);
    }
    // A shared (not circular) object is fine.
    const shared = { x: 1 };
    assert.equal(stc.stringify({ a: shared, b: shared }), '{a:{x:1},b:{x:1}}');
  });

  t("the caller's exception (toJSON, a getter) comes back as the same object", () => {
    const mine = new Error('from toJSON');
    for (const bigint of [false, true]) {
      assert.equal(thrown(() => stc.stringify({ a: { toJSON() { throw mine; } } }, { bigint })), mine);
      assert.equal(thrown(() => stc.stringify([{ get x() { throw mine; } }], { bigint })), mine);
      assert.equal(thrown(() => stc.parse('[1]', { bigint, get maxDepth() { throw mine; } })), mine);
    }
  });

  t('an exception raised while parse (bigint) builds the value comes back as the same object', () => {
    // The value builders are parser Sinks with the binding's error type
    // (stc-core's Sink<'a, E>): the exception stops the reader and is
    // re-thrown as it is, not as StcError 'aborted'. A setter on
    // Object.prototype is called when parse sets a member of that name.
    const mine = new Error('from a setter');
    Object.defineProperty(Object.prototype, 'stcTrap', {
      set() {
        throw mine;
      },
      configurable: true,
    });
    try {
      assert.equal(thrown(() => stc.parse('{stcTrap: 1}', { bigint: true })), mine);
      assert.equal(thrown(() => stc.parse('[{a: 1, stcTrap: [2]}]', { bigint: true })), mine);
      assert.equal(thrown(() => stc.parse(new TextEncoder().encode('{a: [1, {stcTrap: 2}]}'), { bigint: true })), mine);
    } finally {
      delete Object.prototype.stcTrap;
    }
    // The package still works afterwards.
    assert.deepEqual(stc.parse('{stcTrap: 1}', { bigint: true }), { stcTrap: 1 });
  });

  t('truncate version 2: the text is written (and measured) in STC version 2, its markers and keys as in version 1', () => {
    const users = JSON.stringify(
      Array.from({ length: 300 }, (_, i) => ({ id: i, user: { id: 1000 + i, name: `user ${i}` }, text: `post ${i}` })),
    );
    const stash = new stc.MemoryStash();
    const v2 = stc.truncate(users, { stash, budget: 600, version: 2 });
    const v1 = stc.truncate(users, { stash, budget: 600 });
    assert.equal(v2.truncated, true);
    assert.ok(v2.tokens <= 600, `${v2.tokens} tokens`);
    assert.notEqual(v2.text, v1.text, 'version 2 writes something else (column groups)');
    assert.equal(stc.decode(v2.text, { version: 2 }), v2.json, 'the text is the JSON, read as version 2');
    assert.equal(thrown(() => stc.decode(v2.text)).code, 'newer_version', 'a version 1 reader refuses it');
    assert.equal(stc.decode(v1.text), v1.json);
    // Both cut the same array and stash the same original.
    assert.deepEqual(v2.keys, v1.keys);
    assert.equal(stc.retrieve(v2.keys[0], { stash }), users);
    for (const bad of [3, 0]) assert.equal(thrown(() => stc.truncate(users, { stash, version: bad })).constructor, RangeError);
  });

  t('VERSIONS (the StcVersion union\'s source) is the native versionNames()', () => {
    assert.deepEqual([...VERSIONS], native.versionNames());
  });

  t('makeApi and createStcFetch take the versions from the package, never from the native layer', async () => {
    const rules = await import(pathToFileURL(join(installed, `stc_rules${ext}`)).href);
    const fetchCore = await import(pathToFileURL(join(installed, `stc_fetch_core${ext}`)).href);
    // A native layer whose functions cannot be called yet (the web build before init()).
    const calls = [];
    const notReady = new Proxy({}, { get: (_, k) => (...args) => calls.push([k, args]) });
    for (const bad of [undefined, [], [2], 'x']) {
      const e = thrown(() => rules.makeApi(notReady, bad === undefined ? {} : { versions: bad }));
      assert.equal(e.constructor, TypeError);
      assert.match(e.message, /^makeApi: versions must be the package's version names/);
      assert.equal(thrown(() => fetchCore.createStcFetch({ decode() {}, versions: bad })).constructor, TypeError);
    }
    const api = rules.makeApi(notReady, { versions: ['1', '2'] });
    fetchCore.createStcFetch({ decode() {}, isStcError: () => false, withContext: (e) => e, versions: ['1', '2'] });
    assert.deepEqual(calls, [], 'nothing of the native layer is called while the API is made');
    api.decode('[1]', { version: 2 });
    assert.deepEqual(calls, [['decode', ['[1]', { maxDepth: undefined, version: 2 }]]]);
    // The value is the native layer's (stc-core's) to check: the entry passes a number on as it is.
    api.decode('[1]', { version: 3 });
    assert.deepEqual(calls[1], ['decode', ['[1]', { maxDepth: undefined, version: 3 }]]);
    assert.equal(thrown(() => api.decode('[1]', { version: '3' })).constructor, TypeError);
  });
}

// The `version` option (design A): every function that takes options reads
// `version` (1, the default, or 2) and hands it to stc-core; values are
// checked by the core's Version::try_from (a number; a string is a TypeError,
// as in every binding).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { thrown } from '../../js-shared/test/processes.mjs';
import { ROOT, stc } from './load.mjs';

// The wasm module, called with checked options as the package entry calls it.
const native = createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js'));

const rows = [{ id: 1, user: { id: 5, name: 'bob' }, text: 'hi' }, { id: 2, user: { id: 6, name: 'al' }, text: 'yo' }];
const json = JSON.stringify(rows);
// Design B.1's example: a column group.
const group = '([2]{id,user{id,name},text}: 1,5,"bob","hi" / 2,6,"al","yo")';

test('every function takes version 1 and 2; v1 text reads the same in both', () => {
  for (const version of [1, 2, 2.0]) {
    assert.equal(native.decode('([2]{a}: 1 / 2)', { version }), '[{"a":1},{"a":2}]');
    assert.deepEqual(native.parse('{n[2]: 1,9007199254740993}', { version }), { n: [1, 9007199254740992] });
    assert.deepEqual(native.parse('{n[2]: 1,9007199254740993}', { version, bigint: true }), { n: [1, 9007199254740993n] });
    const text = native.encode(json, { version });
    assert.equal(native.decode(text, { version: 2 }), json);
    assert.equal(native.decode(native.stringify(rows, { version }), { version: 2 }), json);
    assert.equal(native.decode(native.encodeGated(json, { version, minSaving: 0 }).text, { version: 2 }), json);
  }
  assert.deepEqual(native.versionNames(), ['1', '2']);
});

test('a version that does not exist is the core\'s RangeError; a wrong type a TypeError', () => {
  for (const [bad, shown] of [[3, '3'], [0, '0'], [1.5, '1.5'], [-1, '-1'], [NaN, 'NaN']]) {
    for (const f of [() => native.decode('1', { version: bad }), () => native.stringify(1, { version: bad }), () => native.parse('1', { version: bad, bigint: true })]) {
      const e = thrown(f);
      assert.equal(e.constructor, RangeError);
      assert.equal(e.message, `unknown version "${shown}" (expected one of: 1, 2)`);
    }
  }
  for (const bad of [true, {}, [2], '2', 'v2']) assert.equal(thrown(() => native.encode('1', { version: bad })).constructor, TypeError);
});

test('version 2 reads a column group; version 1 (the default) refuses it with newer_version at its first byte', () => {
  assert.equal(native.decode(group, { version: 2 }), json);
  assert.deepEqual(native.parse(group, { version: 2, bigint: true }), rows);
  for (const options of [{}, { version: 1 }, { version: 1, bigint: true }]) {
    const e = thrown(() => native.parse(group, options));
    assert.deepEqual([e.name, e.code, e.offset], ['StcError', 'newer_version', group.indexOf('{', 8)]);
  }
});

test('encoding with version 2 writes v2 constructs that only a version 2 reader reads', () => {
  assert.notEqual(native.encode(json, { version: 2 }), native.encode(json));
  for (const text of [native.encode(json, { version: 2 }), native.stringify(rows, { version: 2 }), native.encodeGated(json, { version: 2, minSaving: 0 }).text]) {
    assert.equal(native.decode(text, { version: 2 }), json);
    assert.equal(thrown(() => native.decode(text)).code, 'newer_version');
  }
});

test('the package entry passes version through', () => {
  assert.equal(stc.decode(group, { version: 2 }), json);
  assert.deepEqual(stc.parse(group, { version: 2 }), rows);
  assert.equal(thrown(() => stc.decode(group)).code, 'newer_version');
  assert.equal(stc.decode(stc.stringify(rows, { version: 2 }), { version: 2 }), json);
});

// The browser stash in the Node build: MemoryStash, truncate and retrieve,
// with the shapes of the Node package (stc-node) and its StashError fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { stc, ROOT } from './load.mjs';

// The package entry re-exports the stash once it lists it; until then the
// wasm-bindgen module itself has it.
const api = typeof stc.MemoryStash === 'function' ? stc : createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js'));
const { MemoryStash, truncate, retrieve } = api;

const records = (n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ id: i, name: `user ${i}`, ok: i !== 250 })));

function caught(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected an exception');
}

test('500 records become a budget-sized rendering whose key retrieves the whole array', () => {
  const stash = new MemoryStash();
  const json = records(500);
  const out = truncate(json, { stash, budget: 800 });
  assert.equal(out.truncated, true);
  assert.equal(out.kept, null);
  assert.ok(out.tokens <= 800 && out.tokens < out.originalTokens, `${out.tokens} of ${out.originalTokens}`);
  assert.equal(out.keys.length, 1);
  assert.match(out.text, new RegExp(`stc retrieve ${out.keys[0]}`));
  assert.equal(out.omissions[0].unit, 'records');
  assert.equal(out.omissions[0].of, 500);
  assert.equal(out.omissions[0].key, out.keys[0]);
  assert.equal(stash.size, 1);
  assert.equal(retrieve(out.keys[0], { stash }), json);
  assert.equal(stash.retrieve(out.keys[0]), json);
  // Issue 24: only the retrieve's own output is exempt; the same content is cut again.
  const again = truncate(json, { stash, budget: 800 });
  assert.equal(again.truncated, true);
  assert.equal(again.kept, null);
  assert.deepEqual(again.keys, out.keys);
});

test('no stash: nothing is cut silently; lossy cuts without keys', () => {
  const json = records(100);
  const kept = truncate(json, { stash: null, truncateArraysAt: 8 });
  assert.equal(kept.kept, 'no_store');
  assert.equal(kept.json, json);
  const lossy = truncate(json, { stash: null, truncateArraysAt: 8, lossy: true });
  assert.equal(lossy.truncated, true);
  assert.deepEqual(lossy.keys, []);
  assert.equal(lossy.omissions[0].key, null);
  assert.throws(() => truncate(json, { stash: new MemoryStash(), lossy: true }), TypeError);
});

test('retrieveTool markers name the tool; a bad tool name is a RangeError', () => {
  const stash = new MemoryStash();
  const out = truncate(records(100), { stash, truncateArraysAt: 8, retrieveTool: 'stash_get' });
  assert.match(out.text, /stash_get/);
  assert.doesNotMatch(out.text, /stc retrieve/);
  assert.throws(() => truncate(records(100), { stash, retrieveTool: 'rm -rf /' }), RangeError);
});

test('hostile and unknown keys: StashError codes, retryable false, escaped preview', () => {
  const stash = new MemoryStash();
  const bad = caught(() => retrieve('../../etc/passwd\u0007' + 'x'.repeat(200), { stash }));
  assert.equal(bad.name, 'StashError');
  assert.equal(bad.code, 'invalid_key');
  assert.equal(bad.retryable, false);
  assert.equal(bad.key, null);
  assert.match(bad.message, /retrying will not help/);
  assert.ok(bad.message.includes('\\u{7}') && bad.message.includes('…') && bad.message.length < 300, bad.message);
  const missing = caught(() => stash.retrieve('0123456789abcdef01234567'));
  assert.equal(missing.code, 'not_found');
  assert.equal(missing.key, '0123456789abcdef01234567');
  assert.match(missing.message, /retrying will not help; re-run the tool call/);
  // The key is checked before the stash option is even looked at.
  assert.equal(caught(() => retrieve('nothex', {})).code, 'invalid_key');
  assert.throws(() => retrieve('0123456789abcdef01234567', { stash: { __stcStashId: 'x' } }), TypeError);
  assert.throws(() => truncate('[1]', {}), TypeError);
});

test('TTL and capacity: expired entries are not returned, the oldest write is evicted', async () => {
  const short = new MemoryStash({ ttl: 0.05 });
  const out = truncate(records(100), { stash: short, truncateArraysAt: 8 });
  await new Promise((r) => setTimeout(r, 120));
  const expired = caught(() => short.retrieve(out.keys[0]));
  assert.ok(expired.code === 'expired' || expired.code === 'not_found', expired.code);
  assert.equal(short.size, 0);

  const one = new MemoryStash({ capacity: 1 });
  const a = truncate(records(100), { stash: one, truncateArraysAt: 8 }).keys[0];
  const b = truncate(records(101), { stash: one, truncateArraysAt: 8 }).keys[0];
  assert.equal(one.size, 1);
  assert.equal(caught(() => one.retrieve(a)).code, 'not_found');
  assert.equal(one.retrieve(b), records(101));
  assert.throws(() => new MemoryStash({ capacity: 0 }), RangeError);
  assert.throws(() => new MemoryStash({ ttl: -1 }), RangeError);
  assert.throws(() => new MemoryStash({ ttl: 'long' }), TypeError);
});

test('a closed stash throws closed; invalid JSON throws StcError', () => {
  const stash = new MemoryStash();
  const key = truncate(records(50), { stash, truncateArraysAt: 8 }).keys[0];
  stash.close();
  const closed = caught(() => stash.retrieve(key));
  assert.equal(closed.code, 'closed');
  assert.equal(caught(() => truncate(records(50), { stash, truncateArraysAt: 8 })).code, 'closed');
  const invalid = caught(() => truncate('[1,', { stash: null }));
  assert.equal(invalid.name, 'StcError');
  assert.equal(invalid.code, 'unexpected_end');
});

'use strict';
// The stash from Node: truncate with a budget, retrieve, SqliteStash and
// MemoryStash. The SQLite entries are read back by separate OS processes:
// the real `stc retrieve` ($STC_BIN, else this checkout's debug build) and the
// Python binding ($STC_PYTHON, else bindings-python/.venv/bin/python, as
// installed by bindings-python/test.sh), and the Python binding's entries are
// read here: one file, both directions.

const { test, beforeEach, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, rmSync, symlinkSync, realpathSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const stc = require('..');
const { stcBinary, thrown: catchErr } = require('../../js-shared/test/processes.mjs');
const { truncate, retrieve, SqliteStash, MemoryStash, StashError, StcError, decode, countTokens } = stc;

const REPO = resolve(__dirname, '..', '..');

/** A Python with the `stc` package (the Python binding); fails, never skips, without one. */
function python() {
  const py = process.env.STC_PYTHON || join(REPO, 'bindings-python', '.venv', 'bin', 'python');
  const r = spawnSync(py, ['-c', 'import stc; stc.SqliteStash'], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(
      `no Python with the stc stash at ${py} (${r.error?.message ?? r.stderr.trim()}): ` +
        'run `bash bindings-python/test.sh` first, or set STC_PYTHON',
    );
  }
  return py;
}

const RECORDS = Array.from({ length: 500 }, (_, i) => ({
  id: i,
  name: `user${i}`,
  status: i === 250 ? 'error' : 'ok',
  latency_ms: 10 + (i % 17),
  region: ['eu-west', 'us-east', 'ap-south'][i % 3],
}));
const DOC = JSON.stringify({ total: 500, items: RECORDS });
const ITEMS = JSON.stringify(RECORDS);
const KEY_RE = /^[0-9a-f]{24}$/;

let dir;
let saved;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'stc-node-stash-')));
  saved = { dataDir: process.env.STC_DATA_DIR, db: process.env.STC_STASH_DB };
  process.env.STC_DATA_DIR = dir;
  delete process.env.STC_STASH_DB;
});
afterEach(() => {
  for (const [name, value] of [['STC_DATA_DIR', saved.dataDir], ['STC_STASH_DB', saved.db]]) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

function run(cmd, args, input) {
  return spawnSync(cmd, args, { input, env: { ...process.env, STC_DATA_DIR: dir }, encoding: 'utf8', timeout: 120_000 });
}

function markerOf(text) {
  return JSON.parse(decode(text)).items.stc_stash;
}

test('500 records under a budget: a budget-sized output whose marker stc retrieve resolves', () => {
  const stash = new SqliteStash();
  assert.equal(stash.path, join(dir, 'stash.db'));
  const out = truncate(DOC, { stash, budget: 600 });
  assert.equal(out.truncated, true);
  assert.equal(out.kept, null);
  assert.ok(out.tokens <= 600 && out.originalTokens > 600, `${out.tokens} of ${out.originalTokens}`);
  assert.equal(out.tokens, countTokens(out.text, 'estimate'));
  assert.equal(decode(out.text), out.json);
  const marker = markerOf(out.text);
  assert.equal(marker.of, 500);
  assert.equal(marker.unit, 'records');
  assert.match(marker.key, KEY_RE);
  assert.ok(marker.retrieve.includes(`stc retrieve ${marker.key}`));
  assert.deepEqual(out.keys, [marker.key]);
  assert.deepEqual(out.omissions, [{ unit: 'records', key: marker.key, omitted: marker.omitted, of: 500 }]);
  assert.equal(stash.size, 1);
  const done = run(stcBinary(), ['retrieve', marker.key]);
  assert.equal(done.status, 0, done.stderr);
  assert.equal(done.stdout, ITEMS);
  assert.equal(retrieve(marker.key, { stash }), ITEMS);
  assert.equal(stash.retrieve(marker.key), ITEMS);
  stash.close();
});

test('Node stashes, Python retrieves; Python stashes, Node retrieves (one SQLite file)', () => {
  const py = python();
  const stash = new SqliteStash();
  const [key] = truncate(DOC, { stash, truncateArraysAt: 8 }).keys;
  const read = run(py, ['-c', 'import stc, sys; sys.stdout.write(stc.retrieve(sys.argv[1], stash=stc.SqliteStash()))', key]);
  assert.equal(read.status, 0, read.stderr);
  assert.equal(read.stdout, ITEMS);

  const other = JSON.stringify({ items: RECORDS.slice(0, 100).reverse() });
  const code =
    'import stc, sys; out = stc.truncate(sys.stdin.read(), stash=stc.SqliteStash(), truncate_arrays_at=8); ' +
    'sys.stdout.write(out.keys[0])';
  const wrote = run(py, ['-c', code], other);
  assert.equal(wrote.status, 0, wrote.stderr);
  assert.match(wrote.stdout, KEY_RE);
  assert.equal(stash.retrieve(wrote.stdout), JSON.stringify(RECORDS.slice(0, 100).reverse()));
  assert.equal(stash.size, 2);
  stash.close();
});

test('unknown and expired keys: StashError that says retrying will not help', async () => {
  const stash = new SqliteStash(undefined, { ttl: 0.2 });
  const unknown = catchErr(() => stash.retrieve('0123456789abcdef01234567'));
  assert.ok(unknown instanceof StashError);
  assert.equal(unknown.code, 'not_found');
  assert.equal(unknown.retryable, false);
  assert.equal(unknown.key, '0123456789abcdef01234567');
  assert.match(unknown.message, /retrying will not help/);
  const [key] = truncate(DOC, { stash, truncateArraysAt: 8 }).keys;
  assert.equal(stash.retrieve(key), ITEMS);
  await new Promise((r) => setTimeout(r, 500));
  const expired = catchErr(() => retrieve(key, { stash }));
  assert.equal(expired.code, 'expired');
  assert.equal(expired.retryable, false);
  assert.match(expired.message, /expired.*retrying will not help/);
  assert.equal(stash.size, 0);
  stash.close();
});

const HOSTILE = [
  '',
  '0123',
  '0123456789abcdef012345678',
  '0123456789ABCDEF01234567',
  '0123456789abcdef0123456g',
  "0123456789abcdef0123456'; DROP TABLE stash; --",
  '../../../../etc/passwd',
  '0123456789abcdef01234567\n',
  '0123456789abcdef\u000001234567',
  'é'.repeat(24),
  '0'.repeat(1_000_000),
];

test('hostile keys are rejected before any store read', () => {
  const stash = new SqliteStash();
  stash.close(); // any read of a closed store throws 'closed': the key check must come first
  for (const key of HOSTILE) {
    for (const call of [() => retrieve(key, { stash }), () => stash.retrieve(key), () => retrieve(key, {})]) {
      const e = catchErr(call);
      assert.ok(e instanceof StashError, `${JSON.stringify(key)}: ${e}`);
      assert.equal(e.code, 'invalid_key', JSON.stringify(key));
      assert.equal(e.key, null);
      assert.ok(e.message.length < 300, 'the key is shown cut and escaped');
    }
  }
  assert.equal(catchErr(() => stash.retrieve('0123456789abcdef01234567')).code, 'closed');
  assert.ok(catchErr(() => retrieve('0123456789abcdef01234567', {})) instanceof TypeError);
  assert.ok(catchErr(() => retrieve(42, { stash })) instanceof TypeError);
});

test('the path policy: relative, traversing, outside and symlinked paths are refused', () => {
  for (const bad of ['stash.db', join(dir, '..', 'x.db'), '/etc/stc-stash.db']) {
    const e = catchErr(() => new SqliteStash(bad));
    assert.ok(e instanceof StashError, bad);
    assert.equal(e.code, 'config', bad);
  }
  new SqliteStash(join(dir, 'real.db')).close();
  symlinkSync(join(dir, 'real.db'), join(dir, 'link.db'));
  assert.match(catchErr(() => new SqliteStash(join(dir, 'link.db'))).message, /symlink/);
  assert.ok(catchErr(() => new SqliteStash(42)) instanceof TypeError);
});

test('MemoryStash: round trip, FIFO capacity, close', () => {
  const stash = new MemoryStash({ capacity: 1 });
  const first = truncate(DOC, { stash, truncateArraysAt: 8 });
  assert.equal(stash.retrieve(first.keys[0]), ITEMS);
  const reversed = RECORDS.slice(0, 100).reverse();
  const second = truncate(JSON.stringify({ items: reversed }), { stash, truncateArraysAt: 8 });
  assert.equal(stash.size, 1);
  assert.equal(retrieve(second.keys[0], { stash }), JSON.stringify(reversed));
  assert.equal(catchErr(() => stash.retrieve(first.keys[0])).code, 'not_found');
  stash.close();
  assert.equal(catchErr(() => stash.size).code, 'closed');
  // A number that is no capacity or ttl: a RangeError, as in stc-wasm (js-shared/test/options.mjs).
  // The messages are stc-stash's (StoreConfig::new), the same in every binding.
  for (const [options, message] of [
    [{ capacity: 0 }, 'capacity must be a positive integer, got 0'],
    [{ capacity: 1.5 }, 'capacity must be a positive integer, got 1.5'],
    [{ ttl: -1 }, 'ttl must be a positive number of seconds, got -1'],
    [{ ttl: 0 }, 'ttl must be a positive number of seconds, got 0'],
  ]) {
    const err = catchErr(() => new MemoryStash(options));
    assert.ok(err instanceof RangeError, `${JSON.stringify(options)}: ${err}`);
    assert.equal(err.message, message);
  }
});

test('no store means no silent truncation; lossy cuts say so', () => {
  const kept = truncate(DOC, { stash: null, budget: 600 });
  assert.equal(kept.truncated, false);
  assert.equal(kept.kept, 'no_store');
  assert.deepEqual(JSON.parse(decode(kept.text)), JSON.parse(DOC));
  assert.deepEqual(kept.keys, []);
  assert.ok(kept.tokens > 600);
  assert.ok(catchErr(() => truncate(DOC, { budget: 600 })) instanceof TypeError, 'stash is required');

  const lossy = truncate(DOC, { stash: null, truncateArraysAt: 8, lossy: true });
  assert.equal(lossy.truncated, true);
  const marker = markerOf(lossy.text);
  assert.equal(marker.recoverable, false);
  assert.equal(marker.key, undefined);
  assert.equal(lossy.omissions[0].key, null);
  assert.ok(catchErr(() => truncate(DOC, { stash: new MemoryStash(), lossy: true })) instanceof TypeError);
});

test('retrieveTool, retrieved originals, markers and invalid input', () => {
  const stash = new MemoryStash();
  const out = truncate(DOC, { stash, truncateArraysAt: 8, retrieveTool: 'stc_retrieve' });
  assert.ok(markerOf(out.text).retrieve.includes(`call tool stc_retrieve with key=${out.keys[0]}`));
  // A string that names no valid tool: a RangeError, as in stc-wasm (js-shared/test/options.mjs).
  assert.ok(catchErr(() => truncate(DOC, { stash, retrieveTool: 'rm -rf /' })) instanceof RangeError);
  const items = stash.retrieve(out.keys[0]);
  // Issue 24: only the retrieve's own output is exempt; the same content is cut again.
  const again = truncate(items, { stash, truncateArraysAt: 8 });
  assert.equal(again.kept, null);
  assert.deepEqual(again.keys, out.keys);
  assert.equal(truncate(out.json, { stash, truncateArraysAt: 8 }).kept, 'has_markers');
  assert.equal(truncate('{"a":[1,2,3]}', { stash }).kept, 'nothing_to_cut');
  const e = catchErr(() => truncate('{"items": [1, 2', { stash }));
  assert.ok(e instanceof StcError);
  assert.equal(e.code, 'unexpected_end');
  assert.ok(catchErr(() => truncate(DOC, { stash: 'memory' })) instanceof TypeError);
  assert.ok(catchErr(() => truncate(DOC, { stash, budget: -1 })) instanceof RangeError);
});

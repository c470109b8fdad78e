// Same inputs, same answers: the `version` option (and the other options of
// `truncate`) through `truncate`, `encode`, `stringify` and `decode` of a
// package, with one expectation table for both packages. Run by
// bindings-node/test/option-parity.test.mjs and
// bindings-wasm/test/option-parity.test.mjs with the package under test. Every
// successful result is the `stc` binary's (stc-core's) answer for the same
// version, so both packages are held to one answer; every refusal has the
// same class, message and code in both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, stcBinary, thrown } from './processes.mjs';
import { TOKENIZERS, VERSIONS } from '../stc_rules.mjs';

/** Records with an optional key: a table with absent cells (`~`) in version 2 only. */
const records = (n) => Array.from({ length: n }, (_, i) => ({ id: i, name: `user${i}`, ...(i % 2 ? {} : { email: `u${i}@x.org` }) }));
const RECORDS = records(6);
const DOC = JSON.stringify(RECORDS);
/** Long enough that `truncateArraysAt: 2` cuts it. */
const LONG = JSON.stringify(records(20));

/** The `stc` binary's output for `args` on `input`: { ok, out, err }. */
function cli(args, input) {
  const r = spawnSync(stcBinary(), args, { input, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { ok: r.status === 0, out: r.stdout.replace(/\n$/, ''), err: r.stderr };
}

/** The value stc-core's `pub const NAME: TYPE = VALUE;` has in stc-core/src/lib.rs (as source text). */
function coreConst(name) {
  const src = readFileSync(join(REPO, 'stc-core', 'src', 'lib.rs'), 'utf8');
  const m = new RegExp(`pub const ${name}: [^=]+= ([^;]+);`).exec(src);
  if (!m) throw new Error(`no \`pub const ${name}\` in stc-core/src/lib.rs`);
  return m[1].trim();
}

/** A `version` option value and what every function must do with it: a version, or a refusal. */
const show = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
// A wrong type is the package's TypeError; a number stc-core refuses, a RangeError with its message.
const refused = (v, cls) => ({
  version: v,
  error: [cls, cls === 'TypeError' ? `version must be a number, got ${show(v)}` : `unknown version "${v}" (expected one of: 1, 2)`],
});
export const VERSION_CASES = [
  { version: undefined, uses: 1 },
  { version: 1, uses: 1 },
  { version: 2, uses: 2 },
  // A version is a number in every function of both packages (the `StcVersion` type).
  refused('2', 'TypeError'),
  refused('1', 'TypeError'),
  refused('x', 'TypeError'),
  refused(null, 'TypeError'),
  refused(3, 'RangeError'),
  refused(2.5, 'RangeError'),
  refused(0, 'RangeError'),
];

/** What a call did: { ok: value } or { error: [class, message, code] }. */
function outcome(f) {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: [e.name, e.message, e.code] };
  }
}

/**
 * Registers the tests for one package: `stc` as users load it, `store()` a new
 * store of it (a MemoryStash), `stores` its store names as `truncate`'s message gives them.
 */
export function optionTests({ name, stc, store, stores }) {
  const t = (title, fn) => test(`${name}: ${title}`, fn);

  t('VERSION is the default STC version (stc-core VERSION), MEDIA_TYPE the media type', () => {
    assert.equal(stc.VERSION, Number(coreConst('VERSION')));
    assert.ok(VERSIONS.includes(String(stc.VERSION)));
    assert.equal(stc.MEDIA_TYPE, JSON.parse(coreConst('MEDIA_TYPE')));
    assert.equal(stc.encode(DOC), stc.encode(DOC, { version: stc.VERSION }), 'no version option writes VERSION');
  });

  t('version as number, string, unknown: encode, stringify, decode, truncate agree with stc-core', () => {
    const encoded = {};
    for (const v of VERSIONS) {
      const r = cli(['encode', '--stc-version', v], DOC);
      assert.ok(r.ok, r.err);
      encoded[v] = r.out;
    }
    assert.notEqual(encoded['2'], encoded['1'], 'the document must read differently in version 2');
    const v2text = encoded['2'];
    const decoded = cli(['decode', '--stc-version', '2'], v2text);
    assert.ok(decoded.ok, decoded.err);
    assert.ok(!cli(['decode', '--stc-version', '1'], v2text).ok, 'stc-core refuses version 2 text read as version 1');

    for (const c of VERSION_CASES) {
      const options = c.version === undefined ? {} : { version: c.version };
      const calls = {
        encode: () => stc.encode(DOC, options),
        stringify: () => stc.stringify(RECORDS, options),
        decode: () => stc.decode(v2text, options),
        'truncate (stash: null)': () => stc.truncate(DOC, { stash: null, ...options }).text,
        'truncate (a store)': () => stc.truncate(LONG, { stash: store(), truncateArraysAt: 2, ...options }).truncated,
      };
      for (const [fn, call] of Object.entries(calls)) {
        const got = outcome(call);
        const what = `${fn} with version ${show(c.version)}`;
        if (c.error) {
          assert.deepEqual(got, { error: [...c.error, undefined] }, what);
        } else if (fn === 'decode') {
          const want = c.uses === 2 ? { ok: decoded.out } : { error: got.error && ['StcError', got.error[1], 'newer_version'] };
          assert.deepEqual(got, want, what);
        } else if (fn === 'truncate (a store)') {
          assert.deepEqual(got, { ok: true }, what);
        } else {
          assert.deepEqual(got, { ok: encoded[String(c.uses)] }, what);
        }
      }
    }
  });

  t('conformance/options/options.json: the core refuses bad values with its message (RangeError), accepts good ones', () => {
    const table = JSON.parse(readFileSync(join(REPO, 'conformance', 'options', 'options.json'), 'utf8'));
    const rows = JSON.stringify(RECORDS);
    // The package's calls that take each option, with the option's JavaScript name.
    const calls = {
      profile: [(v) => stc.encode(rows, { profile: v }), (v) => stc.stringify(RECORDS, { profile: v }), (v) => stc.encodeGated(rows, { profile: v })],
      tokenizer: [(v) => stc.encodeGated(rows, { tokenizer: v }), (v) => stc.countTokens(rows, v), (v) => stc.truncate(rows, { stash: null, tokenizer: v })],
      version: [(v) => stc.encode(rows, { version: v }), (v) => stc.decode('[1]', { version: v }), (v) => stc.parse('[1]', { version: v }), (v) => stc.truncate(rows, { stash: null, version: v })],
      min_saving: [(v) => stc.encodeGated(rows, { minSaving: v })],
    };
    let checked = 0;
    for (const [option, spec] of Object.entries(table.options)) {
      if (!spec.surfaces.includes(name.replace('stc-', ''))) continue;
      assert.ok(calls[option], `no calls for ${option}`);
      for (const row of spec.bad) {
        // Both packages are built with the estimate only (js-shared TOKENIZERS, checked against the native names).
        const message = row.message.replace('{tokenizers}', TOKENIZERS.join(', '));
        for (const call of calls[option]) {
          assert.deepEqual(outcome(() => call(row.value)), { error: ['RangeError', message, undefined] }, `${option} ${show(row.value)}: ${call}`);
          checked += 1;
        }
      }
      for (const row of spec.good) {
        for (const call of calls[option]) {
          assert.ok('ok' in outcome(() => call(row.value)), `${option} ${show(row.value)}: ${call}`);
        }
      }
    }
    assert.ok(checked >= 30, `${checked} refusals checked`);
  });

  t('the other options of truncate: the same classes and messages', () => {
    const bad = [
      [undefined, 'TypeError', `options.stash is required: ${stores} or null`],
      [{}, 'TypeError', `options.stash is required: ${stores} or null`],
      [{ stash: null, lossy: 'yes' }, 'TypeError', 'lossy must be a boolean, got "yes"'],
      [{ stash: null, retrieveTool: 5 }, 'TypeError', 'retrieveTool must be a string, got 5'],
      [{ stash: null, budget: '10' }, 'TypeError', 'budget must be a non-negative integer, got "10"'],
      [{ stash: null, budget: -1 }, 'RangeError', 'budget must be a non-negative integer, got -1'],
      [{ stash: null, truncateArraysAt: 1.5 }, 'RangeError', 'truncateArraysAt must be a non-negative integer, got 1.5'],
      [{ stash: null, maxDepth: -1 }, 'RangeError', 'maxDepth must be a non-negative integer, got -1'],
      [{ stash: null, tokenizer: 'pretty' }, 'RangeError', 'unknown tokenizer "pretty" (expected one of: estimate)'],
    ];
    for (const [options, cls, message] of bad) {
      assert.deepEqual(outcome(() => stc.truncate(DOC, options)), { error: [cls, message, undefined] }, JSON.stringify(options));
    }
    assert.deepEqual(outcome(() => stc.truncate(5, { stash: null })).error.slice(0, 2), [
      'TypeError', 'jsonText must be a string, Buffer or Uint8Array, got number',
    ]);
    // A tool name stc-stash refuses is a value that names nothing valid: a RangeError in both.
    const tool = thrown(() => stc.truncate(DOC, { stash: store(), retrieveTool: 'rm -rf /' }));
    assert.equal(tool.name, 'RangeError', tool.message);
    const lossy = thrown(() => stc.truncate(DOC, { stash: store(), lossy: true }));
    assert.equal(lossy.name, 'TypeError', lossy.message);
    // null counts mean none, as undefined does.
    assert.equal(stc.truncate(DOC, { stash: null, budget: null, truncateArraysAt: null }).text, stc.encode(DOC));
    // The result's fields, in one order (JSON.stringify of a result is the same in both).
    const out = stc.truncate(LONG, { stash: store(), truncateArraysAt: 2 });
    assert.deepEqual(Object.keys(out), ['text', 'json', 'truncated', 'kept', 'tokens', 'originalTokens', 'keys', 'omissions']);
    assert.deepEqual(Object.keys(out.omissions[0]), ['unit', 'key', 'omitted', 'of']);
    assert.equal(stc.truncate(DOC, { stash: null }).kept, 'no_store');
  });

  t('MemoryStash options: the same classes and messages', () => {
    const bad = [
      [{ capacity: 0 }, 'RangeError', 'capacity must be a positive integer, got 0'],
      [{ capacity: 1.5 }, 'RangeError', 'capacity must be a positive integer, got 1.5'],
      [{ capacity: NaN }, 'RangeError', 'capacity must be a positive integer, got NaN'],
      [{ ttl: -1 }, 'RangeError', 'ttl must be a positive number of seconds, got -1'],
      [{ ttl: 0 }, 'RangeError', 'ttl must be a positive number of seconds, got 0'],
      [{ capacity: '3' }, 'TypeError', 'capacity must be a number'],
      [{ ttl: 'long' }, 'TypeError', 'ttl must be a number'],
      [5, 'TypeError', 'options must be an object'],
    ];
    for (const [options, cls, message] of bad) {
      assert.deepEqual(outcome(() => new stc.MemoryStash(options)), { error: [cls, message, undefined] }, String(options));
    }
    // null means no value, as undefined does.
    for (const options of [{ ttl: null, capacity: null }, null, undefined, {}]) {
      assert.equal(new stc.MemoryStash(options).size, 0);
    }
  });
}

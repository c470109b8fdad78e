// No recursion on input depth (issue 12, design D.5): parse and stringify of
// 100,000 nested arrays with maxDepth 100000 on a Node worker thread with a
// small stack. Both parse paths (stc-core's decode + JSON.parse, and the
// addon's value builder for bigint) and both stringify paths (JSON.stringify
// + encode is used up to maxDepth 1000, the addon's walker beyond it or when
// JSON.stringify runs out of stack) keep their own stacks.
//
// stackSizeMb is 0.3, not 0.25: Node 20 reserves 192 KiB of a worker's stack
// for itself, so with 0.25 its own bootstrap overflows before any test code
// runs (measured: RangeError from an empty worker). The thread's stack is
// 307 KiB, of which V8 lets JavaScript use 115 KiB (0.27 passes too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const stc = require(ROOT);

/** Runs `body` (the source of a function of `stc`) in a worker with a small stack; resolves to what it returns. */
function inWorker(body, stackSizeMb = 0.3) {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const stc = require(workerData.root);
    const thrown = (f) => { try { f(); } catch (e) { return e; } throw new Error('did not throw'); };
    try {
      parentPort.postMessage({ ok: (${body})(stc, thrown) });
    } catch (e) {
      parentPort.postMessage({ error: String(e && e.stack || e) });
    }`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { root: ROOT }, resourceLimits: { stackSizeMb } });
    worker.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m.ok)));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`worker exited (${code}) without an answer`)));
  });
}

/** The depth of nested single-element arrays, counted without recursion. */
const depthOf = `(v) => { let d = 0; while (Array.isArray(v)) { d++; v = v[0]; } return d; }`;

/** In a small-stack worker: `n` nested arrays through every path, and the limit one level lower. */
function nested(n) {
  return inWorker(`(stc, thrown) => {
    const depth = ${depthOf};
    const n = ${n};
    const text = '['.repeat(n) + ']'.repeat(n);
    const r = {};
    for (const bigint of [false, true]) {
      const v = stc.parse(text, { maxDepth: n, bigint });
      r['parse' + bigint] = depth(v);
      r['stringify' + bigint] = stc.stringify(v, { maxDepth: n, bigint }) === text;
      r['limit' + bigint] = [thrown(() => stc.parse(text, { maxDepth: n - 1, bigint })).code,
        thrown(() => stc.stringify(v, { maxDepth: n - 1, bigint })).code];
    }
    r.decode = stc.decode(text, { maxDepth: n }) === text;
    r.encode = stc.encode(text, { maxDepth: n }) === text;
    let o = {};
    const objects = o;
    for (let i = 1; i < n; i++) o = o.a = {};
    const written = stc.stringify(objects, { maxDepth: n });
    const back = stc.parse(written, { maxDepth: n, bigint: true });
    let levels = 0;
    for (let x = back; x !== null && typeof x === 'object'; x = x.a) levels++;
    r.objects = levels === n && stc.stringify(back, { maxDepth: n }) === written && written.startsWith('{a:{a:');
    return r;
  }`);
}

const all = (n) => ({
  parsefalse: n, stringifyfalse: true, limitfalse: ['depth_limit', 'depth_limit'],
  parsetrue: n, stringifytrue: true, limittrue: ['depth_limit', 'depth_limit'],
  decode: true, encode: true, objects: true,
});

test('1,024 nested arrays and objects on a small stack: every path (the walker beyond maxDepth 1000)', { timeout: 60_000 }, async () => {
  assert.deepEqual(await nested(1024), all(1024));
});

test('100,000 nested arrays and objects on a small stack, maxDepth 100000', { timeout: 120_000 }, async () => {
  assert.deepEqual(await nested(100000), all(100000));
});

test('a value deeper than JSON.stringify can walk on this stack is a depth_limit, not a stack overflow', { timeout: 60_000 }, async () => {
  const out = await inWorker(`(stc, thrown) => {
    const depth = ${depthOf};
    let v = [];
    for (let i = 1; i < 20000; i++) v = [v];
    const e = thrown(() => stc.stringify(v));
    const f = thrown(() => stc.stringify(v, { maxDepth: 500 }));
    return {
      errors: [e.name, e.code, f.name, f.code],
      default: depth(stc.parse(stc.stringify(JSON.parse('['.repeat(128) + ']'.repeat(128))))),
    };
  }`);
  assert.deepEqual(out, { errors: ['StcError', 'depth_limit', 'StcError', 'depth_limit'], default: 128 });
});

test('the walker finds a cycle to a near or a deep ancestor (compared one by one, or through its Set)', () => {
  for (const back of [2, 50]) {
    const chain = [[]];
    for (let i = 0; i < 100; i++) chain.push(chain[i][0] = []);
    chain[100].push(chain[back]);
    for (const options of [{ bigint: true }, { maxDepth: 5000 }]) {
      const e = (() => {
        try {
          stc.stringify(chain[0], options);
        } catch (err) {
          return err;
        }
        return null;
      })();
      assert.equal(e?.constructor, TypeError, `${back} ${JSON.stringify(options)}`);
      assert.equal(e.message, 'Converting circular structure to STC');
    }
  }
  // Shared, not circular: fine at any depth.
  const shared = [1];
  let wide = [shared, shared];
  for (let i = 0; i < 50; i++) wide = [wide, shared];
  const text = stc.stringify(wide, { bigint: true });
  assert.equal(text, stc.stringify(wide));
  assert.deepEqual(stc.parse(text), wide);
});

// No recursion on input depth in the wasm layer or the core (issue 12,
// design D.5): 100,000 nested arrays with maxDepth 100000 go through every
// entry point on a Node worker thread whose stack is 256 KiB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

const DEPTH = 100_000;

function inWorker(module, depth, stackSizeMb) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./deep-worker.cjs', import.meta.url), {
      workerData: { module, depth },
      resourceLimits: { stackSizeMb },
    });
    let result;
    worker.on('message', (m) => {
      result = m;
    });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`worker exited with ${code}`))));
  });
}

async function check(module, stackSizeMb) {
  const { recursion, checks } = await inWorker(module, DEPTH, stackSizeMb);
  // The small stack is real: plain recursion stops far short of the depth.
  assert.ok(recursion < DEPTH / 10, `recursion reached ${recursion}`);
  console.log(`# ${module} on a ${stackSizeMb} MB worker stack: plain JavaScript recursion stops at ${recursion} frames`);
  assert.equal(checks.length, 10);
  assert.deepEqual(checks.filter((c) => !c.ok), []);
}

// The thread has 256 KiB of stack (design D.5's figure), of which Node leaves
// JavaScript and WebAssembly 64 KiB: the wasm module loads there, the ESM
// package entry does not (Node's module loader overflows first).
test('the wasm module: 100,000 nested arrays through every function on a worker with stackSizeMb 0.25', () =>
  check('wasm', 0.25));

test('the package entry: 100,000 nested arrays through every function on a worker with stackSizeMb 0.3', () =>
  check('entry', 0.3));

// Runs test/deep.mjs's checks on this worker thread's small stack and reports
// them with how deep plain JavaScript recursion gets here. CommonJS, because
// Node 20's ESM loader itself needs more stack than a 0.25 MB worker gives
// JavaScript (Node keeps 192 KiB of the thread's 256 KiB for native code).
const { parentPort, workerData } = require('node:worker_threads');
const { join } = require('node:path');

// Node creates TextDecoder/TextEncoder lazily on first use, loading internal
// modules; the wasm-bindgen glue's first use sits inside require's frames, too
// deep for 0.25 MB, so touch them here first (no effect on what is tested).
new TextDecoder('utf-8', { ignoreBOM: true }).decode();
new TextEncoder().encode('');

const pkg = join(__dirname, '..', 'pkg', 'node');
// 'wasm': the wasm-bindgen module (all the Rust code: stc-core and the
// binding's value builder and stringify walk), called with checked options as
// the entry calls it; 'entry': the package as users load it.
const stc = require(join(pkg, workerData.module === 'wasm' ? 'stc_wasm.js' : 'stc.mjs'));
const { deepChecks, recursionLimit } = require(join(__dirname, 'deep.mjs'));

parentPort.postMessage({ recursion: recursionLimit(), checks: deepChecks(stc, workerData.depth) });

// The decode-only entry (`stc-wasm/decode`, pkg/node/stc_decode.mjs over
// stc_decode_wasm.js): the reading half of the API from a module built
// without the encoder, planner, estimate and stash, answering exactly as the
// full entry does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, stc, caseFiles } from './load.mjs';
import { flatten, runCase } from './cases.mjs';

const dec = await import(join(ROOT, 'pkg/node/stc_decode.mjs'));
const cases = flatten(caseFiles()).filter((c) => ['decode', 'invalid', 'roundtrip'].includes(c.category));
const limitsOf = (c) => ({
  ...(c.options?.max_depth === undefined ? {} : { maxDepth: c.options.max_depth }),
  ...(c.options?.version === undefined ? {} : { version: c.options.version }),
});
const inputOf = (c) => (c.input_hex !== undefined ? Buffer.from(c.input_hex, 'hex') : c.input);

test('the decode entry has the reading functions and none of the writing ones', () => {
  for (const name of ['decode', 'decodeStc', 'parse', 'errorCodes', 'versionNames', 'StcError', 'ERROR_CODES']) {
    assert.ok(name in dec, `missing ${name}`);
  }
  for (const name of ['encode', 'stringify', 'encodeGated', 'countTokens', 'truncate', 'retrieve', 'MemoryStash']) {
    assert.ok(!(name in dec), `decode entry exports ${name}`);
  }
  assert.equal(dec.StcError, stc.StcError);
  assert.deepEqual(dec.versionNames(), stc.versionNames());
  assert.deepEqual(dec.errorCodes(), stc.errorCodes());
});

test('the decode-only wasm exports no encoder, gate or stash function', () => {
  for (const dir of ['web', 'node']) {
    const module = new WebAssembly.Module(readFileSync(join(ROOT, 'pkg', dir, 'stc_decode_wasm_bg.wasm')));
    const names = WebAssembly.Module.exports(module).map((e) => e.name);
    assert.ok(names.includes('decode') && names.includes('parse'), `${dir}: ${names}`);
    for (const gone of ['encode', 'stringify', 'encodeGated', 'countTokens', 'truncate', 'retrieve']) {
      assert.ok(!names.includes(gone), `${dir}: the decode-only wasm exports ${gone}`);
    }
    assert.ok(!names.some((n) => n.startsWith('memorystash')), `${dir}: the decode-only wasm has the stash`);
  }
});

test(`decode through the decode entry: every decode, invalid and roundtrip case (${cases.length})`, () => {
  assert.ok(cases.length > 100);
  const both = { encode: stc.encode, decode: dec.decode };
  for (const c of cases) {
    assert.equal(runCase(both, c), null, `${c.file} ${c.name}`);
  }
});

test('parse through the decode entry equals the full entry, default and bigint mode', () => {
  let compared = 0;
  // Deep cases (maxDepth above 1000) are left to decode: assert's deep comparison recurses.
  for (const c of cases.filter((c) => c.category !== 'invalid' && !(c.options?.max_depth > 1000))) {
    const limits = limitsOf(c);
    const stcText = c.category === 'decode' ? inputOf(c) : stc.encode(inputOf(c), limits);
    for (const bigint of [false, true]) {
      let want;
      try {
        want = { value: stc.parse(stcText, { ...limits, bigint }) };
      } catch (e) {
        want = { error: [e.name, e.code, e.offset, e.message] };
      }
      let got;
      try {
        got = { value: dec.parse(stcText, { ...limits, bigint }) };
      } catch (e) {
        got = { error: [e.name, e.code, e.offset, e.message] };
      }
      assert.deepStrictEqual(got, want, `${c.file} ${c.name} bigint=${bigint}`);
      compared++;
    }
  }
  assert.ok(compared > 200, `${compared}`);
});

test('argument errors of the decode entry are the full entry\'s', () => {
  for (const [args, kind] of [
    [[42], TypeError],
    [['[1]', { maxDepth: -1 }], RangeError],
    [['[1]', { version: 3 }], RangeError],
    [['[1]', { version: '2' }], TypeError],
  ]) {
    for (const f of ['decode', 'parse']) {
      let want;
      try { stc[f](...args); } catch (e) { want = e; }
      assert.throws(() => dec[f](...args), (e) => e instanceof kind && e.message === want.message, `${f}(${JSON.stringify(args)})`);
    }
  }
  let want;
  try { stc.decode('[1,'); } catch (e) { want = e; }
  assert.throws(() => dec.decode('[1,'), (e) => e instanceof dec.StcError && e.code === want.code && e.message === want.message);
});

// `version` refusals name the number as Rust's `Display` of an f64 writes it
// (the core's `Version::try_from(f64)` message): the module makes that text
// from the engine's String(n) (src/options.rs). Expected texts printed by
// `println!("{}", x)` (Rust 1.95); the core's message quotes at most 64 characters of it.
const RUST_DISPLAY = [
  [2.5, '2.5'],
  [3, '3'],
  [-1, '-1'],
  [0, '0'],
  [-0, '-0'],
  [1e-7, '0.0000001'],
  [1.5e-7, '0.00000015'],
  [1e-6, '0.000001'],
  [1e21, '1000000000000000000000'],
  [1.5e300, '1500000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'],
  [-2.5e-300, '-0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000025'],
  [123456789012345680000, '123456789012345680000'],
  [5e-324, '0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000005'],
  [Number.MAX_VALUE, '179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'],
  [Infinity, 'inf'],
  [-Infinity, '-inf'],
  [NaN, 'NaN'],
  [1.0000000000000002, '1.0000000000000002'],
  [0.1, '0.1'],
];

test('a refused version (and minSaving) is named as Rust writes the number, in all three modules', () => {
  const stash = createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_stash_wasm.js'));
  for (const [n, text] of RUST_DISPLAY) {
    assert.throws(
      () => stash.truncate('[1]', { stash: null, version: n }),
      (e) => e instanceof RangeError && e.message === `unknown version "${text.slice(0, 64)}" (expected one of: 1, 2)`,
      `stash: version ${n}`,
    );
  }
  const modules = { codec: join(ROOT, 'pkg/node/stc_wasm.js'), decode: join(ROOT, 'pkg/node/stc_decode_wasm.js') };
  for (const [name, file] of Object.entries(modules)) {
    const native = createRequire(import.meta.url)(file);
    for (const [n, text] of RUST_DISPLAY) {
      assert.throws(
        () => native.decode('[1]', { version: n }),
        (e) => e instanceof RangeError && e.message === `unknown version "${text.slice(0, 64)}" (expected one of: 1, 2)`,
        `${name}: version ${n}`,
      );
    }
    assert.equal(native.decode('[1]', { version: 2 }), '[1]');
    if (name === 'decode') continue;
    // `minSaving` refusals in the codec module too (the core's `MinSaving::try_from(f64)` message,
    // the whole number): the module writes them from String(n) as well.
    for (const [n, text] of RUST_DISPLAY.filter(([n]) => !(n >= 0 && n <= 1))) {
      assert.throws(
        () => native.encodeGated('[1]', { minSaving: n }),
        (e) => e instanceof RangeError && e.message === `invalid min_saving ${text} (expected a number from 0 to 1)`,
        `${name}: minSaving ${n}`,
      );
    }
  }
});

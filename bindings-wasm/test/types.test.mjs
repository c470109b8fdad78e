// The generated .d.ts files type-check real use (examples/*.ts) under
// `tsc --strict`, and reject a wrong option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './load.mjs';

const native = createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js'));

const tsc = (args) => spawnSync(join(ROOT, 'node_modules/.bin/tsc'), args, { encoding: 'utf8', cwd: ROOT });
const STRICT = ['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', ''];

/** `tsc --strict` over TypeScript sources ({ name: text }) written to a temporary folder; returns tsc's output and status. */
function check(sources, lib = 'es2020,esnext.disposable,dom') {
  const dir = mkdtempSync(join(tmpdir(), 'stc-wasm-types-'));
  try {
    const files = Object.entries(sources).map(([name, text]) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    });
    const r = tsc([...STRICT, '--lib', lib, ...files]);
    return { status: r.status, out: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const from = (entry) => JSON.stringify(join(ROOT, entry));

test('examples/*.ts type-check against pkg/web and pkg/node', () => {
  const r = tsc(['-p', 'examples']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('a wrong profile, option or result type is a type error', () => {
  const { status, out } = check({
    'neg.ts':
      `import { encode, countTokens, decode } from ${from('pkg/node/stc.mjs')};\n` +
      `encode('{}', { profile: 'pretty' });\n` +
      `countTokens('x', 'o200k_base');\n` +
      `const n: number = decode('1');\n` +
      `decode('1', { version: 3 });\n`,
  });
  assert.notEqual(status, 0);
  assert.match(out, /neg\.ts\(5,\d+\).*Type '3' is not assignable to type 'StcVersion/);
  assert.match(out, /'"pretty"' is not assignable/);
  assert.match(out, /'"o200k_base"' is not assignable/);
  assert.match(out, /Type 'string' is not assignable to type 'number'/);
});

test('the decode-only entry (stc-wasm/decode) type-checks in both builds and has no writing functions', () => {
  const ok = check({
    'decode.mts':
      `import init, { decode, parse, decodeStc, StcError, versionNames } from ${from('pkg/web/stc_decode.js')};\n` +
      `import * as node from ${from('pkg/node/stc_decode.mjs')};\n` +
      `void init();\n` +
      `const s: string = decode('[1]', { maxDepth: 3, version: 2 }) + decodeStc(new Uint8Array([0x5b, 0x5d]));\n` +
      `const v: unknown = parse('[1]', { bigint: true });\n` +
      `const t: string = node.decode('[1]');\n` +
      `const names: string[] = versionNames();\n` +
      `const e: SyntaxError = new StcError('m');\n` +
      `console.log(s, v, t, names, e, node.parse('1'));\n` +
      `export {};\n`,
  });
  assert.equal(ok.status, 0, ok.out);
  const { status, out } = check({
    'neg.mts':
      `import { encode } from ${from('pkg/web/stc_decode.js')};\n` +
      `import { stringify } from ${from('pkg/node/stc_decode.mjs')};\n` +
      `export { encode, stringify };\n`,
  });
  assert.notEqual(status, 0);
  assert.match(out, /neg\.mts\(1,\d+\).*encode/);
  assert.match(out, /neg\.mts\(2,\d+\).*stringify/);
});

// The unions are not written by hand anywhere in the package: each must be
// exactly the list the core reports at run time (ErrorKind::CODES,
// Profile::NAMES, the tokenizers compiled in), in the web and node builds.
test('the published unions are exactly the core\'s lists (errorCodes, profileNames, tokenizerNames, versionNames)', () => {
  const lists = { ErrorCode: native.errorCodes(), StcErrorCode: native.errorCodes(), Profile: native.profileNames(), TokenizerName: native.tokenizerNames() };
  assert.ok(lists.ErrorCode.includes('count_mismatch') && lists.Profile.includes('readable'));
  const sources = {};
  for (const [entry, out] of [['pkg/web/stc.js', 'web.mts'], ['pkg/node/stc.mjs', 'node.mts']]) {
    let src = `import type { ${Object.keys(lists).join(', ')}, StcVersion } from ${from(entry)};\n`;
    src += 'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;\n';
    for (const [name, list] of Object.entries(lists)) {
      src += `const ${name}Exact: Same<${name}, ${list.map((n) => JSON.stringify(n)).join(' | ')}> = true;\n`;
    }
    // Versions are numbers in the options: the union of versionNames() as numbers.
    src += `const versionExact: Same<StcVersion, ${native.versionNames().join(' | ')}> = true;\n`;
    // And the check itself can fail: a name that is not in the list.
    src += `// @ts-expect-error not an error code\nconst notACode: ErrorCode = 'no_such_code';\n`;
    sources[out] = src;
  }
  const { status, out } = check(sources);
  assert.equal(status, 0, out);
});

// js-shared/stash.d.ts is the one home of the stash types: it type-checks on
// its own (stc-node imports it too), both builds publish exactly its current
// text (a stale build fails here), and no second copy of the codes exists.
test('the stash types are js-shared/stash.d.ts, published once in both builds (the stash module\'s)', () => {
  const shared = join(ROOT, '../js-shared/stash.d.ts');
  const alone = tsc(['--strict', '--noEmit', '--types', '', shared]);
  assert.equal(alone.status, 0, alone.stdout + alone.stderr);
  const lines = (text) => text.split('\n').map((l) => l.trim()).filter(Boolean);
  const want = lines(readFileSync(shared, 'utf8'));
  for (const dir of ['pkg/web', 'pkg/node']) {
    const published = readFileSync(join(ROOT, dir, 'stc_stash_wasm.d.ts'), 'utf8');
    const got = lines(published);
    const at = got.indexOf(want[0]);
    assert.ok(at >= 0, `${dir}/stc_stash_wasm.d.ts lacks js-shared/stash.d.ts (rebuild)`);
    assert.deepEqual(got.slice(at, at + want.length), want, `${dir}/stc_stash_wasm.d.ts holds an old js-shared/stash.d.ts (rebuild)`);
    assert.equal(published.split('export type StashErrorCode =').length, 2, 'one StashErrorCode union');
    // The codec module has no stash: its declarations name none of it.
    const codec = readFileSync(join(ROOT, dir, 'stc_wasm.d.ts'), 'utf8');
    assert.doesNotMatch(codec, /StashErrorCode|MemoryStash|Truncation/, `${dir}/stc_wasm.d.ts declares the stash`);
  }
});

// js-shared/api.d.ts is the one home of the option and result types: both
// builds import it (no interface of its own declared in stc_wasm.d.ts), and
// the types work through the entries.
test('the option types are js-shared/api.d.ts, imported (not copied) by both builds', () => {
  const names = ['Text', 'Limits', 'Versioned', 'DecodeOptions', 'ParseOptions', 'EncodeOptions', 'StringifyOptions', 'GateOptions', 'Gated'];
  for (const [dir, ext] of [['pkg/web', '.js'], ['pkg/node', '.mjs']]) {
    const published = readFileSync(join(ROOT, dir, 'stc_wasm.d.ts'), 'utf8');
    assert.ok(published.includes(`from './api${ext}';`), `${dir}/stc_wasm.d.ts imports ./api${ext}`);
    for (const name of names) {
      assert.doesNotMatch(published, new RegExp(`(interface|type) ${name}\\b`), `${dir}/stc_wasm.d.ts declares ${name} itself`);
    }
  }
  const { status, out } = check({
    'api.mts':
      `import { encodeGated, truncate, MemoryStash, type GateOptions, type Gated, type Input, type Text } from ${from('pkg/node/stc.mjs')};\n` +
      `const o: GateOptions = { profile: 'readable', version: 2, minSaving: 0.1, tokenizer: (t: string) => t.length };\n` +
      `const g: Gated = encodeGated('{}', o);\n` +
      `const same: [Input] extends [Text] ? ([Text] extends [Input] ? true : false) : false = true;\n` +
      `truncate('{}', { stash: new MemoryStash(), version: 2 });\n` +
      `// @ts-expect-error not a version\ntruncate('{}', { stash: null, version: 3 });\n` +
      `export { g, same };\n`,
  });
  assert.equal(status, 0, out);
});

test('a wrong store, tokenizer or stash field is a type error', () => {
  const { status, out } = check({
    'neg.ts':
      `import { truncate, MemoryStash, type StashError } from ${from('pkg/node/stc.mjs')};\n` +
      `truncate('{}', { stash: 'memory' });\n` +
      `truncate('{}', { stash: new MemoryStash(), tokenizer: 'o200k_base' });\n` +
      `const n: number = truncate('{}', { stash: null }).kept;\n` +
      `declare const e: StashError;\nconst c: 'gone' = e.code;\n`,
  });
  assert.notEqual(status, 0);
  assert.match(out, /neg\.ts\(2,\d+\).*is not assignable to type 'MemoryStash'/);
  assert.match(out, /'"o200k_base"' is not assignable/);
  assert.match(out, /neg\.ts\(4,\d+\).*null' is not assignable to type 'number'/);
  assert.match(out, /Type 'StashErrorCode' is not assignable to type '"gone"'/);
  assert.equal(out.trim().split('\n').filter((l) => l.includes('error TS')).length, 4, out);
});

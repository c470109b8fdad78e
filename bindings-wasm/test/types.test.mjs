// The generated .d.ts files type-check real use (examples/*.ts) under
// `tsc --strict`, and reject a wrong option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './load.mjs';

const tsc = (args) => spawnSync(join(ROOT, 'node_modules/.bin/tsc'), args, { encoding: 'utf8', cwd: ROOT });

test('examples/*.ts type-check against pkg/web and pkg/node', () => {
  const r = tsc(['-p', 'examples']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('a wrong profile, option or result type is a type error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stc-wasm-types-'));
  try {
    const file = join(dir, 'neg.ts');
    writeFileSync(
      file,
      `import { encode, countTokens, decode } from ${JSON.stringify(join(ROOT, 'pkg/node/stc.mjs'))};\n` +
        `encode('{}', { profile: 'pretty' });\n` +
        `countTokens('x', 'o200k_base');\n` +
        `const n: number = decode('1');\n`,
    );
    const r = tsc(['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', '', file]);
    assert.notEqual(r.status, 0);
    const out = r.stdout + r.stderr;
    assert.match(out, /'"pretty"' is not assignable/);
    assert.match(out, /'"o200k_base"' is not assignable/);
    assert.match(out, /Type 'string' is not assignable to type 'number'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

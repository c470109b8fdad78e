// The stcFetch declarations (pkg/*/stc_fetch.d.ts, .d.mts) type-check real use
// (examples/fetch.ts) under `tsc --strict`, in the web build and through the
// package's `./fetch` export in Node, and reject wrong options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './load.mjs';

const tsc = (args) => spawnSync(join(ROOT, 'node_modules/.bin/tsc'), args, { encoding: 'utf8', cwd: ROOT });
const FLAGS = ['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2020', '--lib', 'es2020,dom', '--types', ''];

test('examples/fetch.ts type-checks against pkg/web/stc_fetch.d.ts', () => {
  const r = tsc([...FLAGS, join(ROOT, 'examples', 'fetch.ts')]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the ./node/fetch declarations: a right call passes, wrong options are type errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stc-wasm-fetch-types-'));
  try {
    const good = join(dir, 'good.mts');
    const bad = join(dir, 'bad.mts');
    const from = JSON.stringify(join(ROOT, 'pkg/node/stc_fetch.mjs'));
    writeFileSync(good, `import { stcFetch } from ${from};\nconst r: Promise<Response> = stcFetch('http://127.0.0.1/', { stc: { accept: null } });\nexport { r };\n`);
    writeFileSync(bad, `import { stcFetch } from ${from};\nstcFetch('x', { stc: { accept: 5 } });\nconst s: string = stcFetch('x');\n`);
    const ok = tsc([...FLAGS, good]);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    const r = tsc([...FLAGS, bad]);
    assert.notEqual(r.status, 0);
    const out = r.stdout + r.stderr;
    assert.match(out, /'number' is not assignable to type 'string'/);
    assert.match(out, /'Promise<Response>' is not assignable to type 'string'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

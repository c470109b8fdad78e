// In a real browser: Debian's headless Chromium, driven by playwright-core,
// loads the `web` build from a local static server and runs the conformance
// corpus and real documents of the shared corpus through it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from './server.mjs';
import { launch } from './browser.mjs';
import { stc, caseFiles, CORPUS_DIR } from './load.mjs';
import { flatten } from './cases.mjs';

let server, chromium, page;

before(async () => {
  server = await serve();
  chromium = await launch();
  page = await chromium.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(`${server.url}/test/browser.html`);
  await page.evaluate(() => window.pageReady);
  assert.deepEqual(errors, []);
});

after(async () => {
  await chromium?.close();
  await server?.close();
});

test('the whole conformance corpus passes in Chromium', async () => {
  const r = await page.evaluate(() => window.runConformance());
  assert.match(r.userAgent, /Chrome\//);
  assert.equal(r.cases, flatten(caseFiles()).length, 'the page ran every case on disk');
  assert.deepEqual(r.failures, []);
  assert.equal(r.passed, r.cases);
  console.log(`# chromium: ${r.passed} of ${r.cases} cases from ${r.files} files passed (${r.userAgent})`);
});

test('the stash module is fetched only by loadStash(), then truncate and retrieve work', async () => {
  const r = await page.evaluate(() => window.stashOnDemand());
  assert.ok(r.before.includes('stc_wasm_bg.wasm'), `fetched before: ${r.before}`);
  assert.ok(!r.before.includes('stc_stash_wasm_bg.wasm'), `fetched before: ${r.before}`);
  assert.match(r.refused, /call `await loadStash\(\)` before truncate/);
  assert.ok(r.after.includes('stc_stash_wasm_bg.wasm'), `fetched after: ${r.after}`);
  assert.equal(r.sameEntry, true);
  assert.equal(r.isEntryClass, true);
  assert.equal(r.truncated, true);
  assert.equal(r.back, true);
  assert.equal(r.decodes, true);
});

test('errors in the browser are Error objects with code, offset, line, column', async () => {
  const r = await page.evaluate(() => window.stcDecode('{\n  ids[3]: 1,2\n}'));
  assert.equal(r.json, undefined);
  assert.equal(r.error.isError, true);
  assert.equal(r.error.name, 'StcError');
  // At the count's first byte (design D.3): the `3` on line 2.
  assert.equal(r.error.code, 'count_mismatch');
  assert.equal(r.error.line, 2);
  assert.equal(r.error.column, 7);
  assert.equal(r.error.offset, 8);
  let node;
  try { stc.decode('{\n  ids[3]: 1,2\n}'); } catch (e) { node = e; }
  assert.equal(r.error.offset, node.offset);
  assert.equal(r.error.message, node.message);
});

// No recursion on input depth (design D.5) in the page's main thread, with
// Chromium's default stack: 100,000 nested arrays, maxDepth 100000.
test('100,000 nested arrays through every function on the page\'s default stack', async () => {
  const { recursion, checks } = await page.evaluate((d) => window.deepChecks(d), 100_000);
  console.log(`# chromium page: plain JavaScript recursion stops at ${recursion} frames`);
  assert.ok(recursion < 100_000, `recursion reached ${recursion}`);
  assert.equal(checks.length, 10);
  assert.deepEqual(checks.filter((c) => !c.ok), []);
});

for (const name of ['twitter.json', 'citm_catalog.json', 'github_events.json']) {
  test(`a real document decodes in Chromium: ${name}`, async () => {
    const original = readFileSync(join(CORPUS_DIR, name), 'utf8');
    // STC made by the Node build; the browser decodes it and must give the same bytes.
    const stcText = stc.encode(original);
    const expected = stc.decode(stcText);
    assert.ok(stcText.length < expected.length, 'STC is smaller than minified JSON');
    const r = await page.evaluate(([n, t]) => window.corpusRoundtrip(n, t), [name, stcText]);
    assert.equal(r.bytes, original.length);
    assert.equal(r.fromGiven, expected, 'browser decode is byte-identical to Node decode');
    assert.equal(r.decoded, expected, 'encode+decode in the browser gives the same JSON');
    assert.equal(r.sameValue, true, 'same value as JSON.parse of the original');
    assert.deepEqual(JSON.parse(r.fromGiven), JSON.parse(original));
    assert.equal(r.parsedKeys, Object.keys(JSON.parse(original)).length);
  });
}

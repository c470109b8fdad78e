// A real headless Chromium page reads STC through a real `stc proxy` process
// in front of a real upstream process (test/upstream.mjs). The page comes
// from the upstream *through the proxy*, so its fetches are same-origin (no
// CORS); it calls the wasm package's stcFetch with the default
// `Accept: application/stc+json, application/json;q=0.9` and shows the JSON.
// The test checks the shown JSON against the upstream's document and saves
// screenshots in test-output/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './browser.mjs';
import { ROOT, CORPUS_DIR, stc } from './load.mjs';
import { startUpstream, startProxy, minified, BROKEN_STC } from './processes.mjs';

const OUT = join(ROOT, 'test-output');
let up, proxy, chromium, page;
const pageErrors = [];

before(async () => {
  mkdirSync(OUT, { recursive: true });
  up = await startUpstream();
  proxy = await startProxy(up.url);
  chromium = await launch();
  page = await chromium.context.newPage();
  await page.setViewportSize({ width: 1100, height: 800 });
  page.on('pageerror', (e) => pageErrors.push(e));
});

after(async () => {
  await chromium?.close();
  await proxy?.stop();
  await up?.stop();
});

/** Opens the page at `origin` to fetch `path` (asking for STC `version` if given); resolves once it has shown a result. */
async function show(origin, path, version) {
  const ask = version === undefined ? '' : `&version=${version}`;
  await page.goto(`${origin}/test/fetch-page.html?path=${encodeURIComponent(path)}${ask}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  assert.deepEqual(pageErrors, []);
}

// The gate (5 % token saving) picks STC for the first three and keeps JSON
// for github_events.json (about 1 % saving): the page must show both right.
const EXPECTED_VIA = {
  'apache_builds.json': 'stc',
  'twitter_timeline.json': 'stc',
  'random.json': 'stc',
  'github_events.json': 'json',
};

for (const [name, expectedVia] of Object.entries(EXPECTED_VIA)) {
  test(`the page shows ${name} fetched through the proxy (${expectedVia} on the wire) as the upstream's JSON`, async () => {
    await show(proxy.url, `/json/${name}`);
    const shown = await page.textContent('#out');
    assert.equal(await page.isHidden('#error'), true);
    assert.equal(await page.getAttribute('body', 'data-via'), expectedVia);
    assert.deepEqual(JSON.parse(shown), JSON.parse(readFileSync(join(CORPUS_DIR, name), 'utf8')));
    if (expectedVia === 'stc') {
      // Decoded STC is the upstream document minified, number lexemes and key order kept.
      assert.equal(shown, minified(name));
      assert.match(await page.textContent('#via'), /^application\/stc\+json, X-STC-Version 1, X-STC-Ratio \d\.\d\d$/);
    } else {
      // The gate's JSON is the upstream's document minified (stc-http sends
      // the JSON the gate compared STC with; the page shows it as it came).
      assert.equal(shown, minified(name));
    }
    if (name === 'apache_builds.json') await page.screenshot({ path: join(OUT, 'fetch-proxy.png'), fullPage: false });
  });
}

test('asked for version 2 (Accept: application/stc+json; version=2), the proxy sends v2 and the page shows the same JSON', async () => {
  for (const name of ['apache_builds.json', 'twitter_timeline.json']) {
    await show(proxy.url, `/json/${name}`, 2);
    assert.equal(await page.isHidden('#error'), true, await page.textContent('#error'));
    assert.equal(await page.getAttribute('body', 'data-via'), 'stc');
    assert.match(await page.textContent('#via'), /^application\/stc\+json, X-STC-Version 2, X-STC-Ratio \d\.\d\d$/);
    assert.equal(await page.textContent('#out'), minified(name));
  }
});

test('a response the gate keeps as JSON is shown as it came', async () => {
  await show(proxy.url, '/small');
  assert.equal(await page.textContent('#out'), '[1,2,3]');
  assert.equal(await page.getAttribute('body', 'data-via'), 'json');
});

test('an invalid STC body from the upstream shows its code, line and column', async () => {
  let want;
  try { stc.decode(BROKEN_STC); } catch (e) { want = e; }
  // Straight from the upstream (not through the proxy): the broken body is the upstream's own.
  await show(up.url, '/broken');
  assert.equal(await page.isVisible('#error'), true);
  assert.equal(await page.textContent('#error'), `STC error (${want.code}) at line ${want.line}, column ${want.column}: ${want.reason}`);
  assert.equal(await page.getAttribute('#error', 'data-line'), '3');
  assert.equal(await page.getAttribute('#error', 'data-column'), '16');
  await page.screenshot({ path: join(OUT, 'fetch-error.png'), fullPage: false });
});

// The demo page in Chromium: served from a local static server, it decodes the
// ADR's columnar example; the test asserts the DOM and saves screenshots
// (test-output/demo*.png) for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from './server.mjs';
import { launch } from './browser.mjs';
import { ROOT, stc } from './load.mjs';

const OUT = join(ROOT, 'test-output');
let server, chromium, page;
const pageErrors = [];

before(async () => {
  mkdirSync(OUT, { recursive: true });
  server = await serve();
  chromium = await launch();
  page = await chromium.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  page.on('pageerror', (e) => pageErrors.push(e));
  await page.goto(`${server.url}/demo/`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
});

after(async () => {
  await chromium?.close();
  await server?.close();
});

test('the ADR columnar example decodes to the JSON array of two objects', async () => {
  await page.click('#example');
  const stcText = await page.inputValue('#stc');
  assert.equal(stcText, '([2]{id,name,method}: 1,"users","GET" / 2,"orders","POST")');
  const json = await page.inputValue('#json');
  const expected = [
    { id: 1, name: 'users', method: 'GET' },
    { id: 2, name: 'orders', method: 'POST' },
  ];
  assert.deepEqual(JSON.parse(json), expected);
  assert.equal(json, JSON.stringify(expected, null, 2), 'indented JSON shown');
  assert.equal(await page.isHidden('#error'), true);
  const minified = JSON.stringify(expected);
  assert.equal(await page.textContent('#stc-bytes'), `${stcText.length} bytes`);
  assert.equal(await page.textContent('#json-bytes'), `${json.length} bytes`);
  const status = await page.textContent('#status');
  assert.match(status, new RegExp(`STC ${stcText.length} bytes → JSON ${minified.length} bytes`));
  await page.screenshot({ path: join(OUT, 'demo.png'), fullPage: true });
});

test('an STC error is shown with its code, line and column', async () => {
  await page.fill('#stc', '{\n  tags[3]: "a","b"\n}');
  await page.click('#to-json');
  assert.equal(await page.isVisible('#error'), true);
  const text = await page.textContent('#error');
  let want;
  try { stc.decode('{\n  tags[3]: "a","b"\n}'); } catch (e) { want = e; }
  assert.equal(want.code, 'count_mismatch');
  assert.equal(text, `STC error (count_mismatch) at line ${want.line}, column ${want.column}: ${want.reason}`);
  assert.equal(await page.inputValue('#json'), '', 'no stale JSON next to an error');
  // The offending character is selected.
  const sel = await page.evaluate(() => [document.activeElement.id, document.activeElement.selectionStart]);
  assert.deepEqual(sel, ['stc', want.offset]); // ASCII input: UTF-16 index = byte offset
  assert.equal(await page.getAttribute('#error', 'data-line'), String(want.line));
  await page.screenshot({ path: join(OUT, 'demo-error.png'), fullPage: true });
});

test('JSON → STC uses the chosen profile and shows byte counts', async () => {
  const json = '{"tags": ["api", "gateway"], "rows": [{"id": 1, "ok": true}, {"id": 2, "ok": false}]}';
  await page.fill('#json', json);
  await page.selectOption('#profile', 'compact');
  await page.click('#to-stc');
  assert.equal(await page.inputValue('#stc'), stc.encode(json, { profile: 'compact' }));
  assert.equal(await page.isHidden('#error'), true);
  await page.selectOption('#profile', 'readable');
  await page.click('#to-stc');
  const readable = stc.encode(json, { profile: 'readable' });
  assert.equal(await page.inputValue('#stc'), readable);
  assert.equal(await page.textContent('#stc-bytes'), `${Buffer.byteLength(readable)} bytes`);
  await page.fill('#json', '{"a": [1, 2,]}');
  await page.click('#to-stc');
  assert.match(await page.textContent('#error'), /^JSON error \(unexpected_char\) at line 1, column 13: /);
  assert.deepEqual(pageErrors, []);
});

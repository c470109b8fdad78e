// stcFetch of the wasm package in Node (`stc-wasm/fetch` → pkg/node), against
// the real upstream process of test/upstream.mjs: STC made by the package's
// own encoder in both header forms, gzip on top, errors, options.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stcFetch, DEFAULT_ACCEPT, isStc } from 'stc-wasm/fetch';
import { CORPUS_DIR, stc } from './load.mjs';
import { startUpstream, minified, BROKEN_STC } from './processes.mjs';

const DOCS = ['github_events.json', 'twitter_api_response.json', 'instruments.json', 'twitter.json'];
let up;
before(async () => { up = await startUpstream(); });
after(async () => { await up?.stop(); });

/** The decoded response is the upstream's minified JSON, with headers that say so. */
async function assertDecodedJson(res, name, url) {
  assert.equal(res.status, 200);
  assert.equal(res.url, url);
  const text = await res.clone().text();
  assert.equal(text, minified(name));
  assert.deepEqual(await res.json(), JSON.parse(readFileSync(join(CORPUS_DIR, name), 'utf8')));
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
  assert.equal(res.headers.get('content-encoding'), null);
}

test('the package exports stcFetch under ./fetch (node condition)', () => {
  assert.equal(typeof stcFetch, 'function');
  assert.equal(DEFAULT_ACCEPT, 'application/stc+json, application/json;q=0.9');
  assert.equal(isStc('application/stc+json; charset=utf-8', null), true);
  assert.equal(isStc('application/json', 'stc, gzip'), true);
  assert.equal(isStc('application/json', 'gzip'), false);
});

test('Accept is added when absent, kept when chosen, left alone with accept: null', async () => {
  assert.equal((await (await stcFetch(`${up.url}/echo`)).json()).accept, DEFAULT_ACCEPT);
  assert.equal((await (await stcFetch(`${up.url}/echo`, { headers: { accept: 'text/csv' } })).json()).accept, 'text/csv');
  assert.equal((await (await stcFetch(`${up.url}/echo`, { stc: { accept: null } })).json()).accept, '*/*');
  assert.equal((await (await stcFetch(new Request(`${up.url}/echo`))).json()).accept, DEFAULT_ACCEPT);
});

for (const route of ['stc', 'stc-ce', 'stc-ce-gzip']) {
  test(`${route}: STC bodies decode to the upstream's JSON`, async () => {
    for (const name of DOCS) {
      const url = `${up.url}/${route}/${name}`;
      await assertDecodedJson(await stcFetch(url), name, url);
    }
  });
}

test('JSON and HEAD come back as fetched', async () => {
  const raw = readFileSync(join(CORPUS_DIR, 'github_events.json'));
  const json = await stcFetch(`${up.url}/json/github_events.json`);
  assert.deepEqual(Buffer.from(await json.arrayBuffer()), raw);
  const head = await stcFetch(`${up.url}/stc/github_events.json`, { method: 'HEAD' });
  assert.equal(head.headers.get('content-type'), 'application/stc+json');
  assert.equal(await head.text(), '');
});

test('an invalid STC body rejects with StcError, line and column', async () => {
  let want;
  try { stc.decode(BROKEN_STC); } catch (e) { want = e; }
  assert.deepEqual([want.code, want.line, want.column], ['unexpected_char', 3, 16]);
  const url = `${up.url}/broken`;
  await assert.rejects(stcFetch(url), (e) => {
    assert.ok(e instanceof SyntaxError);
    assert.equal(e.name, 'StcError');
    assert.deepEqual([e.code, e.line, e.column, e.offset, e.reason], [want.code, want.line, want.column, want.offset, want.reason]);
    assert.ok(e.message.includes(url) && e.message.includes('line 3 column 16'), e.message);
    return true;
  });
});

test('version 2: asked for with version=2, decoded in the version the response states', async () => {
  const asked = await (await stcFetch(`${up.url}/echo`, { stc: { version: 2 } })).json();
  assert.equal(asked.accept, 'application/stc+json; version=2, application/json;q=0.9');
  for (const name of ['twitter.json', 'citm_catalog.json']) {
    const url = `${up.url}/v2/${name}`;
    const res = await stcFetch(url);
    assert.equal(res.headers.get('x-stc-version'), '2');
    await assertDecodedJson(res, name, url);
    // The body really is version 2: announced as version 1, it is refused at its first v2 construct.
    await assert.rejects(stcFetch(`${up.url}/v2-as-v1/${name}`), (e) => e.name === 'StcError' && e.code === 'newer_version');
  }
  await assert.rejects(stcFetch(`${up.url}/echo`, { stc: { version: 3 } }), RangeError);
});

test('an unknown version is refused; maxDepth applies', async () => {
  await assert.rejects(stcFetch(`${up.url}/v3`), (e) => e.name === 'StcVersionError' && e.version === '3');
  await assert.rejects(stcFetch(`${up.url}/stc/github_events.json`, { stc: { maxDepth: 2 } }), (e) => e.code === 'depth_limit');
});

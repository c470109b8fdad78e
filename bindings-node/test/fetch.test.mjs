// stcFetch against a real upstream server process on 127.0.0.1 (this file,
// run with STC_FETCH_TEST_ROLE=upstream), and end to end through a real
// `stc proxy` process in front of that upstream. The `stc` binary is $STC_BIN,
// else this checkout's debug build (`cargo build -p stc-cli`, run here).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { spawnUntilLine, startProxy } from '../../js-shared/test/processes.mjs';
import stc, { stcFetch, StcError, DEFAULT_ACCEPT, decode, encode, encodeGated } from '../index.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');

/** `$STC_CORPUS`, else `shared/corpus` beside the repository, else `/work/shared/corpus`. */
export function corpusDir() {
  if (process.env.STC_CORPUS) return process.env.STC_CORPUS;
  const beside = resolve(REPO, '..', 'shared', 'corpus');
  return existsSync(beside) ? beside : '/work/shared/corpus';
}

/** An invalid STC text: a missing ',' at line 3 column 16. */
export const BROKEN_STC = '{\n  ok: true,\n  tags[2]: "a" "b"\n}';

// ---------------------------------------------------------------- upstream role
// Routes (GET and HEAD; POST to /echo):
//   /json/NAME          corpus document as stored, application/json
//   /stc/NAME           its STC (stc-node's encode), application/stc+json
//   /stc-ce/NAME        the same with Content-Encoding: stc (ADR-066's form)
//   /stc-gzip/NAME      gzipped, Content-Encoding: gzip
//   /stc-ce-gzip/NAME   gzipped, Content-Encoding: stc, gzip
//   /stc-ce-br/NAME     brotli, Content-Encoding: stc, br
//   /stc-ce-badgzip/NAME, /stc-ce-zstd/NAME  Content-Encoding: stc, gzip (or zstd) on a body that is neither
//   /broken, /broken-ce an invalid STC body (as application/stc+json; as JSON with Content-Encoding: stc)
//   /v2                 STC announced as version 2 (Content-Type's version parameter and X-STC-Version)
//   /v2-header          the same announced by X-STC-Version only
//   /v2-groups          a version 2 column group, announced as version 2
//   /v3                 announced as version 3 (unknown)
//   /v-conflict         Content-Type says version 2, X-STC-Version says 1
//   /small              [1,2,3] (STC saves nothing: a gate keeps JSON)
//   /echo               JSON: method, accept, accept-encoding, request body length
//   /no-content         204 with Content-Type: application/stc+json
//   /text               text/plain
function upstream() {
  const stcType = { 'content-type': 'application/stc+json', 'x-stc-version': '1' };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status, headers, body = '') => {
        const bytes = Buffer.from(body);
        res.writeHead(status, status === 204 ? headers : { ...headers, 'content-length': bytes.length });
        res.end(req.method === 'HEAD' || status === 204 ? undefined : bytes);
      };
      const path = new URL(req.url, 'http://x').pathname;
      if (path === '/echo') {
        const info = {
          method: req.method,
          accept: req.headers.accept ?? null,
          acceptEncoding: req.headers['accept-encoding'] ?? null,
          bodyLength: Buffer.concat(chunks).length,
        };
        return send(200, { 'content-type': 'application/json' }, JSON.stringify(info));
      }
      if (path === '/broken') return send(200, stcType, BROKEN_STC);
      if (path === '/broken-ce') return send(200, { 'content-type': 'application/json', 'content-encoding': 'stc' }, BROKEN_STC);
      const v2Type = { 'content-type': 'application/stc+json; version=2', 'x-stc-version': '2' };
      if (path === '/v2') return send(200, v2Type, '([2]{a}: 1 / 2)');
      if (path === '/v2-header') return send(200, { ...stcType, 'x-stc-version': '2' }, '([2]{a}: 1 / 2)');
      if (path === '/v2-groups') return send(200, v2Type, '([1]{id,user{id,name}}: 1,5,"bob")');
      if (path === '/v3') return send(200, { 'content-type': 'application/stc+json; version="3"' }, '([2]{a}: 1 / 2)');
      if (path === '/v-conflict') return send(200, { ...v2Type, 'x-stc-version': '1' }, '([2]{a}: 1 / 2)');
      if (path === '/small') return send(200, { 'content-type': 'application/json' }, '[1,2,3]');
      if (path === '/no-content') return send(204, stcType);
      if (path === '/text') return send(200, { 'content-type': 'text/plain; charset=utf-8' }, 'hello, not JSON');
      const [, route, name] = path.split('/');
      const file = name && !name.startsWith('.') ? join(corpusDir(), name) : null;
      if (!file || !existsSync(file)) return send(404, { 'content-type': 'text/plain' }, 'no such document');
      const doc = readFileSync(file);
      if (route === 'json') return send(200, { 'content-type': 'application/json' }, doc);
      const body = Buffer.from(encode(doc));
      if (route === 'stc') return send(200, stcType, body);
      if (route === 'stc-ce') return send(200, { ...stcType, 'content-encoding': 'stc' }, body);
      if (route === 'stc-gzip') return send(200, { ...stcType, 'content-encoding': 'gzip' }, gzipSync(body));
      if (route === 'stc-ce-gzip') return send(200, { ...stcType, 'content-encoding': 'stc, gzip' }, gzipSync(body));
      if (route === 'stc-ce-br') return send(200, { ...stcType, 'content-encoding': 'stc, br' }, brotliCompressSync(body));
      if (route === 'stc-ce-badgzip') return send(200, { ...stcType, 'content-encoding': 'stc, gzip' }, body);
      if (route === 'stc-ce-zstd') return send(200, { ...stcType, 'content-encoding': 'stc, zstd' }, body);
      return send(404, { 'content-type': 'text/plain' }, 'no such route');
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
  // Idle keep-alive connections would hold server.close() open: end at once.
  process.on('SIGTERM', () => process.exit(0));
}

/** Starts this file as the upstream server process; resolves to { url, stop() }. */
export async function startUpstream() {
  const { line, stop } = await spawnUntilLine(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, STC_FETCH_TEST_ROLE: 'upstream' },
  });
  assert.match(line, /^listening http:\/\/127\.0\.0\.1:\d+$/);
  return { url: line.split(' ')[1], stop };
}

export const DOCS = readdirSync(corpusDir()).filter((f) => f.endsWith('.json')).sort();
export const SMALL_DOCS = DOCS.filter((d) => statSync(join(corpusDir(), d)).size < 300_000);
/** The upstream document as minified JSON, number lexemes and key order kept. */
export const minified = (name) => decode(readFileSync(join(corpusDir(), name)));
export const value = (name) => JSON.parse(readFileSync(join(corpusDir(), name), 'utf8'));

/** The decoded response is the upstream's minified JSON, with headers that say so. */
export async function assertDecodedJson(res, name, url) {
  assert.equal(res.status, 200);
  assert.equal(res.url, url);
  const text = await res.clone().text();
  assert.equal(text, minified(name));
  assert.deepEqual(await res.json(), value(name));
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
  assert.equal(res.headers.get('content-encoding'), null);
}

// ------------------------------------------------------------------- test role
if (process.env.STC_FETCH_TEST_ROLE === 'upstream') {
  upstream();
} else {
  let up, proxy;
  before(async () => {
    up = await startUpstream();
    proxy = await startProxy(up.url);
  });
  after(async () => {
    await proxy?.stop();
    await up?.stop();
  });

  test('exports: stcFetch and DEFAULT_ACCEPT from both entries', async () => {
    const cjs = (await import('../index.js')).default;
    assert.equal(typeof stcFetch, 'function');
    assert.equal(cjs.stcFetch, stcFetch);
    assert.equal(stc.stcFetch, stcFetch);
    assert.equal(DEFAULT_ACCEPT, 'application/stc+json, application/json;q=0.9');
  });

  test('Accept is added when absent, kept when chosen, left alone with accept: null', async () => {
    assert.equal((await (await stcFetch(`${up.url}/echo`)).json()).accept, DEFAULT_ACCEPT);
    const chosen = await stcFetch(`${up.url}/echo`, { headers: { accept: 'text/csv' } });
    assert.equal((await chosen.json()).accept, 'text/csv');
    const untouched = await stcFetch(`${up.url}/echo`, { stc: { accept: null } });
    assert.equal((await untouched.json()).accept, '*/*');
    const custom = await stcFetch(`${up.url}/echo`, { stc: { accept: 'application/stc+json' } });
    assert.equal((await custom.json()).accept, 'application/stc+json');
    const fromRequest = await stcFetch(new Request(`${up.url}/echo`, { headers: { accept: 'text/plain' } }));
    assert.equal((await fromRequest.json()).accept, 'text/plain');
    const plainRequest = await stcFetch(new Request(`${up.url}/echo`));
    assert.equal((await plainRequest.json()).accept, DEFAULT_ACCEPT);
  });

  test('request method and body are sent (init and Request input)', async () => {
    const a = await stcFetch(`${up.url}/echo`, { method: 'POST', body: 'x'.repeat(1000) });
    const echoed = await a.json();
    assert.deepEqual([echoed.method, echoed.accept, echoed.bodyLength], ['POST', DEFAULT_ACCEPT, 1000]);
    assert.doesNotMatch(echoed.acceptEncoding ?? '', /stc/, 'stcFetch asks by Accept, not Accept-Encoding');
    const b = await stcFetch(new Request(`${up.url}/echo`, { method: 'POST', body: 'y'.repeat(777) }));
    assert.equal((await b.json()).bodyLength, 777);
  });

  for (const name of DOCS) {
    test(`application/stc+json body is decoded: ${name}`, async () => {
      const url = `${up.url}/stc/${name}`;
      const res = await stcFetch(url);
      await assertDecodedJson(res, name, url);
      assert.equal(res.headers.get('x-stc-version'), '1');
    });
  }

  for (const route of ['stc-ce', 'stc-gzip', 'stc-ce-gzip', 'stc-ce-br']) {
    test(`${route}: every small corpus document is decoded`, async () => {
      for (const name of SMALL_DOCS) {
        const url = `${up.url}/${route}/${name}`;
        await assertDecodedJson(await stcFetch(url), name, url);
      }
    });
  }

  test('a corrupt or unknown coding on top of stc is a TypeError that says so', async () => {
    await assert.rejects(stcFetch(`${up.url}/stc-ce-badgzip/github_events.json`), (e) => e instanceof TypeError && /gzip layer .* is corrupt/.test(e.message));
    await assert.rejects(stcFetch(`${up.url}/stc-ce-zstd/github_events.json`), (e) => e instanceof TypeError && /unsupported Content-Encoding "zstd"/.test(e.message));
  });

  test('JSON, other media types, HEAD and 204 come back as fetched', async () => {
    const name = 'github_events.json';
    const raw = readFileSync(join(corpusDir(), name));
    const json = await stcFetch(`${up.url}/json/${name}`);
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.deepEqual(Buffer.from(await json.arrayBuffer()), raw); // as stored, not re-serialized
    const text = await stcFetch(`${up.url}/text`);
    assert.equal(await text.text(), 'hello, not JSON');
    const head = await stcFetch(`${up.url}/stc/${name}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'application/stc+json');
    assert.equal(await head.text(), '');
    const empty = await stcFetch(`${up.url}/no-content`);
    assert.equal(empty.status, 204);
    assert.equal(await empty.text(), '');
  });

  for (const route of ['broken', 'broken-ce']) {
    test(`an invalid STC body rejects with StcError, line and column (${route})`, async () => {
      let want;
      try { decode(BROKEN_STC); } catch (e) { want = e; }
      assert.equal(want.line, 3);
      assert.equal(want.column, 16);
      const url = `${up.url}/${route}`;
      await assert.rejects(stcFetch(url), (e) => {
        assert.ok(e instanceof StcError);
        assert.ok(e instanceof SyntaxError);
        assert.equal(e.code, 'unexpected_char');
        assert.deepEqual([e.line, e.column, e.offset], [want.line, want.column, want.offset]);
        assert.equal(e.reason, want.reason);
        assert.ok(e.message.includes(url), e.message);
        assert.ok(e.message.includes('line 3 column 16'), e.message);
        return true;
      });
    });
  }

  test('version: asked for with Accept, decoded in the version the response states', async () => {
    const asked = await stcFetch(`${up.url}/echo`, { stc: { version: 2 } });
    assert.equal((await asked.json()).accept, 'application/stc+json; version=2, application/json;q=0.9');
    assert.equal((await (await stcFetch(`${up.url}/echo`, { stc: { version: 1 } })).json()).accept, DEFAULT_ACCEPT);
    // An explicit accept wins over version.
    const explicit = await stcFetch(`${up.url}/echo`, { stc: { version: 2, accept: 'application/stc+json' } });
    assert.equal((await explicit.json()).accept, 'application/stc+json');
    for (const path of ['/v2', '/v2-header']) {
      const res = await stcFetch(`${up.url}${path}`);
      assert.equal(res.headers.get('content-type'), 'application/json', path);
      assert.equal(res.headers.get('x-stc-version'), '2', path);
      assert.deepEqual(await res.json(), [{ a: 1 }, { a: 2 }], path);
    }
    await assert.rejects(stcFetch(`${up.url}/echo`, { stc: { version: 3 } }), RangeError);
    await assert.rejects(stcFetch(`${up.url}/echo`, { stc: { version: '2' } }), TypeError);
  });

  test('a version 2 body is decoded as version 2', async () => {
    const res = await stcFetch(`${up.url}/v2-groups`);
    assert.deepEqual(await res.json(), [{ id: 1, user: { id: 5, name: 'bob' } }]);
  });

  test('an unknown or contradictory version is refused, not guessed', async () => {
    await assert.rejects(stcFetch(`${up.url}/v3`), (e) => {
      assert.equal(e.name, 'StcVersionError');
      assert.equal(e.version, '3');
      assert.match(e.message, /\/v3 is STC version "3"; this package reads version 1 or 2$/);
      return true;
    });
    await assert.rejects(stcFetch(`${up.url}/v-conflict`), (e) => {
      assert.equal(e.name, 'StcVersionError');
      assert.match(e.message, /states STC version "2" in Content-Type and "1" in X-STC-Version$/);
      return true;
    });
  });

  test('maxDepth applies to the body', async () => {
    await assert.rejects(stcFetch(`${up.url}/stc/github_events.json`, { stc: { maxDepth: 2 } }), (e) => e.code === 'depth_limit');
  });

  test('bad options are TypeErrors', async () => {
    await assert.rejects(stcFetch(`${up.url}/echo`, { stc: 5 }), TypeError);
    await assert.rejects(stcFetch(`${up.url}/echo`, { stc: { accept: 5 } }), TypeError);
  });

  // ------------------------------------------------ end to end through stc proxy
  for (const name of DOCS) {
    test(`through stc proxy: ${name} comes back as the upstream's JSON`, async () => {
      const raw = readFileSync(join(corpusDir(), name));
      const url = `${proxy.url}/json/${name}`;
      const res = await stcFetch(url);
      assert.equal(res.status, 200);
      const viaStc = res.headers.get('x-stc-version') === '1';
      // The proxy's gate (estimate tokenizer, 5 % saving) chooses as stc-core's gate does.
      assert.equal(viaStc ? 'stc' : 'json', encodeGated(raw).chosen);
      const text = await res.clone().text();
      // STC decodes to the document minified (lexemes and key order kept); when the gate keeps JSON, a client
      // that asked for STC gets it minified too (spec 7.2), so the text is the same either way.
      assert.equal(text, minified(name));
      assert.deepEqual(await res.json(), value(name));
      assert.equal(res.headers.get('content-type'), 'application/json');
      if (viaStc) {
        assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
        assert.match(res.headers.get('x-stc-ratio'), /^\d\.\d\d$/);
      }
    });
  }

  test('through stc proxy: the ADR-066 form (Accept-Encoding: stc) is decoded too', async () => {
    const name = 'instruments.json';
    const plain = await fetch(`${proxy.url}/json/${name}`, { headers: { 'accept-encoding': 'stc' } });
    assert.match(plain.headers.get('content-encoding') ?? '', /\bstc\b/, 'the proxy answers Accept-Encoding: stc with Content-Encoding: stc');
    await plain.arrayBuffer();
    const res = await stcFetch(`${proxy.url}/json/${name}`, { headers: { 'accept-encoding': 'stc' }, stc: { accept: null } });
    assert.equal(await res.clone().text(), minified(name));
    assert.equal(res.headers.get('content-encoding'), null);
    assert.deepEqual(await res.json(), value(name));
  });

  test('through stc proxy: a tiny document stays JSON, a broken STC body still fails with line and column', async () => {
    const small = await stcFetch(`${proxy.url}/small`);
    assert.equal(small.headers.get('x-stc-version'), null);
    assert.deepEqual(await small.json(), [1, 2, 3]);
    await assert.rejects(stcFetch(`${proxy.url}/broken`), (e) => e instanceof StcError && e.line === 3 && e.column === 16);
  });
}

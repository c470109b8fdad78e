// The upstream server process of the stcFetch tests (test/fetch*.test.mjs):
// `node test/upstream.mjs` binds 127.0.0.1 on a free port, prints
// `listening http://127.0.0.1:PORT` and serves until SIGTERM. It stands for
// "an existing JSON API": the tests put a real `stc proxy` in front of it.
// Routes (GET and HEAD):
//   /test/fetch-page.html, /test/fetch-page.js, /pkg/web/…   the page and the wasm package
//   /json/NAME          corpus document as stored, application/json
//   /stc/NAME           its STC (the wasm package's encode), application/stc+json
//   /stc-ce/NAME        the same with Content-Encoding: stc (ADR-066's form)
//   /stc-ce-gzip/NAME   gzipped, Content-Encoding: stc, gzip
//   /broken             an invalid STC body, application/stc+json
//   /v2/NAME            its STC version 2 encoding, application/stc+json; version=2 and X-STC-Version: 2
//   /v2-as-v1/NAME      the same body announced as version 1 (no parameter, X-STC-Version: 1)
//   /v3                 STC announced as version 3 (no such version)
//   /small              [1,2,3] (STC saves nothing: the proxy's gate keeps JSON)
//   /echo               JSON: the request's Accept
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, CORPUS_DIR, stc } from './load.mjs';
import { BROKEN_STC } from './processes.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};
const STATIC = [join(ROOT, 'pkg', 'web') + sep];
const PAGE_FILES = new Set(['/test/fetch-page.html', '/test/fetch-page.js']);

function staticFile(path) {
  if (PAGE_FILES.has(path)) return join(ROOT, path);
  if (!path.startsWith('/pkg/web/')) return null;
  const file = normalize(join(ROOT, decodeURIComponent(path)));
  return STATIC.some((dir) => file.startsWith(dir)) && existsSync(file) ? file : null;
}

const server = createServer((req, res) => {
  const send = (status, headers, body = '') => {
    const bytes = Buffer.from(body);
    res.writeHead(status, { ...headers, 'content-length': bytes.length, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };
  const stcType = { 'content-type': 'application/stc+json', 'x-stc-version': '1' };
  const path = new URL(req.url, 'http://x').pathname;
  const file = staticFile(path);
  if (file) return send(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' }, readFileSync(file));
  if (path === '/broken') return send(200, stcType, BROKEN_STC);
  if (path === '/v3') return send(200, { 'content-type': 'application/stc+json; version=3', 'x-stc-version': '3' }, '([2]{a}: 1 / 2)');
  if (path === '/small') return send(200, { 'content-type': 'application/json' }, '[1,2,3]');
  if (path === '/echo') return send(200, { 'content-type': 'application/json' }, JSON.stringify({ accept: req.headers.accept ?? null }));
  const [, route, name] = path.split('/');
  const doc = name && !name.startsWith('.') && existsSync(join(CORPUS_DIR, name)) ? readFileSync(join(CORPUS_DIR, name)) : null;
  if (doc === null) return send(404, { 'content-type': 'text/plain' }, 'not found');
  if (route === 'json') return send(200, { 'content-type': 'application/json' }, doc);
  const body = Buffer.from(stc.encode(doc));
  if (route === 'stc') return send(200, stcType, body);
  if (route === 'stc-ce') return send(200, { ...stcType, 'content-encoding': 'stc' }, body);
  if (route === 'stc-ce-gzip') return send(200, { ...stcType, 'content-encoding': 'stc, gzip' }, gzipSync(body));
  const v2 = Buffer.from(stc.encode(doc, { version: 2 }));
  if (route === 'v2') return send(200, { 'content-type': 'application/stc+json; version=2', 'x-stc-version': '2' }, v2);
  if (route === 'v2-as-v1') return send(200, stcType, v2);
  return send(404, { 'content-type': 'text/plain' }, 'no such route');
});

server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
// Idle keep-alive connections would hold server.close() open: end at once.
process.on('SIGTERM', () => process.exit(0));

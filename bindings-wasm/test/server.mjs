// A tiny static file server on 127.0.0.1 for the browser tests, the demo and
// the browser benchmark. Routes:
//   /…              files of bindings-wasm/ (the demo, pkg/web, test pages)
//   /conformance/…  ../conformance (the case files)
//   /corpus/…       the shared corpus of real documents (read in place)
//   /__cases.json   the names of the conformance case files, discovered now
import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { ROOT, CASES_DIR, CORPUS_DIR } from './load.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.stc': 'application/stc+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

const MOUNTS = [
  ['/conformance/', resolve(CASES_DIR, '..')],
  ['/corpus/', CORPUS_DIR],
  ['/js-shared/', resolve(ROOT, '..', 'js-shared')],
  ['/', ROOT],
];

function locate(urlPath) {
  for (const [prefix, dir] of MOUNTS) {
    if (!urlPath.startsWith(prefix)) continue;
    const file = normalize(join(dir, decodeURIComponent(urlPath.slice(prefix.length))));
    if (file !== dir && !file.startsWith(dir + sep)) return null; // no escaping the mount
    return file;
  }
  return null;
}

/** Starts the server on a free port; resolves to { url, close() }. */
export function serve(port = 0) {
  const server = createServer(async (req, res) => {
    try {
      const path = new URL(req.url, 'http://localhost').pathname;
      if (path === '/__cases.json') {
        const names = (await readdir(CASES_DIR, { recursive: true })).filter((f) => f.endsWith('.json')).sort();
        res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' });
        return res.end(JSON.stringify(names));
      }
      let file = locate(path.endsWith('/') ? path + 'index.html' : path);
      if (!file) throw Object.assign(new Error('forbidden'), { code: 'ENOENT' });
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'EISDIR' ? 404 : 500, { 'content-type': 'text/plain' });
      res.end(String(e.message));
    }
  });
  return new Promise((ok) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: p } = server.address();
      ok({ url: `http://127.0.0.1:${p}`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

// `node test/server.mjs [port]`: serve for a person (the demo at /demo/).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await serve(Number(process.argv[2] || 8080));
  console.log(`serving bindings-wasm at ${url}/  (demo: ${url}/demo/)`);
}

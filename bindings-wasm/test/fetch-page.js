// The page of test/fetch-browser.test.mjs: fetches ?path= (same origin, i.e.
// through the proxy when the page came through it) with the wasm package's
// stcFetch, asking for STC version ?version= when given, and shows the JSON
// it hands back.
import { stcFetch } from '/pkg/web/stc_fetch.js';

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const path = query.get('path') || '/json/github_events.json';
const version = query.get('version');
$('url').textContent = `GET ${path}`;
try {
  const res = await stcFetch(path, version ? { stc: { version: Number(version) } } : undefined);
  const text = await res.text();
  const stated = res.headers.get('x-stc-version');
  const ratio = res.headers.get('x-stc-ratio');
  document.body.dataset.via = stated ? 'stc' : 'json';
  $('status').textContent = `${res.status} ${res.statusText}`;
  $('via').textContent = stated
    ? `application/stc+json, X-STC-Version ${stated}, X-STC-Ratio ${ratio ?? '(none)'}`
    : `${res.headers.get('content-type')} (the gate kept JSON)`;
  $('via').className = stated ? 'stc' : 'json';
  $('size').textContent = `${new TextEncoder().encode(text).byteLength} bytes of JSON, ${res.headers.get('content-type')}`;
  $('out').textContent = text;
} catch (e) {
  $('status').textContent = 'failed';
  $('error').hidden = false;
  $('error').textContent = e.name === 'StcError'
    ? `STC error (${e.code}) at line ${e.line}, column ${e.column}: ${e.reason}`
    : `${e.name}: ${e.message}`;
  Object.assign($('error').dataset, { code: e.code ?? '', line: e.line ?? '', column: e.column ?? '' });
}
document.body.dataset.ready = 'true';

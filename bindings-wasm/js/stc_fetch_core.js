// stcFetch for the wasm package: the global fetch, asking for STC and handing
// back a standard Response whose .json() and .text() give the JSON. HTTP
// plumbing only: the body is decoded by stc-core through the wasm `decode`.
// Shared by pkg/web/stc_fetch.js and pkg/node/stc_fetch.mjs (scripts/build.sh
// copies this file next to each).

/** What stcFetch sends in `Accept` unless the caller chose one. */
export const DEFAULT_ACCEPT = 'application/stc+json, application/json;q=0.9';
const MEDIA_TYPE = 'application/stc+json';
// Headers of the STC body that are wrong for the decoded JSON body.
const DROPPED = ['content-encoding', 'content-length', 'transfer-encoding', 'content-type', 'content-md5', 'digest'];

function codings(contentEncoding) {
  if (!contentEncoding) return [];
  return contentEncoding.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '' && s !== 'identity');
}

/** Whether a response with these header values carries an STC body. */
export function isStc(contentType, contentEncoding) {
  if (contentType && contentType.split(';', 1)[0].trim().toLowerCase() === MEDIA_TYPE) return true;
  return codings(contentEncoding).includes('stc');
}

// fetch decodes gzip/deflate only when it knows every listed coding; with
// `stc` in the list the raw bytes arrive, so the codings applied on top of
// STC are undone here (last applied first) with DecompressionStream.
async function undoCodings(bytes, list, url) {
  for (const coding of [...list].reverse()) {
    if (coding === 'stc') continue;
    const format = coding === 'gzip' || coding === 'x-gzip' ? 'gzip' : coding === 'deflate' ? 'deflate' : null;
    if (format === null) throw new TypeError(`stcFetch: unsupported Content-Encoding ${JSON.stringify(coding)} in the response from ${url}`);
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
      bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (cause) {
      throw new TypeError(`stcFetch: the ${coding} layer of the response from ${url} is corrupt: ${cause.message}`, { cause });
    }
  }
  return bytes;
}

function checkOptions(o) {
  if (o === undefined || o === null) return {};
  if (typeof o !== 'object') throw new TypeError('init.stc must be an object');
  if (o.accept !== undefined && o.accept !== null && typeof o.accept !== 'string') {
    throw new TypeError('init.stc.accept must be a string or null');
  }
  return o;
}

/**
 * Builds stcFetch around the package's `decode` (called after `ready()`
 * resolves, for the web build's `init`).
 */
export function createStcFetch(decode, ready) {
  return async function stcFetch(input, init) {
    const { stc: stcOptions, ...rest } = init ?? {};
    const o = checkOptions(stcOptions);
    const accept = o.accept === undefined ? DEFAULT_ACCEPT : o.accept;
    const isRequest = typeof Request !== 'undefined' && input instanceof Request;
    const headers = new Headers(rest.headers !== undefined ? rest.headers : isRequest ? input.headers : undefined);
    const asked = headers.get('accept');
    // Only the default (no Accept, or `*/*`) is replaced; a caller who chose
    // an Accept keeps it.
    if (accept !== null && (asked === null || asked.trim() === '' || asked.trim() === '*/*')) {
      headers.set('accept', accept);
    }
    const [response] = await Promise.all([fetch(input, { ...rest, headers }), ready ? ready() : undefined]);
    const method = String(rest.method !== undefined ? rest.method : isRequest ? input.method : 'GET').toUpperCase();
    if (method === 'HEAD' || response.status === 204 || response.status === 304 || response.body === null) return response;
    const contentEncoding = response.headers.get('content-encoding');
    if (!isStc(response.headers.get('content-type'), contentEncoding)) return response;
    const url = response.url;
    const version = response.headers.get('x-stc-version');
    if (version !== null && version.trim() !== '1') {
      await response.body.cancel().catch(() => {});
      const e = new Error(`stcFetch: the response from ${url} is STC version ${JSON.stringify(version.trim())}; this package reads version 1`);
      e.name = 'StcVersionError';
      e.version = version.trim();
      e.url = url;
      throw e;
    }
    let bytes = new Uint8Array(await response.arrayBuffer());
    const list = codings(contentEncoding);
    if (list.includes('stc')) bytes = await undoCodings(bytes, list, url);
    let json;
    try {
      json = decode(bytes, o.maxDepth === undefined ? undefined : { maxDepth: o.maxDepth });
    } catch (e) {
      if (!(e instanceof SyntaxError) || e.name !== 'StcError') throw e;
      const err = new SyntaxError(`invalid STC body from ${url}: ${e.message}`, { cause: e });
      err.name = 'StcError';
      for (const k of ['code', 'offset', 'line', 'column', 'reason']) err[k] = e[k];
      throw err;
    }
    const body = new TextEncoder().encode(json);
    const fixed = new Headers(response.headers);
    for (const name of DROPPED) fixed.delete(name);
    fixed.set('content-type', 'application/json');
    fixed.set('content-length', String(body.byteLength));
    const out = new Response(body, { status: response.status, statusText: response.statusText, headers: fixed });
    // A constructed Response has no URL; keep the one that was fetched.
    Object.defineProperties(out, {
      url: { value: response.url, enumerable: true },
      redirected: { value: response.redirected, enumerable: true },
    });
    return out;
  };
}

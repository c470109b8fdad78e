'use strict';
// stcFetch: the global fetch, asking for STC and handing back a standard
// Response whose .json() and .text() give the JSON. HTTP plumbing only: the
// body is decoded by stc-core (through index.js's decode). See README.md.
const zlib = require('node:zlib');

/** What stcFetch sends in `Accept` unless the caller chose one. */
const DEFAULT_ACCEPT = 'application/stc+json, application/json;q=0.9';
const MEDIA_TYPE = 'application/stc+json';
// Headers of the STC body that are wrong for the decoded JSON body.
const DROPPED = ['content-encoding', 'content-length', 'transfer-encoding', 'content-type', 'content-md5', 'digest'];

/** Whether a response with these header values carries an STC body. */
function isStc(contentType, contentEncoding) {
  if (contentType && contentType.split(';', 1)[0].trim().toLowerCase() === MEDIA_TYPE) return true;
  return codings(contentEncoding).includes('stc');
}

function codings(contentEncoding) {
  if (!contentEncoding) return [];
  return contentEncoding.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '' && s !== 'identity');
}

// fetch (undici) decodes gzip/deflate/br only when it knows every listed
// coding; with `stc` in the list it hands over the raw bytes, so the codings
// applied on top of STC are undone here, last applied first.
function undoCodings(bytes, list, url) {
  for (const coding of [...list].reverse()) {
    if (coding === 'stc') continue;
    try {
      if (coding === 'gzip' || coding === 'x-gzip') bytes = zlib.gunzipSync(bytes);
      else if (coding === 'deflate') bytes = zlib.inflateSync(bytes);
      else if (coding === 'br') bytes = zlib.brotliDecompressSync(bytes);
      else throw new TypeError(`unsupported Content-Encoding ${JSON.stringify(coding)}`);
    } catch (cause) {
      if (cause instanceof TypeError) throw new TypeError(`stcFetch: ${cause.message} in the response from ${url}`);
      throw new TypeError(`stcFetch: the ${coding} layer of the response from ${url} is corrupt: ${cause.message}`, { cause });
    }
  }
  return bytes;
}

function methodOf(input, init) {
  const m = init && init.method !== undefined ? init.method : input instanceof Request ? input.method : 'GET';
  return String(m).toUpperCase();
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
 * Builds stcFetch around a decode function and the StcError class of the
 * package (index.js passes its own).
 */
function createStcFetch(decode, StcError) {
  return async function stcFetch(input, init) {
    const { stc: stcOptions, ...rest } = init ?? {};
    const o = checkOptions(stcOptions);
    const accept = o.accept === undefined ? DEFAULT_ACCEPT : o.accept;
    const headers = new Headers(rest.headers !== undefined ? rest.headers : input instanceof Request ? input.headers : undefined);
    const asked = headers.get('accept');
    // Only the default (no Accept, or fetch's own `*/*`) is replaced; a
    // caller who chose an Accept keeps it.
    if (accept !== null && (asked === null || asked.trim() === '' || asked.trim() === '*/*')) {
      headers.set('accept', accept);
    }
    const response = await fetch(input, { ...rest, headers });
    if (methodOf(input, init) === 'HEAD' || response.status === 204 || response.status === 304 || response.body === null) {
      return response;
    }
    const contentType = response.headers.get('content-type');
    const contentEncoding = response.headers.get('content-encoding');
    if (!isStc(contentType, contentEncoding)) return response;
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
    let bytes = Buffer.from(await response.arrayBuffer());
    const list = codings(contentEncoding);
    if (list.includes('stc')) bytes = undoCodings(bytes, list, url);
    let json;
    try {
      json = decode(bytes, o.maxDepth === undefined ? undefined : { maxDepth: o.maxDepth });
    } catch (e) {
      if (!(e instanceof StcError)) throw e;
      const err = new StcError(`invalid STC body from ${url}: ${e.message}`, {
        code: e.code, offset: e.offset, line: e.line, column: e.column, reason: e.reason,
      });
      err.cause = e;
      throw err;
    }
    const body = Buffer.from(json, 'utf8');
    const fixed = new Headers(response.headers);
    for (const name of DROPPED) fixed.delete(name);
    fixed.set('content-type', 'application/json');
    fixed.set('content-length', String(body.length));
    const out = new Response(body, { status: response.status, statusText: response.statusText, headers: fixed });
    // A constructed Response has no URL; keep the one that was fetched.
    Object.defineProperties(out, {
      url: { value: response.url, enumerable: true },
      redirected: { value: response.redirected, enumerable: true },
    });
    return out;
  };
}

module.exports = { createStcFetch, isStc, DEFAULT_ACCEPT };

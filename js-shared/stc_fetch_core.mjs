// stcFetch, shared by stc-node and stc-wasm: the global fetch, asking for STC
// and handing back a standard Response whose .json() and .text() give the
// JSON. HTTP plumbing only: the body is decoded by stc-core through the
// package's `decode`. Each package's build copies this file in
// (js-shared/install.mjs).

/** What stcFetch sends in `Accept` unless the caller chose one. */
export const DEFAULT_ACCEPT = 'application/stc+json, application/json;q=0.9';
/** The default `Accept` asking for STC version `n` (version 1 needs no parameter). */
export function acceptFor(version) {
  return version === undefined || version === 1 ? DEFAULT_ACCEPT : `application/stc+json; version=${version}, application/json;q=0.9`;
}
const MEDIA_TYPE = 'application/stc+json';
// Headers of the STC body that are wrong for the decoded JSON body.
const DROPPED = ['content-encoding', 'content-length', 'transfer-encoding', 'content-type', 'content-md5', 'digest'];

function codings(contentEncoding) {
  if (!contentEncoding) return [];
  return contentEncoding.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '' && s !== 'identity');
}

/** The `version` parameter of a media type (`application/stc+json; version=2`, also quoted), or null. */
export function versionParameter(contentType) {
  if (!contentType) return null;
  for (const part of contentType.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim().toLowerCase() !== 'version') continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return null;
}

/** Whether a response with these header values carries an STC body. */
export function isStc(contentType, contentEncoding) {
  if (contentType && contentType.split(';', 1)[0].trim().toLowerCase() === MEDIA_TYPE) return true;
  return codings(contentEncoding).includes('stc');
}

/**
 * Undoes one content coding with the platform's DecompressionStream (gzip and
 * deflate); `null` for a coding it does not know.
 */
export async function streamDecompress(bytes, coding) {
  const format = coding === 'gzip' || coding === 'x-gzip' ? 'gzip' : coding === 'deflate' ? 'deflate' : null;
  if (format === null) return null;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// fetch decodes gzip/deflate/br only when it knows every listed coding; with
// `stc` in the list it hands over the raw bytes, so the codings applied on top
// of STC are undone here, last applied first.
async function undoCodings(bytes, list, url, decompress) {
  for (const coding of [...list].reverse()) {
    if (coding === 'stc') continue;
    let out;
    try {
      out = await decompress(bytes, coding);
    } catch (cause) {
      throw new TypeError(`stcFetch: the ${coding} layer of the response from ${url} is corrupt: ${cause.message}`, { cause });
    }
    if (out === null) {
      throw new TypeError(`stcFetch: unsupported Content-Encoding ${JSON.stringify(coding)} in the response from ${url}`);
    }
    bytes = out;
  }
  return bytes;
}

function checkOptions(o, versions) {
  if (o === undefined || o === null) return {};
  if (typeof o !== 'object') throw new TypeError('init.stc must be an object');
  if (o.accept !== undefined && o.accept !== null && typeof o.accept !== 'string') {
    throw new TypeError('init.stc.accept must be a string or null');
  }
  if (o.version !== undefined && !(typeof o.version === 'number' && versions.includes(String(o.version)))) {
    const message = `init.stc.version must be ${versions.join(' or ')}, got ${typeof o.version === 'string' ? JSON.stringify(o.version) : String(o.version)}`;
    throw typeof o.version === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return o;
}

function versionError(url, message, version) {
  const e = new Error(`stcFetch: the response from ${url} ${message}`);
  e.name = 'StcVersionError';
  e.version = version;
  e.url = url;
  return e;
}

/**
 * Builds stcFetch for a package.
 * - `decode(bytes, options)`: the package's decode, throwing its StcError;
 * - `isStcError(e)` and `withContext(e, prefix)`: from stc_rules.mjs;
 * - `decompress(bytes, coding)`: undoes one coding, `null` when unknown
 *   (default: `streamDecompress`);
 * - `ready()`: awaited before the first decode (the web build's `init`);
 * - `versions` (required): the STC versions the package reads (the core's
 *   `Version::NAMES`, as `makeApi` gets them).
 * `init.stc.version` asks for a version (`Accept: application/stc+json; version=2`);
 * whatever was asked, the body is decoded in the version the response states
 * (`Content-Type`'s `version` parameter, else `X-STC-Version`, else 1); a
 * version the package does not read, or two that differ, reject with
 * `StcVersionError`.
 */
export function createStcFetch({ decode, isStcError, withContext, decompress = streamDecompress, ready, versions }) {
  if (!Array.isArray(versions) || versions.length === 0 || !versions.every((v) => typeof v === 'string')) {
    throw new TypeError(`createStcFetch: versions must be the package's version names (e.g. ['1', '2']), got ${String(versions)}`);
  }
  return async function stcFetch(input, init) {
    const { stc: stcOptions, ...rest } = init ?? {};
    const o = checkOptions(stcOptions, versions);
    const accept = o.accept === undefined ? acceptFor(o.version) : o.accept;
    const isRequest = typeof Request !== 'undefined' && input instanceof Request;
    const headers = new Headers(rest.headers !== undefined ? rest.headers : isRequest ? input.headers : undefined);
    const asked = headers.get('accept');
    // Only the default (no Accept, or fetch's own `*/*`) is replaced; a
    // caller who chose an Accept keeps it.
    if (accept !== null && (asked === null || asked.trim() === '' || asked.trim() === '*/*')) {
      headers.set('accept', accept);
    }
    const [response] = await Promise.all([fetch(input, { ...rest, headers }), ready ? ready() : undefined]);
    const method = String(rest.method !== undefined ? rest.method : isRequest ? input.method : 'GET').toUpperCase();
    if (method === 'HEAD' || response.status === 204 || response.status === 304 || response.body === null) return response;
    const contentEncoding = response.headers.get('content-encoding');
    if (!isStc(response.headers.get('content-type'), contentEncoding)) return response;
    const url = response.url;
    const contentType = response.headers.get('content-type');
    const inType = isStc(contentType, null) ? versionParameter(contentType) : null;
    const inHeader = response.headers.get('x-stc-version');
    const stated = (inType ?? inHeader ?? '1').trim();
    let refusal = null;
    if (inType !== null && inHeader !== null && inType.trim() !== inHeader.trim()) {
      refusal = versionError(url, `states STC version ${JSON.stringify(inType.trim())} in Content-Type and ${JSON.stringify(inHeader.trim())} in X-STC-Version`, stated);
    } else if (!versions.includes(stated)) {
      refusal = versionError(url, `is STC version ${JSON.stringify(stated)}; this package reads version ${versions.join(' or ')}`, stated);
    }
    if (refusal !== null) {
      await response.body.cancel().catch(() => {});
      throw refusal;
    }
    let bytes = new Uint8Array(await response.arrayBuffer());
    const list = codings(contentEncoding);
    if (list.includes('stc')) bytes = await undoCodings(bytes, list, url, decompress);
    let json;
    try {
      json = decode(bytes, { maxDepth: o.maxDepth, version: Number(stated) });
    } catch (e) {
      if (!isStcError(e)) throw e;
      throw withContext(e, `invalid STC body from ${url}: `);
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

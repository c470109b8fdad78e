'use strict';
// STC for Node: a JSON-like API over the native binding of stc-core.
// This file validates options and shapes errors; every format decision is
// made by stc-core (Rust). See README.md.

let native;
try {
  native = require('./stc.node');
} catch (cause) {
  throw new Error("stc-node: the native addon is missing; run `npm install && npm run build` in bindings-node/", { cause });
}

// The rules shared with stc-wasm (error codes, StcError, option checks):
// js-shared/stc_rules.mjs, copied into shared/ by `npm run build`.
const {
  ERROR_CODES, StcError, toStcError: convert, withContext, checkText, optionsOf: opts, profileOf, maxDepthOf,
  tokenizerOf, minSavingOf, bigintOf, checkCountText,
} = require('./shared/stc_rules.mjs');

/**
 * STC or JSON text to JavaScript values, like JSON.parse.
 * Numbers are JavaScript numbers (rounded like JSON.parse) unless
 * `bigint: true`, which returns integers outside ±(2^53 - 1) as BigInt.
 */
function parse(text, options) {
  checkText(text, 'text');
  const o = opts(options);
  const maxDepth = maxDepthOf(o);
  const bigint = bigintOf(o);
  try {
    if (bigint) return native.parseValues(text, maxDepth, true);
    // Fastest measured path: stc-core decodes to JSON text, V8 parses it.
    return JSON.parse(native.decode(text, maxDepth));
  } catch (e) {
    throw convert(e);
  }
}

/**
 * JavaScript value to STC text, like JSON.stringify (same rules for toJSON,
 * undefined, functions, symbols, non-finite numbers, cycles and BigInt).
 * `bigint: true` writes BigInt values as exact integers.
 */
function stringify(value, options) {
  const o = opts(options);
  const profile = profileOf(o);
  const maxDepth = maxDepthOf(o);
  const bigint = bigintOf(o);
  try {
    if (bigint) return native.stringifyValues(value, profile, maxDepth, true);
    // Fastest measured path: V8 writes JSON text, stc-core encodes it.
    const json = JSON.stringify(value);
    if (json === undefined) return undefined;
    return native.encode(json, profile, maxDepth);
  } catch (e) {
    throw convert(e);
  }
}

/** JSON text to STC text. */
function encode(jsonText, options) {
  checkText(jsonText, 'jsonText');
  const o = opts(options);
  try {
    return native.encode(jsonText, profileOf(o), maxDepthOf(o));
  } catch (e) {
    throw convert(e);
  }
}

/** STC (or JSON) text to minified JSON text, losslessly. */
function decode(stcText, options) {
  checkText(stcText, 'stcText');
  const o = opts(options);
  try {
    return native.decode(stcText, maxDepthOf(o));
  } catch (e) {
    throw convert(e);
  }
}

/**
 * The do-no-harm gate: STC when it saves at least `minSaving` (default 0.05)
 * of minified JSON's tokens, else minified JSON (which is valid STC too).
 */
function encodeGated(jsonText, options) {
  checkText(jsonText, 'jsonText');
  const o = opts(options);
  const minSaving = minSavingOf(o);
  try {
    return native.encodeGated(jsonText, profileOf(o), minSaving, tokenizerOf(o.tokenizer), maxDepthOf(o));
  } catch (e) {
    throw convert(e);
  }
}

/** Number of tokens of `text` (tokenizer default 'o200k_base'). */
function countTokens(text, tokenizer = 'o200k_base') {
  checkCountText(text);
  return native.countTokens(text, tokenizerOf(tokenizer));
}

// ---------------------------------------------------------------------------
// The stash (stc-stash): budget-sized output whose markers say how to get the
// omitted parts back, and the stores that hold them.
// ---------------------------------------------------------------------------

/** The stable codes of `StashError`. */
const STASH_ERROR_CODES = Object.freeze([
  'invalid_key', 'not_found', 'expired', 'closed', 'unavailable', 'corrupt', 'too_large', 'exhausted', 'config',
  'store',
]);
const STASH_CODES = new Set(STASH_ERROR_CODES);

/**
 * A stash operation failed: a malformed, unknown or expired key, a closed
 * store, an unreachable store or a refused path. `retryable` is true only
 * when the same call may succeed later; an unknown or expired key never comes
 * back (re-run the tool call that produced the marker).
 */
class StashError extends Error {
  constructor(message, fields = {}) {
    super(message);
    this.name = 'StashError';
    this.code = fields.code;
    this.retryable = fields.retryable === true;
    this.key = typeof fields.key === 'string' ? fields.key : null;
  }
}

function convertStash(e) {
  if (e !== null && typeof e === 'object' && STASH_CODES.has(e.code) && typeof e.retryable === 'boolean') {
    return new StashError(e.message, e);
  }
  if (e !== null && typeof e === 'object' && e.code === 'InvalidArg') {
    const err = new TypeError(e.message);
    return err;
  }
  return convert(e);
}

function storeOptions(options) {
  const o = opts(options);
  for (const name of ['ttl', 'capacity']) {
    if (o[name] !== undefined && (typeof o[name] !== 'number' || Number.isNaN(o[name]))) {
      throw new TypeError(`${name} must be a number`);
    }
  }
  return o;
}

const HANDLE = Symbol('stc.stashHandle');

class Stash {
  /** The original stashed under `key` (see `retrieve`). */
  retrieve(key) {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    try {
      return this[HANDLE].retrieve(key);
    } catch (e) {
      throw convertStash(e);
    }
  }

  /** How many live entries the store holds. */
  get size() {
    try {
      return this[HANDLE].len();
    } catch (e) {
      throw convertStash(e);
    }
  }

  /** Closes the store; later calls throw `StashError` with code `closed`. */
  close() {
    this[HANDLE].close();
  }

  [Symbol.dispose ?? Symbol.for('nodejs.dispose')]() {
    this.close();
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `${this.constructor.name} <${this[HANDLE].describe()}>`;
  }
}

/**
 * The SQLite stash file shared by every `stc` process of the user and by
 * `stc retrieve`. Without `path`: `$STC_STASH_DB`, else `DATA_DIR/stash.db`
 * where DATA_DIR is `$STC_DATA_DIR` or `~/.local/share/stc` (the CLI's path
 * policy: absolute, no `..`, inside the real home or DATA_DIR, no symlink).
 */
class SqliteStash extends Stash {
  constructor(path, options) {
    super();
    if (path !== undefined && path !== null && typeof path !== 'string') {
      throw new TypeError('path must be a string, null or undefined');
    }
    const o = storeOptions(options);
    try {
      this[HANDLE] = native.openSqliteStash(path ?? undefined, o.ttl, o.capacity);
    } catch (e) {
      throw convertStash(e);
    }
  }

  /** The database file, after the path policy. */
  get path() {
    return this[HANDLE].path;
  }
}

/** A stash in this process's memory (tests, one process). */
class MemoryStash extends Stash {
  constructor(options) {
    super();
    const o = storeOptions(options);
    try {
      this[HANDLE] = native.openMemoryStash(o.ttl, o.capacity);
    } catch (e) {
      throw convertStash(e);
    }
  }
}

function handleOf(stash, what) {
  if (stash instanceof Stash) return stash[HANDLE];
  throw new TypeError(`${what} must be a SqliteStash or a MemoryStash${what === 'stash' ? ' (or null)' : ''}`);
}

function countOf(o, name) {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${String(v)}`);
  return v;
}

/**
 * Budget-sized compact STC of a JSON response: long arrays and strings are
 * cut, what is cut is stashed in `options.stash` (required: a store, or
 * `null`), and markers say how much is missing and how to get it back.
 * With `stash: null` nothing is cut (`kept: 'no_store'`) unless `lossy: true`.
 */
function truncate(jsonText, options) {
  checkText(jsonText, 'jsonText');
  const o = opts(options);
  if (!('stash' in o)) throw new TypeError('options.stash is required: a SqliteStash, a MemoryStash or null');
  const handle = o.stash === null ? undefined : handleOf(o.stash, 'stash');
  if (o.lossy !== undefined && typeof o.lossy !== 'boolean') throw new TypeError('lossy must be a boolean');
  if (o.retrieveTool !== undefined && typeof o.retrieveTool !== 'string') {
    throw new TypeError('retrieveTool must be a string');
  }
  let out;
  try {
    out = native.truncate(
      jsonText, handle, countOf(o, 'budget'), countOf(o, 'truncateArraysAt'), o.lossy === true, o.retrieveTool,
      tokenizerOf(o.tokenizer), maxDepthOf(o),
    );
  } catch (e) {
    throw convertStash(e);
  }
  // napi leaves absent options undefined; the API says null.
  out.kept = out.kept ?? null;
  for (const omission of out.omissions) omission.key = omission.key ?? null;
  return out;
}

/** The exact original stashed under `key` (24 lowercase hex characters) in `options.stash`. */
function retrieve(key, options) {
  const o = opts(options);
  if (typeof key !== 'string') throw new TypeError('key must be a string');
  try {
    // The key is checked (natively) before the store is looked at.
    return native.retrieveKey(key, o.stash instanceof Stash ? o.stash[HANDLE] : undefined);
  } catch (e) {
    throw convertStash(e);
  }
}

const zlib = require('node:zlib');
const { createStcFetch, DEFAULT_ACCEPT } = require('./shared/stc_fetch_core.mjs');

// Node's zlib knows br too (the platform's DecompressionStream does not, in Node 20).
function decompress(bytes, coding) {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(bytes);
  if (coding === 'deflate') return zlib.inflateSync(bytes);
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  return null;
}

/** fetch that asks for STC and returns a Response whose .json() and .text() give JSON. */
const stcFetch = createStcFetch({ decode, isStcError: (e) => e instanceof StcError, withContext, decompress });

module.exports = {
  parse,
  stringify,
  encode,
  decode,
  decodeStc: decode,
  encodeGated,
  countTokens,
  StcError,
  ERROR_CODES,
  MEDIA_TYPE: 'application/stc+json',
  VERSION: 1,
  stcFetch,
  DEFAULT_ACCEPT,
  truncate,
  retrieve,
  SqliteStash,
  MemoryStash,
  StashError,
  STASH_ERROR_CODES,
};
// `import stc from 'stc-node'` and `require('stc-node').default` both work.
module.exports.default = module.exports;

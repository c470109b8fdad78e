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
  ERROR_CODES, StcError, makeApi, toStcError: convert, withContext, optionsOf: opts, truncateArgs, VERSION, MEDIA_TYPE,
} = require('./shared/stc_rules.mjs');
/** The tokenizers compiled into the addon (the core's list). */
const TOKENIZER_NAMES = Object.freeze(native.tokenizerNames());

/** The STC versions the addon reads and writes (the core's `Version::NAMES`). */
const VERSION_NAMES = Object.freeze(native.versionNames());
/**
 * Up to this `maxDepth`, stringify lets V8's JSON.stringify walk the value
 * (fast; its recursion fits any stack Node runs JavaScript on at this depth).
 * Beyond it, the addon's walker, which keeps its own stack.
 */
const JSON_STRINGIFY_DEPTH = 1000;
/** A code unit beyond U+00FF: absent, a string crosses as Latin-1 bytes (bench/CANDIDATES.md, candidate 30). */
const BEYOND_LATIN1 = /[^\x00-\xff]/;
/** Whether `text` is a string the addon may copy out as Latin-1 (V8 answers at once for a one-byte string). */
const latin1 = (text) => typeof text === 'string' && !BEYOND_LATIN1.test(text);
const isStackOverflow = (e) => e instanceof RangeError && e.message === 'Maximum call stack size exceeded';

// The checks and errors are js-shared's (the same as stc-wasm's); this table
// only converts to the addon's positional arguments and picks the fastest
// measured path (bench/CANDIDATES.md): without BigInt, V8's JSON.parse /
// JSON.stringify around stc-core's decode / encode (so toJSON, cycles and the
// rest are V8's own; parse reads the JSON as a one-byte text, characters
// beyond U+00FF as \u escapes); with BigInt, the addon's value builder and walker.
const api = makeApi(
  {
    parse: (text, o) =>
      o.bigint
        ? native.parseValues(text, o.maxDepth, true, o.version)
        : JSON.parse(native.decodeLatin1(text, o.maxDepth, o.version, latin1(text))),
    stringify(value, o) {
      const walk = () => native.stringifyValues(value, o.profile, o.maxDepth, o.bigint, o.version);
      if (o.bigint || (o.maxDepth ?? 0) > JSON_STRINGIFY_DEPTH) return walk();
      let json;
      try {
        json = JSON.stringify(value);
      } catch (e) {
        // Deeper than this thread's stack lets JSON.stringify go: the walker
        // (which stops at maxDepth with depth_limit, or writes it all).
        if (isStackOverflow(e)) return walk();
        throw e;
      }
      return json === undefined ? undefined : native.encode(json, o.profile, o.maxDepth, o.version, latin1(json));
    },
    encode: (text, o) => native.encode(text, o.profile, o.maxDepth, o.version, latin1(text)),
    decode: (text, o) => native.decode(text, o.maxDepth, o.version, latin1(text)),
    encodeGated(text, o) {
      const counter = typeof o.tokenizer === 'function' ? o.tokenizer : undefined;
      const args = { profile: o.profile, minSaving: o.minSaving, maxDepth: o.maxDepth, version: o.version };
      args.tokenizer = counter === undefined ? o.tokenizer : undefined;
      return native.encodeGated(text, args, counter);
    },
    countTokens: (text, tokenizer) => native.countTokens(text, tokenizer),
  },
  // Built without stc-core's `bpe` tables: the estimate, or the caller's counting function.
  { tokenizers: TOKENIZER_NAMES, defaultTokenizer: 'estimate', versions: VERSION_NAMES },
);
const { parse, stringify, encode, decode, encodeGated, countTokens } = api;

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

// As stc-wasm's MemoryStash reads them: null is no value; a number that is no valid ttl or
// capacity is a RangeError (from the addon), any other type a TypeError.
function storeOptions(options) {
  const o = opts(options);
  const checked = {};
  for (const name of ['ttl', 'capacity']) {
    const v = o[name] ?? undefined;
    if (v !== undefined && typeof v !== 'number') throw new TypeError(`${name} must be a number`);
    checked[name] = v;
  }
  return checked;
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

/**
 * Budget-sized compact STC of a JSON response: long arrays and strings are
 * cut, what is cut is stashed in `options.stash` (required: a store, or
 * `null`), and markers say how much is missing and how to get it back.
 * With `stash: null` nothing is cut (`kept: 'no_store'`) unless `lossy: true`.
 */
function truncate(jsonText, options) {
  // The checks and messages shared with stc-wasm (js-shared truncateArgs); the store is this package's.
  const o = truncateArgs(jsonText, options, {
    versions: VERSION_NAMES, tokenizers: TOKENIZER_NAMES, stores: 'a SqliteStash, a MemoryStash',
  });
  const handle = o.stash === null ? undefined : handleOf(o.stash, 'stash');
  let out;
  try {
    out = native.truncate(
      jsonText, handle, o.budget, o.truncateArraysAt, o.lossy, o.retrieveTool, o.tokenizer, o.maxDepth, o.version,
    );
  } catch (e) {
    throw convertStash(e);
  }
  // napi leaves absent options undefined; the API says null. The fields in stc-wasm's order.
  const { text, json, truncated, kept, tokens, originalTokens, keys, omissions } = out;
  return {
    text, json, truncated, kept: kept ?? null, tokens, originalTokens, keys,
    omissions: omissions.map(({ unit, key, omitted, of }) => ({ unit, key: key ?? null, omitted, of })),
  };
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
const stcFetch = createStcFetch({
  decode, isStcError: (e) => e instanceof StcError, withContext, decompress, versions: VERSION_NAMES,
});

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
  MEDIA_TYPE,
  VERSION,
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

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

/** The stable error codes of stc-core's ErrorKind. */
const ERROR_CODES = Object.freeze([
  'unexpected_end', 'unexpected_char', 'invalid_number', 'invalid_escape', 'control_character',
  'invalid_utf8', 'trailing_characters', 'depth_limit', 'invalid_count', 'count_too_large',
  'count_mismatch', 'invalid_document', 'aborted',
]);
const CODES = new Set(ERROR_CODES);

/**
 * An STC (or JSON) text that could not be read. A SyntaxError, like the ones
 * JSON.parse throws, with the position of the problem.
 */
class StcError extends SyntaxError {
  constructor(message, fields = {}) {
    super(message);
    this.name = 'StcError';
    this.code = fields.code;
    this.offset = fields.offset;
    this.line = fields.line;
    this.column = fields.column;
    this.reason = fields.reason;
    if (fields.index !== undefined) this.index = fields.index;
  }
}

function convert(e) {
  if (e !== null && typeof e === 'object' && CODES.has(e.code) && typeof e.offset === 'number') {
    return new StcError(e.message, e);
  }
  return e;
}

const PROFILES = new Set(['compact', 'readable']);
const TOKENIZERS = new Set(['estimate', 'o200k_base', 'cl100k_base']);

function checkText(text, what) {
  if (typeof text !== 'string' && !(text instanceof Uint8Array)) {
    throw new TypeError(`${what} must be a string, Buffer or Uint8Array, got ${text === null ? 'null' : typeof text}`);
  }
}

function opts(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError('options must be an object');
  return options;
}

function profileOf(o) {
  const p = o.profile;
  if (p === undefined) return undefined;
  if (!PROFILES.has(p)) throw new TypeError(`profile must be 'compact' or 'readable', got ${String(p)}`);
  return p;
}

function maxDepthOf(o) {
  const d = o.maxDepth;
  if (d === undefined) return undefined;
  if (!Number.isInteger(d) || d < 0 || d > 0xffffffff) {
    throw new RangeError(`maxDepth must be a non-negative integer, got ${String(d)}`);
  }
  return d;
}

function tokenizerOf(t) {
  if (t === undefined) return undefined;
  if (!TOKENIZERS.has(t)) {
    throw new TypeError(`tokenizer must be 'estimate', 'o200k_base' or 'cl100k_base', got ${String(t)}`);
  }
  return t;
}

/**
 * STC or JSON text to JavaScript values, like JSON.parse.
 * Numbers are JavaScript numbers (rounded like JSON.parse) unless
 * `bigint: true`, which returns integers outside ±(2^53 - 1) as BigInt.
 */
function parse(text, options) {
  checkText(text, 'text');
  const o = opts(options);
  const maxDepth = maxDepthOf(o);
  try {
    if (o.bigint === true) return native.parseValues(text, maxDepth, true);
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
  try {
    if (o.bigint === true) return native.stringifyValues(value, profile, maxDepth, true);
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
  const minSaving = o.minSaving;
  if (minSaving !== undefined && (typeof minSaving !== 'number' || Number.isNaN(minSaving))) {
    throw new TypeError('minSaving must be a number');
  }
  try {
    return native.encodeGated(jsonText, profileOf(o), minSaving, tokenizerOf(o.tokenizer), maxDepthOf(o));
  } catch (e) {
    throw convert(e);
  }
}

/** Number of tokens of `text` (tokenizer default 'o200k_base'). */
function countTokens(text, tokenizer = 'o200k_base') {
  if (typeof text !== 'string') throw new TypeError('text must be a string');
  return native.countTokens(text, tokenizerOf(tokenizer));
}

const { createStcFetch, DEFAULT_ACCEPT } = require('./fetch.js');

/** fetch that asks for STC and returns a Response whose .json() and .text() give JSON. */
const stcFetch = createStcFetch(decode, StcError);

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
};
// `import stc from 'stc-node'` and `require('stc-node').default` both work.
module.exports.default = module.exports;

// The JavaScript rules shared by stc-node and stc-wasm: the error codes, the
// StcError class, and the type checks of arguments and options (a wrong type
// is a TypeError with the message here). The values of the options stc-core
// defines (profile, tokenizer, version, minSaving) are stc-core's to check:
// the native layer throws its refusal, with stc-core's message, as a
// RangeError (conformance/options/options.json holds every surface to that).
// This file is the one source; each package's build copies it in
// (js-shared/install.mjs), since the two packages are installed separately.
// Every format decision stays in stc-core (Rust): this file only checks
// arguments and shapes errors.

/** The stable error codes of stc-core's ErrorKind (`ErrorKind::code`), the same in every binding. */
export const ERROR_CODES = Object.freeze([
  'unexpected_end', 'unexpected_char', 'invalid_number', 'invalid_escape', 'control_character',
  'invalid_utf8', 'trailing_characters', 'depth_limit', 'invalid_count', 'count_too_large',
  'count_mismatch', 'invalid_document', 'aborted', 'serde_data', 'newer_version',
]);
const CODES = new Set(ERROR_CODES);

/**
 * The STC versions (stc-core's `Version::NAMES`; the `version` option takes them as numbers).
 * The `StcVersion` union is generated from this list; the tests check it against the native
 * layers' `versionNames()`. What a package reads at run time is the list it passes to `makeApi`.
 */
export const VERSIONS = Object.freeze(['1', '2']);

/**
 * The STC version written when no `version` option is given, and assumed for a text or an HTTP
 * response that states none: stc-core's `VERSION` (the tests check it against stc-core). Not the
 * package's own version (package.json), and not the only version the package reads and writes
 * (`VERSIONS`). Its TypeScript type is generated from this value.
 */
export const VERSION = 1;

/** The media type of STC text. */
export const MEDIA_TYPE = 'application/stc+json';

/** The output profiles (`profile` option). */
export const PROFILES = Object.freeze(['compact', 'readable']);
/**
 * The tokenizers built into the packages (`tokenizer` option, `countTokens`): the table-free
 * estimate. Exact counts come from a counting function the caller passes instead of a name
 * (`{ tokenizer: countTokens }` with gpt-tokenizer's `countTokens`), so that no package carries
 * megabytes of BPE tables.
 */
export const TOKENIZERS = Object.freeze(['estimate']);
/** Exact tokenizers the CLI has and the packages leave to a counting function. */
const EXACT_TOKENIZERS = Object.freeze(['o200k_base', 'cl100k_base']);
/** The option names each function reads. */
export const OPTION_NAMES = Object.freeze({
  parse: Object.freeze(['maxDepth', 'bigint', 'version']),
  stringify: Object.freeze(['profile', 'maxDepth', 'bigint', 'version']),
  encode: Object.freeze(['profile', 'maxDepth', 'version']),
  decode: Object.freeze(['maxDepth', 'version']),
  encodeGated: Object.freeze(['profile', 'maxDepth', 'minSaving', 'tokenizer', 'version']),
});

/**
 * An STC (or JSON) text that could not be read. A SyntaxError, like the ones
 * JSON.parse throws, with the position of the problem.
 */
export class StcError extends SyntaxError {
  constructor(message, fields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'StcError';
    this.code = fields.code;
    this.offset = fields.offset;
    this.line = fields.line;
    this.column = fields.column;
    this.reason = fields.reason;
    if (fields.index !== undefined) this.index = fields.index;
  }
}

/** Whether `e` carries a codec error of stc-core (an error code and a byte offset). */
export function isCodecError(e) {
  return e !== null && typeof e === 'object' && CODES.has(e.code) && typeof e.offset === 'number';
}

/** A codec error of the native layer as an `StcError`; any other exception unchanged. */
export function toStcError(e) {
  if (e instanceof StcError || !isCodecError(e)) return e;
  return new StcError(e.message, e);
}

/** The same error with `prefix` before its message (the position fields kept, the original as `cause`). */
export function withContext(e, prefix) {
  const { code, offset, line, column, reason } = e;
  return new StcError(`${prefix}${e.message}`, { code, offset, line, column, reason, cause: e });
}

function show(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (v !== null && (typeof v === 'object' || typeof v === 'function')) return typeof v;
  return String(v);
}
// A value of the wrong type is a TypeError; a string that names nothing known, a RangeError.
const oneOf = (names) => names.map((n) => `'${n}'`).join(', ').replace(/, ([^,]*)$/, ' or $1');

/** Checks a text argument: a string or UTF-8 bytes (`Uint8Array`, `Buffer`). */
export function checkText(text, what) {
  if (typeof text !== 'string' && !(text instanceof Uint8Array)) {
    throw new TypeError(`${what} must be a string, Buffer or Uint8Array, got ${text === null ? 'null' : typeof text}`);
  }
}

/** The options object (`undefined` and `null` mean none). */
export function optionsOf(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError('options must be an object');
  return options;
}

/** `profile`: undefined or a string (stc-core checks the name). */
export function profileOf(o) {
  const p = o.profile;
  if (p !== undefined && typeof p !== 'string') throw new TypeError(`profile must be a string, got ${show(p)}`);
  return p;
}

/**
 * `version`: undefined or a number (stc-core's `Version::try_from` checks it:
 * 1 or 2). A string such as '2' is the wrong type, as in every binding: text
 * names a version only on text surfaces (the CLI, HTTP headers).
 */
export function versionOf(o) {
  const v = o.version;
  if (v !== undefined && typeof v !== 'number') throw new TypeError(`version must be a number, got ${show(v)}`);
  return v;
}

/** A package's list of version names (`makeApi`'s and `createStcFetch`'s `versions`): required. */
export function checkVersionList(versions, who) {
  if (!Array.isArray(versions) || versions.length === 0 || !versions.every((v) => typeof v === 'string')) {
    throw new TypeError(`${who}: versions must be the package's version names (e.g. ['1', '2']), got ${show(versions)}`);
  }
}

/** `maxDepth`: undefined or an integer from 0 to 2^32 - 1. */
export function maxDepthOf(o) {
  const d = o.maxDepth;
  if (d === undefined) return undefined;
  if (!Number.isInteger(d) || d < 0 || d > 0xffffffff) {
    throw new RangeError(`maxDepth must be a non-negative integer, got ${show(d)}`);
  }
  return d;
}

/**
 * A tokenizer name: undefined or a string (stc-core checks the name). The
 * exact tokenizers the CLI has and the packages leave out get a RangeError
 * that says how to count exactly instead.
 */
export function tokenizerOf(t, available = TOKENIZERS) {
  if (t === undefined) return undefined;
  if (typeof t !== 'string') throw new TypeError(`tokenizer must be a string or a function, got ${show(t)}`);
  if (!available.includes(t) && EXACT_TOKENIZERS.includes(t)) {
    throw new RangeError(
      `tokenizer ${show(t)} is not in this package (its BPE tables are megabytes); use ${oneOf(available)}, ` +
        "or pass a counting function, e.g. { tokenizer: countTokens } with gpt-tokenizer's countTokens",
    );
  }
  return t;
}

/**
 * A counting function (`tokenizer: (text) => number`) wrapped so that every count it returns is
 * checked: a non-negative safe integer, else a TypeError. Exceptions it throws pass through as they are.
 */
export function counterOf(f) {
  return (text) => {
    const n = f(text);
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new TypeError(`the tokenizer function must return a non-negative integer, got ${show(n)}`);
    }
    return n;
  };
}

/** `minSaving`: undefined or a number (stc-core checks it: 0 to 1). */
export function minSavingOf(o) {
  const m = o.minSaving;
  if (m !== undefined && typeof m !== 'number') throw new TypeError(`minSaving must be a number, got ${show(m)}`);
  return m;
}

/**
 * A count option of `truncate` (`budget`, `truncateArraysAt`): undefined or null (none), or a
 * non-negative integer up to 10^15; another number is a RangeError, any other type a TypeError.
 */
function countOf(o, name) {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  const message = `${name} must be a non-negative integer, got ${show(v)}`;
  if (typeof v !== 'number') throw new TypeError(message);
  if (!Number.isInteger(v) || v < 0 || v > 1e15) throw new RangeError(message);
  return v;
}

/**
 * The arguments of `truncate(jsonText, options)`, checked the same way in both packages:
 * returns `{ stash, budget, truncateArraysAt, lossy, retrieveTool, tokenizer, maxDepth, version }`
 * with absent options `undefined` (`lossy` a boolean). `stash` must be present (a store or
 * `null`, `stores` names the package's store classes for the message); whether it is one of the
 * package's stores, and whether `retrieveTool` is a valid tool name (stc-stash's rule), the
 * package checks. `versions` and `tokenizers` as for `makeApi`.
 */
export function truncateArgs(jsonText, options, { versions, tokenizers = TOKENIZERS, stores }) {
  checkText(jsonText, 'jsonText');
  const o = optionsOf(options);
  if (o.stash === undefined) throw new TypeError(`options.stash is required: ${stores} or null`);
  if (o.lossy !== undefined && typeof o.lossy !== 'boolean') throw new TypeError(`lossy must be a boolean, got ${show(o.lossy)}`);
  if (o.retrieveTool !== undefined && typeof o.retrieveTool !== 'string') {
    throw new TypeError(`retrieveTool must be a string, got ${show(o.retrieveTool)}`);
  }
  return {
    stash: o.stash,
    budget: countOf(o, 'budget'),
    truncateArraysAt: countOf(o, 'truncateArraysAt'),
    lossy: o.lossy === true,
    retrieveTool: o.retrieveTool,
    tokenizer: tokenizerOf(o.tokenizer, tokenizers),
    maxDepth: maxDepthOf(o),
    version: versionOf(o),
  };
}

/** `bigint`: undefined or a boolean; returns a boolean. */
export function bigintOf(o) {
  const b = o.bigint;
  if (b !== undefined && typeof b !== 'boolean') throw new TypeError(`bigint must be a boolean, got ${show(b)}`);
  return b === true;
}

/** The text argument of `countTokens`. */
export function checkCountText(text) {
  if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${text === null ? 'null' : typeof text}`);
}

/**
 * The native layer's refusal of an option value (stc-node: napi's `InvalidArg`
 * error; stc-wasm throws a RangeError itself) as a RangeError with stc-core's message.
 */
export function toOptionError(e) {
  return e !== null && typeof e === 'object' && e.code === 'InvalidArg' ? new RangeError(e.message) : e;
}

function guarded(f) {
  try {
    return f();
  } catch (e) {
    throw toStcError(toOptionError(e));
  }
}

/**
 * The JSON-like API of a package over its native layer. Every argument is
 * checked here (one set of names, values and messages); `native` gets checked
 * values only, with absent options left `undefined`:
 * - `parse(text, { maxDepth, bigint, version })`, `stringify(value, { profile, maxDepth, bigint, version })`,
 * - `encode(text, { profile, maxDepth, version })`, `decode(text, { maxDepth, version })`,
 * - `encodeGated(text, { profile, maxDepth, minSaving, tokenizer })` (`tokenizer`: a name or a checked function), `countTokens(text, tokenizer)`.
 * A `tokenizer` that is a function (a token counter) reaches `encodeGated`
 * wrapped by `counterOf`, which checks what it returns; `countTokens` calls it here.
 * Codec errors of the native layer come out as `StcError`; any other
 * exception (a `toJSON` that throws, a cycle's `TypeError`) as thrown.
 * `version` is a number (1 or 2) or undefined (version 1), checked against
 * `versions` (required): the version names the package reads (`Version::NAMES`),
 * as the package has them without calling into its native layer (the web
 * build has no functions before `init()`): stc-node's `versionNames()` (the
 * addon is loaded), stc-wasm's generated `stc_names`.
 * `tokenizers` lists the tokenizers the package has (default: TOKENIZERS),
 * `defaultTokenizer` is `countTokens`' default.
 */
export function makeApi(native, { tokenizers = TOKENIZERS, defaultTokenizer = 'estimate', versions } = {}) {
  checkVersionList(versions, 'makeApi');
  const decode = (stcText, options) => {
    checkText(stcText, 'stcText');
    const o = optionsOf(options);
    const checked = { maxDepth: maxDepthOf(o), version: versionOf(o) };
    return guarded(() => native.decode(stcText, checked));
  };
  return {
    /** STC or JSON text to JavaScript values, like JSON.parse (`bigint: true`: integers beyond ±(2^53 - 1) as BigInt). */
    parse(text, options) {
      checkText(text, 'text');
      const o = optionsOf(options);
      const checked = { maxDepth: maxDepthOf(o), bigint: bigintOf(o), version: versionOf(o) };
      return guarded(() => native.parse(text, checked));
    },
    /** JavaScript value to STC text, like JSON.stringify (`bigint: true`: BigInt written as exact integers). */
    stringify(value, options) {
      const o = optionsOf(options);
      const checked = { profile: profileOf(o), maxDepth: maxDepthOf(o), bigint: bigintOf(o), version: versionOf(o) };
      return guarded(() => native.stringify(value, checked));
    },
    /** JSON text to STC text. */
    encode(jsonText, options) {
      checkText(jsonText, 'jsonText');
      const o = optionsOf(options);
      const checked = { profile: profileOf(o), maxDepth: maxDepthOf(o), version: versionOf(o) };
      return guarded(() => native.encode(jsonText, checked));
    },
    /** STC (or JSON) text to minified JSON text, losslessly. */
    decode,
    /** Alias of `decode`. */
    decodeStc: decode,
    /** The do-no-harm gate: STC when it saves at least `minSaving` (default 0.05) of the tokens, else minified JSON. */
    encodeGated(jsonText, options) {
      checkText(jsonText, 'jsonText');
      const o = optionsOf(options);
      const checked = {
        profile: profileOf(o), maxDepth: maxDepthOf(o), minSaving: minSavingOf(o), version: versionOf(o),
        tokenizer: typeof o.tokenizer === 'function' ? counterOf(o.tokenizer) : tokenizerOf(o.tokenizer, tokenizers),
      };
      return guarded(() => native.encodeGated(jsonText, checked));
    },
    /** Number of tokens of `text` under `tokenizer` (a name, or a counting function). */
    countTokens(text, tokenizer = defaultTokenizer) {
      checkCountText(text);
      if (typeof tokenizer === 'function') return counterOf(tokenizer)(text);
      const name = tokenizerOf(tokenizer, tokenizers);
      return guarded(() => native.countTokens(text, name));
    },
  };
}

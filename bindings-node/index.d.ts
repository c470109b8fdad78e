// Types of stc-node: STC, a token-efficient, lossless text encoding of JSON.

// The error codes, profiles, tokenizer names, versions and StcError are
// shared with stc-wasm (js-shared/stc_rules.mjs), and so are the option and
// result types (js-shared/api.d.ts); shared/ is written by `npm run build`.
import type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion } from './shared/stc_rules.mjs';
import { StcError, MEDIA_TYPE, VERSION } from './shared/stc_rules.mjs';
export type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion };
// MEDIA_TYPE, and VERSION (the STC version written by default, stc-core's VERSION: not this package's
// version), are declared with stc-wasm's in js-shared (the generated shared/stc_rules.d.mts).
export { StcError, MEDIA_TYPE, VERSION };
import type {
  Text, Limits, Versioned, DecodeOptions, ParseOptions, EncodeOptions, StringifyOptions, GateOptions, Gated,
} from './shared/api.mjs';
export type {
  Text, Limits, Versioned, DecodeOptions, ParseOptions, EncodeOptions, StringifyOptions, GateOptions, Gated,
};

/** STC or JSON text to JavaScript values. Throws `StcError` on invalid input. */
export declare function parse(text: Text, options?: ParseOptions): unknown;

/**
 * JavaScript value to STC text with `JSON.stringify`'s rules. Returns `undefined`
 * (like `JSON.stringify`) when the value is `undefined`, a function or a symbol.
 */
export declare function stringify(value: undefined | symbol | ((...args: any[]) => any), options?: StringifyOptions): undefined;
export declare function stringify(value: unknown, options?: StringifyOptions): string;

/** JSON text to STC text. Throws `StcError` if the input is not strict JSON. */
export declare function encode(jsonText: Text, options?: EncodeOptions): string;

/** STC (or JSON) text to minified JSON text, losslessly (number lexemes, key order, duplicates kept). */
export declare function decode(stcText: Text, options?: DecodeOptions): string;

/** Alias of `decode`, for code written against ADR-066's snippet. */
export declare const decodeStc: typeof decode;

/** The do-no-harm gate: STC only when it saves at least `minSaving` of the tokens. */
export declare function encodeGated(jsonText: Text, options?: GateOptions): Gated;

/** Number of tokens of `text` under `tokenizer` (default `'estimate'`; a counting function is called as it is). */
export declare function countTokens(text: string, tokenizer?: TokenizerName | TokenCounter): number;

/** Every `ErrorCode`. */
export declare const ERROR_CODES: readonly ErrorCode[];

// stcFetch's types are shared with stc-wasm (js-shared/stc_fetch_core.d.mts).
import type { StcFetch } from './shared/stc_fetch_core.mjs';
import { DEFAULT_ACCEPT } from './shared/stc_fetch_core.mjs';
export type { StcFetchOptions, StcRequestInit, StcFetch } from './shared/stc_fetch_core.mjs';
export { DEFAULT_ACCEPT };

/** `fetch` that asks for STC and resolves to a `Response` whose `.json()` and `.text()` give the JSON (see `StcFetch`). */
export declare const stcFetch: StcFetch;

// The stash types shared with stc-wasm (js-shared/stash.d.ts, copied into
// shared/ by `npm run build`).
import type {
  StashErrorCode, StashErrorFields, StashOptions, TruncateOptionsOf, Kept, Omission, Truncation,
} from './shared/stash.mjs';
export type { StashErrorCode, StashErrorFields, StashOptions, Kept, Omission, Truncation };

/**
 * A stash operation failed: a malformed key (`invalid_key`, checked before the store is read), an
 * unknown or expired key (`not_found`, `expired`), a closed store, an unreachable store
 * (`unavailable`), or a path the policy refuses (`config`).
 */
export declare class StashError extends Error implements StashErrorFields {
  constructor(message: string, fields?: Partial<StashErrorFields>);
  readonly name: 'StashError';
  code: StashErrorCode;
  retryable: boolean;
  key: string | null;
}

declare abstract class Stash {
  /** The exact original stashed under `key`. Throws `StashError`. */
  retrieve(key: string): string;
  /** Live entries. */
  readonly size: number;
  /** Closes the store; later calls throw `StashError` with code `'closed'`. */
  close(): void;
}

/**
 * The SQLite stash file shared by every `stc` process of the user (and `stc retrieve`). Without `path`:
 * `$STC_STASH_DB`, else `DATA_DIR/stash.db` where DATA_DIR is `$STC_DATA_DIR` or `~/.local/share/stc`.
 * A path must be absolute, without `..`, inside the real home or DATA_DIR, and not a symlink.
 */
export declare class SqliteStash extends Stash {
  constructor(path?: string | null, options?: StashOptions);
  /** The database file, after the path policy. */
  readonly path: string;
}

/** A stash in this process's memory (tests, one process). */
export declare class MemoryStash extends Stash {
  constructor(options?: StashOptions);
}

/** Options of `truncate` (this package's stores, tokenizer names and versions). */
export interface TruncateOptions extends TruncateOptionsOf<SqliteStash | MemoryStash, TokenizerName, StcVersion> {}

/**
 * Budget-sized compact STC of a JSON response: long arrays and strings are cut, what is cut is stashed,
 * and markers say how much is missing and how to get it back. Throws `StcError` for invalid JSON and
 * `StashError` when the store fails (nothing written stays).
 */
export declare function truncate(jsonText: Text, options: TruncateOptions): Truncation;

/** The exact original stashed under `key` in `options.stash`. Throws `StashError`. */
export declare function retrieve(key: string, options: { stash: SqliteStash | MemoryStash }): string;

/** Every `StashErrorCode`. */
export declare const STASH_ERROR_CODES: readonly StashErrorCode[];

declare const stc: {
  parse: typeof parse;
  stringify: typeof stringify;
  encode: typeof encode;
  decode: typeof decode;
  decodeStc: typeof decode;
  encodeGated: typeof encodeGated;
  countTokens: typeof countTokens;
  StcError: typeof StcError;
  ERROR_CODES: typeof ERROR_CODES;
  MEDIA_TYPE: typeof MEDIA_TYPE;
  VERSION: typeof VERSION;
  stcFetch: typeof stcFetch;
  DEFAULT_ACCEPT: typeof DEFAULT_ACCEPT;
  truncate: typeof truncate;
  retrieve: typeof retrieve;
  SqliteStash: typeof SqliteStash;
  MemoryStash: typeof MemoryStash;
  StashError: typeof StashError;
  STASH_ERROR_CODES: typeof STASH_ERROR_CODES;
};
export default stc;

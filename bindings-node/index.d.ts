// Types of stc-node: STC, a token-efficient, lossless text encoding of JSON.

/** Output whitespace style: `compact` (default, `{a:1,b[2]:1,2}`) or `readable` (`{a: 1, b[2]: 1,2}`). */
export type Profile = 'compact' | 'readable';

/** How the gate counts tokens: a fast estimate, or OpenAI's exact BPE tokenizers. */
export type TokenizerName = 'estimate' | 'o200k_base' | 'cl100k_base';

/** Stable error codes (stc-core's `ErrorKind::code`), the same in every binding. */
export type ErrorCode =
  | 'unexpected_end'
  | 'unexpected_char'
  | 'invalid_number'
  | 'invalid_escape'
  | 'control_character'
  | 'invalid_utf8'
  | 'trailing_characters'
  | 'depth_limit'
  | 'invalid_count'
  | 'count_too_large'
  | 'count_mismatch'
  | 'invalid_document'
  | 'aborted';

/** Input text: a string, or UTF-8 bytes in a `Buffer` / `Uint8Array`. */
export type Text = string | Uint8Array;

export interface Limits {
  /** Deepest nesting accepted (default 128, values above 1024 are clamped). Deeper input throws `depth_limit`. */
  maxDepth?: number;
}

export interface ParseOptions extends Limits {
  /**
   * Default `false`: every number is a JavaScript number, rounded like `JSON.parse`
   * (so integers beyond 2^53 lose precision). `true`: integer literals (no fraction,
   * no exponent) outside ±(2^53 - 1) come back as `BigInt`; all other numbers stay numbers.
   */
  bigint?: boolean;
}

export interface EncodeOptions extends Limits {
  /** Default `'compact'`. */
  profile?: Profile;
}

export interface StringifyOptions extends EncodeOptions {
  /**
   * Default `false`: a `BigInt` throws a `TypeError`, as in `JSON.stringify`.
   * `true`: `BigInt` values are written as exact integers.
   */
  bigint?: boolean;
}

export interface DecodeOptions extends Limits {}

export interface GateOptions extends EncodeOptions {
  /** Fraction of minified JSON's tokens STC must save to be chosen (default 0.05, clamped to 0..1). */
  minSaving?: number;
  /** Default `'estimate'`. */
  tokenizer?: TokenizerName;
}

export interface Gated {
  /** The text to send: STC, or minified JSON (which is valid STC too). */
  text: string;
  /** Which of the two `text` is. */
  chosen: 'stc' | 'json';
  /** Tokens of minified JSON. */
  jsonTokens: number;
  /** Tokens of the STC encoding. */
  stcTokens: number;
}

/** An STC or JSON text that could not be read. A `SyntaxError`, like `JSON.parse`'s errors. */
export declare class StcError extends SyntaxError {
  constructor(
    message: string,
    fields?: { code?: ErrorCode; offset?: number; line?: number; column?: number; reason?: string; index?: number },
  );
  readonly name: 'StcError';
  /** What went wrong, e.g. `'count_mismatch'`. */
  code: ErrorCode;
  /** Byte offset into the UTF-8 input (the unit of the conformance corpus), 0-based. */
  offset: number;
  /** 1-based line of `offset` (0 for errors with no input position). */
  line: number;
  /** 1-based column of `offset`, in Unicode characters. */
  column: number;
  /** The message without its position. */
  reason: string;
  /** UTF-16 index into the input string (`text.slice(index)`), when the input was a string. */
  index?: number;
}

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

/** Number of tokens of `text` under `tokenizer` (default `'o200k_base'`). */
export declare function countTokens(text: string, tokenizer?: TokenizerName): number;

/** Every `ErrorCode`. */
export declare const ERROR_CODES: readonly ErrorCode[];

/** The media type of STC text. */
export declare const MEDIA_TYPE: 'application/stc+json';

/** The STC version this package reads and writes. */
export declare const VERSION: 1;

/** Options of `stcFetch`, given as `init.stc`. */
export interface StcFetchOptions {
  /**
   * The `Accept` value set when the request has none (or fetch's default `*\/*`);
   * default `DEFAULT_ACCEPT`. `null` leaves `Accept` alone (STC responses are still decoded).
   */
  accept?: string | null;
  /** Nesting limit for decoding the body (default 128). */
  maxDepth?: number;
}

/** `RequestInit` plus the `stc` options of `stcFetch`. */
export interface StcRequestInit extends RequestInit {
  stc?: StcFetchOptions;
}

/**
 * `fetch` that asks for STC (`Accept: application/stc+json, application/json;q=0.9` unless the
 * request chose an `Accept`) and resolves to a standard `Response` whose `.json()` and `.text()`
 * give the JSON. An STC body (`Content-Type: application/stc+json` or `Content-Encoding: stc`) is
 * read whole, decoded, and returned as a new `Response` with `Content-Type: application/json`, the
 * JSON's `Content-Length` and no `Content-Encoding`; `X-STC-Version` and `X-STC-Ratio` stay. Any
 * other response is returned as fetched. Rejects with `StcError` (line, column) for an invalid STC
 * body and with an `Error` named `StcVersionError` for an `X-STC-Version` other than 1.
 */
export declare function stcFetch(input: string | URL | Request, init?: StcRequestInit): Promise<Response>;

/** What `stcFetch` sends in `Accept` by default: `'application/stc+json, application/json;q=0.9'`. */
export declare const DEFAULT_ACCEPT: string;

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
};
export default stc;

// The option and result types of both JavaScript packages' codec functions,
// in one place (as stash.d.ts is for the stash): `install.mjs` copies this
// file next to the generated `stc_rules` types (as `api.d.mts`, importing
// `./stc_rules.mjs`, or `api.d.ts`); stc-node's `index.d.ts` and stc-wasm's
// declarations (bindings-wasm/src/lib.rs) import it. The unions it uses
// (`Profile`, `TokenizerName`, `StcVersion`) are generated from the lists.
import type { Profile, TokenizerName, TokenCounter, StcVersion } from './stc_rules.js';

/** Input text: a string, or UTF-8 bytes in a `Uint8Array` (e.g. a Node `Buffer`). */
export type Text = string | Uint8Array;

export interface Limits {
  /** Deepest nesting accepted (default 128, any integer up to 2^32 - 1). Deeper input throws `depth_limit`. */
  maxDepth?: number;
}

export interface Versioned {
  /** The STC version to read or write (default 1; a version 2 reader reads version 1 too). */
  version?: StcVersion;
}

/** Options of `decode`. */
export interface DecodeOptions extends Limits, Versioned {}

/** Options of `parse`. */
export interface ParseOptions extends DecodeOptions {
  /**
   * Default `false`: every number is a JavaScript number, rounded like `JSON.parse`
   * (so integers beyond 2^53 lose precision). `true`: integer literals (no fraction,
   * no exponent) outside ±(2^53 - 1) come back as `BigInt`; all other numbers stay numbers.
   */
  bigint?: boolean;
}

/** Options of `encode`. */
export interface EncodeOptions extends Limits, Versioned {
  /** Output whitespace style: `'compact'` (default) or `'readable'`. */
  profile?: Profile;
}

/** Options of `stringify`. */
export interface StringifyOptions extends EncodeOptions {
  /**
   * Default `false`: a `BigInt` throws a `TypeError`, as in `JSON.stringify`.
   * `true`: `BigInt` values are written as exact integers.
   */
  bigint?: boolean;
}

/** Options of `encodeGated`. */
export interface GateOptions extends EncodeOptions {
  /** Fraction of minified JSON's tokens STC must save to be chosen, 0 to 1 (default 0.05); outside, a RangeError. */
  minSaving?: number;
  /**
   * How tokens are counted: `'estimate'` (default, built in), or a counting function for exact
   * counts, e.g. `import { countTokens } from 'gpt-tokenizer'` (o200k_base), then `{ tokenizer: countTokens }`.
   */
  tokenizer?: TokenizerName | TokenCounter;
}

/** What `encodeGated` returns. */
export interface Gated {
  /** The text to send: STC, or minified JSON (which is valid STC too). */
  text: string;
  /** Which of the two `text` is. */
  chosen: 'stc' | 'json';
  /** Tokens of minified JSON (estimated, or as the counting function gave them). */
  jsonTokens: number;
  /** Tokens of the STC encoding (estimated, or as the counting function gave them). */
  stcTokens: number;
}

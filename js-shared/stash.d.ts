// The stash types of both JavaScript packages, in one place: stc-wasm
// includes this file in its declarations (bindings-wasm/src/stash.rs,
// `include_str!`), stc-node's typings import it. Types only, no imports: each
// package supplies its own store classes, tokenizer names and versions
// (`TruncateOptionsOf<Store, Tokenizer, Version>`)
// and its `StashError` (a class in Node, an `Error` named `StashError` in the
// browser), built on `StashErrorFields`.

/** Stable codes of `StashError` (the browser has only the memory store, so never `unavailable` or `config` there). */
export type StashErrorCode =
  | 'invalid_key'
  | 'not_found'
  | 'expired'
  | 'closed'
  | 'unavailable'
  | 'corrupt'
  | 'too_large'
  | 'exhausted'
  | 'config'
  | 'store';

/** What a `StashError` carries besides its message. */
export interface StashErrorFields {
  /** What went wrong. */
  code: StashErrorCode;
  /** True only if the same call may succeed later; an unknown or expired key never comes back (re-run the tool call). */
  retryable: boolean;
  /** The key concerned, when it was well-formed. */
  key: string | null;
}

/** Options of the stores (`new MemoryStash(options)`, `new SqliteStash(path, options)`). */
export interface StashOptions {
  /** Seconds an entry lives after its last write (default 7 days). */
  ttl?: number;
  /** Live entries kept; beyond it the oldest writes are evicted (default 10 000 for SQLite, 1 000 in memory). */
  capacity?: number;
}

/** Options of `truncate`, over a package's store classes, tokenizer names and STC versions. */
export interface TruncateOptionsOf<Store, Tokenizer, Version> {
  /** Where the omitted parts go; `null` cuts nothing (`kept: 'no_store'`) unless `lossy`. Required. */
  stash: Store | null;
  /** Cut until the output has at most this many tokens (halving the array and string budgets). */
  budget?: number;
  /** Records kept per record array (and head elements of other arrays); default 32. */
  truncateArraysAt?: number;
  /** Cut without stashing (`stash: null`); markers say `recoverable: false`. */
  lossy?: boolean;
  /** Markers name a call of this tool (`key=KEY`) instead of `stc retrieve KEY` (1-64 of `A-Za-z0-9_-`). */
  retrieveTool?: string;
  /** How tokens are counted; default `'estimate'`. */
  tokenizer?: Tokenizer;
  /** Deepest nesting of the JSON input accepted (default 128). */
  maxDepth?: number;
  /** The STC version `text` is written (and the budget measured) in (default 1). */
  version?: Version;
}

/** Why `truncate` sent the original. */
export type Kept = 'nothing_to_cut' | 'no_store' | 'has_markers' | 'no_saving';

/** One part `truncate` left out. */
export interface Omission {
  unit: 'records' | 'items' | 'chars';
  /** Its stash key (`null` when lossy). */
  key: string | null;
  omitted: number;
  of: number;
}

/** What `truncate` returns. */
export interface Truncation {
  /** Compact STC to send (the original, losslessly, when nothing was cut). */
  text: string;
  /** The same content as minified JSON. */
  json: string;
  /** True if parts were left out (markers in `text` say how to get them back). */
  truncated: boolean;
  /** Why nothing was cut, or `null`. */
  kept: Kept | null;
  /** Tokens of `text`. */
  tokens: number;
  /** Tokens of the original as compact STC. */
  originalTokens: number;
  /** The stash keys the markers reference. */
  keys: string[];
  /** The omissions, in document order. */
  omissions: Omission[];
}

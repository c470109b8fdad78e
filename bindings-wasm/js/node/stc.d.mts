// Types of `stc-wasm` in Node (pkg/node/stc.mjs): the wasm module's
// declarations, with StcError as the class shared with stc-node, and the
// stash's (stc-wasm/stash, loaded on import in Node).
export * from './stc_wasm.js';
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.mjs';
export { MemoryStash, retrieve, truncate } from './stc_stash.mjs';
export type {
  StashError, StashErrorCode, StashErrorFields, StashOptions, TruncateOptions, TruncateOptionsOf, Kept, Omission,
  Truncation,
} from './stc_stash.mjs';
/** The stash entry (stc-wasm/stash); in Node it is loaded on import already. */
export declare function loadStash(): Promise<typeof import('./stc_stash.mjs')>;

// Types of `stc-wasm/stash` in Node (pkg/node/stc_stash.mjs): the stash module's declarations.
export { MemoryStash, retrieve, truncate } from './stc_stash_wasm.js';
export type {
  StashError, StashErrorCode, StashErrorFields, StashOptions, TruncateOptions, TruncateOptionsOf, Kept, Omission,
  Truncation,
} from './stc_stash_wasm.js';

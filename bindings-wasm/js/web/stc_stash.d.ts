// Types of `stc-wasm/stash` in browsers (pkg/web/stc_stash.js): the stash module's declarations.
export { default, initSync, MemoryStash, retrieve, truncate } from './stc_stash_wasm.js';
export type {
  InitInput, InitOutput, SyncInitInput, StashError, StashErrorCode, StashErrorFields, StashOptions, TruncateOptions,
  TruncateOptionsOf, Kept, Omission, Truncation,
} from './stc_stash_wasm.js';

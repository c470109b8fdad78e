// Types of `stc-wasm` in browsers (pkg/web/stc.js): the wasm module's
// declarations, with StcError as the class shared with stc-node, and the
// stash's (stc-wasm/stash, loaded by `loadStash()`).
export * from './stc_wasm.js';
export { default } from './stc_wasm.js';
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.js';
export { MemoryStash, retrieve, truncate } from './stc_stash.js';
export type {
  StashError, StashErrorCode, StashErrorFields, StashOptions, TruncateOptions, TruncateOptionsOf, Kept, Omission,
  Truncation,
} from './stc_stash.js';
/**
 * Loads the stash module (stc-wasm/stash, stc_stash_wasm_bg.wasm) once, with `init(moduleOrPath)`
 * (its default URL when none is given); afterwards this entry's `truncate`, `retrieve` and
 * `MemoryStash` work (before, they throw). Resolves to the stash entry.
 */
export declare function loadStash(
  moduleOrPath?: import('./stc_stash.js').InitInput | Promise<import('./stc_stash.js').InitInput>,
): Promise<typeof import('./stc_stash.js')>;

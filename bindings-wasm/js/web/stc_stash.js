// `import init, { MemoryStash, truncate, retrieve } from 'stc-wasm/stash'` in
// a browser (pkg/web): the stash in its own module (stc_stash_wasm_bg.wasm:
// the codec and stc-stash's memory store, planning and truncation), which
// `stc-wasm`'s `loadStash()` imports on demand. Call `init()` (or `initSync`)
// before the first call.
import * as wasm from './stc_stash_wasm.js';
import { truncateArgs } from './stc_rules.js';
import { VERSION_NAMES } from './stc_names.js';

export { default, initSync, MemoryStash, retrieve } from './stc_stash_wasm.js';

/**
 * `truncate(jsonText, options)` with the argument checks and messages of stc-node (js-shared
 * `truncateArgs`: a `version` given as a string is a TypeError, as in every other function); the
 * module's `truncate` gets the checked values and checks the store.
 */
export function truncate(jsonText, options) {
  const o = truncateArgs(jsonText, options, { versions: VERSION_NAMES, stores: 'a MemoryStash' });
  return wasm.truncate(jsonText, o);
}

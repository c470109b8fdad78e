// `import { MemoryStash, truncate, retrieve } from 'stc-wasm/stash'` in Node
// (pkg/node): the stash module (stc_stash_wasm.js), ready on import; the
// same functions `stc-wasm` exports in Node.
import wasm from './stc_stash_wasm.js';
import { truncateArgs } from './stc_rules.mjs';
import { VERSION_NAMES } from './stc_names.mjs';

export const { MemoryStash, retrieve } = wasm;

/**
 * `truncate(jsonText, options)` with the argument checks and messages of stc-node (js-shared
 * `truncateArgs`: a `version` given as a string is a TypeError, as in every other function); the
 * module's `truncate` gets the checked values and checks the store.
 */
export function truncate(jsonText, options) {
  const o = truncateArgs(jsonText, options, { versions: VERSION_NAMES, stores: 'a MemoryStash' });
  return wasm.truncate(jsonText, o);
}

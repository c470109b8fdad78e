// `import { parse, ... } from 'stc-wasm'` (or `require('stc-wasm')`) in Node
// (pkg/node): the wasm module's functions, ready on import, behind the
// argument checks, messages and StcError shared with stc-node
// (stc_rules.mjs, from js-shared/).
import wasm from './stc_wasm.js';
// Everything else of the wasm module (the stash: MemoryStash, retrieve)
// as it is; the names below take precedence.
export * from './stc_wasm.js';
import { makeApi, StcError, ERROR_CODES, MEDIA_TYPE, VERSION, truncateArgs } from './stc_rules.mjs';
// The versions the build wrote out from the module's versionNames(), as the web entry has them.
import { VERSION_NAMES } from './stc_names.mjs';

export const { parse, stringify, encode, decode, decodeStc, encodeGated, countTokens } = makeApi(wasm, {
  // The tokenizers are makeApi's defaults (the estimate only; exact counts through a counting function).
  versions: VERSION_NAMES,
});
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION };

/**
 * `truncate(jsonText, options)` with the argument checks and messages of stc-node (js-shared
 * `truncateArgs`: a `version` given as a string is a TypeError, as in every other function); the
 * module's `truncate` gets the checked values and checks the store.
 */
export function truncate(jsonText, options) {
  const o = truncateArgs(jsonText, options, { versions: VERSION_NAMES, stores: 'a MemoryStash' });
  return wasm.truncate(jsonText, o);
}

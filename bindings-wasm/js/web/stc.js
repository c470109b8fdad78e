// `import init, { parse, ... } from 'stc-wasm'` in a browser (pkg/web): the
// wasm module's functions behind the argument checks, messages and StcError
// shared with stc-node (stc_rules.js, from js-shared/). Call `init()` (or
// `initSync`) before the first call.
import * as wasm from './stc_wasm.js';
import { makeApi, StcError, ERROR_CODES, MEDIA_TYPE, VERSION, truncateArgs } from './stc_rules.js';
// The module's versionNames() exist only after init(): the build wrote them out.
import { VERSION_NAMES } from './stc_names.js';

// Everything else of the wasm module (the stash: MemoryStash, retrieve;
// init) as it is; the names below take precedence.
export * from './stc_wasm.js';
export { default, initSync } from './stc_wasm.js';
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

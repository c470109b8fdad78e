// `import { parse, ... } from 'stc-wasm'` (or `require('stc-wasm')`) in Node
// (pkg/node): the wasm module's functions, ready on import, behind the
// argument checks, messages and StcError shared with stc-node
// (stc_rules.mjs, from js-shared/). The stash (truncate, retrieve,
// MemoryStash) is stc-wasm/stash's module, also ready on import here (Node
// reads it from disk); `loadStash()` resolves to it, as in the browser.
import wasm from './stc_wasm.js';
import * as stash from './stc_stash.mjs';
// Everything else of the wasm module as it is; the names below take precedence.
export * from './stc_wasm.js';
import { makeApi, StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.mjs';
// The versions the build wrote out from the module's versionNames(), as the web entry has them.
import { VERSION_NAMES } from './stc_names.mjs';

export const { parse, stringify, encode, decode, decodeStc, encodeGated, countTokens } = makeApi(wasm, {
  // The tokenizers are makeApi's defaults (the estimate only; exact counts through a counting function).
  versions: VERSION_NAMES,
});
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION };
export { MemoryStash, truncate, retrieve } from './stc_stash.mjs';

/** The stash entry (stc-wasm/stash), already loaded in Node. */
export function loadStash() {
  return Promise.resolve(stash);
}

// `import init, { parse, ... } from 'stc-wasm'` in a browser (pkg/web): the
// wasm module's functions behind the argument checks, messages and StcError
// shared with stc-node (stc_rules.js, from js-shared/). Call `init()` (or
// `initSync`) before the first call. The stash (truncate, retrieve,
// MemoryStash) is a module of its own (stc-wasm/stash), loaded on demand by
// `await loadStash()`: a page that never truncates never downloads it.
import * as wasm from './stc_wasm.js';
import { makeApi, StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.js';
// The module's versionNames() exist only after init(): the build wrote them out.
import { VERSION_NAMES } from './stc_names.js';

// Everything else of the wasm module (init) as it is; the names below take precedence.
export * from './stc_wasm.js';
export { default, initSync } from './stc_wasm.js';
export const { parse, stringify, encode, decode, decodeStc, encodeGated, countTokens } = makeApi(wasm, {
  // The tokenizers are makeApi's defaults (the estimate only; exact counts through a counting function).
  versions: VERSION_NAMES,
});
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION };

function notLoaded() {
  throw new Error(
    'stc-wasm: the stash is loaded on demand: call `await loadStash()` before truncate, retrieve or new MemoryStash',
  );
}

// Live bindings: until loadStash() resolves they throw the error above; then
// they are stc-wasm/stash's own functions and class.
export let truncate = notLoaded;
export let retrieve = notLoaded;
export let MemoryStash = class MemoryStash {
  constructor() {
    notLoaded();
  }
};

let loading;
/**
 * Loads the stash (stc-wasm/stash: `import()` of stc_stash.js, then its `init(moduleOrPath)`,
 * the module's default URL when none is given) once; afterwards `truncate`, `retrieve` and
 * `MemoryStash` of this entry are the stash's. Resolves to the stash entry's namespace. A failed
 * load may be tried again.
 */
export function loadStash(moduleOrPath) {
  loading ??= import('./stc_stash.js').then(
    async (stash) => {
      await stash.default(moduleOrPath);
      ({ truncate, retrieve, MemoryStash } = stash);
      return stash;
    },
    (e) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

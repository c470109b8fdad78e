// `import { stcFetch } from 'stc-wasm/fetch'` in a browser (pkg/web): the
// first call initializes the decode-only wasm module (stc_decode_wasm_bg.wasm;
// `init()` with its default URL)
// unless the page did already.
import init, { decode } from './stc_decode_wasm.js';
import { createStcFetch, DEFAULT_ACCEPT, isStc } from './stc_fetch_core.js';
import { isCodecError, withContext } from './stc_rules.js';
import { VERSION_NAMES } from './stc_names.js';

let ready;
export const stcFetch = createStcFetch({
  decode,
  isStcError: isCodecError,
  withContext,
  ready: () => (ready ??= init()),
  versions: VERSION_NAMES,
});
export { DEFAULT_ACCEPT, isStc };

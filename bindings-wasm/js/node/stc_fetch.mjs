// `import { stcFetch } from 'stc-wasm/fetch'` in Node (pkg/node): the wasm
// module is ready on import (the decode-only one, stc_decode_wasm.js).
import wasm from './stc_decode_wasm.js';
import { createStcFetch, DEFAULT_ACCEPT, isStc } from './stc_fetch_core.mjs';
import { isCodecError, withContext } from './stc_rules.mjs';
import { VERSION_NAMES } from './stc_names.mjs';

export const stcFetch = createStcFetch({
  decode: wasm.decode,
  isStcError: isCodecError,
  withContext,
  versions: VERSION_NAMES,
});
export { DEFAULT_ACCEPT, isStc };

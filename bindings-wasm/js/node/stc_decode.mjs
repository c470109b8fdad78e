// `import { decode, parse } from 'stc-wasm/decode'` in Node (pkg/node): the
// decode-only module (stc_decode_wasm.js), ready on import, behind the same
// argument checks, messages and StcError as the full entry.
import wasm from './stc_decode_wasm.js';
import { makeApi, StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.mjs';
import { VERSION_NAMES } from './stc_names.mjs';

export const { errorCodes, profileNames, tokenizerNames, versionNames } = wasm;
export const { parse, decode, decodeStc } = makeApi(wasm, { versions: VERSION_NAMES });
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION };

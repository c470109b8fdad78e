// `import init, { decode, parse } from 'stc-wasm/decode'` in a browser
// (pkg/web): the decode-only module (stc_decode_wasm_bg.wasm: the reader and
// the JSON writer; no encoder, planner, token estimate or stash), behind the
// same argument checks, messages and StcError as the full entry. Call
// `init()` (or `initSync`) before the first call. A page that also encodes
// or truncates imports the full entry (`stc-wasm`) when it needs it.
import * as wasm from './stc_decode_wasm.js';
import { makeApi, StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.js';
import { VERSION_NAMES } from './stc_names.js';

export { default, initSync, errorCodes, profileNames, tokenizerNames, versionNames } from './stc_decode_wasm.js';
export const { parse, decode, decodeStc } = makeApi(wasm, { versions: VERSION_NAMES });
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION };

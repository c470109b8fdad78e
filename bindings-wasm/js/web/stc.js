// `import init, { parse, ... } from 'stc-wasm'` in a browser (pkg/web): the
// wasm module's functions behind the argument checks, messages and StcError
// shared with stc-node (stc_rules.js, from js-shared/). Call `init()` (or
// `initSync`) before the first call.
import * as wasm from './stc_wasm.js';
import { makeApi, StcError, ERROR_CODES } from './stc_rules.js';

// Everything else of the wasm module (the stash: MemoryStash, truncate,
// retrieve; init) as it is; the names below take precedence.
export * from './stc_wasm.js';
export { default, initSync } from './stc_wasm.js';

// makeApi reads the module's lists (versionNames()), which exist only once
// the page has run init(): the API is made at the first call.
let api;
const made = () =>
  (api ??= makeApi(wasm, {
    tokenizers: ['estimate'],
    defaultTokenizer: 'estimate',
  }));

export const parse = (text, options) => made().parse(text, options);
export const stringify = (value, options) => made().stringify(value, options);
export const encode = (jsonText, options) => made().encode(jsonText, options);
export const decode = (stcText, options) => made().decode(stcText, options);
export const decodeStc = decode;
export const encodeGated = (jsonText, options) => made().encodeGated(jsonText, options);
export const countTokens = (...args) => made().countTokens(...args);
export { StcError, ERROR_CODES };

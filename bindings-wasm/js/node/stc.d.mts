// Types of `stc-wasm` in Node (pkg/node/stc.mjs): the wasm module's
// declarations, with StcError as the class shared with stc-node.
export * from './stc_wasm.js';
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.mjs';

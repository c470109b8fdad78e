// Types of `stc-wasm` in browsers (pkg/web/stc.js): the wasm module's
// declarations, with StcError as the class shared with stc-node.
export * from './stc_wasm.js';
export { default } from './stc_wasm.js';
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.js';

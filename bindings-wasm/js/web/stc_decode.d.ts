// Types of `stc-wasm/decode` in browsers (pkg/web/stc_decode.js): the
// decode-only module's declarations, with StcError as the class shared with stc-node.
export * from './stc_decode_wasm.js';
export { default } from './stc_decode_wasm.js';
export { StcError, ERROR_CODES, MEDIA_TYPE, VERSION } from './stc_rules.js';

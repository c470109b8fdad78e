//! The reading text functions, `decode` and `decodeStc`, and the core's name
//! lists: what the decode-only module (`stc-wasm/decode`) holds too. The
//! writing ones are `encode.rs`.

use stc_core::{Profile, Tokenizer, Version};
use wasm_bindgen::prelude::*;

use crate::parse::decode_text;

/// Every error code of the core (`StcError.code`), in the core's order.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    stc_core::ErrorKind::CODES.iter().map(|c| c.to_string()).collect()
}

/// Every profile name the encoder accepts.
#[wasm_bindgen(js_name = profileNames)]
pub fn profile_names() -> Vec<String> {
    Profile::NAMES.iter().map(|c| c.to_string()).collect()
}

/// Every STC version this build reads and writes (`"1"`, `"2"`).
#[wasm_bindgen(js_name = versionNames)]
pub fn version_names() -> Vec<String> {
    Version::NAMES.iter().map(|c| c.to_string()).collect()
}

/// Every tokenizer name compiled in (`estimate` only: no BPE tables in WebAssembly).
#[wasm_bindgen(js_name = tokenizerNames)]
pub fn tokenizer_names() -> Vec<String> {
    Tokenizer::NAMES.iter().map(|c| c.to_string()).collect()
}

/// Decodes STC (or plain JSON) to minified JSON text.
#[wasm_bindgen(
    js_name = decode,
    unchecked_return_type = "string",
    skip_jsdoc
)]
pub fn decode(
    #[wasm_bindgen(unchecked_param_type = "Input")] stc: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "DecodeOptions")] options: Option<JsValue>,
) -> Result<String, JsValue> {
    decode_text(stc, &options.unwrap_or(JsValue::UNDEFINED))
}

/// Alias of `decode`.
#[wasm_bindgen(js_name = decodeStc, skip_jsdoc)]
pub fn decode_stc(
    #[wasm_bindgen(unchecked_param_type = "Input")] stc: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "DecodeOptions")] options: Option<JsValue>,
) -> Result<String, JsValue> {
    decode_text(stc, &options.unwrap_or(JsValue::UNDEFINED))
}

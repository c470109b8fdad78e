//! Text to text: encode, decode, the gate, token counts, and the core's name lists.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use stc_core::{encode_gated, EncodeOptions, GateOptions, Profile, Tokenizer};

use crate::errors::throw_stc;
use crate::input::Input;
use crate::js::string_result;
use crate::options::{limits, profile, tokenizer};

/// Every error code of the core (`StcError.code`), in the core's order.
#[napi(js_name = "errorCodes")]
pub fn error_codes() -> Vec<&'static str> {
    stc_core::ErrorKind::CODES.to_vec()
}

/// Every profile name the encoder accepts.
#[napi(js_name = "profileNames")]
pub fn profile_names() -> Vec<&'static str> {
    Profile::NAMES.to_vec()
}

/// Every tokenizer name compiled in.
#[napi(js_name = "tokenizerNames")]
pub fn tokenizer_names() -> Vec<&'static str> {
    Tokenizer::NAMES.to_vec()
}

// ---------------------------------------------------------------------------
// Text functions
// ---------------------------------------------------------------------------

/// JSON text (string or UTF-8 bytes) to STC text.
#[napi(
    js_name = "encode",
    ts_args_type = "json: string | Uint8Array, profile?: string, maxDepth?: number",
    ts_return_type = "string"
)]
pub fn encode_text(
    env: Env,
    json: Unknown,
    profile_name: Option<String>,
    max_depth: Option<u32>,
) -> Result<Unknown<'static>> {
    let env = env.raw();
    let input = Input::read(env, json.value().value)?;
    let options = EncodeOptions::default().profile(profile(profile_name)?).limits(limits(max_depth));
    let result = input.as_str().and_then(|s| stc_core::encode_with(s, &options));
    let text = result.map_err(|e| throw_stc(env, &e, input.text()))?;
    string_result(env, &text)
}

/// STC text (string or UTF-8 bytes) to minified JSON text.
#[napi(js_name = "decode", ts_args_type = "stc: string | Uint8Array, maxDepth?: number", ts_return_type = "string")]
pub fn decode_text(env: Env, stc: Unknown, max_depth: Option<u32>) -> Result<Unknown<'static>> {
    let env = env.raw();
    let input = Input::read(env, stc.value().value)?;
    let limits = limits(max_depth);
    let result = input.as_str().and_then(|s| stc_core::decode_with(s, &limits));
    let text = result.map_err(|e| throw_stc(env, &e, input.text()))?;
    string_result(env, &text)
}

/// Result of [`encode_gated_text`].
#[napi(object)]
pub struct GatedResult {
    pub text: String,
    #[napi(ts_type = "'stc' | 'json'")]
    pub chosen: String,
    pub json_tokens: u32,
    pub stc_tokens: u32,
}

/// The do-no-harm gate: STC if it saves at least `minSaving` of the tokens of
/// minified JSON, else minified JSON.
#[napi(
    js_name = "encodeGated",
    ts_args_type = "json: string | Uint8Array, profile?: string, minSaving?: number, tokenizer?: string, maxDepth?: number"
)]
pub fn encode_gated_text(
    env: Env,
    json: Unknown,
    profile_name: Option<String>,
    min_saving: Option<f64>,
    tokenizer_name: Option<String>,
    max_depth: Option<u32>,
) -> Result<GatedResult> {
    let env = env.raw();
    let input = Input::read(env, json.value().value)?;
    let options = EncodeOptions::default().profile(profile(profile_name)?).limits(limits(max_depth));
    let gate = GateOptions::default()
        .min_saving(min_saving.unwrap_or(GateOptions::default().min_saving))
        .tokenizer(tokenizer(tokenizer_name, Tokenizer::Estimate)?);
    let result = input.as_str().and_then(|s| encode_gated(s, &options, &gate));
    let gated = result.map_err(|e| throw_stc(env, &e, input.text()))?;
    Ok(GatedResult {
        text: gated.text,
        chosen: gated.chosen.name().to_string(),
        json_tokens: gated.json_tokens as u32,
        stc_tokens: gated.stc_tokens as u32,
    })
}

/// Number of tokens of `text` under `tokenizer` (default `o200k_base`).
/// A raw lone surrogate is counted as U+FFFD.
#[napi(js_name = "countTokens")]
pub fn count_tokens(text: String, tokenizer_name: Option<String>) -> Result<u32> {
    let t = tokenizer(tokenizer_name, "o200k_base".parse::<Tokenizer>().unwrap_or_default())?;
    Ok(t.count(&text) as u32)
}

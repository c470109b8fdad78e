//! Text to text: encode, decode, the gate, token counts, and the core's name lists.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_core::{encode_gated, encode_gated_with_counter, GateError, GateOptions, Profile, Tokenizer, Version};

use crate::errors::throw_stc;
use crate::input::Input;
use crate::js::{js_latin1, js_string_fast, string_result};
use crate::options::{decode_options, encode_options, min_saving, tokenizer};

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

/// Every STC version the core reads and writes (`"1"`, `"2"`).
#[napi(js_name = "versionNames")]
pub fn version_names() -> Vec<&'static str> {
    Version::NAMES.to_vec()
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
    ts_args_type = "json: string | Uint8Array, profile?: string, maxDepth?: number, version?: number, latin1?: boolean",
    ts_return_type = "string"
)]
pub fn encode_text(
    env: Env,
    json: Unknown,
    profile_name: Option<String>,
    max_depth: Option<u32>,
    version: Option<f64>,
    latin1: Option<bool>,
) -> Result<Unknown<'static>> {
    let env = env.raw();
    let options = encode_options(profile_name, max_depth, version)?;
    // `latin1`: the caller found no code unit beyond U+00FF in a string `json`.
    let input = Input::read_as(env, json.value().value, latin1.unwrap_or(false))?;
    let result = input.as_str().and_then(|s| stc_core::encode_with(s, &options));
    let text = result.map_err(|e| throw_stc(env, &e, input.text()))?;
    string_result(env, &text)
}

/// STC text (string or UTF-8 bytes) to minified JSON text.
#[napi(
    js_name = "decode",
    ts_args_type = "stc: string | Uint8Array, maxDepth?: number, version?: number, latin1?: boolean",
    ts_return_type = "string"
)]
pub fn decode_text(
    env: Env,
    stc: Unknown,
    max_depth: Option<u32>,
    version: Option<f64>,
    latin1: Option<bool>,
) -> Result<Unknown<'static>> {
    let env = env.raw();
    let options = decode_options(max_depth, version)?;
    // `latin1`: the caller found no code unit beyond U+00FF in a string `stc`.
    let input = Input::read_as(env, stc.value().value, latin1.unwrap_or(false))?;
    let result = input.as_str().and_then(|s| stc_core::decode_with(s, &options));
    let text = result.map_err(|e| throw_stc(env, &e, input.text()))?;
    string_result(env, &text)
}

/// The largest output buffer [`decode_latin1`] keeps for the next call (16 MiB):
/// one huge document does not pin its memory for the life of the thread.
const KEPT_OUTPUT: usize = 16 << 20;

thread_local! {
    /// [`decode_latin1`]'s output buffer, kept between calls: a large text is
    /// not allocated and freed (mmap/munmap by glibc) on every call.
    static LATIN1_OUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// STC text to minified JSON text as a one-byte string for `JSON.parse`
/// (`parse`'s fast path), written by [`stc_core::decode_latin1_into`]:
/// characters beyond U+00FF are `\uXXXX` escapes, so the text is the same
/// JSON value, not the same text as [`decode_text`] returns.
#[napi(
    js_name = "decodeLatin1",
    ts_args_type = "stc: string | Uint8Array, maxDepth?: number, version?: number, latin1?: boolean",
    ts_return_type = "string"
)]
pub fn decode_latin1(
    env: Env,
    stc: Unknown,
    max_depth: Option<u32>,
    version: Option<f64>,
    latin1: Option<bool>,
) -> Result<Unknown<'static>> {
    let env = env.raw();
    let options = decode_options(max_depth, version)?;
    // `latin1`: the caller found no code unit beyond U+00FF in a string `stc`.
    let input = Input::read_as(env, stc.value().value, latin1.unwrap_or(false))?;
    // Taken out of the cell for the call: nothing here re-enters JavaScript,
    // but a taken buffer cannot be borrowed twice in any case.
    let mut out = LATIN1_OUT.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let result = input.as_str().and_then(|s| stc_core::decode_latin1_into(s, &options, &mut out));
    let v = match result {
        Ok(()) => js_latin1(env, &out),
        Err(e) => Err(throw_stc(env, &e, input.text())),
    };
    if out.capacity() > KEPT_OUTPUT {
        out.clear();
        out.shrink_to(KEPT_OUTPUT);
    }
    LATIN1_OUT.with(|b| *b.borrow_mut() = out);
    // SAFETY: `v` is a string napi just created in `env`, returned to JavaScript before its scope closes.
    Ok(unsafe { Unknown::from_raw_unchecked(env, v?) })
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

/// The options of [`encode_gated_text`], as the JavaScript layer checked them.
#[napi(object)]
pub struct GateArgs {
    pub profile: Option<String>,
    pub min_saving: Option<f64>,
    pub tokenizer: Option<String>,
    pub max_depth: Option<u32>,
    pub version: Option<f64>,
}

/// The do-no-harm gate: STC if it saves at least `minSaving` of the tokens of
/// minified JSON, else minified JSON. Tokens are counted by `counter` (a
/// JavaScript function, checked by the JavaScript layer) when given, else by
/// the tokenizer named `tokenizer` (default `estimate`).
#[napi(
    js_name = "encodeGated",
    ts_args_type = "json: string | Uint8Array, options: GateArgs, counter?: (text: string) => number"
)]
pub fn encode_gated_text(env: Env, json: Unknown, args: GateArgs, counter: Option<Unknown>) -> Result<GatedResult> {
    let env = env.raw();
    let options = encode_options(args.profile, args.max_depth, args.version)?;
    let gate = GateOptions::default()
        .min_saving(min_saving(args.min_saving)?)
        .tokenizer(tokenizer(args.tokenizer, Tokenizer::Estimate)?);
    let gated = match counter {
        None => {
            let input = Input::read(env, json.value().value)?;
            let result = input.as_str().and_then(|s| encode_gated(s, &options, &gate));
            result.map_err(|e| throw_stc(env, &e, input.text()))?
        }
        Some(f) => {
            // The counter runs JavaScript: read a copy of the caller's bytes.
            let input = Input::read(env, json.value().value)?.owned();
            let text = input.as_str().map_err(|e| throw_stc(env, &e, input.text()))?;
            let f = f.value().value;
            let count = |t: &str| -> Result<usize> {
                let arg = js_string_fast(env, t)?;
                let mut this = ptr::null_mut();
                napi_call!(env, sys::napi_get_undefined(env, &mut this));
                let mut out = ptr::null_mut();
                napi_call!(env, sys::napi_call_function(env, this, f, 1, &arg, &mut out));
                let mut n = 0f64;
                napi_call!(env, sys::napi_get_value_double(env, out, &mut n));
                Ok(n as usize)
            };
            match encode_gated_with_counter(text, &options, &gate, count) {
                Ok(gated) => gated,
                Err(GateError::Codec(e)) => return Err(throw_stc(env, &e, input.text())),
                // The counter's exception is pending: it comes back as it is.
                Err(GateError::Counter(e)) => return Err(e),
            }
        }
    };
    Ok(GatedResult {
        text: gated.text,
        chosen: gated.chosen.name().to_string(),
        json_tokens: gated.json_tokens as u32,
        stc_tokens: gated.stc_tokens as u32,
    })
}

/// Number of tokens of `text` under `tokenizer` (default `estimate`, the
/// only one built in). A raw lone surrogate is counted as U+FFFD.
#[napi(js_name = "countTokens")]
pub fn count_tokens(text: String, tokenizer_name: Option<String>) -> Result<u32> {
    let t = tokenizer(tokenizer_name, Tokenizer::Estimate)?;
    Ok(t.count(&text) as u32)
}

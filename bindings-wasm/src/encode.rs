//! The writing text functions: `encode`, `encodeGated` and `countTokens`
//! (feature `encode`; not in the decode-only module).

use js_sys::{Object, Reflect};
use stc_core::{Document, GateOptions, Limits, Tokenizer};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::{js_error, type_error};
use crate::input::{text_arg, Text};
use crate::options::{encode_opt, field, min_saving_opt, tokenizer_opt};

/// Encodes strict JSON text as STC.
#[wasm_bindgen(js_name = encode, skip_jsdoc)]
pub fn encode(
    #[wasm_bindgen(unchecked_param_type = "Input")] json: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: Option<JsValue>,
) -> Result<String, JsValue> {
    let opts = encode_opt(&options.unwrap_or(JsValue::UNDEFINED))?;
    let text = text_arg(json, "json")?;
    let out = match &text {
        Text::Str(s) => document(s, &opts.limits),
        Text::Bytes(b) => stc_core::from_utf8(b).and_then(|s| document(s, &opts.limits)),
    };
    out.map(|doc| doc.encode_with(&opts)).map_err(|e| js_error(&e, text.as_str()))
}

/// JSON text as the encoder's document, read with the module's one reader
/// instantiation ([`crate::parse::json_document`]): `stc_core::encode_with`
/// and the gate's functions are this document's `encode_with` and
/// `encode_gated_*`.
fn document<'a>(json: &'a str, limits: &Limits) -> Result<Document<'a>, stc_core::Error> {
    crate::parse::json_document(json, limits)
}

/// The `tokenizer` option: a name (`'estimate'`, the only one compiled in),
/// or the caller's counting function (`(text: string) => number`, e.g.
/// gpt-tokenizer's `countTokens`) for exact counts without BPE tables here.
enum Counter {
    Named(Tokenizer),
    Function(js_sys::Function),
}

fn counter_opt(value: Option<JsValue>) -> Result<Counter, JsValue> {
    match value {
        Some(v) if v.is_function() => Ok(Counter::Function(v.unchecked_into())),
        other => Ok(Counter::Named(tokenizer_opt(other)?)),
    }
}

/// Calls the caller's counting function on `text`: its result must be a
/// token count (a non-negative integer); what it throws comes back as it is.
fn count_with(f: &js_sys::Function, text: &str) -> Result<usize, JsValue> {
    let n = f.call1(&JsValue::UNDEFINED, &JsValue::from_str(text))?;
    match n.as_f64() {
        Some(x) if x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_991.0 => Ok(x as usize),
        _ => Err(type_error(&format!("the tokenizer function must return a non-negative integer, got {}", shown(&n)))),
    }
}

/// A value as messages show it: numbers and strings as they are, else its type.
fn shown(v: &JsValue) -> String {
    if let Some(x) = v.as_f64() {
        return js_sys::Number::from(x).to_string_with_radix(10).map(String::from).unwrap_or_default();
    }
    if let Some(s) = v.as_string() {
        return format!("{s:?}");
    }
    if v.is_null() {
        return "null".into();
    }
    v.js_typeof().as_string().unwrap_or_default()
}

/// The do-no-harm gate, counting with the token estimate or the caller's function.
#[wasm_bindgen(js_name = encodeGated, unchecked_return_type = "Gated", skip_jsdoc)]
pub fn encode_gated(
    #[wasm_bindgen(unchecked_param_type = "Input")] json: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GateOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let opts = encode_opt(&options)?;
    let counter = counter_opt(field(&options, "tokenizer")?)?;
    let gate = GateOptions::default().min_saving(min_saving_opt(&options)?);
    let json = text_arg(json, "json")?.into_string()?;
    let doc = document(&json, &opts.limits).map_err(|e| js_error(&e, Some(&json)))?;
    let g = match counter {
        Counter::Named(tokenizer) => doc.encode_gated_with(&opts, &gate.tokenizer(tokenizer)),
        // What the counting function throws comes back as it is.
        Counter::Function(f) => doc.encode_gated_with_counter(&opts, &gate, |text| count_with(&f, text))?,
    };
    let out = Object::new();
    Reflect::set(&out, &"text".into(), &JsValue::from_str(&g.text))?;
    Reflect::set(&out, &"chosen".into(), &JsValue::from_str(g.chosen.name()))?;
    Reflect::set(&out, &"jsonTokens".into(), &JsValue::from_f64(g.json_tokens as f64))?;
    Reflect::set(&out, &"stcTokens".into(), &JsValue::from_f64(g.stc_tokens as f64))?;
    Ok(out.into())
}

/// Tokens of `text`: stc-core's o200k_base estimate (not exact), or the
/// caller's counting function's answer.
#[wasm_bindgen(js_name = countTokens, skip_jsdoc)]
pub fn count_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TokenizerName | TokenCounter")] tokenizer: Option<JsValue>,
) -> Result<f64, JsValue> {
    let counter = counter_opt(tokenizer.filter(|t| !t.is_undefined() && !t.is_null()))?;
    let text = text.as_string().ok_or_else(|| type_error("text must be a string"))?;
    Ok(match counter {
        Counter::Named(tokenizer) => tokenizer.count(&text),
        Counter::Function(f) => count_with(&f, &text)?,
    } as f64)
}

//! Options: the fields of an options object as stc-core's types. The entry
//! (js-shared's `stc_rules.mjs`) has checked their types; their values are
//! stc-core's to check (`FromStr`, `Version::try_from`, `MinSaving::try_from`),
//! and a refusal is a `RangeError` with stc-core's message, the message every
//! other surface reports (conformance/options/options.json).

use js_sys::Reflect;
#[cfg(not(feature = "stash"))]
use stc_core::DecodeOptions;
#[cfg(any(feature = "encode", feature = "stash"))]
use stc_core::Tokenizer;
#[cfg(all(feature = "encode", not(feature = "stash")))]
use stc_core::{EncodeOptions, MinSaving, Profile};
use stc_core::{Limits, Version};
use wasm_bindgen::prelude::*;

use crate::errors::{range_error, type_error};

/// Reads `options[name]`; `None` when options or the field is undefined/null.
pub(crate) fn field(options: &JsValue, name: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(type_error("options must be an object"));
    }
    let v = Reflect::get(options, &JsValue::from_str(name))?;
    Ok(if v.is_undefined() || v.is_null() { None } else { Some(v) })
}

pub(crate) fn limits_opt(options: &JsValue) -> Result<Limits, JsValue> {
    let mut limits = Limits::default();
    if let Some(v) = field(options, "maxDepth")? {
        match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 => limits.max_depth = n.min(usize::MAX as f64) as usize,
            _ => return Err(range_error("maxDepth must be a non-negative integer")),
        }
    }
    Ok(limits)
}

/// `version`: the STC version to read or write, a number, 1 (default) or 2,
/// checked by stc-core's `Version::try_from` (its message names the valid
/// versions). A string (`"2"`) is the wrong type, as in every binding.
pub(crate) fn version_opt(options: &JsValue) -> Result<Version, JsValue> {
    let Some(v) = field(options, "version")? else { return Ok(Version::default()) };
    let n = v.as_f64().ok_or_else(|| type_error("version must be a number"))?;
    // `Version::try_from(n)` would be the same answer, but its message writes
    // `n` with Rust's float formatting (about 12 KB of the module); the
    // version's name as Rust writes it is made from the engine's text of `n`
    // (the same shortest digits) instead, then read by `Version::from_str`,
    // whose refusal is the same message.
    rust_display(n)?.parse::<Version>().map_err(|e| range_error(&e.to_string()))
}

/// `n` as Rust's `Display` writes an `f64`, made from the engine's `String(n)`.
fn rust_display(n: f64) -> Result<String, JsValue> {
    let js = String::from(js_sys::Number::from(n).to_string_with_radix(10)?);
    Ok(rust_float_text(n, &js))
}

/// `n` as Rust's `Display` writes an `f64` (shortest round-trip digits, never
/// an exponent; `NaN`, `inf`, `-inf`, `-0`), from JavaScript's `String(n)`
/// (the same shortest digits, with an exponent below 1e-6 and from 1e21).
fn rust_float_text(n: f64, js: &str) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "inf" } else { "-inf" }.into();
    }
    if n == 0.0 {
        return if n.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let Some((mantissa, exponent)) = js.split_once('e') else { return js.into() };
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = [int, frac].concat();
    // The decimal point sits after `point` digits (it may be before the
    // first digit or past the last).
    let point = int.len() as i64 + exponent.trim_start_matches('+').parse::<i64>().unwrap_or(0);
    let mut out = String::from(sign);
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        out.push_str(&digits);
    } else if point as usize >= digits.len() {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

/// The options of the reading functions: `maxDepth` and `version`.
#[cfg(not(feature = "stash"))]
pub(crate) fn decode_opt(options: &JsValue) -> Result<DecodeOptions, JsValue> {
    Ok(DecodeOptions::default().limits(limits_opt(options)?).version(version_opt(options)?))
}

#[cfg(all(feature = "encode", not(feature = "stash")))]
pub(crate) fn encode_opt(options: &JsValue) -> Result<EncodeOptions, JsValue> {
    let mut opts = EncodeOptions::default().limits(limits_opt(options)?).version(version_opt(options)?);
    if let Some(v) = field(options, "profile")? {
        let name = v.as_string().ok_or_else(|| type_error("profile must be a string"))?;
        opts.profile = name.parse::<Profile>().map_err(|e| range_error(&e.to_string()))?;
    }
    Ok(opts)
}

#[cfg(any(feature = "encode", feature = "stash"))]
pub(crate) fn tokenizer_opt(value: Option<JsValue>) -> Result<Tokenizer, JsValue> {
    let Some(v) = value else { return Ok(Tokenizer::Estimate) };
    let name = v.as_string().ok_or_else(|| type_error("tokenizer must be a string"))?;
    name.parse::<Tokenizer>().map_err(|e| range_error(&e.to_string()))
}

pub(crate) fn bool_opt(options: &JsValue, name: &str) -> Result<bool, JsValue> {
    match field(options, name)? {
        None => Ok(false),
        Some(v) => v.as_bool().ok_or_else(|| type_error(&format!("{name} must be a boolean"))),
    }
}

#[cfg(all(feature = "encode", not(feature = "stash")))]
/// `minSaving`: a number from 0 to 1 (stc-core's `MinSaving`); default 0.05.
pub(crate) fn min_saving_opt(options: &JsValue) -> Result<MinSaving, JsValue> {
    match field(options, "minSaving")? {
        None => Ok(MinSaving::default()),
        Some(v) => {
            let m = v.as_f64().ok_or_else(|| type_error("minSaving must be a number"))?;
            // `MinSaving::try_from(m)`'s answer, with a refused `m` written
            // as Rust writes it from the engine's text (as `version` is),
            // which keeps Rust's float printing out of the module.
            MinSaving::try_from_shown(m, || rust_display(m).unwrap_or_default())
                .map_err(|e| range_error(&e.to_string()))
        }
    }
}

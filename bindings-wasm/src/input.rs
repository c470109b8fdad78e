//! Inputs: a string or the bytes of a `Uint8Array`, as UTF-8 text.

use js_sys::{JsString, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::{js_error, type_error};

/// A string (converted to UTF-8 by wasm-bindgen) or the bytes of a `Uint8Array`.
pub(crate) enum Text {
    Str(String),
    Bytes(Vec<u8>),
}

pub(crate) fn text_arg(value: &JsValue, what: &str) -> Result<Text, JsValue> {
    if let Some(s) = value.as_string() {
        // The conversion to UTF-8 turns a lone surrogate into U+FFFD. Only
        // then is the slow code-unit check worth making (it crosses into JS
        // once per unit), to tell a real U+FFFD from a replaced surrogate.
        if s.contains('\u{FFFD}') {
            if let Some(js) = value.dyn_ref::<JsString>() {
                if !js.is_valid_utf16() {
                    return Err(lone_surrogate_error(js));
                }
            }
        }
        Ok(Text::Str(s))
    } else if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        Ok(Text::Bytes(bytes.to_vec()))
    } else {
        Err(type_error(&format!("{what} must be a string or a Uint8Array")))
    }
}

/// A string holding a raw lone surrogate has no UTF-8 form: report it as
/// stc-core's `invalid_utf8` at that character, rather than letting the
/// conversion replace it with U+FFFD without telling anyone.
pub(crate) fn lone_surrogate_error(js: &JsString) -> JsValue {
    let units: Vec<u16> = js.iter().collect();
    let Err(e) = stc_core::from_utf16(&units) else {
        return type_error("the string changed while it was read");
    };
    let err = js_error(&e, None);
    if let Some(index) = stc_core::utf16_error_index(&units) {
        let _ = Reflect::set(&err, &JsValue::from_str("index"), &JsValue::from_f64(index as f64));
    }
    err
}

impl Text {
    #[cfg(any(feature = "encode", feature = "stash"))]
    /// The string itself, or the bytes checked as UTF-8 (an `invalid_utf8`
    /// error from stc-core when they are not).
    pub(crate) fn into_string(self) -> Result<String, JsValue> {
        match self {
            Text::Str(s) => Ok(s),
            Text::Bytes(b) => String::from_utf8(b).map_err(|e| match stc_core::from_utf8(e.as_bytes()) {
                Err(err) => js_error(&err, None),
                Ok(_) => type_error("input is not UTF-8"),
            }),
        }
    }

    #[cfg(not(feature = "stash"))]
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(s) => Some(s),
            Text::Bytes(_) => None,
        }
    }
}

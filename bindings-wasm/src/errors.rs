//! Errors: stc-core's codec errors as the `StcError` the Node package
//! throws, and `TypeError`s and `RangeError`s.

use js_sys::Reflect;
use stc_core::Error;
use wasm_bindgen::prelude::*;

/// Turns a codec error into the error the Node package throws: a
/// `SyntaxError` named `StcError` with `code`, `offset`, `line`, `column`,
/// `reason` (the message without position) and, when the input was a string,
/// `index` (the UTF-16 index of `offset`, for `text.slice(index)`).
pub(crate) fn js_error(e: &Error, input: Option<&str>) -> JsValue {
    let err = js_sys::SyntaxError::new(&e.to_string());
    let set = |k: &str, v: JsValue| {
        let _ = Reflect::set(&err, &JsValue::from_str(k), &v);
    };
    set("name", JsValue::from_str("StcError"));
    set("code", JsValue::from_str(e.kind().code()));
    set("offset", JsValue::from_f64(e.offset().unwrap_or(0) as f64));
    set("line", JsValue::from_f64(e.line().unwrap_or(0) as f64));
    set("column", JsValue::from_f64(e.column().unwrap_or(0) as f64));
    set("reason", JsValue::from_str(e.message()));
    if let Some(index) = input.and_then(|s| e.utf16_offset(s)) {
        set("index", JsValue::from_f64(index as f64));
    }
    err.into()
}

pub(crate) fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

pub(crate) fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}

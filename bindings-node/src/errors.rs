//! Exceptions: stc-core errors as JavaScript errors with their position fields,
//! and `TypeError`s.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;

use crate::js::{js_number, js_string, set_named};
use crate::{RawEnv, Value};

/// Throws `err` as a JavaScript `Error` with `code` (the stable kind code),
/// `offset` (UTF-8 bytes), `line`, `column` and, for string input, `index`
/// (UTF-16 code units, for `text.slice(index)`). Returns the napi error that
/// tells napi-rs the exception is already pending.
pub(crate) fn throw_stc(env: RawEnv, err: &stc_core::Error, text: Option<&str>) -> Error {
    let build = || -> Result<Value> {
        let code = js_string(env, err.kind().code())?;
        let message = js_string(env, &err.to_string())?;
        let mut obj = ptr::null_mut();
        napi_call!(env, sys::napi_create_error(env, code, message, &mut obj));
        set_named(env, obj, c"offset", js_number(env, err.offset().unwrap_or(0) as f64)?)?;
        set_named(env, obj, c"line", js_number(env, err.line().unwrap_or(0) as f64)?)?;
        set_named(env, obj, c"column", js_number(env, err.column().unwrap_or(0) as f64)?)?;
        set_named(env, obj, c"reason", js_string(env, err.message())?)?;
        if let Some(index) = text.and_then(|t| err.utf16_offset(t)) {
            set_named(env, obj, c"index", js_number(env, index as f64)?)?;
        }
        Ok(obj)
    };
    throw(env, build())
}

/// Throws a built exception value and returns the napi error that tells
/// napi-rs an exception is pending; if building it failed, that failure.
pub(crate) fn throw(env: RawEnv, built: Result<Value>) -> Error {
    match built {
        Ok(value) => {
            // SAFETY: `env` is the current call's environment and `value` a live value made in it.
            unsafe { sys::napi_throw(env, value) };
            Error::new(Status::PendingException, String::new())
        }
        Err(e) => e,
    }
}

pub(crate) fn type_error(env: RawEnv, message: &str) -> Error {
    let build = || -> Result<Value> {
        let msg = js_string(env, message)?;
        let mut err = ptr::null_mut();
        napi_call!(env, sys::napi_create_type_error(env, ptr::null_mut(), msg, &mut err));
        Ok(err)
    };
    throw(env, build())
}

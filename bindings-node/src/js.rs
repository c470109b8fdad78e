//! napi plumbing: checked raw calls, JavaScript strings and numbers in and out.

use std::ffi::c_char;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;

use crate::{RawEnv, Value};

/// A failed napi call. If a JavaScript exception is pending (a getter or
/// `toJSON` threw), it is left in place and propagates unchanged.
pub(crate) fn napi_failure(env: RawEnv, status: i32) -> Error {
    let mut pending = false;
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    if pending {
        Error::new(Status::PendingException, String::new())
    } else {
        Error::new(Status::from(status), "napi call failed".to_string())
    }
}

pub(crate) fn js_string(env: RawEnv, s: &str) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(env, sys::napi_create_string_utf8(env, s.as_ptr().cast::<c_char>(), s.len() as isize, &mut out));
    Ok(out)
}

pub(crate) fn js_string_utf16(env: RawEnv, s: &[u16]) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(env, sys::napi_create_string_utf16(env, s.as_ptr(), s.len() as isize, &mut out));
    Ok(out)
}

pub(crate) fn js_number(env: RawEnv, n: f64) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(env, sys::napi_create_double(env, n, &mut out));
    Ok(out)
}

pub(crate) fn set_named(env: RawEnv, obj: Value, name: &std::ffi::CStr, value: Value) -> Result<()> {
    napi_call!(env, sys::napi_set_named_property(env, obj, name.as_ptr(), value));
    Ok(())
}

pub(crate) fn type_of(env: RawEnv, v: Value) -> Result<i32> {
    let mut t = 0;
    napi_call!(env, sys::napi_typeof(env, v, &mut t));
    Ok(t)
}

/// Reads a JavaScript string as UTF-8 (lone surrogates become U+FFFD, as
/// with `TextEncoder`; see the README). One copy: the UTF-16 length, which
/// napi knows without a scan, bounds the UTF-8 length (3 bytes per unit).
pub(crate) fn read_utf8(env: RawEnv, v: Value) -> Result<String> {
    let mut units = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut units));
    let capacity = units * 3 + 1;
    let mut buf: Vec<u8> = Vec::with_capacity(capacity);
    let mut written = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast::<c_char>(), capacity, &mut written));
    // SAFETY: napi wrote `written` bytes (plus a NUL) into the buffer.
    unsafe { buf.set_len(written.min(capacity)) };
    // napi writes valid UTF-8 (lone surrogates replaced), so this never fails.
    String::from_utf8(buf).map_err(|_| Error::new(Status::GenericFailure, "string is not UTF-8".to_string()))
}

/// Creates a JavaScript string from Rust text the cheapest way V8 offers:
/// Latin-1 when every character fits in a byte (a plain copy for ASCII),
/// else UTF-16. Both beat napi's UTF-8 path, whose decoder is slow once the
/// text holds any non-ASCII character.
pub(crate) fn js_string_fast(env: RawEnv, s: &str) -> Result<Value> {
    let mut out = ptr::null_mut();
    if s.is_ascii() {
        napi_call!(env, sys::napi_create_string_latin1(env, s.as_ptr().cast::<c_char>(), s.len() as isize, &mut out));
    } else if s.chars().all(|c| (c as u32) < 0x100) {
        let latin1: Vec<u8> = s.chars().map(|c| c as u8).collect();
        napi_call!(
            env,
            sys::napi_create_string_latin1(env, latin1.as_ptr().cast::<c_char>(), latin1.len() as isize, &mut out)
        );
    } else {
        let units: Vec<u16> = s.encode_utf16().collect();
        napi_call!(env, sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut out));
    }
    Ok(out)
}

pub(crate) fn string_result(env: RawEnv, s: &str) -> Result<Unknown<'static>> {
    let v = js_string_fast(env, s)?;
    Ok(unsafe { Unknown::from_raw_unchecked(env, v) })
}

/// Reads a JavaScript string as UTF-16 code units, lone surrogates kept.
pub(crate) fn read_utf16(env: RawEnv, v: Value, buf: &mut Vec<u16>) -> Result<()> {
    let mut len = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut len));
    buf.clear();
    buf.resize(len + 1, 0);
    let mut written = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, buf.as_mut_ptr(), len + 1, &mut written));
    buf.truncate(written);
    Ok(())
}

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
    // SAFETY: `env` is the current call's environment; `pending` a local out-parameter.
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
    // SAFETY: napi initialised `written` bytes (plus a NUL) of the `capacity` reserved, and `written < capacity`.
    unsafe { buf.set_len(written.min(capacity)) };
    // napi writes valid UTF-8 (lone surrogates replaced), so this never fails.
    String::from_utf8(buf).map_err(|_| Error::new(Status::GenericFailure, "string is not UTF-8".to_string()))
}

/// Length of the run of ASCII bytes at the start of `bytes` (16 at a time).
pub(crate) fn ascii_run(bytes: &[u8]) -> usize {
    const HIGH: u128 = u128::from_ne_bytes([0x80; 16]);
    let mut n = 0;
    for chunk in bytes.chunks_exact(16) {
        let word = u128::from_ne_bytes(chunk.try_into().unwrap_or([0x80; 16]));
        if word & HIGH != 0 {
            break;
        }
        n += 16;
    }
    n + bytes[n..].iter().position(|&b| b >= 0x80).unwrap_or(bytes.len() - n)
}

/// The scalar value of the non-ASCII character starting at byte `i` of
/// `bytes` (valid UTF-8, `bytes[i] >= 0x80`) and its width, read from its
/// lead byte and continuation bytes.
#[inline(always)]
fn non_ascii_at(bytes: &[u8], i: usize) -> (u32, usize) {
    let cont = |k: usize| u32::from(bytes.get(i + k).copied().unwrap_or(0x80) & 0x3F);
    let lead = u32::from(bytes[i]);
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | cont(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4)
    }
}

/// Text as Latin-1 bytes into `out` (emptied first), or `false` at the first
/// character beyond U+00FF.
fn latin1_into(s: &str, out: &mut Vec<u8>) -> bool {
    let bytes = s.as_bytes();
    out.clear();
    out.reserve(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = ascii_run(&bytes[i..]);
        out.extend_from_slice(&bytes[i..i + run]);
        i += run;
        while i < bytes.len() && bytes[i] >= 0x80 {
            let (c, width) = non_ascii_at(bytes, i);
            let Ok(b) = u8::try_from(c) else { return false };
            out.push(b);
            i += width;
        }
    }
    true
}

/// Text as UTF-16 code units into `out` (emptied first): ASCII runs widened
/// whole, each run of other characters decoded in one loop.
fn utf16_into(s: &str, out: &mut Vec<u16>) {
    let bytes = s.as_bytes();
    out.clear();
    out.reserve(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = ascii_run(&bytes[i..]);
        out.extend(bytes[i..i + run].iter().map(|&b| u16::from(b)));
        i += run;
        while i < bytes.len() && bytes[i] >= 0x80 {
            let (c, width) = non_ascii_at(bytes, i);
            if c < 0x10000 {
                out.push(c as u16);
            } else {
                let v = c - 0x10000;
                out.extend_from_slice(&[0xD800 | (v >> 10) as u16, 0xDC00 | (v & 0x3FF) as u16]);
            }
            i += width;
        }
    }
}

/// Creates a JavaScript string from Rust text the cheapest way V8 offers:
/// Latin-1 when every character fits in a byte (a plain copy for ASCII),
/// else UTF-16. Both beat napi's UTF-8 path, whose decoder is slow once the
/// text holds any non-ASCII character.
pub(crate) fn js_string_fast(env: RawEnv, s: &str) -> Result<Value> {
    if s.is_ascii() {
        return js_latin1(env, s.as_bytes());
    }
    js_string_converted(env, s, &mut Vec::new(), &mut Vec::new())
}

/// [`js_string_fast`] of non-ASCII text, converted in `latin1` or `utf16`.
fn js_string_converted(env: RawEnv, s: &str, latin1: &mut Vec<u8>, utf16: &mut Vec<u16>) -> Result<Value> {
    if latin1_into(s, latin1) {
        return js_latin1(env, latin1);
    }
    utf16_into(s, utf16);
    js_string_utf16(env, utf16)
}

/// Creates a one-byte JavaScript string from Latin-1 bytes (one character
/// per byte).
pub(crate) fn js_latin1(env: RawEnv, bytes: &[u8]) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(
        env,
        sys::napi_create_string_latin1(env, bytes.as_ptr().cast::<c_char>(), bytes.len() as isize, &mut out)
    );
    Ok(out)
}

/// The largest conversion buffers [`string_result`] keeps for the next call
/// (8 MiB of Latin-1, 16 MiB of UTF-16).
const KEPT_RESULT: usize = 8 << 20;

thread_local! {
    /// [`string_result`]'s conversion buffers, kept between calls: a large
    /// result is not converted into fresh pages (page faults) every call.
    static RESULT_BUFFERS: std::cell::RefCell<(Vec<u8>, Vec<u16>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// A text result (encode's STC, decode's JSON) as a JavaScript string.
pub(crate) fn string_result(env: RawEnv, s: &str) -> Result<Unknown<'static>> {
    let v = if s.is_ascii() {
        js_latin1(env, s.as_bytes())?
    } else {
        let (mut latin1, mut utf16) = RESULT_BUFFERS.with(|b| std::mem::take(&mut *b.borrow_mut()));
        let v = js_string_converted(env, s, &mut latin1, &mut utf16);
        if latin1.capacity() <= KEPT_RESULT && utf16.capacity() <= KEPT_RESULT {
            RESULT_BUFFERS.with(|b| *b.borrow_mut() = (latin1, utf16));
        }
        v?
    };
    // SAFETY: `v` is a string just created in `env`, the current call's environment.
    Ok(unsafe { Unknown::from_raw_unchecked(env, v) })
}

/// Reads a JavaScript string as UTF-16 code units, lone surrogates kept,
/// into `buf`, and returns how many there are (`buf[..n]`). `buf` keeps its
/// length between calls as the room to write in, so that a string that fits
/// takes one napi call (a longer one: a second for its length, a third to
/// copy it into the grown buffer).
pub(crate) fn read_utf16(env: RawEnv, v: Value, buf: &mut Vec<u16>) -> Result<usize> {
    if buf.len() < 256 {
        buf.resize(256, 0);
    }
    let mut written = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, buf.as_mut_ptr(), buf.len(), &mut written));
    if written + 1 < buf.len() {
        return Ok(written);
    }
    // It filled the buffer (less its NUL): it may be longer.
    let mut len = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut len));
    if len > written {
        buf.resize(len + 1, 0);
        napi_call!(env, sys::napi_get_value_string_utf16(env, v, buf.as_mut_ptr(), len + 1, &mut written));
    }
    Ok(written.min(buf.len().saturating_sub(1)))
}

//! The text argument of every entry point: a JavaScript string or UTF-8 bytes.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;

use crate::js::type_of;
use crate::{RawEnv, Value};

/// The text argument of every entry point: a string, or a `Buffer` /
/// `Uint8Array` holding UTF-8 bytes.
pub(crate) enum Input<'a> {
    Text(String),
    Bytes(&'a [u8]),
    /// A string holding a lone surrogate as a raw character: it has no UTF-8
    /// form. Keeps the UTF-8 of the text before it, to report the position.
    LoneSurrogate(String),
    /// UTF-8 bytes copied out of a buffer (see [`Input::owned`]).
    OwnedBytes(String),
}

/// Reads a JavaScript string and converts it to UTF-8 here: copying UTF-16
/// out of V8 and converting in Rust is faster than napi's UTF-8 writer on
/// two-byte strings, and it finds raw lone surrogates, which napi would turn
/// into U+FFFD silently.
fn read_text(env: RawEnv, v: Value) -> Result<Input<'static>> {
    let mut len = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut len));
    // The UTF-16 copy goes into this thread's reused buffer (no allocation,
    // no zeroing, no fresh pages per call); one above REUSED units is freed.
    let mut units = UNITS.with(|b| std::mem::take(&mut *b.borrow_mut()));
    if units.len() < len + 1 {
        units.resize(len + 1, 0);
    }
    let mut written = 0usize;
    // SAFETY: `units` holds at least `len + 1` u16s, the size passed, so napi writes within it.
    let status = unsafe { sys::napi_get_value_string_utf16(env, v, units.as_mut_ptr(), len + 1, &mut written) };
    let result = if status == sys::Status::napi_ok {
        utf8_of(&units[..written.min(len)])
    } else {
        Err(crate::js::napi_failure(env, status))
    };
    if units.len() <= REUSED {
        UNITS.with(|b| *b.borrow_mut() = units);
    }
    result
}

/// Reads a JavaScript string the caller found to hold no code unit beyond
/// U+00FF (index.js tests it with a regular expression, which V8 answers
/// without a scan for a one-byte string): copied out as Latin-1 bytes (for a
/// one-byte string, V8's bytes as they are: no widening to UTF-16 and back),
/// then UTF-8 as it is when ASCII, else each byte above 0x7F written as two.
/// Lossless only under that condition: napi keeps the low byte of a wider unit.
fn read_latin1_text(env: RawEnv, v: Value) -> Result<Input<'static>> {
    let mut len = 0usize;
    napi_call!(env, sys::napi_get_value_string_latin1(env, v, ptr::null_mut(), 0, &mut len));
    let mut bytes = BYTES.with(|b| std::mem::take(&mut *b.borrow_mut()));
    if bytes.len() < len + 1 {
        bytes.resize(len + 1, 0);
    }
    let mut written = 0usize;
    // SAFETY: `bytes` holds at least `len + 1` bytes, the size passed, so napi writes within it.
    let status = unsafe { sys::napi_get_value_string_latin1(env, v, bytes.as_mut_ptr().cast(), len + 1, &mut written) };
    let result = if status == sys::Status::napi_ok {
        let latin1 = &bytes[..written.min(len)];
        let mut out: Vec<u8> = UTF8.with(|b| std::mem::take(&mut *b.borrow_mut()));
        out.clear();
        if latin1.is_ascii() {
            out.extend_from_slice(latin1);
        } else {
            out.reserve(latin1.len() + latin1.len() / 4);
            let mut i = 0;
            while i < latin1.len() {
                let run = crate::js::ascii_run(&latin1[i..]);
                out.extend_from_slice(&latin1[i..i + run]);
                i += run;
                while let Some(&b) = latin1.get(i).filter(|&&b| b >= 0x80) {
                    out.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
                    i += 1;
                }
            }
        }
        checked_text(out)
    } else {
        Err(crate::js::napi_failure(env, status))
    };
    if bytes.len() <= 2 * REUSED {
        BYTES.with(|b| *b.borrow_mut() = bytes);
    }
    result
}

/// The largest UTF-16 buffer [`read_text`] keeps for the next call (8 MB).
const REUSED: usize = 4 << 20;

/// The largest UTF-8 input buffer an [`Input`] gives back for the next call (16 MiB).
const KEPT_UTF8: usize = 16 << 20;

thread_local! {
    static UNITS: std::cell::RefCell<Vec<u16>> = const { std::cell::RefCell::new(Vec::new()) };
    /// [`read_latin1_text`]'s copy of the string, kept like [`UNITS`].
    static BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The UTF-8 text of the last string argument, given back by [`Input`]'s
    /// `Drop` and reused by the next [`utf8_of`] on this thread.
    static UTF8: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Input<'_> {
    fn drop(&mut self) {
        if let Input::Text(s) | Input::LoneSurrogate(s) = self {
            let buf = std::mem::take(s).into_bytes();
            if buf.capacity() <= KEPT_UTF8 {
                UTF8.with(|b| {
                    let mut kept = b.borrow_mut();
                    // A nested call's buffer may be back already: keep the larger.
                    if buf.capacity() > kept.capacity() {
                        *kept = buf;
                    }
                });
            }
        }
    }
}

/// UTF-16 code units to UTF-8 text, or the text before a lone surrogate.
fn utf8_of(units: &[u16]) -> Result<Input<'static>> {
    // Room for ASCII, plus a quarter for longer forms (one growth beyond).
    // This thread's kept buffer (see [`KEPT_UTF8`]): no fresh multi-megabyte
    // block, with its page faults, per call.
    let mut out: Vec<u8> = UTF8.with(|b| std::mem::take(&mut *b.borrow_mut()));
    out.clear();
    out.reserve(units.len() + units.len() / 4 + 16);
    let mut i = 0;
    while i < units.len() {
        // ASCII runs, 16 units at a time, narrowed into an array copied at
        // once (both loops vectorize; 1.5-2x faster than extending the vector
        // unit by unit, bench/CANDIDATES.md candidate 16).
        while let Some(chunk) = units.get(i..i + 16) {
            if chunk.iter().fold(0u16, |acc, &u| acc | u) >= 0x80 {
                break;
            }
            let mut narrow = [0u8; 16];
            for (b, &u) in narrow.iter_mut().zip(chunk) {
                *b = u as u8;
            }
            out.extend_from_slice(&narrow);
            i += 16;
        }
        // Then up to 16 units one by one (a pair may end one past them).
        let end = (i + 16).min(units.len());
        while i < end {
            let u = units[i];
            if u < 0x80 {
                out.push(u as u8);
                i += 1;
                continue;
            }
            // Two- and three-byte forms written directly; surrogates below.
            if u < 0x800 {
                out.extend_from_slice(&[0xC0 | (u >> 6) as u8, 0x80 | (u & 0x3F) as u8]);
                i += 1;
                continue;
            }
            if !(0xD800..=0xDFFF).contains(&u) {
                out.extend_from_slice(&[
                    0xE0 | (u >> 12) as u8,
                    0x80 | ((u >> 6) & 0x3F) as u8,
                    0x80 | (u & 0x3F) as u8,
                ]);
                i += 1;
                continue;
            }
            let (code, width) = match u {
                0xD800..=0xDBFF => match units.get(i + 1) {
                    Some(&lo @ 0xDC00..=0xDFFF) => {
                        (0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(lo) - 0xDC00), 2)
                    }
                    _ => (u32::MAX, 1),
                },
                0xDC00..=0xDFFF => (u32::MAX, 1),
                _ => (u32::from(u), 1),
            };
            match char::from_u32(code) {
                Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
                None => {
                    let prefix = String::from_utf8(out).unwrap_or_default();
                    return Ok(Input::LoneSurrogate(prefix));
                }
            }
            i += width;
        }
    }
    // `out` holds ASCII bytes, the UTF-8 forms of scalar values below U+D800
    // or from U+E000 to U+FFFF written above, and `char::encode_utf8` of
    // paired surrogates: valid UTF-8 by construction.
    checked_text(out)
}

/// UTF-8 text the addon wrote (valid by construction) as an [`Input`]. It is
/// checked all the same, so that a bug is a clear internal error, never
/// undefined behaviour: by simdutf8 (std's check took 4-9 % of decode on
/// text with many non-ASCII characters; bench/CANDIDATES.md, candidate 27).
fn checked_text(out: Vec<u8>) -> Result<Input<'static>> {
    if simdutf8::basic::from_utf8(&out).is_err() {
        let at = simdutf8::compat::from_utf8(&out).err().map_or(0, |e| e.valid_up_to());
        return Err(Error::new(
            Status::GenericFailure,
            format!("stc-node internal error: conversion to UTF-8 wrote invalid UTF-8 at byte {at}"),
        ));
    }
    // SAFETY: simdutf8 validated all of `out` as UTF-8 just above.
    let text = unsafe { String::from_utf8_unchecked(out) };
    Ok(Input::Text(text))
}

impl Input<'_> {
    pub(crate) fn read(env: RawEnv, v: Value) -> Result<Input<'static>> {
        Input::read_as(env, v, false)
    }

    /// [`Input::read`]; with `latin1`, the caller has found a string argument
    /// to hold no code unit beyond U+00FF (see [`read_latin1_text`]).
    pub(crate) fn read_as(env: RawEnv, v: Value, latin1: bool) -> Result<Input<'static>> {
        if type_of(env, v)? == sys::ValueType::napi_string {
            return if latin1 { read_latin1_text(env, v) } else { read_text(env, v) };
        }
        let mut is_buffer = false;
        napi_call!(env, sys::napi_is_buffer(env, v, &mut is_buffer));
        let mut data: *mut std::ffi::c_void = ptr::null_mut();
        let mut len = 0usize;
        if is_buffer {
            napi_call!(env, sys::napi_get_buffer_info(env, v, &mut data, &mut len));
        } else {
            let mut is_typed = false;
            napi_call!(env, sys::napi_is_typedarray(env, v, &mut is_typed));
            let mut kind = -1;
            if is_typed {
                let mut ab = ptr::null_mut();
                let mut offset = 0usize;
                napi_call!(
                    env,
                    sys::napi_get_typedarray_info(env, v, &mut kind, &mut len, &mut data, &mut ab, &mut offset)
                );
            }
            if kind != sys::TypedarrayType::uint8_array {
                return Err(Error::new(Status::InvalidArg, "expected a string, Buffer or Uint8Array".to_string()));
            }
        }
        // The argument keeps the bytes alive for the whole call; array buffer
        // contents never move. An empty view may have a null pointer.
        let bytes: &'static [u8] = if len == 0 || data.is_null() {
            &[]
        } else {
            // SAFETY: napi gave `len` bytes at `data`, alive while the argument is (the whole native call, which
            // the `Input` never outlives); calls that run JavaScript meanwhile read an `owned()` copy instead.
            unsafe { std::slice::from_raw_parts(data as *const u8, len) }
        };
        Ok(Input::Bytes(bytes))
    }

    /// The input with bytes of the caller's buffer copied out (when they are
    /// UTF-8; else kept, for the error): for calls that run JavaScript while
    /// reading the input, which could detach or change the buffer.
    pub(crate) fn owned(self) -> Self {
        match self {
            Input::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => Input::OwnedBytes(s.to_owned()),
                // Never read past the first invalid byte: the error only.
                Err(_) => Input::Bytes(b),
            },
            other => other,
        }
    }

    /// The input as `&str`, or the core's own `invalid_utf8` error.
    pub(crate) fn as_str(&self) -> std::result::Result<&str, stc_core::Error> {
        match self {
            Input::Text(s) | Input::OwnedBytes(s) => Ok(s),
            Input::Bytes(b) => stc_core::from_utf8(b),
            // No UTF-8 form: the core's invalid_utf8 where the surrogate starts.
            Input::LoneSurrogate(prefix) => Err(stc_core::Error::invalid_utf8(prefix)),
        }
    }

    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Input::Text(s) | Input::LoneSurrogate(s) => Some(s),
            Input::Bytes(_) | Input::OwnedBytes(_) => None,
        }
    }
}

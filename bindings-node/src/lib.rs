//! Node binding of `stc-core` (napi-rs).
//!
//! This crate only converts types and errors: JavaScript strings and buffers
//! in, JavaScript strings and values out, `stc_core::Error` to a JavaScript
//! `Error` carrying `code`, `offset`, `line`, `column` and `index`. Every
//! format decision is made by `stc-core`.
//!
//! The public API (`parse`, `stringify`, `encode`, `decode`, ...) is the thin
//! JavaScript layer in `index.js`, which validates options and turns these
//! errors into `StcError` instances; the functions here are its internals.
//!
//! Hot paths call `napi-sys` directly: building a JavaScript value per parser
//! event through the generic wrappers would cost a conversion per call.

use std::collections::HashMap;
use std::ffi::c_char;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_core::{
    encode_gated, parse_stc, Abort, DocumentBuilder, EncodeOptions, GateOptions, JsonStr, Limits, Profile, Sink,
    Tokenizer,
};

type Value = sys::napi_value;
type RawEnv = sys::napi_env;

// ---------------------------------------------------------------------------
// napi plumbing
// ---------------------------------------------------------------------------

/// A failed napi call. If a JavaScript exception is pending (a getter or
/// `toJSON` threw), it is left in place and propagates unchanged.
fn napi_failure(env: RawEnv, status: i32) -> Error {
    let mut pending = false;
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    if pending {
        Error::new(Status::PendingException, String::new())
    } else {
        Error::new(Status::from(status), "napi call failed".to_string())
    }
}

macro_rules! napi_call {
    ($env:expr, $call:expr) => {{
        let status = unsafe { $call };
        if status != sys::Status::napi_ok {
            return Err(napi_failure($env, status));
        }
    }};
}

fn js_string(env: RawEnv, s: &str) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(env, sys::napi_create_string_utf8(env, s.as_ptr().cast::<c_char>(), s.len() as isize, &mut out));
    Ok(out)
}

fn js_string_utf16(env: RawEnv, s: &[u16]) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(env, sys::napi_create_string_utf16(env, s.as_ptr(), s.len() as isize, &mut out));
    Ok(out)
}

fn js_number(env: RawEnv, n: f64) -> Result<Value> {
    let mut out = ptr::null_mut();
    napi_call!(env, sys::napi_create_double(env, n, &mut out));
    Ok(out)
}

fn set_named(env: RawEnv, obj: Value, name: &std::ffi::CStr, value: Value) -> Result<()> {
    napi_call!(env, sys::napi_set_named_property(env, obj, name.as_ptr(), value));
    Ok(())
}

fn type_of(env: RawEnv, v: Value) -> Result<i32> {
    let mut t = 0;
    napi_call!(env, sys::napi_typeof(env, v, &mut t));
    Ok(t)
}

/// Reads a JavaScript string as UTF-8 (lone surrogates become U+FFFD, as
/// with `TextEncoder`; see the README). One copy: the UTF-16 length, which
/// napi knows without a scan, bounds the UTF-8 length (3 bytes per unit).
fn read_utf8(env: RawEnv, v: Value) -> Result<String> {
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
fn js_string_fast(env: RawEnv, s: &str) -> Result<Value> {
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

fn string_result(env: RawEnv, s: &str) -> Result<Unknown<'static>> {
    let v = js_string_fast(env, s)?;
    Ok(unsafe { Unknown::from_raw_unchecked(env, v) })
}

/// Reads a JavaScript string as UTF-16 code units, lone surrogates kept.
fn read_utf16(env: RawEnv, v: Value, buf: &mut Vec<u16>) -> Result<()> {
    let mut len = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut len));
    buf.clear();
    buf.resize(len + 1, 0);
    let mut written = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, buf.as_mut_ptr(), len + 1, &mut written));
    buf.truncate(written);
    Ok(())
}

/// The text argument of every entry point: a string, or a `Buffer` /
/// `Uint8Array` holding UTF-8 bytes.
enum Input<'a> {
    Text(String),
    Bytes(&'a [u8]),
    /// A string holding a lone surrogate as a raw character: it has no UTF-8
    /// form. Keeps the UTF-8 of the text before it, to report the position.
    LoneSurrogate(String),
    /// UTF-8 bytes copied out of a buffer (see [`parse_values`]).
    OwnedBytes(String),
}

/// Reads a JavaScript string and converts it to UTF-8 here: copying UTF-16
/// out of V8 and converting in Rust is faster than napi's UTF-8 writer on
/// two-byte strings, and it finds raw lone surrogates, which napi would turn
/// into U+FFFD silently.
fn read_text(env: RawEnv, v: Value) -> Result<Input<'static>> {
    let mut len = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut len));
    let mut units: Vec<u16> = vec![0; len + 1];
    let mut written = 0usize;
    napi_call!(env, sys::napi_get_value_string_utf16(env, v, units.as_mut_ptr(), len + 1, &mut written));
    units.truncate(written.min(len));
    let mut out: Vec<u8> = Vec::with_capacity(units.len() + units.len() / 8 + 16);
    let mut i = 0;
    while i < units.len() {
        // ASCII runs, 16 units at a time (vectorizes).
        if let Some(chunk) = units.get(i..i + 16) {
            if chunk.iter().fold(0u16, |acc, &u| acc | u) < 0x80 {
                out.extend(chunk.iter().map(|&u| u as u8));
                i += 16;
                continue;
            }
        }
        let u = units[i];
        if u < 0x80 {
            out.push(u as u8);
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
    // Valid by construction; the check is a fast scan.
    let text =
        String::from_utf8(out).map_err(|_| Error::new(Status::GenericFailure, "UTF-16 conversion".to_string()))?;
    Ok(Input::Text(text))
}

impl Input<'_> {
    fn read(env: RawEnv, v: Value) -> Result<Input<'static>> {
        if type_of(env, v)? == sys::ValueType::napi_string {
            return read_text(env, v);
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
            unsafe { std::slice::from_raw_parts(data as *const u8, len) }
        };
        Ok(Input::Bytes(bytes))
    }

    /// The input as `&str`, or the core's own `invalid_utf8` error.
    fn as_str(&self) -> std::result::Result<&str, stc_core::Error> {
        match self {
            Input::Text(s) | Input::OwnedBytes(s) => Ok(s),
            Input::Bytes(b) => stc_core::from_utf8(b),
            // No UTF-8 form: the core's invalid_utf8 where the surrogate starts.
            Input::LoneSurrogate(prefix) => Err(stc_core::Error::invalid_utf8(prefix)),
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Input::Text(s) | Input::LoneSurrogate(s) => Some(s),
            Input::Bytes(_) | Input::OwnedBytes(_) => None,
        }
    }
}

/// Throws `err` as a JavaScript `Error` with `code` (the stable kind code),
/// `offset` (UTF-8 bytes), `line`, `column` and, for string input, `index`
/// (UTF-16 code units, for `text.slice(index)`). Returns the napi error that
/// tells napi-rs the exception is already pending.
fn throw_stc(env: RawEnv, err: &stc_core::Error, text: Option<&str>) -> Error {
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
fn throw(env: RawEnv, built: Result<Value>) -> Error {
    match built {
        Ok(value) => {
            unsafe { sys::napi_throw(env, value) };
            Error::new(Status::PendingException, String::new())
        }
        Err(e) => e,
    }
}

fn limits(max_depth: Option<u32>) -> Limits {
    Limits::default().max_depth(max_depth.map_or(Limits::default().max_depth, |d| d as usize))
}

fn profile(name: Option<String>) -> Result<Profile> {
    match name {
        None => Ok(Profile::Compact),
        Some(n) => n.parse::<Profile>().map_err(|e| Error::new(Status::InvalidArg, e.to_string())),
    }
}

fn tokenizer(name: Option<String>, default: Tokenizer) -> Result<Tokenizer> {
    match name {
        None => Ok(default),
        Some(n) => n.parse::<Tokenizer>().map_err(|e| Error::new(Status::InvalidArg, e.to_string())),
    }
}

// ---------------------------------------------------------------------------
// The core's name lists (for the typed unions' checks)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// parse: STC -> JavaScript values through parser events
// ---------------------------------------------------------------------------

struct Frame {
    container: Value,
    is_array: bool,
    index: u32,
    key: Value,
    /// The pending key is `__proto__`: define it as an own data property
    /// (like `JSON.parse`) instead of assigning through the setter.
    define: bool,
}

struct ValueBuilder<'a> {
    env: RawEnv,
    stack: Vec<Frame>,
    root: Value,
    bigint: bool,
    bigint_ctor: Value,
    keys: HashMap<&'a str, Value>,
    utf16: Vec<u16>,
    error: Option<Error>,
}

impl<'a> ValueBuilder<'a> {
    fn new(env: RawEnv, bigint: bool) -> Self {
        ValueBuilder {
            env,
            stack: Vec::with_capacity(16),
            root: ptr::null_mut(),
            bigint,
            bigint_ctor: ptr::null_mut(),
            keys: HashMap::new(),
            utf16: Vec::new(),
            error: None,
        }
    }

    fn fail(&mut self, e: Error) -> Abort {
        self.error = Some(e);
        Abort
    }

    fn put(&mut self, v: Value) -> Result<()> {
        let env = self.env;
        match self.stack.last_mut() {
            None => self.root = v,
            Some(f) if f.is_array => {
                napi_call!(env, sys::napi_set_element(env, f.container, f.index, v));
                f.index += 1;
            }
            Some(f) if f.define => {
                let desc = sys::napi_property_descriptor {
                    utf8name: ptr::null(),
                    name: f.key,
                    method: None,
                    getter: None,
                    setter: None,
                    value: v,
                    attributes: sys::PropertyAttributes::writable
                        | sys::PropertyAttributes::enumerable
                        | sys::PropertyAttributes::configurable,
                    data: ptr::null_mut(),
                };
                napi_call!(env, sys::napi_define_properties(env, f.container, 1, &desc));
            }
            Some(f) => napi_call!(env, sys::napi_set_property(env, f.container, f.key, v)),
        }
        Ok(())
    }

    fn emit(&mut self, v: Result<Value>) -> std::result::Result<(), Abort> {
        match v.and_then(|v| self.put(v)) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn string_value(&mut self, s: &JsonStr<'a>) -> Result<Value> {
        if !s.has_escapes() {
            return js_string(self.env, s.raw());
        }
        match s.to_str() {
            Some(text) => js_string(self.env, &text),
            None => {
                self.utf16 = s.to_utf16();
                js_string_utf16(self.env, &self.utf16)
            }
        }
    }

    fn number_value(&mut self, lexeme: &str) -> Result<Value> {
        if self.bigint && is_unsafe_integer(lexeme) {
            return self.big(lexeme);
        }
        // Rust's float parsing is correctly rounded, like JSON.parse; the
        // lexeme is valid JSON, so it always parses ("1e400" is infinity).
        js_number(self.env, lexeme.parse::<f64>().unwrap_or(f64::NAN))
    }

    /// `BigInt(lexeme)`.
    fn big(&mut self, lexeme: &str) -> Result<Value> {
        let env = self.env;
        if self.bigint_ctor.is_null() {
            let mut global = ptr::null_mut();
            napi_call!(env, sys::napi_get_global(env, &mut global));
            napi_call!(env, sys::napi_get_named_property(env, global, c"BigInt".as_ptr(), &mut self.bigint_ctor));
        }
        let arg = js_string(env, lexeme)?;
        let mut undefined = ptr::null_mut();
        napi_call!(env, sys::napi_get_undefined(env, &mut undefined));
        let mut out = ptr::null_mut();
        napi_call!(env, sys::napi_call_function(env, undefined, self.bigint_ctor, 1, &arg, &mut out));
        Ok(out)
    }

    fn open(&mut self, is_array: bool, len: Option<usize>) -> Result<()> {
        let env = self.env;
        let mut container = ptr::null_mut();
        if is_array {
            match len {
                Some(n) if n > 0 => napi_call!(env, sys::napi_create_array_with_length(env, n, &mut container)),
                _ => napi_call!(env, sys::napi_create_array(env, &mut container)),
            }
        } else {
            napi_call!(env, sys::napi_create_object(env, &mut container));
        }
        self.put(container)?;
        self.stack.push(Frame { container, is_array, index: 0, key: ptr::null_mut(), define: false });
        Ok(())
    }

    fn key_value(&mut self, key: &JsonStr<'a>) -> Result<(Value, bool)> {
        if !key.has_escapes() {
            let raw = key.raw();
            if let Some(&v) = self.keys.get(raw) {
                return Ok((v, raw == "__proto__"));
            }
            let v = js_string(self.env, raw)?;
            if self.keys.len() < 4096 {
                self.keys.insert(raw, v);
            }
            return Ok((v, raw == "__proto__"));
        }
        let v = self.string_value(key)?;
        let define = key.to_str().is_some_and(|k| k == "__proto__");
        Ok((v, define))
    }
}

/// An integer lexeme (no fraction, no exponent) outside ±(2^53 - 1).
fn is_unsafe_integer(lexeme: &str) -> bool {
    let digits = lexeme.strip_prefix('-').unwrap_or(lexeme);
    if digits.len() < 16 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    digits.len() > 16 || digits > "9007199254740991"
}

impl<'a> Sink<'a> for ValueBuilder<'a> {
    fn null(&mut self) -> std::result::Result<(), Abort> {
        let mut v = ptr::null_mut();
        let status = unsafe { sys::napi_get_null(self.env, &mut v) };
        self.emit(if status == sys::Status::napi_ok { Ok(v) } else { Err(napi_failure(self.env, status)) })
    }
    fn boolean(&mut self, value: bool) -> std::result::Result<(), Abort> {
        let mut v = ptr::null_mut();
        let status = unsafe { sys::napi_get_boolean(self.env, value, &mut v) };
        self.emit(if status == sys::Status::napi_ok { Ok(v) } else { Err(napi_failure(self.env, status)) })
    }
    fn number(&mut self, lexeme: &'a str) -> std::result::Result<(), Abort> {
        let v = self.number_value(lexeme);
        self.emit(v)
    }
    fn string(&mut self, value: JsonStr<'a>) -> std::result::Result<(), Abort> {
        let v = self.string_value(&value);
        self.emit(v)
    }
    fn begin_array(&mut self, len: Option<usize>) -> std::result::Result<(), Abort> {
        self.open(true, len).map_err(|e| self.fail(e))
    }
    fn end_array(&mut self) -> std::result::Result<(), Abort> {
        self.stack.pop();
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> std::result::Result<(), Abort> {
        self.open(false, None).map_err(|e| self.fail(e))
    }
    fn key(&mut self, key: JsonStr<'a>) -> std::result::Result<(), Abort> {
        match self.key_value(&key) {
            Ok((v, define)) => {
                if let Some(f) = self.stack.last_mut() {
                    f.key = v;
                    f.define = define;
                }
                Ok(())
            }
            Err(e) => Err(self.fail(e)),
        }
    }
    fn end_object(&mut self) -> std::result::Result<(), Abort> {
        self.stack.pop();
        Ok(())
    }
}

/// STC (or JSON) to JavaScript values, built value by value through napi.
/// With `bigint`, integers outside ±(2^53 - 1) become `BigInt`s.
#[napi(js_name = "parseValues", ts_args_type = "stc: string | Uint8Array, maxDepth?: number, bigint?: boolean")]
pub fn parse_values(env: Env, stc: Unknown, max_depth: Option<u32>, bigint: Option<bool>) -> Result<Unknown<'static>> {
    let raw_env = env.raw();
    let input = match Input::read(raw_env, stc.value().value)? {
        // Building values may run JavaScript (the BigInt constructor), which
        // could detach the caller's buffer: parse a copy of valid UTF-8.
        Input::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Input::OwnedBytes(s.to_owned()),
            Err(_) => Input::Bytes(b),
        },
        other => other,
    };
    let limits = limits(max_depth);
    let text = input.as_str().map_err(|e| throw_stc(raw_env, &e, input.text()))?;
    let mut builder = ValueBuilder::new(raw_env, bigint.unwrap_or(false));
    match parse_stc(text, &limits, &mut builder) {
        Ok(()) => Ok(unsafe { Unknown::from_raw_unchecked(raw_env, builder.root) }),
        Err(e) => match builder.error.take() {
            Some(napi_error) => Err(napi_error),
            None => Err(throw_stc(raw_env, &e, input.text())),
        },
    }
}

// ---------------------------------------------------------------------------
// stringify: JavaScript values -> DocumentBuilder, with JSON.stringify's rules
// ---------------------------------------------------------------------------

struct Walker {
    env: RawEnv,
    doc: DocumentBuilder<'static>,
    bigint: bool,
    /// Open objects and arrays, for the cycle check.
    path: Vec<Value>,
    to_json_key: Value,
    /// Number, String, Boolean, BigInt: the wrappers JSON.stringify unwraps.
    /// Looked up once, in the call's outermost handle scope.
    boxes: [Value; 4],
    utf16: Vec<u16>,
    numbers: ryu_js::Buffer,
}

/// The property key `toJSON` receives.
#[derive(Clone, Copy)]
enum Key {
    Root,
    Index(u32),
    Name(Value),
}

fn type_error(env: RawEnv, message: &str) -> Error {
    let build = || -> Result<Value> {
        let msg = js_string(env, message)?;
        let mut err = ptr::null_mut();
        napi_call!(env, sys::napi_create_type_error(env, ptr::null_mut(), msg, &mut err));
        Ok(err)
    };
    throw(env, build())
}

fn global_constructors(env: RawEnv) -> Result<[Value; 4]> {
    let mut global = ptr::null_mut();
    napi_call!(env, sys::napi_get_global(env, &mut global));
    let mut boxes = [ptr::null_mut(); 4];
    for (slot, name) in boxes.iter_mut().zip([c"Number", c"String", c"Boolean", c"BigInt"]) {
        napi_call!(env, sys::napi_get_named_property(env, global, name.as_ptr(), slot));
    }
    Ok(boxes)
}

impl Walker {
    fn key_value(&self, key: Key) -> Result<Value> {
        match key {
            Key::Root => js_string(self.env, ""),
            Key::Index(i) => js_string(self.env, &i.to_string()),
            Key::Name(v) => Ok(v),
        }
    }

    /// SerializeJSONProperty steps 1-4: `toJSON`, then unwrapping of boxed
    /// primitives. Returns the value to write and its type.
    fn prepare(&mut self, key: Key, mut v: Value) -> Result<(Value, i32)> {
        let env = self.env;
        let mut t = type_of(env, v)?;
        if t == sys::ValueType::napi_object {
            let mut to_json = ptr::null_mut();
            napi_call!(env, sys::napi_get_property(env, v, self.to_json_key, &mut to_json));
            if type_of(env, to_json)? == sys::ValueType::napi_function {
                let arg = self.key_value(key)?;
                let mut out = ptr::null_mut();
                napi_call!(env, sys::napi_call_function(env, v, to_json, 1, &arg, &mut out));
                v = out;
                t = type_of(env, v)?;
            }
        }
        if t == sys::ValueType::napi_object {
            let mut is_array = false;
            napi_call!(env, sys::napi_is_array(env, v, &mut is_array));
            if !is_array {
                if let Some(unboxed) = self.unbox(v)? {
                    v = unboxed;
                    t = type_of(env, v)?;
                }
            }
        }
        Ok((v, t))
    }

    /// `new Number(1)` -> `1` and so on, as JSON.stringify does.
    fn unbox(&mut self, v: Value) -> Result<Option<Value>> {
        let env = self.env;
        let boxes = self.boxes;
        for (i, ctor) in boxes.iter().enumerate() {
            let mut is = false;
            napi_call!(env, sys::napi_instanceof(env, v, *ctor, &mut is));
            if is {
                let mut out = ptr::null_mut();
                match i {
                    0 => napi_call!(env, sys::napi_coerce_to_number(env, v, &mut out)),
                    1 => napi_call!(env, sys::napi_coerce_to_string(env, v, &mut out)),
                    _ => {
                        // Boolean and BigInt wrappers: their valueOf.
                        let mut value_of = ptr::null_mut();
                        napi_call!(env, sys::napi_get_named_property(env, v, c"valueOf".as_ptr(), &mut value_of));
                        napi_call!(env, sys::napi_call_function(env, v, value_of, 0, ptr::null(), &mut out));
                    }
                }
                return Ok(Some(out));
            }
        }
        Ok(None)
    }

    /// Whether a prepared value is left out (`undefined`, functions, symbols).
    fn skipped(t: i32) -> bool {
        matches!(t, sys::ValueType::napi_undefined | sys::ValueType::napi_function | sys::ValueType::napi_symbol)
    }

    fn doc_err(&self, e: stc_core::Error) -> Error {
        throw_stc(self.env, &e, None)
    }

    /// Writes a prepared, non-skipped value.
    fn write(&mut self, v: Value, t: i32) -> Result<()> {
        let env = self.env;
        match t {
            sys::ValueType::napi_null => self.doc.push_null().map_err(|e| self.doc_err(e)),
            sys::ValueType::napi_boolean => {
                let mut b = false;
                napi_call!(env, sys::napi_get_value_bool(env, v, &mut b));
                self.doc.push_bool(b).map_err(|e| self.doc_err(e))
            }
            sys::ValueType::napi_number => {
                let mut n = 0f64;
                napi_call!(env, sys::napi_get_value_double(env, v, &mut n));
                let r = if n.is_finite() {
                    // ECMAScript Number::toString, which JSON.stringify uses.
                    let text = self.numbers.format_finite(n);
                    self.doc.push_number(text)
                } else {
                    self.doc.push_null()
                };
                r.map_err(|e| self.doc_err(e))
            }
            sys::ValueType::napi_string => {
                read_utf16(env, v, &mut self.utf16)?;
                self.doc.push_utf16(&self.utf16).map_err(|e| self.doc_err(e))
            }
            sys::ValueType::napi_bigint => {
                if !self.bigint {
                    return Err(type_error(env, "Do not know how to serialize a BigInt"));
                }
                let mut s = ptr::null_mut();
                napi_call!(env, sys::napi_coerce_to_string(env, v, &mut s));
                let lexeme = read_utf8(env, s)?;
                self.doc.push_number(&lexeme).map_err(|e| self.doc_err(e))
            }
            _ => self.container(v),
        }
    }

    /// Runs `f` in its own handle scope, so that walking a large value does
    /// not keep a handle per element alive until the call returns.
    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        let env = self.env;
        let mut scope = ptr::null_mut();
        napi_call!(env, sys::napi_open_handle_scope(env, &mut scope));
        let result = f(self);
        unsafe { sys::napi_close_handle_scope(env, scope) };
        result
    }

    fn container(&mut self, v: Value) -> Result<()> {
        let env = self.env;
        for &open in &self.path {
            let mut same = false;
            napi_call!(env, sys::napi_strict_equals(env, open, v, &mut same));
            if same {
                return Err(type_error(env, "Converting circular structure to STC"));
            }
        }
        self.path.push(v);
        let mut is_array = false;
        napi_call!(env, sys::napi_is_array(env, v, &mut is_array));
        if is_array {
            self.doc.push_begin_array().map_err(|e| self.doc_err(e))?;
            let mut len = 0u32;
            napi_call!(env, sys::napi_get_array_length(env, v, &mut len));
            for i in 0..len {
                self.scoped(|w| {
                    let mut item = ptr::null_mut();
                    napi_call!(env, sys::napi_get_element(env, v, i, &mut item));
                    let (item, t) = w.prepare(Key::Index(i), item)?;
                    if Self::skipped(t) {
                        w.doc.push_null().map_err(|e| w.doc_err(e))
                    } else {
                        w.write(item, t)
                    }
                })?;
            }
            self.doc.push_end_array().map_err(|e| self.doc_err(e))?;
        } else {
            self.doc.push_begin_object().map_err(|e| self.doc_err(e))?;
            let mut keys = ptr::null_mut();
            napi_call!(
                env,
                sys::napi_get_all_property_names(
                    env,
                    v,
                    sys::KeyCollectionMode::own_only,
                    sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                    sys::KeyConversion::numbers_to_strings,
                    &mut keys,
                )
            );
            let mut len = 0u32;
            napi_call!(env, sys::napi_get_array_length(env, keys, &mut len));
            for i in 0..len {
                self.scoped(|w| {
                    let mut key = ptr::null_mut();
                    napi_call!(env, sys::napi_get_element(env, keys, i, &mut key));
                    let mut item = ptr::null_mut();
                    napi_call!(env, sys::napi_get_property(env, v, key, &mut item));
                    let (item, t) = w.prepare(Key::Name(key), item)?;
                    if Self::skipped(t) {
                        return Ok(());
                    }
                    read_utf16(env, key, &mut w.utf16)?;
                    w.doc.push_key_utf16(&w.utf16).map_err(|e| w.doc_err(e))?;
                    w.write(item, t)
                })?;
            }
            self.doc.push_end_object().map_err(|e| self.doc_err(e))?;
        }
        self.path.pop();
        Ok(())
    }
}

/// JavaScript value to STC with `JSON.stringify`'s rules (`toJSON`, boxed
/// primitives, `undefined`/functions/symbols left out of objects and `null`
/// in arrays, non-finite numbers as `null`, cycles a `TypeError`), walking
/// the value through napi. With `bigint`, `BigInt`s are written as integers;
/// without, they are a `TypeError` like in `JSON.stringify`. Returns
/// `undefined` when the value itself is left out.
#[napi(
    js_name = "stringifyValues",
    ts_args_type = "value: unknown, profile?: string, maxDepth?: number, bigint?: boolean",
    ts_return_type = "string | undefined"
)]
pub fn stringify_values(
    env: Env,
    value: Unknown,
    profile_name: Option<String>,
    max_depth: Option<u32>,
    bigint: Option<bool>,
) -> Result<Unknown<'static>> {
    let raw_env = env.raw();
    let profile = profile(profile_name)?;
    let limits = limits(max_depth);
    let mut walker = Walker {
        env: raw_env,
        doc: DocumentBuilder::with_capacity(64, limits.max_depth),
        bigint: bigint.unwrap_or(false),
        path: Vec::new(),
        to_json_key: js_string(raw_env, "toJSON")?,
        boxes: global_constructors(raw_env)?,
        utf16: Vec::new(),
        numbers: ryu_js::Buffer::new(),
    };
    let (v, t) = walker.prepare(Key::Root, value.value().value)?;
    if Walker::skipped(t) {
        let mut undefined = ptr::null_mut();
        napi_call!(raw_env, sys::napi_get_undefined(raw_env, &mut undefined));
        return Ok(unsafe { Unknown::from_raw_unchecked(raw_env, undefined) });
    }
    walker.write(v, t)?;
    let doc = walker.doc.finish().map_err(|e| throw_stc(raw_env, &e, None))?;
    string_result(raw_env, &doc.encode(profile))
}

// The stash (declared last: it uses the napi_call! macro above).
pub mod stash;

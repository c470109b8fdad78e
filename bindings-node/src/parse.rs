//! parse: STC -> JavaScript values through parser events.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_core::{parse_stc_to, Failure, JsonStr, Sink};

use crate::errors::throw_stc;
use crate::input::Input;
use crate::js::{js_number, js_string, js_string_fast, js_string_utf16};
use crate::options::decode_options;
use crate::{RawEnv, Value};

struct Frame {
    container: Value,
    is_array: bool,
    index: u32,
    key: Value,
    /// The pending key is `__proto__`: define it as an own data property
    /// (like `JSON.parse`) instead of assigning through the setter.
    define: bool,
}

/// A small, fast hash for the key cache (keys are short and not chosen to
/// collide by anyone who benefits: a collision only costs a probe). FxHash's
/// multiply-rotate over 8-byte words.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(tail) ^ (rest.len() as u64) << 59).wrapping_mul(K);
        self.0 = h;
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

struct ValueBuilder<'a> {
    env: RawEnv,
    stack: Vec<Frame>,
    root: Value,
    bigint: bool,
    bigint_ctor: Value,
    keys: HashMap<&'a str, Value, BuildHasherDefault<KeyHasher>>,
    utf16: Vec<u16>,
    /// `null`, `false`, `true`, fetched once per call.
    constants: [Value; 3],
}

impl<'a> ValueBuilder<'a> {
    fn new(env: RawEnv, bigint: bool) -> Result<Self> {
        let mut constants = [ptr::null_mut(); 3];
        let [null, no, yes] = &mut constants;
        napi_call!(env, sys::napi_get_null(env, null));
        napi_call!(env, sys::napi_get_boolean(env, false, no));
        napi_call!(env, sys::napi_get_boolean(env, true, yes));
        Ok(ValueBuilder {
            env,
            stack: Vec::with_capacity(16),
            root: ptr::null_mut(),
            bigint,
            bigint_ctor: ptr::null_mut(),
            keys: HashMap::default(),
            utf16: Vec::new(),
            constants,
        })
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

    fn emit(&mut self, v: Result<Value>) -> Result<()> {
        v.and_then(|v| self.put(v))
    }

    fn string_value(&mut self, s: &JsonStr<'a>) -> Result<Value> {
        if !s.has_escapes() {
            return js_string_fast(self.env, s.raw());
        }
        match s.to_str() {
            Some(text) => js_string_fast(self.env, &text),
            None => {
                self.utf16 = s.to_utf16();
                js_string_utf16(self.env, &self.utf16)
            }
        }
    }

    fn number_value(&mut self, lexeme: &str) -> Result<Value> {
        if self.bigint && stc_core::is_unsafe_integer(lexeme) {
            return self.big(lexeme);
        }
        if let Some(n) = small_integer(lexeme) {
            return js_number(self.env, n);
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
            let v = js_string_fast(self.env, raw)?;
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

/// The value of an integer lexeme of at most 15 digits (exact in an `f64`),
/// read in one pass; `None` for anything else (fractions, exponents, `-0`,
/// longer integers), which the float parser reads.
fn small_integer(lexeme: &str) -> Option<f64> {
    let bytes = lexeme.as_bytes();
    let (negative, digits) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let mut n: u64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u64::from(d);
    }
    match (negative, n) {
        (true, 0) => None,
        (true, n) => Some(-(n as f64)),
        (false, n) => Some(n as f64),
    }
}

/// The builder's error: a failed napi call, whose JavaScript exception (a
/// setter, `BigInt`) is left pending and comes back as it is. Boxed, so that
/// it travels through the reader's frames in one word.
type Stop = Box<Error>;

impl<'a> Sink<'a, Stop> for ValueBuilder<'a> {
    fn null(&mut self) -> std::result::Result<(), Stop> {
        Ok(self.put(self.constants[0])?)
    }
    fn boolean(&mut self, value: bool) -> std::result::Result<(), Stop> {
        Ok(self.put(self.constants[usize::from(value) + 1])?)
    }
    fn number(&mut self, lexeme: &'a str) -> std::result::Result<(), Stop> {
        let v = self.number_value(lexeme);
        Ok(self.emit(v)?)
    }
    fn string(&mut self, value: JsonStr<'a>) -> std::result::Result<(), Stop> {
        let v = self.string_value(&value);
        Ok(self.emit(v)?)
    }
    fn begin_array(&mut self, len: Option<usize>) -> std::result::Result<(), Stop> {
        Ok(self.open(true, len)?)
    }
    fn end_array(&mut self) -> std::result::Result<(), Stop> {
        self.stack.pop();
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> std::result::Result<(), Stop> {
        Ok(self.open(false, None)?)
    }
    fn key(&mut self, key: JsonStr<'a>) -> std::result::Result<(), Stop> {
        let (v, define) = self.key_value(&key)?;
        if let Some(f) = self.stack.last_mut() {
            f.key = v;
            f.define = define;
        }
        Ok(())
    }
    fn end_object(&mut self) -> std::result::Result<(), Stop> {
        self.stack.pop();
        Ok(())
    }
}

/// STC (or JSON) to JavaScript values, built value by value through napi.
/// With `bigint`, integers outside ±(2^53 - 1) become `BigInt`s.
#[napi(
    js_name = "parseValues",
    ts_args_type = "stc: string | Uint8Array, maxDepth?: number, bigint?: boolean, version?: number"
)]
pub fn parse_values(
    env: Env,
    stc: Unknown,
    max_depth: Option<u32>,
    bigint: Option<bool>,
    version: Option<f64>,
) -> Result<Unknown<'static>> {
    let raw_env = env.raw();
    let options = decode_options(max_depth, version)?;
    // Building values may run JavaScript (the BigInt constructor, a setter),
    // which could detach the caller's buffer: parse a copy.
    let input = Input::read(raw_env, stc.value().value)?.owned();
    let text = input.as_str().map_err(|e| throw_stc(raw_env, &e, input.text()))?;
    let mut builder = ValueBuilder::new(raw_env, bigint.unwrap_or(false))?;
    match parse_stc_to(text, &options, &mut builder) {
        // SAFETY: on success `root` is the value the builder made in `raw_env` during this call.
        Ok(()) => Ok(unsafe { Unknown::from_raw_unchecked(raw_env, builder.root) }),
        Err(Failure::Input(e)) => Err(throw_stc(raw_env, &e, input.text())),
        // The exception stays pending and propagates unchanged.
        Err(Failure::Sink(e)) => Err(*e),
    }
}

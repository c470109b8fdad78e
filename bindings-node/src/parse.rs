//! parse: STC -> JavaScript values through parser events.

use std::collections::HashMap;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_core::{parse_stc, Abort, JsonStr, Sink};

use crate::errors::throw_stc;
use crate::input::Input;
use crate::js::{js_number, js_string, js_string_utf16, napi_failure};
use crate::options::limits;
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

//! stringify: JavaScript values -> DocumentBuilder, with JSON.stringify's rules.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_core::DocumentBuilder;

use crate::errors::{throw_stc, type_error};
use crate::js::{js_string, read_utf16, read_utf8, string_result, type_of};
use crate::options::{limits, profile};
use crate::{RawEnv, Value};

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

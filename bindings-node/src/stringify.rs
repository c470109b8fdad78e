//! stringify: JavaScript values -> DocumentBuilder, with JSON.stringify's rules.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_core::DocumentBuilder;

use crate::errors::{throw_stc, type_error};
use crate::js::{js_string, read_utf16, read_utf8, string_result, type_of};
use crate::options::encode_options;
use crate::{RawEnv, Value};

/// How many of the outermost open containers the cycle check compares one
/// by one (cheap); deeper ones go into a JavaScript `Set`.
const SCANNED: usize = 32;

/// An open array or object: the walk keeps its own stack (no recursion on
/// the value's depth).
struct Frame {
    value: Value,
    /// The object's own enumerable string keys (null for an array).
    keys: Value,
    len: u32,
    next: u32,
    /// The handle scope the container's handle lives in (its parent's batch
    /// scope), closed when the frame is done; none for the root.
    scope: sys::napi_handle_scope,
    /// The open scope of the current batch of this container's elements (at
    /// most [`BATCH`]); handed to an element that opens a container.
    batch: sys::napi_handle_scope,
    /// Elements written in `batch` so far.
    in_batch: u32,
}

/// Elements of a container that share one handle scope.
const BATCH: u32 = 64;

struct Walker {
    env: RawEnv,
    doc: DocumentBuilder<'static>,
    bigint: bool,
    stack: Vec<Frame>,
    /// The outermost `SCANNED` open containers, for the cycle check.
    path: Vec<Value>,
    /// Open containers below them: a `Set` and its `has`, `add`, `delete`.
    deep: [Value; 4],
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

/// A new `Set` and its `has`, `add` and `delete` methods.
fn new_set(env: RawEnv) -> Result<[Value; 4]> {
    let mut global = ptr::null_mut();
    napi_call!(env, sys::napi_get_global(env, &mut global));
    let mut ctor = ptr::null_mut();
    napi_call!(env, sys::napi_get_named_property(env, global, c"Set".as_ptr(), &mut ctor));
    let mut set = ptr::null_mut();
    napi_call!(env, sys::napi_new_instance(env, ctor, 0, ptr::null(), &mut set));
    let mut out = [set, ptr::null_mut(), ptr::null_mut(), ptr::null_mut()];
    for (slot, name) in out[1..].iter_mut().zip([c"has", c"add", c"delete"]) {
        napi_call!(env, sys::napi_get_named_property(env, set, name.as_ptr(), slot));
    }
    Ok(out)
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

    /// Writes a prepared, non-skipped value; an array or object is opened
    /// (pushed on the stack, its elements written by [`Walker::run`]).
    /// Returns whether it opened one.
    fn write(&mut self, v: Value, t: i32) -> Result<bool> {
        let env = self.env;
        let r = match t {
            sys::ValueType::napi_null => self.doc.push_null(),
            sys::ValueType::napi_boolean => {
                let mut b = false;
                napi_call!(env, sys::napi_get_value_bool(env, v, &mut b));
                self.doc.push_bool(b)
            }
            sys::ValueType::napi_number => {
                let mut n = 0f64;
                napi_call!(env, sys::napi_get_value_double(env, v, &mut n));
                if n.is_finite() {
                    // ECMAScript Number::toString, which JSON.stringify uses.
                    let text = self.numbers.format_finite(n);
                    self.doc.push_number(text)
                } else {
                    self.doc.push_null()
                }
            }
            sys::ValueType::napi_string => {
                let n = read_utf16(env, v, &mut self.utf16)?;
                self.doc.push_utf16(&self.utf16[..n])
            }
            sys::ValueType::napi_bigint => {
                if !self.bigint {
                    return Err(type_error(env, "Do not know how to serialize a BigInt"));
                }
                let mut s = ptr::null_mut();
                napi_call!(env, sys::napi_coerce_to_string(env, v, &mut s));
                let lexeme = read_utf8(env, s)?;
                self.doc.push_number(&lexeme)
            }
            _ => {
                self.open(v)?;
                return Ok(true);
            }
        };
        r.map_err(|e| self.doc_err(e))?;
        Ok(false)
    }

    /// Calls `method` of the deep `Set` with `v`; returns the result as a boolean.
    fn deep_call(&self, method: usize, v: Value) -> Result<bool> {
        let env = self.env;
        let mut out = ptr::null_mut();
        napi_call!(env, sys::napi_call_function(env, self.deep[0], self.deep[method], 1, &v, &mut out));
        let mut b = false;
        if method == 1 {
            napi_call!(env, sys::napi_get_value_bool(env, out, &mut b));
        }
        Ok(b)
    }

    /// The cycle check (a `TypeError`, as JSON.stringify throws), before the
    /// depth limit; then `v` counts as open.
    fn enter(&mut self, v: Value) -> Result<()> {
        let env = self.env;
        for &open in &self.path {
            let mut same = false;
            napi_call!(env, sys::napi_strict_equals(env, open, v, &mut same));
            if same {
                return Err(type_error(env, "Converting circular structure to STC"));
            }
        }
        if self.stack.len() > SCANNED && self.deep_call(1, v)? {
            return Err(type_error(env, "Converting circular structure to STC"));
        }
        if self.stack.len() < SCANNED {
            self.path.push(v);
        } else {
            self.deep_call(2, v)?;
        }
        Ok(())
    }

    fn open(&mut self, v: Value) -> Result<()> {
        let env = self.env;
        self.enter(v)?;
        let mut is_array = false;
        napi_call!(env, sys::napi_is_array(env, v, &mut is_array));
        let mut keys = ptr::null_mut();
        let mut len = 0u32;
        if is_array {
            self.doc.push_begin_array().map_err(|e| self.doc_err(e))?;
            napi_call!(env, sys::napi_get_array_length(env, v, &mut len));
        } else {
            self.doc.push_begin_object().map_err(|e| self.doc_err(e))?;
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
            napi_call!(env, sys::napi_get_array_length(env, keys, &mut len));
        }
        self.stack.push(Frame {
            value: v,
            keys,
            len,
            next: 0,
            scope: ptr::null_mut(),
            batch: ptr::null_mut(),
            in_batch: 0,
        });
        Ok(())
    }

    /// Closes the innermost open container.
    fn close(&mut self) -> Result<()> {
        let env = self.env;
        let Some(frame) = self.stack.pop() else { return Ok(()) };
        if !frame.batch.is_null() {
            napi_call!(env, sys::napi_close_handle_scope(env, frame.batch));
        }
        let r = if frame.keys.is_null() { self.doc.push_end_array() } else { self.doc.push_end_object() };
        r.map_err(|e| self.doc_err(e))?;
        if self.stack.len() < SCANNED {
            self.path.pop();
        } else {
            self.deep_call(3, frame.value)?;
        }
        if !frame.scope.is_null() {
            napi_call!(env, sys::napi_close_handle_scope(env, frame.scope));
        }
        Ok(())
    }

    /// Writes element `i` of the container `frame`; returns whether it opened one.
    fn element(&mut self, value: Value, keys: Value, i: u32) -> Result<bool> {
        let env = self.env;
        if keys.is_null() {
            let mut item = ptr::null_mut();
            napi_call!(env, sys::napi_get_element(env, value, i, &mut item));
            let (item, t) = self.prepare(Key::Index(i), item)?;
            if Self::skipped(t) {
                self.doc.push_null().map_err(|e| self.doc_err(e))?;
                return Ok(false);
            }
            return self.write(item, t);
        }
        let mut key = ptr::null_mut();
        napi_call!(env, sys::napi_get_element(env, keys, i, &mut key));
        let mut item = ptr::null_mut();
        napi_call!(env, sys::napi_get_property(env, value, key, &mut item));
        let (item, t) = self.prepare(Key::Name(key), item)?;
        if Self::skipped(t) {
            return Ok(false);
        }
        let n = read_utf16(env, key, &mut self.utf16)?;
        self.doc.push_key_utf16(&self.utf16[..n]).map_err(|e| self.doc_err(e))?;
        self.write(item, t)
    }

    /// Writes the elements of every open container, innermost first. The
    /// elements of a container share a handle scope [`BATCH`] at a time, so
    /// that walking a large value does not keep a handle per element alive;
    /// an element that opens a container takes its batch's scope along,
    /// closed when that container is closed.
    fn walk(&mut self) -> Result<()> {
        let env = self.env;
        while let Some(frame) = self.stack.last_mut() {
            if frame.next == frame.len {
                self.close()?;
                continue;
            }
            if frame.batch.is_null() {
                napi_call!(env, sys::napi_open_handle_scope(env, &mut frame.batch));
                frame.in_batch = 0;
            }
            let (value, keys, i) = (frame.value, frame.keys, frame.next);
            frame.next += 1;
            let depth = self.stack.len();
            // On an error, `run` closes the scopes still open.
            if self.element(value, keys, i)? {
                let parent = &mut self.stack[depth - 1];
                let scope = std::mem::replace(&mut parent.batch, ptr::null_mut());
                self.stack[depth].scope = scope;
            } else {
                let frame = &mut self.stack[depth - 1];
                frame.in_batch += 1;
                if frame.in_batch == BATCH {
                    let scope = std::mem::replace(&mut frame.batch, ptr::null_mut());
                    napi_call!(env, sys::napi_close_handle_scope(env, scope));
                }
            }
        }
        Ok(())
    }

    /// Writes a prepared root value (see [`Walker::write`]), then the rest.
    fn run(&mut self, v: Value, t: i32) -> Result<()> {
        let result = match self.write(v, t) {
            Ok(true) => self.walk(),
            other => other.map(|_| ()),
        };
        if result.is_err() {
            // Close the scopes still open, innermost first.
            while let Some(frame) = self.stack.pop() {
                for scope in [frame.batch, frame.scope] {
                    if !scope.is_null() {
                        // SAFETY: a scope this walk opened in `self.env`; a frame's batch opened after its own scope,
                        // and popping the stack closes them innermost first.
                        unsafe { sys::napi_close_handle_scope(self.env, scope) };
                    }
                }
            }
        }
        result
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
    ts_args_type = "value: unknown, profile?: string, maxDepth?: number, bigint?: boolean, version?: number",
    ts_return_type = "string | undefined"
)]
pub fn stringify_values(
    env: Env,
    value: Unknown,
    profile_name: Option<String>,
    max_depth: Option<u32>,
    bigint: Option<bool>,
    version: Option<f64>,
) -> Result<Unknown<'static>> {
    let raw_env = env.raw();
    let options = encode_options(profile_name, max_depth, version)?;
    let mut walker = Walker {
        env: raw_env,
        doc: DocumentBuilder::with_capacity(64, options.limits.max_depth),
        bigint: bigint.unwrap_or(false),
        stack: Vec::new(),
        path: Vec::with_capacity(SCANNED),
        deep: new_set(raw_env)?,
        to_json_key: js_string(raw_env, "toJSON")?,
        boxes: global_constructors(raw_env)?,
        utf16: Vec::new(),
        numbers: ryu_js::Buffer::new(),
    };
    let (v, t) = walker.prepare(Key::Root, value.value().value)?;
    if Walker::skipped(t) {
        let mut undefined = ptr::null_mut();
        napi_call!(raw_env, sys::napi_get_undefined(raw_env, &mut undefined));
        // SAFETY: `undefined` was just read from `raw_env`, the current call's environment.
        return Ok(unsafe { Unknown::from_raw_unchecked(raw_env, undefined) });
    }
    walker.run(v, t)?;
    let doc = walker.doc.finish().map_err(|e| throw_stc(raw_env, &e, None))?;
    string_result(raw_env, &doc.encode_with(&options))
}

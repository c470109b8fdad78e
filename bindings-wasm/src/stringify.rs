//! `stringify`: JavaScript values to STC.

use js_sys::{Array, BigInt, JsString, Object, Reflect};
use stc_core::{Document, DocumentBuilder, Error};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::{js_error, type_error};
use crate::options::{bool_opt, encode_opt};

/// Encodes a JavaScript value as STC. The value is read as `JSON.stringify`
/// reads it (`toJSON`, own enumerable string keys in order, `undefined`,
/// functions and symbols dropped from objects and `null` in arrays,
/// non-finite numbers as `null`); `BigInt` throws a `TypeError` unless
/// `bigint: true`, which writes it as its exact integer. Returns `undefined`
/// for a value with no JSON form, as `JSON.stringify` does. A circular value
/// throws a `TypeError` ("Converting circular structure to STC", as in the Node
/// package); an exception thrown by a `toJSON` or a getter is thrown as it is.
#[wasm_bindgen(js_name = stringify, skip_jsdoc)]
pub fn stringify(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "StringifyOptions")] options: Option<JsValue>,
) -> Result<Option<String>, JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let opts = encode_opt(&options)?;
    let bigint = bool_opt(&options, "bigint")?;
    let root = to_json_value(value, &JsValue::from_str(""))?;
    if skipped(&root) {
        return Ok(None);
    }
    let mut w = Walker {
        doc: DocumentBuilder::with_capacity(64, opts.limits.max_depth),
        bigint,
        open: js_sys::Set::new(&JsValue::UNDEFINED),
        stack: Vec::new(),
    };
    w.walk(&root)?;
    let doc: Document<'_> = w.doc.finish().map_err(|e| js_error(&e, None))?;
    Ok(Some(doc.encode_with(&opts)))
}

/// `undefined`, functions and symbols: what `JSON.stringify` leaves out.
fn skipped(v: &JsValue) -> bool {
    v.is_undefined() || v.is_function() || v.is_symbol()
}

/// Applies `toJSON(key)` and unwraps Number/String/Boolean/BigInt objects.
fn to_json_value(v: &JsValue, key: &JsValue) -> Result<JsValue, JsValue> {
    let mut v = v.clone();
    if v.is_object() {
        let to_json = Reflect::get(&v, &JsValue::from_str("toJSON"))?;
        if let Some(f) = to_json.dyn_ref::<js_sys::Function>() {
            v = f.call1(&v, key)?;
        }
    }
    if v.is_object() {
        // Boxed primitives (`new Number(1)`): `instanceof`, as dyn_ref only
        // recognises the primitive types.
        if v.is_instance_of::<js_sys::Number>() {
            return Ok(JsValue::from_f64(v.unchecked_ref::<js_sys::Number>().value_of()));
        }
        if v.is_instance_of::<JsString>() {
            return Ok(JsValue::from(v.unchecked_ref::<JsString>().value_of()));
        }
        if v.is_instance_of::<js_sys::Boolean>() {
            return Ok(JsValue::from_bool(v.unchecked_ref::<js_sys::Boolean>().value_of()));
        }
    }
    Ok(v)
}

/// The message of the `TypeError` a circular value throws (the Node package's).
const CIRCULAR: &str = "Converting circular structure to STC";

/// An open array or object of the stringify walk, with how far it is read.
enum Open {
    Array { value: JsValue, len: u32, next: u32 },
    Object { value: JsValue, keys: Array, len: u32, next: u32 },
}

/// The stringify walk: the document being built, the open arrays and objects
/// (its own stack on the heap: no recursion on the value's depth), and the
/// same containers in a `Set` for the cycle check.
struct Walker<'d> {
    doc: DocumentBuilder<'d>,
    bigint: bool,
    /// Objects and arrays being written: meeting one again is a cycle (a
    /// `TypeError`, as in `JSON.stringify`). A `Set`, so that the check is
    /// one call whatever the depth; an object shared by siblings is fine.
    open: js_sys::Set,
    /// The containers being written, innermost last.
    stack: Vec<Open>,
}

fn doc_error(e: Error) -> JsValue {
    js_error(&e, None)
}

impl Walker<'_> {
    /// Writes `root` (already through `toJSON`), depth first, with an
    /// explicit stack.
    fn walk(&mut self, root: &JsValue) -> Result<(), JsValue> {
        self.value(root)?;
        loop {
            let item = match self.stack.last_mut() {
                None => return Ok(()),
                Some(Open::Array { value, len, next }) => {
                    if *next == *len {
                        self.close_array()?;
                        continue;
                    }
                    let i = *next;
                    *next += 1;
                    // Reflect.get: an index getter that throws comes back as its exception.
                    let item = to_json_value(&Reflect::get_u32(value, i)?, &JsValue::from_str(&i.to_string()))?;
                    if skipped(&item) {
                        self.doc.push_null().map_err(doc_error)?;
                        continue;
                    }
                    item
                }
                Some(Open::Object { value, keys, len, next }) => {
                    if *next == *len {
                        self.close_object()?;
                        continue;
                    }
                    let key = keys.get(*next);
                    *next += 1;
                    let item = to_json_value(&Reflect::get(value, &key)?, &key)?;
                    if skipped(&item) {
                        continue;
                    }
                    let k: &JsString = key.unchecked_ref();
                    match k.as_string() {
                        Some(text) if k.is_valid_utf16() => self.doc.push_key(&text),
                        _ => self.doc.push_key_utf16(&k.iter().collect::<Vec<u16>>()),
                    }
                    .map_err(doc_error)?;
                    item
                }
            };
            self.value(&item)?;
        }
    }

    /// Writes a scalar, or opens an array or object (pushed on the stack).
    fn value(&mut self, v: &JsValue) -> Result<(), JsValue> {
        let b = &mut self.doc;
        if v.is_null() {
            return b.push_null().map_err(doc_error);
        }
        if let Some(x) = v.as_bool() {
            return b.push_bool(x).map_err(doc_error);
        }
        if let Some(n) = v.as_f64() {
            if !n.is_finite() {
                return b.push_null().map_err(doc_error);
            }
            // Number.prototype.toString gives the lexeme JSON.stringify writes.
            let lexeme: String = js_sys::Number::from(n).to_string_with_radix(10)?.into();
            return b.push_number(&lexeme).map_err(doc_error);
        }
        if v.is_bigint() {
            if !self.bigint {
                return Err(type_error("Do not know how to serialize a BigInt (pass { bigint: true })"));
            }
            let big: &BigInt = v.unchecked_ref();
            let lexeme: String = big.to_string(10)?.into();
            return b.push_number(&lexeme).map_err(doc_error);
        }
        if let Some(s) = v.dyn_ref::<JsString>() {
            return match s.as_string() {
                Some(text) if s.is_valid_utf16() => b.push_str(&text).map_err(doc_error),
                _ => b.push_utf16(&s.iter().collect::<Vec<u16>>()).map_err(doc_error),
            };
        }
        if !v.is_object() {
            return Err(type_error("the value has no JSON representation"));
        }
        // Checked before the depth limit, as the Node package does.
        if self.open.has(v) {
            return Err(type_error(CIRCULAR));
        }
        if Array::is_array(v) {
            b.push_begin_array().map_err(doc_error)?;
            let len = v.unchecked_ref::<Array>().length();
            self.stack.push(Open::Array { value: v.clone(), len, next: 0 });
        } else {
            b.push_begin_object().map_err(doc_error)?;
            let keys = Object::keys(v.unchecked_ref::<Object>());
            let len = keys.length();
            self.stack.push(Open::Object { value: v.clone(), keys, len, next: 0 });
        }
        self.open.add(v);
        Ok(())
    }

    fn close_array(&mut self) -> Result<(), JsValue> {
        if let Some(Open::Array { value, .. }) = self.stack.pop() {
            self.open.delete(&value);
        }
        self.doc.push_end_array().map_err(doc_error)
    }

    fn close_object(&mut self) -> Result<(), JsValue> {
        if let Some(Open::Object { value, .. }) = self.stack.pop() {
            self.open.delete(&value);
        }
        self.doc.push_end_object().map_err(doc_error)
    }
}

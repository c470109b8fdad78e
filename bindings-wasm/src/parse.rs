//! `parse`: STC to JavaScript values.

use js_sys::{Array, BigInt, JsString, Object, Reflect};
use stc_core::{Abort, Failure, JsonStr, JsonWriter, Sink};
#[cfg(feature = "encode")]
use stc_core::{Document, DocumentBuilder};
use wasm_bindgen::prelude::*;

use crate::errors::js_error;
use crate::input::{text_arg, Text};
use crate::options::{bool_opt, decode_opt};

/// Decodes STC to a JavaScript value.
#[wasm_bindgen(js_name = parse, unchecked_return_type = "any", skip_jsdoc)]
pub fn parse(
    #[wasm_bindgen(unchecked_param_type = "Input")] stc: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ParseOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    if !bool_opt(&options, "bigint")? {
        // Fastest path: minified JSON built in wasm, then the engine's JSON.parse.
        let json = decode_text(stc, &options)?;
        return js_sys::JSON::parse(&json);
    }
    match read(stc, &options, |_| {
        ReadSink::Values(ValueBuilder { stack: Vec::new(), root: None }, std::marker::PhantomData)
    })? {
        Read::Value(value) => Ok(value),
        Read::Text(_) => Err(out_of_order()),
    }
}

/// `decode` and `decodeStc`: STC (a string or UTF-8 bytes) to minified JSON
/// text, written by stc-core's [`JsonWriter`] (what `stc_core::decode_with`
/// does, through this module's one reader instantiation).
pub(crate) fn decode_text(input: &JsValue, options: &JsValue) -> Result<String, JsValue> {
    match read(input, options, |len| ReadSink::Json(JsonWriter::with_capacity(len + len / 2)))? {
        Read::Text(json) => Ok(json),
        Read::Value(_) => Err(out_of_order()),
    }
}

/// Reads `stc` with stc-core's reader into the sink `make` gives for the
/// input's length in bytes. The module instantiates the reader once, for
/// [`ReadSink`], rather than once per sink (the reader is most of the
/// decode-only module).
fn read(stc: &JsValue, options: &JsValue, make: impl FnOnce(usize) -> ReadSink<'static>) -> Result<Read, JsValue> {
    let opts = decode_opt(options)?;
    let text = text_arg(stc, "stc")?;
    let mut sink = make(match &text {
        Text::Str(s) => s.len(),
        Text::Bytes(b) => b.len(),
    });
    let result = match &text {
        Text::Str(s) => stc_core::parse_stc_to(s, &opts, &mut sink),
        Text::Bytes(b) => {
            let s = stc_core::from_utf8(b).map_err(|e| js_error(&e, None))?;
            stc_core::parse_stc_to(s, &opts, &mut sink)
        }
    };
    match result {
        Ok(()) => match sink {
            ReadSink::Json(w) => Ok(Read::Text(w.into_string())),
            ReadSink::Values(b, _) => Ok(Read::Value(b.root.unwrap_or(JsValue::NULL))),
            #[allow(unreachable_patterns)]
            _ => Err(out_of_order()),
        },
        Err(Failure::Input(e)) => Err(js_error(&e, text.as_str())),
        // A JavaScript exception raised while building the value (a setter,
        // BigInt) comes back as it was thrown.
        Err(Failure::Sink(thrown)) => Err(thrown),
    }
}

/// What [`read`] made: JSON text or a JavaScript value.
enum Read {
    Text(String),
    Value(JsValue),
}

/// JSON text as a [`Document`] for the encoder, read by the same reader
/// instantiation as `decode` (stc-core's reader in JSON mode, as
/// `Document::parse_json` reads any input its fast reader refuses, so the
/// errors are the same), into stc-core's checked [`DocumentBuilder`]. This
/// leaves stc-core's second JSON reader (the tape reader of
/// `Document::parse_json`) and a second reader instantiation out of the
/// codec module. test/stash-entry.test.mjs compares its encodings and
/// errors with the stash module's, which encodes with stc-core's own
/// `encode_with` (in `truncate`).
#[cfg(feature = "encode")]
pub(crate) fn json_document<'a>(json: &'a str, limits: &stc_core::Limits) -> Result<Document<'a>, stc_core::Error> {
    // No depth limit of the builder's own: the reader's limit applies, with its error.
    let mut sink = ReadSink::Doc(DocumentBuilder::with_capacity(json.len() / 8 + 4, usize::MAX));
    let result = stc_core::parse_json_to(json, limits, &mut sink);
    match (result, sink) {
        (Err(Failure::Input(e)), _) => Err(e),
        // A refusal of the builder (the reader checks what it checks, so none
        // is expected) is kept by the builder: `finish` returns it.
        (_, ReadSink::Doc(builder)) => builder.finish(),
        // Not reached (the sink is the one made above): an empty builder's
        // "incomplete document" error rather than a panic.
        (_, _) => DocumentBuilder::new().finish(),
    }
}

/// The reader's one sink type: minified JSON text (`decode`, and `parse`
/// without `bigint`), JavaScript values (`parse` with `bigint`) or, in the
/// codec module, the encoder's document (`encode`, `encodeGated`).
enum ReadSink<'a> {
    Json(JsonWriter),
    /// (The marker ties the lifetime to the type in every module.)
    Values(ValueBuilder, std::marker::PhantomData<&'a str>),
    #[cfg(feature = "encode")]
    Doc(DocumentBuilder<'a>),
}

/// The JSON writer never refuses; were it to, the refusal is a bug here.
fn written(r: Result<(), Abort>) -> Result<(), JsValue> {
    r.map_err(|Abort| out_of_order())
}

/// The document builder keeps its refusal for `finish`; the reader stops.
#[cfg(feature = "encode")]
fn built(r: Result<(), Abort>) -> Result<(), JsValue> {
    r.map_err(|Abort| JsValue::UNDEFINED)
}

/// One event to whichever sink this is.
macro_rules! forward {
    ($sink:ident.$event:ident($($arg:expr),*)) => {
        match $sink {
            ReadSink::Json(w) => written(w.$event($($arg),*)),
            ReadSink::Values(b, _) => b.$event($($arg),*),
            #[cfg(feature = "encode")]
            ReadSink::Doc(d) => built(Sink::$event(d $(, $arg)*)),
        }
    };
}

impl<'a> Sink<'a, JsValue> for ReadSink<'a> {
    fn null(&mut self) -> Result<(), JsValue> {
        forward!(self.null())
    }
    fn boolean(&mut self, value: bool) -> Result<(), JsValue> {
        forward!(self.boolean(value))
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), JsValue> {
        forward!(self.number(lexeme))
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), JsValue> {
        forward!(self.string(value))
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), JsValue> {
        forward!(self.begin_array(len))
    }
    fn end_array(&mut self) -> Result<(), JsValue> {
        forward!(self.end_array())
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), JsValue> {
        forward!(self.begin_object(len))
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), JsValue> {
        forward!(self.key(key))
    }
    fn end_object(&mut self) -> Result<(), JsValue> {
        forward!(self.end_object())
    }
}

enum Frame {
    Array(Array),
    Object(Object, Option<JsValue>),
}

/// Builds JavaScript values from the parser's events (bigint mode), with its
/// own stack of open containers (no recursion on the input's depth). Its
/// error type is the JavaScript exception that stopped it.
struct ValueBuilder {
    stack: Vec<Frame>,
    root: Option<JsValue>,
}

/// The parser broke its own event order (a bug, never the input's fault).
fn out_of_order() -> JsValue {
    js_sys::Error::new("stc-wasm: parse events out of order").into()
}

fn js_str(s: &JsonStr<'_>) -> JsValue {
    match s.to_str() {
        Some(text) => JsValue::from_str(&text),
        None => JsString::from_char_code(&s.to_utf16()).into(),
    }
}

impl ValueBuilder {
    fn add(&mut self, value: JsValue) -> Result<(), JsValue> {
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Frame::Array(a)) => {
                a.push(&value);
            }
            Some(Frame::Object(o, key)) => {
                let key = key.take().ok_or_else(out_of_order)?;
                define(o, &key, &value)?;
            }
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), JsValue> {
        let value: JsValue = match self.stack.pop().ok_or_else(out_of_order)? {
            Frame::Array(a) => a.into(),
            Frame::Object(o, _) => o.into(),
        };
        self.add(value)
    }
}

/// Sets an own data property as `JSON.parse` does (a `__proto__` key becomes
/// an own property, not the prototype).
fn define(o: &Object, key: &JsValue, value: &JsValue) -> Result<(), JsValue> {
    if key.as_string().as_deref() == Some("__proto__") {
        let desc = Object::new();
        Reflect::set(&desc, &"value".into(), value)?;
        Reflect::set(&desc, &"writable".into(), &JsValue::TRUE)?;
        Reflect::set(&desc, &"enumerable".into(), &JsValue::TRUE)?;
        Reflect::set(&desc, &"configurable".into(), &JsValue::TRUE)?;
        Object::define_property(o, key, &desc);
    } else {
        Reflect::set(o, key, value)?;
    }
    Ok(())
}

impl<'a> Sink<'a, JsValue> for ValueBuilder {
    fn null(&mut self) -> Result<(), JsValue> {
        self.add(JsValue::NULL)
    }
    fn boolean(&mut self, value: bool) -> Result<(), JsValue> {
        self.add(JsValue::from_bool(value))
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), JsValue> {
        if stc_core::is_unsafe_integer(lexeme) {
            let big = BigInt::new(&JsValue::from_str(lexeme)).map_err(JsValue::from)?;
            return self.add(big.into());
        }
        // The lexeme follows JSON's grammar: the engine's own conversion
        // (`Number.parseFloat`, the one JSON.parse uses) gives the number the
        // default mode gives, and keeps Rust's float parser and its tables
        // (about 14 KB) out of the module.
        self.add(JsValue::from_f64(js_sys::Number::parse_float(lexeme)))
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), JsValue> {
        self.add(js_str(&value))
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), JsValue> {
        self.stack.push(Frame::Array(Array::new()));
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), JsValue> {
        self.close()
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), JsValue> {
        self.stack.push(Frame::Object(Object::new(), None));
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), JsValue> {
        match self.stack.last_mut() {
            Some(Frame::Object(_, slot)) => {
                *slot = Some(js_str(&key));
                Ok(())
            }
            _ => Err(out_of_order()),
        }
    }
    fn end_object(&mut self) -> Result<(), JsValue> {
        self.close()
    }
}

//! # stc-wasm — STC for browsers and Node, through WebAssembly
//!
//! A thin wasm-bindgen layer over `stc-core`: it converts JavaScript values,
//! options and errors, and nothing else. Every format decision (syntax,
//! encoding choices, escaping, limits, versions, error kinds and positions)
//! is made by `stc-core`; the argument checks and messages users see are
//! js-shared's (`stc_rules.mjs`, applied by the package entries over this
//! module).
//!
//! The JavaScript API matches the Node package (`stc-node`):
//!
//! | function | does |
//! | --- | --- |
//! | `decode(stc, {maxDepth?, version?})` / `decodeStc` | STC text (or bytes) → minified JSON text |
//! | `encode(json, {profile?, maxDepth?, version?})` | JSON text (or bytes) → STC text |
//! | `parse(stc, {bigint?, maxDepth?, version?})` | STC → JavaScript value |
//! | `stringify(value, {profile?, bigint?, maxDepth?, version?})` | JavaScript value → STC text |
//! | `encodeGated(json, {profile?, minSaving?, tokenizer?, maxDepth?, version?})` | STC only when it saves tokens |
//! | `countTokens(text, tokenizer?)` | the token estimate the gate uses, or the caller's counting function |
//!
//! Failures of the codec throw an `Error` whose `message` is stc-core's
//! Display text and which carries `code` (stc-core's kind code), `offset`
//! (bytes of the UTF-8 input), `line` and `column` (1-based, column in
//! Unicode characters). Bad arguments throw a `TypeError` or `RangeError`.
//! An exception thrown by the caller's code (a `toJSON`, a getter or setter,
//! a counting function) comes back as the same object. Neither `parse` nor
//! `stringify` recurses on the value's depth: both keep their own stack.
#![forbid(unsafe_code)]

mod stash;

use js_sys::{Array, BigInt, JsString, Object, Reflect, Uint8Array};
use stc_core::{
    DecodeOptions, Document, DocumentBuilder, EncodeOptions, Error, Failure, GateError, GateOptions, JsonStr, Limits,
    Profile, Sink, Tokenizer, Version,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

// The unions of the core's names (error codes, profiles, tokenizers,
// versions) and `TokenCounter` are not written here: they come from
// js-shared's generated `stc_rules` types, which install.mjs generates from
// the one list (checked against the core's `ErrorKind::CODES`,
// `Profile::NAMES`, `Tokenizer::NAMES` and `Version::NAMES` by the tests).
// The option and result types are stc-node's too: js-shared/api.d.ts. The
// node build's copies are `.d.mts`: scripts/build.sh rewrites the imports there.
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
import type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion } from './stc_rules.js';
export type { ErrorCode, Profile, TokenizerName, TokenCounter, StcVersion };
import type {
  Text, Limits, Versioned, DecodeOptions, ParseOptions, EncodeOptions, StringifyOptions, GateOptions, Gated,
} from './api.js';
export type {
  Text, Limits, Versioned, DecodeOptions, ParseOptions, EncodeOptions, StringifyOptions, GateOptions, Gated,
};
/** The codec's error codes (`StcError.code`): the same union as `ErrorCode`. */
export type StcErrorCode = ErrorCode;
/** Text, or bytes that should be UTF-8 (a `Uint8Array`, e.g. a Node `Buffer`): the same type as `Text`. */
export type Input = Text;
"#;

// ---- errors -------------------------------------------------------------------

/// Turns a codec error into the error the Node package throws: a
/// `SyntaxError` named `StcError` with `code`, `offset`, `line`, `column`,
/// `reason` (the message without position) and, when the input was a string,
/// `index` (the UTF-16 index of `offset`, for `text.slice(index)`).
fn js_error(e: &Error, input: Option<&str>) -> JsValue {
    let err = js_sys::SyntaxError::new(&e.to_string());
    let set = |k: &str, v: JsValue| {
        let _ = Reflect::set(&err, &JsValue::from_str(k), &v);
    };
    set("name", JsValue::from_str("StcError"));
    set("code", JsValue::from_str(e.kind().code()));
    set("offset", JsValue::from_f64(e.offset().unwrap_or(0) as f64));
    set("line", JsValue::from_f64(e.line().unwrap_or(0) as f64));
    set("column", JsValue::from_f64(e.column().unwrap_or(0) as f64));
    set("reason", JsValue::from_str(e.message()));
    if let Some(index) = input.and_then(|s| e.utf16_offset(s)) {
        set("index", JsValue::from_f64(index as f64));
    }
    err.into()
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}

// ---- inputs and options ---------------------------------------------------------

/// A string (converted to UTF-8 by wasm-bindgen) or the bytes of a `Uint8Array`.
enum Text {
    Str(String),
    Bytes(Vec<u8>),
}

fn text_arg(value: &JsValue, what: &str) -> Result<Text, JsValue> {
    if let Some(s) = value.as_string() {
        // The conversion to UTF-8 turns a lone surrogate into U+FFFD. Only
        // then is the slow code-unit check worth making (it crosses into JS
        // once per unit), to tell a real U+FFFD from a replaced surrogate.
        if s.contains('\u{FFFD}') {
            if let Some(js) = value.dyn_ref::<JsString>() {
                if !js.is_valid_utf16() {
                    return Err(lone_surrogate_error(js));
                }
            }
        }
        Ok(Text::Str(s))
    } else if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        Ok(Text::Bytes(bytes.to_vec()))
    } else {
        Err(type_error(&format!("{what} must be a string or a Uint8Array")))
    }
}

/// A string holding a raw lone surrogate has no UTF-8 form: report it as
/// stc-core's `invalid_utf8` at that character, rather than letting the
/// conversion replace it with U+FFFD without telling anyone.
fn lone_surrogate_error(js: &JsString) -> JsValue {
    let units: Vec<u16> = js.iter().collect();
    let Err(e) = stc_core::from_utf16(&units) else {
        return type_error("the string changed while it was read");
    };
    let err = js_error(&e, None);
    if let Some(index) = stc_core::utf16_error_index(&units) {
        let _ = Reflect::set(&err, &JsValue::from_str("index"), &JsValue::from_f64(index as f64));
    }
    err
}

impl Text {
    /// The string itself, or the bytes checked as UTF-8 (an `invalid_utf8`
    /// error from stc-core when they are not).
    fn into_string(self) -> Result<String, JsValue> {
        match self {
            Text::Str(s) => Ok(s),
            Text::Bytes(b) => String::from_utf8(b).map_err(|e| match stc_core::from_utf8(e.as_bytes()) {
                Err(err) => js_error(&err, None),
                Ok(_) => type_error("input is not UTF-8"),
            }),
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(s) => Some(s),
            Text::Bytes(_) => None,
        }
    }
}

/// Reads `options[name]`; `None` when options or the field is undefined/null.
fn field(options: &JsValue, name: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(type_error("options must be an object"));
    }
    let v = Reflect::get(options, &JsValue::from_str(name))?;
    Ok(if v.is_undefined() || v.is_null() { None } else { Some(v) })
}

fn limits_opt(options: &JsValue) -> Result<Limits, JsValue> {
    let mut limits = Limits::default();
    if let Some(v) = field(options, "maxDepth")? {
        match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 => limits.max_depth = n.min(usize::MAX as f64) as usize,
            _ => return Err(range_error("maxDepth must be a non-negative integer")),
        }
    }
    Ok(limits)
}

/// `version`: the STC version to read or write, 1 (default) or 2; a number
/// (the entry passes one) or its name (`"2"`), checked by stc-core's
/// `Version::from_str` (its message names the valid versions).
fn version_opt(options: &JsValue) -> Result<Version, JsValue> {
    let Some(v) = field(options, "version")? else { return Ok(Version::default()) };
    let name = if let Some(n) = v.as_f64() {
        js_sys::Number::from(n).to_string_with_radix(10).map(String::from)?
    } else {
        v.as_string().ok_or_else(|| type_error("version must be a number (1 or 2)"))?
    };
    name.parse::<Version>().map_err(|e| range_error(&e.to_string()))
}

/// The options of the reading functions: `maxDepth` and `version`.
fn decode_opt(options: &JsValue) -> Result<DecodeOptions, JsValue> {
    Ok(DecodeOptions::default().limits(limits_opt(options)?).version(version_opt(options)?))
}

fn encode_opt(options: &JsValue) -> Result<EncodeOptions, JsValue> {
    let mut opts = EncodeOptions::default().limits(limits_opt(options)?).version(version_opt(options)?);
    if let Some(v) = field(options, "profile")? {
        let name = v.as_string().ok_or_else(|| type_error("profile must be a string"))?;
        opts.profile = name.parse::<Profile>().map_err(|e| range_error(&e.to_string()))?;
    }
    Ok(opts)
}

fn tokenizer_opt(value: Option<JsValue>) -> Result<Tokenizer, JsValue> {
    let Some(v) = value else { return Ok(Tokenizer::Estimate) };
    let name = v.as_string().ok_or_else(|| type_error("tokenizer must be a string"))?;
    match name.parse::<Tokenizer>() {
        Ok(t) => Ok(t),
        Err(_) if name == "o200k_base" || name == "cl100k_base" => Err(range_error(&format!(
            "tokenizer {name:?} is not in the WebAssembly build (its BPE tables are megabytes); use \"estimate\""
        ))),
        Err(e) => Err(range_error(&e.to_string())),
    }
}

fn bool_opt(options: &JsValue, name: &str) -> Result<bool, JsValue> {
    match field(options, name)? {
        None => Ok(false),
        Some(v) => v.as_bool().ok_or_else(|| type_error(&format!("{name} must be a boolean"))),
    }
}

// ---- text functions -------------------------------------------------------------

fn decode_text(input: &JsValue, options: &JsValue) -> Result<String, JsValue> {
    let opts = decode_opt(options)?;
    let text = text_arg(input, "stc")?;
    let out = match &text {
        Text::Str(s) => stc_core::decode_with(s, &opts),
        Text::Bytes(b) => stc_core::decode_bytes_with(b, &opts),
    };
    out.map_err(|e| js_error(&e, text.as_str()))
}

/// Every error code of the core (`StcError.code`), in the core's order.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    stc_core::ErrorKind::CODES.iter().map(|c| c.to_string()).collect()
}

/// Every profile name the encoder accepts.
#[wasm_bindgen(js_name = profileNames)]
pub fn profile_names() -> Vec<String> {
    Profile::NAMES.iter().map(|c| c.to_string()).collect()
}

/// Every STC version this build reads and writes (`"1"`, `"2"`).
#[wasm_bindgen(js_name = versionNames)]
pub fn version_names() -> Vec<String> {
    Version::NAMES.iter().map(|c| c.to_string()).collect()
}

/// Every tokenizer name compiled in (`estimate` only: no BPE tables in WebAssembly).
#[wasm_bindgen(js_name = tokenizerNames)]
pub fn tokenizer_names() -> Vec<String> {
    Tokenizer::NAMES.iter().map(|c| c.to_string()).collect()
}

/// Decodes STC (or plain JSON) to minified JSON text.
#[wasm_bindgen(
    js_name = decode,
    unchecked_return_type = "string",
    skip_jsdoc
)]
pub fn decode(
    #[wasm_bindgen(unchecked_param_type = "Input")] stc: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "DecodeOptions")] options: Option<JsValue>,
) -> Result<String, JsValue> {
    decode_text(stc, &options.unwrap_or(JsValue::UNDEFINED))
}

/// Alias of `decode`.
#[wasm_bindgen(js_name = decodeStc, skip_jsdoc)]
pub fn decode_stc(
    #[wasm_bindgen(unchecked_param_type = "Input")] stc: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "DecodeOptions")] options: Option<JsValue>,
) -> Result<String, JsValue> {
    decode_text(stc, &options.unwrap_or(JsValue::UNDEFINED))
}

/// Encodes strict JSON text as STC.
#[wasm_bindgen(js_name = encode, skip_jsdoc)]
pub fn encode(
    #[wasm_bindgen(unchecked_param_type = "Input")] json: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "EncodeOptions")] options: Option<JsValue>,
) -> Result<String, JsValue> {
    let opts = encode_opt(&options.unwrap_or(JsValue::UNDEFINED))?;
    let text = text_arg(json, "json")?;
    let out = match &text {
        Text::Str(s) => stc_core::encode_with(s, &opts),
        Text::Bytes(b) => stc_core::encode_bytes_with(b, &opts),
    };
    out.map_err(|e| js_error(&e, text.as_str()))
}

/// The `tokenizer` option: a name (`'estimate'`, the only one compiled in),
/// or the caller's counting function (`(text: string) => number`, e.g.
/// gpt-tokenizer's `countTokens`) for exact counts without BPE tables here.
enum Counter {
    Named(Tokenizer),
    Function(js_sys::Function),
}

fn counter_opt(value: Option<JsValue>) -> Result<Counter, JsValue> {
    match value {
        Some(v) if v.is_function() => Ok(Counter::Function(v.unchecked_into())),
        other => Ok(Counter::Named(tokenizer_opt(other)?)),
    }
}

/// Calls the caller's counting function on `text`: its result must be a
/// token count (a non-negative integer); what it throws comes back as it is.
fn count_with(f: &js_sys::Function, text: &str) -> Result<usize, JsValue> {
    let n = f.call1(&JsValue::UNDEFINED, &JsValue::from_str(text))?;
    match n.as_f64() {
        Some(x) if x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_991.0 => Ok(x as usize),
        _ => Err(type_error(&format!("the tokenizer function must return a non-negative integer, got {}", shown(&n)))),
    }
}

/// A value as messages show it: numbers and strings as they are, else its type.
fn shown(v: &JsValue) -> String {
    if let Some(x) = v.as_f64() {
        return js_sys::Number::from(x).to_string_with_radix(10).map(String::from).unwrap_or_default();
    }
    if let Some(s) = v.as_string() {
        return format!("{s:?}");
    }
    if v.is_null() {
        return "null".into();
    }
    v.js_typeof().as_string().unwrap_or_default()
}

/// The do-no-harm gate, counting with the token estimate or the caller's function.
#[wasm_bindgen(js_name = encodeGated, unchecked_return_type = "Gated", skip_jsdoc)]
pub fn encode_gated(
    #[wasm_bindgen(unchecked_param_type = "Input")] json: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "GateOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let opts = encode_opt(&options)?;
    let counter = counter_opt(field(&options, "tokenizer")?)?;
    let mut gate = GateOptions::default();
    if let Some(v) = field(&options, "minSaving")? {
        match v.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => gate.min_saving = x,
            _ => return Err(range_error("minSaving must be a number from 0 to 1")),
        }
    }
    let json = text_arg(json, "json")?.into_string()?;
    let g = match counter {
        Counter::Named(tokenizer) => {
            stc_core::encode_gated(&json, &opts, &gate.tokenizer(tokenizer)).map_err(|e| js_error(&e, Some(&json)))?
        }
        Counter::Function(f) => stc_core::encode_gated_with_counter(&json, &opts, &gate, |text| count_with(&f, text))
            .map_err(|e| match e {
            GateError::Codec(e) => js_error(&e, Some(&json)),
            GateError::Counter(thrown) => thrown,
        })?,
    };
    let out = Object::new();
    Reflect::set(&out, &"text".into(), &JsValue::from_str(&g.text))?;
    Reflect::set(&out, &"chosen".into(), &JsValue::from_str(g.chosen.name()))?;
    Reflect::set(&out, &"jsonTokens".into(), &JsValue::from_f64(g.json_tokens as f64))?;
    Reflect::set(&out, &"stcTokens".into(), &JsValue::from_f64(g.stc_tokens as f64))?;
    Ok(out.into())
}

/// Tokens of `text`: stc-core's o200k_base estimate (not exact), or the
/// caller's counting function's answer.
#[wasm_bindgen(js_name = countTokens, skip_jsdoc)]
pub fn count_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: &JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TokenizerName | TokenCounter")] tokenizer: Option<JsValue>,
) -> Result<f64, JsValue> {
    let counter = counter_opt(tokenizer.filter(|t| !t.is_undefined() && !t.is_null()))?;
    let text = text.as_string().ok_or_else(|| type_error("text must be a string"))?;
    Ok(match counter {
        Counter::Named(tokenizer) => tokenizer.count(&text),
        Counter::Function(f) => count_with(&f, &text)?,
    } as f64)
}

// ---- parse: STC -> JavaScript value -----------------------------------------------

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
    let opts = decode_opt(&options)?;
    let text = text_arg(stc, "stc")?;
    let is_str = text.as_str().is_some();
    let text = text.into_string()?;
    let mut builder = ValueBuilder { stack: Vec::new(), root: None };
    match stc_core::parse_stc_to(&text, &opts, &mut builder) {
        Ok(()) => Ok(builder.root.unwrap_or(JsValue::NULL)),
        Err(Failure::Input(e)) => Err(js_error(&e, is_str.then_some(text.as_str()))),
        // A JavaScript exception raised while building the value (a setter,
        // BigInt) comes back as it was thrown.
        Err(Failure::Sink(thrown)) => Err(thrown),
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
        // The lexeme follows JSON's grammar, which Rust's float parser reads
        // with the same round-to-nearest result as JSON.parse.
        let n: f64 = lexeme.parse().map_err(|_| out_of_order())?;
        self.add(JsValue::from_f64(n))
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

// ---- stringify: JavaScript value -> STC ---------------------------------------------

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

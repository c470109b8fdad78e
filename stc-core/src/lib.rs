//! # stc-core — the reference codec of STC
//!
//! STC is a lossless text encoding of JSON that spends fewer LLM tokens:
//! unquoted identifier keys, compact primitive arrays (`tags[2]: "a","b"`) and
//! columnar arrays of flat objects (`[2]{id,name}: 1,"a" / 2,"b"`). Every JSON
//! text is also an STC text. The format is defined in `spec/` of this
//! repository; this crate is its reference implementation.
//!
//! * **Lossless**: key order, duplicate keys, number lexemes (`1.0`, `1e3`,
//!   `-0`, 40-digit integers) and lone-surrogate escapes all survive
//!   `decode(encode(x))`. Only whitespace and string escape style are
//!   canonicalized.
//! * **Deterministic**: equal input gives byte-identical output.
//! * **Sans-io and panic-free**: no files, network or clock; every input,
//!   however hostile, ends in a value or an [`Error`] with kind and position.
//!
//! The API follows serde_json's convention: [`encode`], [`decode`],
//! [`validate`] use the defaults; `*_with` take options ([`EncodeOptions`],
//! [`Limits`]); `*_bytes` siblings take bytes that should be UTF-8;
//! [`to_string`]/[`from_str`] bridge serde. Option structs are
//! `#[non_exhaustive]`: build them with `Default` and the field-named setters.
//!
//! ```
//! use stc_core::{decode, encode_with, EncodeOptions, Profile};
//!
//! let json = r#"[{"id": 1, "name": "users", "method": "GET"}, {"id": 2, "name": "orders", "method": "POST"}]"#;
//! let stc = encode_with(json, &EncodeOptions::default().profile(Profile::Readable))?;
//! assert_eq!(stc, "([2]{id,name,method}:\n  1,\"users\",\"GET\" /\n  2,\"orders\",\"POST\")");
//! assert_eq!(decode(&stc)?, r#"[{"id":1,"name":"users","method":"GET"},{"id":2,"name":"orders","method":"POST"}]"#);
//! # Ok::<(), stc_core::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Where each concept lives (each module uses only those above it, which the
// test in tests/it/layering.rs checks against this list):
// `error`, `options`   the error type; options and limits
// `identifier`         which keys STC leaves unquoted (reader and encoder)
// `scan`               byte scans: string bodies, escapes, digits, whitespace
// `strings`            string bodies: validation, canonical escaping
// `parser`             the one reader of STC and JSON, reporting to a `Sink`
// `write_json`         the JSON writers, all `Sink`s; `decode_to`'s pieces
// `document`           `Document` (the tape), `replay`, the checked builder
// `estimate`, `gate`   token counting and the gate's rule
// `write_stc`          the STC writer: plan (pricing, columns), then write
// `serde_api`          serde interop
mod document;
mod error;
mod estimate;
mod gate;
mod identifier;
mod options;
mod parser;
mod scan;
#[cfg(feature = "serde")]
mod serde_api;
mod strings;
mod write_json;
mod write_stc;

pub use document::{Document, DocumentBuilder};
pub use error::{Category, Error, ErrorKind, OptionError, ParseNameError};
pub use gate::{Chosen, GateError, GateOptions, Gated, MinSaving, Tokenizer};
#[doc(hidden)]
pub use options::Techniques;
pub use options::{AsDecodeOptions, DecodeOptions, EncodeOptions, Limits, Profile, Seconds, Version};
pub use parser::{
    is_unsafe_integer, parse_json, parse_json_to, parse_stc, parse_stc_to, Abort, Failure, Number, Sink, Validate,
    MAX_DEPTH_LIMIT,
};
#[cfg(feature = "serde")]
pub use serde_api::{from_str, to_string, to_string_with};
pub use strings::{is_bare_letter, is_bare_string, JsonStr, LOOKALIKE_WORDS};
pub use write_json::JsonWriter;
pub use write_stc::encode_gated_with_counter;

/// What this crate's test oracle is built from: the per-node planner in
/// `tests/it/support/reference.rs`, which the writer is checked against
/// byte for byte, reads a document's tape and shares the writer's rules for
/// scalars, columns and row width. Not part of the API: hidden, and free to
/// change in any release.
#[doc(hidden)]
pub mod __oracle {
    pub use crate::document::{Node, Tape};
    pub use crate::estimate::estimate_tokens;
    pub use crate::identifier::is_identifier;
    pub use crate::write_stc::{
        column_cell, price_scalar, repeated_columns, scalar_array_compact, write_scalar, writes_bare, MAX_ROW_CELLS,
    };

    /// The tape `doc` was parsed or built into.
    pub fn tape<'d, 'a>(doc: &'d crate::Document<'a>) -> &'d Tape<'a> {
        &doc.nodes
    }
}

/// `Result` with the codec's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The STC version this crate reads and writes by default (the
/// `X-STC-Version` header of a response without a `version` parameter);
/// [`Version`] names every version it knows.
pub const VERSION: u32 = 1;

/// The media type of STC text.
pub const MEDIA_TYPE: &str = "application/stc+json";

/// Encodes JSON text as STC with the default options (compact profile,
/// default limits).
///
/// The input must be strict RFC 8259 JSON; anything else (NaN, trailing
/// commas, comments, STC syntax, invalid UTF-8 …) is an error, never repaired.
///
/// ```
/// let json = r#"{"tags": ["api", "gateway", "mcp"], "scores": [95, 87, 91]}"#;
/// assert_eq!(stc_core::encode(json)?, r#"{tags:["api","gateway","mcp"],scores:[95,87,91]}"#);
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn encode(json: &str) -> Result<String> {
    encode_with(json, &EncodeOptions::default())
}

/// [`encode`] with explicit options.
///
/// ```
/// use stc_core::{encode_with, EncodeOptions, Profile};
/// let json = r#"{"tags": ["api", "gateway", "mcp"], "scores": [95, 87, 91]}"#;
/// assert_eq!(
///     encode_with(json, &EncodeOptions::default().profile(Profile::Readable))?,
///     r#"{tags: ["api", "gateway", "mcp"], scores: [95, 87, 91]}"#
/// );
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn encode_with(json: &str, options: &EncodeOptions) -> Result<String> {
    Ok(Document::parse_json(json, &options.limits)?.encode_with(options))
}

/// [`encode`] for bytes that should be UTF-8 JSON.
///
/// ```
/// let err = stc_core::encode_bytes(b"[\"\xff\"]").unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (stc_core::ErrorKind::InvalidUtf8, Some(2)));
/// ```
pub fn encode_bytes(json: &[u8]) -> Result<String> {
    encode_bytes_with(json, &EncodeOptions::default())
}

/// [`encode_with`] for bytes that should be UTF-8 JSON.
pub fn encode_bytes_with(json: &[u8], options: &EncodeOptions) -> Result<String> {
    encode_with(parser::utf8(json)?, options)
}

/// Encodes `json` as STC if that saves at least `gate.min_saving` of the
/// tokens of minified JSON, else returns minified JSON.
///
/// ```
/// use stc_core::{encode_gated, Chosen, EncodeOptions, GateOptions};
/// // A table: STC wins.
/// let rows: Vec<String> = (0..20).map(|i| format!(r#"{{"id":{i},"name":"user{i}","active":true}}"#)).collect();
/// let table = format!("[{}]", rows.join(","));
/// let g = encode_gated(&table, &EncodeOptions::default(), &GateOptions::default())?;
/// assert_eq!(g.chosen, Chosen::Stc);
/// assert!(g.text.starts_with("([20]{id,name,active}:"));
/// // A flat list of numbers: STC cannot save anything, JSON comes back.
/// let g = encode_gated("[1, 2, 3]", &EncodeOptions::default(), &GateOptions::default())?;
/// assert_eq!((g.chosen, g.text.as_str()), (Chosen::Json, "[1,2,3]"));
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn encode_gated(json: &str, options: &EncodeOptions, gate: &GateOptions) -> Result<Gated, Error> {
    Ok(Document::parse_json(json, &options.limits)?.encode_gated_with(options, gate))
}

/// Decodes STC (or plain JSON) to minified JSON text, with default limits.
///
/// ```
/// assert_eq!(
///     stc_core::decode(r#"{name: "foo", n[2]: 1.0,1e3}"#)?,
///     r#"{"name":"foo","n":[1.0,1e3]}"#
/// );
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn decode(stc: &str) -> Result<String, Error> {
    decode_with(stc, &Limits::default())
}

/// [`decode`] with explicit options: `&`[`DecodeOptions`] (limits and
/// version), or `&Limits` (version 1).
///
/// ```
/// use stc_core::{decode_with, DecodeOptions, Limits, Version};
/// assert_eq!(decode_with("([2]: 1,2)", &Limits::default().max_depth(1))?, "[1,2]");
/// assert_eq!(decode_with("([2]: 1,2)", &DecodeOptions::default().version(Version::V2))?, "[1,2]");
/// // A column group is version 2: a version 1 reader stops at its '{'.
/// let group = "([1]{id,user{name}}: 1,\"al\")";
/// let err = decode_with(group, &Limits::default()).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (stc_core::ErrorKind::NewerVersion, Some(12)));
/// assert_eq!(decode_with(group, &DecodeOptions::default().version(Version::V2))?, r#"[{"id":1,"user":{"name":"al"}}]"#);
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn decode_with(stc: &str, options: &(impl AsDecodeOptions + ?Sized)) -> Result<String, Error> {
    let mut writer = JsonWriter::with_capacity(stc.len() + stc.len() / 2);
    parse_stc(stc, options, &mut writer)?;
    Ok(writer.into_string())
}

/// [`decode_with`], handing the JSON text to `chunk` piece by piece as it
/// is made instead of returning it whole: memory stays the size of one
/// piece however large the output. The pieces joined are exactly
/// [`decode_with`]'s text. Each piece is at least about 64 KiB (the last
/// may be shorter) and ends between two values or tokens, never inside a
/// character; no call is made for empty text.
///
/// The input is read once, so on invalid input the pieces before the error
/// have already been handed on: the error comes back as
/// [`Failure::Input`], the very error [`decode_with`] returns. Call
/// [`validate_with`] first where no partial output may go out. An error
/// of `chunk` stops the decoding at once and comes back unchanged as
/// [`Failure::Sink`].
///
/// ```
/// use stc_core::{decode_to, Failure, Limits};
/// let mut out = Vec::new();
/// decode_to("{ids[3]: 1,2,3}", &Limits::default(), |piece| {
///     out.extend_from_slice(piece.as_bytes());
///     Ok::<(), std::io::Error>(())
/// })?;
/// assert_eq!(out, br#"{"ids":[1,2,3]}"#);
/// let err = decode_to("([2]: 1", &Limits::default(), |_| Ok::<(), std::io::Error>(())).unwrap_err();
/// assert!(matches!(err, Failure::Input(e) if e.kind() == stc_core::ErrorKind::CountMismatch));
/// # Ok::<(), Failure<std::io::Error>>(())
/// ```
pub fn decode_to<E>(
    stc: &str,
    options: &(impl AsDecodeOptions + ?Sized),
    chunk: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), Failure<E>> {
    write_json::decode_chunked(stc, options, write_json::DECODE_CHUNK, chunk)
}

/// [`decode_with`] into a buffer the caller keeps, in a one-byte form:
/// every character up to U+00FF is one byte (Latin-1), every other character
/// a `\uXXXX` escape (a pair: two escapes). Nothing else differs from
/// [`decode_with`]'s minified JSON, so the text is the same JSON value; it is
/// what a JavaScript engine parses fastest (a one-byte string).
///
/// `out` is cleared first and keeps its capacity, so a buffer reused across
/// calls is allocated once. On error `out` is empty (no partial JSON) and the
/// error is the one [`decode_with`] returns.
///
/// ```
/// use stc_core::{decode_latin1_into, Limits};
/// let mut out = Vec::new();
/// decode_latin1_into(r#"{k[3]: "é","ā","😀"}"#, &Limits::default(), &mut out)?;
/// assert_eq!(out, b"{\"k\":[\"\xe9\",\"\\u0101\",\"\\ud83d\\ude00\"]}");
/// let err = decode_latin1_into("([2]: 1", &Limits::default(), &mut out).unwrap_err();
/// assert_eq!((err.kind(), out.len()), (stc_core::ErrorKind::CountMismatch, 0));
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn decode_latin1_into(
    stc: &str,
    options: &(impl AsDecodeOptions + ?Sized),
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let capacity = stc.len() + stc.len() / 2;
    let result = if stc.is_ascii() {
        // ASCII input: `decode_with`'s writer, then one pass that finds the
        // output ASCII unless an escape became a character (cheaper than
        // the reader's per-string flags); the buffer's capacity kept.
        out.clear();
        let text = String::from_utf8(std::mem::take(out)).unwrap_or_default();
        let mut writer = JsonWriter::from_string(text, capacity);
        let result = parse_stc(stc, options, &mut writer);
        *out = writer.into_string().into_bytes();
        if result.is_ok() {
            write_json::utf8_to_latin1_json(out);
        }
        result
    } else {
        // The one-byte form written as the reader reads (strings it saw
        // to be ASCII copied as they are).
        let mut writer = write_json::Latin1Writer::from_vec(std::mem::take(out), capacity);
        let result = parse_stc(stc, options, &mut writer);
        *out = writer.into_vec();
        result
    };
    if result.is_err() {
        out.clear();
    }
    result
}

/// [`decode`] for bytes that should be UTF-8 STC.
pub fn decode_bytes(stc: &[u8]) -> Result<String> {
    decode_bytes_with(stc, &Limits::default())
}

/// [`decode_with`] for bytes that should be UTF-8 STC.
pub fn decode_bytes_with(stc: &[u8], options: &(impl AsDecodeOptions + ?Sized)) -> Result<String> {
    decode_with(parser::utf8(stc)?, options)
}

/// Converts UTF-16 text (a JavaScript or Java string) to a `String`. A lone
/// surrogate has no UTF-8 form: it is an [`ErrorKind::InvalidUtf8`] error
/// positioned where the readers would report it, at the byte offset its UTF-8
/// form would start; [`Error::utf16_offset`] of the text before it (or
/// [`utf16_error_index`]) gives the unit index.
///
/// ```
/// let units: Vec<u16> = "[\"a".encode_utf16().chain([0xD800, b'"' as u16, b']' as u16]).collect();
/// let err = stc_core::from_utf16(&units).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (stc_core::ErrorKind::InvalidUtf8, Some(3)));
/// assert_eq!(stc_core::utf16_error_index(&units), Some(3));
/// assert_eq!(stc_core::from_utf16(&"{}".encode_utf16().collect::<Vec<_>>())?, "{}");
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn from_utf16(units: &[u16]) -> Result<String> {
    let mut out = String::with_capacity(units.len());
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => out.push(c),
            Err(_) => return Err(Error::invalid_utf8(&out)),
        }
    }
    Ok(out)
}

/// The index (in UTF-16 units) of the first lone surrogate of `units`, if any:
/// the JavaScript position of [`from_utf16`]'s error.
pub fn utf16_error_index(units: &[u16]) -> Option<usize> {
    let mut index = 0;
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => index += c.len_utf16(),
            Err(_) => return Some(index),
        }
    }
    None
}

/// Checks that `input` is UTF-8, with the error every reader reports
/// otherwise ([`ErrorKind::InvalidUtf8`] at the first bad byte).
///
/// ```
/// assert_eq!(stc_core::from_utf8(b"{}")?, "{}");
/// assert_eq!(stc_core::from_utf8(b"[\xc3]").unwrap_err().offset(), Some(1));
/// # Ok::<(), stc_core::Error>(())
/// ```
pub fn from_utf8(input: &[u8]) -> Result<&str, Error> {
    parser::utf8(input)
}

/// Checks that `stc` is valid STC, with default limits.
///
/// ```
/// let err = stc_core::validate("([3]: 1,2").unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (stc_core::ErrorKind::CountMismatch, Some(2)));
/// ```
pub fn validate(stc: &str) -> Result<(), Error> {
    validate_with(stc, &Limits::default())
}

/// [`validate`] with explicit options (a [`DecodeOptions`] or `&Limits`).
pub fn validate_with(stc: &str, options: &(impl AsDecodeOptions + ?Sized)) -> Result<(), Error> {
    parse_stc(stc, options, &mut Validate)
}

/// [`validate`] for bytes that should be UTF-8 STC.
pub fn validate_bytes(stc: &[u8]) -> Result<()> {
    validate_bytes_with(stc, &Limits::default())
}

/// [`validate_with`] for bytes that should be UTF-8 STC.
pub fn validate_bytes_with(stc: &[u8], options: &(impl AsDecodeOptions + ?Sized)) -> Result<()> {
    validate_with(parser::utf8(stc)?, options)
}

//! `DocumentBuilder`'s escaping of strings and keys (`document.rs`, `scan.rs`:
//! `push_str`, `push_key`, `push_utf16`, `push_key_utf16`, with their
//! word-at-a-time plain-byte scans and UTF-16 ASCII runs; `push_str_borrowed`
//! and `push_key_borrowed`, whose plain strings the document keeps as
//! borrowed slices beside its arena) against an independent writer.
//!
//! `arbitrary` picks a sequence of steps (a string value, an array or object
//! opened, the innermost container closed), each string or key either any
//! Rust `String` (pushed copied or borrowed, or a string pushed before pushed
//! again either way, so that equal keys are held both ways) or any sequence
//! of UTF-16 code units (lone surrogates
//! included, ASCII-heavy runs made likely so that the builder's long runs
//! are reached). The same steps are pushed through the builder and written
//! as JSON text by this target: a `String` through serde_json's escaping,
//! UTF-16 units through the target's own writer (pairs as the character,
//! lone surrogates as lower-case `\udxxx`, the rest as serde_json escapes the
//! character). Checks:
//!
//! Number values go through `push_i64` and `push_u64` (the target writes
//! `to_string()`'s lexeme; edges like `i64::MIN` and powers of ten made
//! likely) or through `push_number` with a lexeme that is mostly near JSON's
//! number grammar (signs, leading zeros, empty parts, 40-digit runs, a stray
//! byte inserted, or any `String`): `push_number` must accept exactly the
//! lexemes that both the target's own grammar check and `serde_json` (as a
//! whole number token, with no whitespace around it) accept, keeping the
//! lexeme as given (`to_json` writes it unchanged); a refusal is `InvalidNumber`, has no effect (the
//! target then pushes `null` in its place and the document goes on).
//!
//! Between steps the target makes calls the structure refuses where they are
//! made (a key in an array, a value or `end_array` in an object before its
//! key, a second key or `end_object` right after a key, anything after the
//! document is complete): each must be refused and have no effect.
//!
//! - the built document's `to_json()` is that text, byte for byte;
//! - `Document::parse_json` of that text writes the same JSON, and `encode`
//!   of the built document equals `encode` of the parsed text, in both
//!   profiles and both versions.
#![no_main]
#![forbid(unsafe_code)]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use stc_core::{Document, DocumentBuilder, EncodeOptions, ErrorKind, Limits, Profile, Version};

/// A string or key as the caller holds it.
#[derive(Debug)]
enum Text {
    /// Pushed with `push_str`/`push_key` (copied).
    Str(String),
    /// Pushed with `push_str_borrowed`/`push_key_borrowed` (the document may
    /// keep the slice).
    Borrowed(String),
    Utf16(Vec<u16>),
    /// A Rust string pushed before (the index picks it among them, modulo
    /// their count; `""` when there is none), pushed again copied or borrowed:
    /// equal keys and strings held partly in the arena, partly borrowed, as
    /// the planner compares them for tables.
    Again(u8, bool),
}

impl<'a> Arbitrary<'a> for Text {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(match u.int_in_range(0..=5u8)? {
            0 => Text::Str(String::arbitrary(u)?),
            1 => Text::Borrowed(String::arbitrary(u)?),
            2 => Text::Utf16(Vec::<u16>::arbitrary(u)?),
            3 => Text::Again(u8::arbitrary(u)?, bool::arbitrary(u)?),
            _ => {
                // Runs of ASCII units with a few others (surrogates, controls,
                // quotes, wider characters) between them.
                let mut units = Vec::new();
                for _ in 0..u.int_in_range(0..=6u8)? {
                    let run = u.int_in_range(0..=80usize)?;
                    let fill = u.int_in_range(0x20..=0x7eu16)?;
                    units.extend(std::iter::repeat_n(fill, run));
                    units.push(*u.choose(&[0xd800, 0xdbff, 0xdc00, 0xdfff, 0x22, 0x5c, 0x1f, 0x7f, 0xe9, 0x4e2d])?);
                }
                Text::Utf16(units)
            }
        })
    }
}

/// A number as a binding holds it.
#[derive(Debug)]
enum Num {
    I64(i64),
    U64(u64),
    Lexeme(String),
}

impl<'a> Arbitrary<'a> for Num {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(match u.int_in_range(0..=5u8)? {
            0 => Num::I64(i64::arbitrary(u)?),
            1 => {
                // Edges: the extremes, and powers of ten and their neighbours.
                let base = match u.int_in_range(0..=2u8)? {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    _ => 10i64.pow(u.int_in_range(0..=18u32)?) * if bool::arbitrary(u)? { -1 } else { 1 },
                };
                Num::I64(base.saturating_add(i64::from(u.int_in_range(-2..=2i8)?)))
            }
            2 => Num::U64(match u.int_in_range(0..=2u8)? {
                0 => u64::arbitrary(u)?,
                1 => u64::MAX - u64::from(u.int_in_range(0..=2u8)?),
                _ => 10u64
                    .pow(u.int_in_range(0..=19u32)?)
                    .wrapping_add(u64::from(u.int_in_range(0..=2u8)?))
                    .wrapping_sub(1),
            }),
            3 => Num::Lexeme(String::arbitrary(u)?),
            _ => Num::Lexeme(near_number(u)?),
        })
    }
}

/// A lexeme built from JSON's number grammar, often a little wrong.
fn near_number(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let digits = |u: &mut Unstructured<'_>, max: usize| -> arbitrary::Result<String> {
        let n = u.int_in_range(0..=max)?;
        (0..n).map(|_| Ok(char::from(b'0' + u.int_in_range(0..=9u8)?))).collect()
    };
    let mut s = String::new();
    match u.int_in_range(0..=3u8)? {
        0 => {}
        1 => s.push('+'),
        _ => s.push('-'),
    }
    match u.int_in_range(0..=3u8)? {
        0 => s.push('0'),
        1 => s.push_str(&digits(u, 3)?),
        _ => {
            s.push(char::from(b'1' + u.int_in_range(0..=8u8)?));
            s.push_str(&digits(u, 40)?);
        }
    }
    if bool::arbitrary(u)? {
        s.push('.');
        s.push_str(&digits(u, 30)?);
    }
    if bool::arbitrary(u)? {
        s.push(*u.choose(&['e', 'E'])?);
        s.push_str(u.choose(&["", "", "+", "-"])?);
        s.push_str(&digits(u, 5)?);
    }
    if u.ratio(1, 4)? {
        let stray = *u.choose(&[' ', '.', 'e', '-', '+', '0', 'x', '\0', '\n', '\t', '"', ',', ']', 'é', '٣', '０'])?;
        let at = u.int_in_range(0..=s.len())?;
        if s.is_char_boundary(at) {
            s.insert(at, stray);
        }
    }
    Ok(s)
}

/// Whether `s` is a JSON number (RFC 8259 section 6), checked byte by byte.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let run = |i: usize| b[i.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += run(i),
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        let n = run(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = run(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// One step of building.
#[derive(Debug, Arbitrary)]
enum Step {
    /// A string value (with its key when the container is an object).
    Value(Text, Text),
    /// A number value, so strings sit next to other kinds.
    Number(Text, Num),
    /// An array opened.
    Array(Text),
    /// An object opened.
    Object(Text),
    /// The innermost container closed.
    Close,
    /// A call the structure refuses where it is made (the number picks it);
    /// it must have no effect.
    Wrong(u8),
}

fuzz_target!(|steps: Vec<Step>| {
    let mut builder = DocumentBuilder::new();
    let mut json = String::new();
    // The Rust strings pushed so far (for `Text::Again`).
    let mut seen: Vec<&str> = Vec::new();
    // Open containers: whether each is an object, whether it has a member yet.
    let mut open: Vec<(bool, bool)> = vec![(false, false)];
    builder.push_begin_array().unwrap();
    json.push('[');
    for step in &steps {
        let key = match step {
            Step::Value(k, _) | Step::Number(k, _) | Step::Array(k) | Step::Object(k) => k,
            Step::Close => {
                if open.len() > 1 {
                    close(&mut builder, &mut json, &mut open);
                }
                continue;
            }
            Step::Wrong(which) => {
                wrong(&mut builder, &mut json, &mut open, *which);
                continue;
            }
        };
        if open.len() >= 100 && matches!(step, Step::Array(_) | Step::Object(_)) {
            continue;
        }
        let top = open.last_mut().unwrap();
        if top.1 {
            json.push(',');
        }
        top.1 = true;
        if top.0 {
            push_text(&mut builder, &mut json, key, true, &mut seen);
            json.push(':');
        }
        match step {
            Step::Value(_, v) => push_text(&mut builder, &mut json, v, false, &mut seen),
            Step::Number(_, Num::I64(n)) => {
                builder.push_i64(*n).unwrap();
                json.push_str(&n.to_string());
            }
            Step::Number(_, Num::U64(n)) => {
                builder.push_u64(*n).unwrap();
                json.push_str(&n.to_string());
            }
            Step::Number(_, Num::Lexeme(lexeme)) => {
                let ours = is_json_number(lexeme);
                // serde_json reads one number token (it spells the exponent
                // `e+`, so its text is not compared) and allows whitespace
                // around it, which a lexeme must not have.
                let padded = lexeme.starts_with([' ', '\t', '\n', '\r']) || lexeme.ends_with([' ', '\t', '\n', '\r']);
                let serde = !padded
                    && matches!(serde_json::from_str::<serde_json::Value>(lexeme), Ok(serde_json::Value::Number(_)));
                assert_eq!(ours, serde, "the target's grammar and serde_json disagree on {lexeme:?}");
                match builder.push_number(lexeme) {
                    Ok(()) => {
                        assert!(ours, "push_number accepts {lexeme:?}, not a JSON number");
                        json.push_str(lexeme);
                    }
                    Err(e) => {
                        assert!(!ours, "push_number refuses {lexeme:?}, a JSON number: {e}");
                        assert_eq!(e.kind(), ErrorKind::InvalidNumber, "push_number({lexeme:?}): {e}");
                        // The refusal had no effect: the member still wants its value.
                        builder.push_null().unwrap();
                        json.push_str("null");
                    }
                }
            }
            Step::Array(_) => {
                builder.push_begin_array().unwrap();
                json.push('[');
                open.push((false, false));
            }
            Step::Object(_) => {
                builder.push_begin_object().unwrap();
                json.push('{');
                open.push((true, false));
            }
            Step::Close | Step::Wrong(_) => unreachable!(),
        }
    }
    while !open.is_empty() {
        close(&mut builder, &mut json, &mut open);
    }
    // The document is complete: nothing more goes in.
    assert!(builder.push_null().is_err(), "a value after the document");
    assert!(builder.push_i64(1).is_err(), "an integer after the document");
    assert!(builder.push_number("1").is_err(), "a number after the document");
    assert!(builder.push_begin_array().is_err(), "an array after the document");
    assert!(builder.push_key("k").is_err(), "a key after the document");
    assert!(builder.push_str_borrowed("s").is_err(), "a borrowed string after the document");
    assert!(builder.push_key_borrowed("k").is_err(), "a borrowed key after the document");
    assert!(builder.push_end_array().is_err(), "end_array after the document");
    let built = builder.finish().expect("a complete document");
    assert_eq!(built.to_json(), json, "the builder's JSON differs from the independent writer's");
    let parsed = Document::parse_json(&json, &Limits::default()).expect("the independent writer's JSON reads");
    assert_eq!(parsed.to_json(), json, "the written JSON is not canonical");
    for profile in [Profile::Compact, Profile::Readable] {
        for version in [Version::V1, Version::V2] {
            let options = EncodeOptions::default().profile(profile).version(version);
            assert_eq!(
                built.encode_with(&options),
                parsed.encode_with(&options),
                "encode differs ({profile:?}, {version:?})"
            );
        }
    }
});

/// Makes a call the structure refuses in the innermost container (a value
/// or `end_array` in an object before its key; a key or `end_object` in an
/// array; in an object after a key, another key or `end_object`, the member
/// then completed with `null`), checking each refusal: the document must be
/// unchanged, which the final comparison of the whole text shows.
fn wrong(builder: &mut DocumentBuilder<'_>, json: &mut String, open: &mut [(bool, bool)], which: u8) {
    let top = open.last_mut().unwrap();
    if !top.0 {
        let refused = match which % 5 {
            0 => builder.push_key("k"),
            1 => builder.push_key_utf16(&[0x6b]),
            2 => builder.push_end_object(),
            3 => builder.push_key_borrowed("k\n"),
            _ => builder.push_key(""),
        };
        assert!(refused.is_err(), "a key or end_object accepted in an array");
        return;
    }
    let refused = match which % 9 {
        0 => builder.push_null(),
        1 => builder.push_bool(true),
        2 => builder.push_str("v"),
        3 => builder.push_i64(-1),
        4 => builder.push_u64(7),
        5 => builder.push_number("2.5"),
        6 => builder.push_begin_array(),
        7 => builder.push_str_borrowed("v"),
        _ => builder.push_end_array(),
    };
    assert!(refused.is_err(), "a value or end_array accepted in an object before a key ({which})");
    if which & 0x80 != 0 {
        // After a key: the member needs its value first.
        builder.push_key("after").unwrap();
        let refused = match (which & 0x40 != 0, which & 1 != 0) {
            (true, _) => builder.push_end_object(),
            (false, false) => builder.push_key("again"),
            (false, true) => builder.push_key_borrowed("again"),
        };
        assert!(refused.is_err(), "end_object or a second key accepted right after a key");
        builder.push_null().unwrap();
        if top.1 {
            json.push(',');
        }
        top.1 = true;
        json.push_str("\"after\":null");
    }
}

fn close(builder: &mut DocumentBuilder<'_>, json: &mut String, open: &mut Vec<(bool, bool)>) {
    let (is_object, _) = open.pop().unwrap();
    if is_object {
        builder.push_end_object().unwrap();
        json.push('}');
    } else {
        builder.push_end_array().unwrap();
        json.push(']');
    }
}

/// Pushes a string value or key (`key`) through the push its kind names and
/// writes it to `json`; remembers Rust strings in `seen`.
fn push_text<'s>(
    builder: &mut DocumentBuilder<'s>,
    json: &mut String,
    text: &'s Text,
    key: bool,
    seen: &mut Vec<&'s str>,
) {
    let (s, borrowed) = match text {
        Text::Str(s) => (s.as_str(), false),
        Text::Borrowed(s) => (s.as_str(), true),
        Text::Again(i, borrowed) => (seen.get(usize::from(*i) % seen.len().max(1)).copied().unwrap_or(""), *borrowed),
        Text::Utf16(units) => {
            if key { builder.push_key_utf16(units) } else { builder.push_utf16(units) }.unwrap();
            write_utf16(json, units);
            return;
        }
    };
    match (key, borrowed) {
        (false, false) => builder.push_str(s),
        (false, true) => builder.push_str_borrowed(s),
        (true, false) => builder.push_key(s),
        (true, true) => builder.push_key_borrowed(s),
    }
    .unwrap();
    json.push_str(&serde_json::to_string(s).unwrap());
    if seen.len() < 256 {
        seen.push(s);
    }
}

/// Writes UTF-16 units as a JSON string: every valid character as
/// serde_json writes it and every lone surrogate as `\udxxx`.
fn write_utf16(out: &mut String, units: &[u16]) {
    out.push('"');
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => {
                let mut buf = [0u8; 4];
                let quoted = serde_json::to_string(c.encode_utf8(&mut buf) as &str).unwrap();
                out.push_str(&quoted[1..quoted.len() - 1]);
            }
            Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    out.push('"');
}

//! `DocumentBuilder`'s escaping of strings and keys (`document/scan.rs`:
//! `push_str`, `push_key`, `push_utf16`, `push_key_utf16`, with their
//! word-at-a-time plain-byte scans and UTF-16 ASCII runs) against an
//! independent writer.
//!
//! `arbitrary` picks a sequence of steps (a string value, an array or object
//! opened, the innermost container closed), each string or key either any
//! Rust `String` or any sequence of UTF-16 code units (lone surrogates
//! included, ASCII-heavy runs made likely so that the builder's long runs
//! are reached). The same steps are pushed through the builder and written
//! as JSON text by this target: a `String` through serde_json's escaping,
//! UTF-16 units through the target's own writer (pairs as the character,
//! lone surrogates as lower-case `\udxxx`, the rest as serde_json escapes the
//! character). Checks:
//!
//! - the built document's `to_json()` is that text, byte for byte;
//! - `Document::parse_json` of that text writes the same JSON, and `encode`
//!   of the built document equals `encode` of the parsed text, in both
//!   profiles and both versions.
#![no_main]
#![forbid(unsafe_code)]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use stc_core::{Document, DocumentBuilder, EncodeOptions, Limits, Profile, Version};

/// A string or key as the caller holds it.
#[derive(Debug)]
enum Text {
    Str(String),
    Utf16(Vec<u16>),
}

impl<'a> Arbitrary<'a> for Text {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(match u.int_in_range(0..=3u8)? {
            0 | 1 => Text::Str(String::arbitrary(u)?),
            2 => Text::Utf16(Vec::<u16>::arbitrary(u)?),
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

/// One step of building.
#[derive(Debug, Arbitrary)]
enum Step {
    /// A string value (with its key when the container is an object).
    Value(Text, Text),
    /// A number value, so strings sit next to other kinds.
    Number(Text, u32),
    /// An array opened.
    Array(Text),
    /// An object opened.
    Object(Text),
    /// The innermost container closed.
    Close,
}

fuzz_target!(|steps: Vec<Step>| {
    let mut builder = DocumentBuilder::new();
    let mut json = String::new();
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
            match key {
                Text::Str(s) => builder.push_key(s).unwrap(),
                Text::Utf16(u) => builder.push_key_utf16(u).unwrap(),
            }
            write_text(&mut json, key);
            json.push(':');
        }
        match step {
            Step::Value(_, v) => {
                match v {
                    Text::Str(s) => builder.push_str(s).unwrap(),
                    Text::Utf16(u) => builder.push_utf16(u).unwrap(),
                }
                write_text(&mut json, v);
            }
            Step::Number(_, n) => {
                builder.push_number(&n.to_string()).unwrap();
                json.push_str(&n.to_string());
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
            Step::Close => unreachable!(),
        }
    }
    while !open.is_empty() {
        close(&mut builder, &mut json, &mut open);
    }
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

/// Writes a string or key as a JSON string: serde_json's escaping for Rust
/// text; for UTF-16, every valid character as serde_json writes it and every
/// lone surrogate as `\udxxx`.
fn write_text(out: &mut String, text: &Text) {
    match text {
        Text::Str(s) => out.push_str(&serde_json::to_string(s).unwrap()),
        Text::Utf16(units) => {
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
    }
}

//! Structured JSON (arrays of records with shared keys, strings with escapes
//! and STC syntax, number lexemes, duplicate keys, random whitespace), built
//! from the fuzzer's bytes, so that every input is JSON and reaches the
//! writer's compact and columnar paths: encode then decode gives exactly the
//! minified JSON, in both profiles.
#![no_main]
#![forbid(unsafe_code)]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use stc_core::{DecodeOptions, EncodeOptions, Limits, Profile, Version};

const KEYS: [&str; 8] = ["id", "name", "a-b", "", "x y", "true", "k\\\"q", "é"];
/// String contents as written in the input, and in canonical minified JSON
/// (spec §5.2: escapes only where needed, lone surrogates as lowercase `\u`).
const STRINGS: [(&str, &str); 12] = [
    ("", ""),
    ("a", "a"),
    ("[2]{a}:1", "[2]{a}:1"),
    ("/", "/"),
    ("\\/", "/"),
    (",", ","),
    ("\\u00e9", "é"),
    ("\\uD800", "\\ud800"),
    ("\\n\\t", "\\n\\t"),
    ("null", "null"),
    ("\\ud83d\\ude00", "😀"),
    ("\\u001F\\b", "\\u001f\\b"),
];
const NUMBERS: [&str; 10] =
    ["0", "-0", "1.0", "1e5", "-12.50E-3", "123456789012345678901234567890", "7", "0.1", "2E+2", "-1"];

/// Whitespace between tokens, only in the pretty text; the choice is taken
/// from the bytes either way, so both texts make the same later choices.
fn ws(u: &mut Unstructured, out: &mut String, pretty: bool) -> Result<()> {
    let space = *u.choose(&["", " ", "\n  ", "\t", "\r\n"])?;
    if pretty {
        out.push_str(space);
    }
    Ok(())
}

fn scalar(u: &mut Unstructured, out: &mut String, pretty: bool) -> Result<()> {
    match u.int_in_range(0..=4u8)? {
        0 => out.push_str(u.choose(&["true", "false", "null"])?),
        1 | 2 => out.push_str(u.choose(&NUMBERS)?),
        _ => {
            let (written, canonical) = u.choose(&STRINGS)?;
            out.push('"');
            out.push_str(if pretty { written } else { canonical });
            out.push('"');
        }
    }
    Ok(())
}

fn value(u: &mut Unstructured, out: &mut String, depth: u32, pretty: bool) -> Result<()> {
    let kind = if depth > 6 { 0 } else { u.int_in_range(0..=5u8)? };
    match kind {
        0 | 1 => scalar(u, out, pretty),
        2 => {
            // A record array: objects with the same keys (sometimes not), flat values.
            let rows = u.int_in_range(0..=4u8)?;
            let keys: Vec<&str> =
                (0..u.int_in_range(0..=3u8)?).map(|_| u.choose(&KEYS).copied()).collect::<Result<_>>()?;
            out.push('[');
            for r in 0..rows {
                if r > 0 {
                    out.push(',');
                }
                ws(u, out, pretty)?;
                out.push('{');
                let mut ks = keys.clone();
                if u.ratio(1, 8)? {
                    ks.reverse();
                }
                for (i, k) in ks.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\":");
                    ws(u, out, pretty)?;
                    if u.ratio(1, 10)? {
                        value(u, out, depth + 1, pretty)?;
                    } else {
                        scalar(u, out, pretty)?;
                    }
                }
                out.push('}');
            }
            out.push(']');
            Ok(())
        }
        3 | 4 => {
            out.push('{');
            for i in 0..u.int_in_range(0..=4u8)? {
                if i > 0 {
                    out.push(',');
                }
                ws(u, out, pretty)?;
                out.push('"');
                out.push_str(u.choose(&KEYS)?);
                out.push('"');
                ws(u, out, pretty)?;
                out.push(':');
                ws(u, out, pretty)?;
                value(u, out, depth + 1, pretty)?;
            }
            out.push('}');
            Ok(())
        }
        _ => {
            out.push('[');
            for i in 0..u.int_in_range(0..=4u8)? {
                if i > 0 {
                    out.push(',');
                }
                ws(u, out, pretty)?;
                value(u, out, depth + 1, pretty)?;
            }
            out.push(']');
            Ok(())
        }
    }
}

fn build(u: &mut Unstructured, pretty: bool) -> Result<String> {
    let mut out = String::new();
    value(u, &mut out, 0, pretty)?;
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    // The same choices twice: once minified (the expectation), once with whitespace.
    let Ok(minified) = build(&mut Unstructured::new(data), false) else { return };
    let Ok(spaced) = build(&mut Unstructured::new(data), true) else { return };
    let limits = Limits::default();
    for (profile, version) in VARIANTS {
        let options = encode_options(profile, limits).version(version);
        let read = DecodeOptions::default().limits(limits).version(version);
        let stc = stc_core::encode_with(&spaced, &options).unwrap_or_else(|e| panic!("JSON rejected: {e}\n{spaced}"));
        let back = stc_core::decode_bytes_with(stc.as_bytes(), &read).expect("encoder output decodes");
        assert_eq!(back, minified, "round trip of {spaced}\nthrough {stc}");
    }
});

/// Both profiles, in both versions.
const VARIANTS: [(Profile, Version); 4] = [
    (Profile::Compact, Version::V1),
    (Profile::Readable, Version::V1),
    (Profile::Compact, Version::V2),
    (Profile::Readable, Version::V2),
];

/// Field by field, so that this builds whether or not stc-core's option
/// structs are `#[non_exhaustive]` (with or without builder methods).
#[allow(clippy::field_reassign_with_default)]
fn encode_options(profile: Profile, limits: Limits) -> EncodeOptions {
    let mut options = EncodeOptions::default();
    options.profile = profile;
    options.limits = limits;
    options
}

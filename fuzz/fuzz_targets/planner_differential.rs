//! The planner (`stc-core/src/write_stc/`: side tables by container ordinal,
//! tables priced in one pass from shapes, arrays priced from shapes, rows
//! sure to win left unpriced) against its test oracle, the per-node planner
//! in `stc-core/tests/it/support/reference.rs` (included here as it is, by
//! path, not copied): the same text, byte for byte, in versions 1 and 2 and
//! both profiles. Both read the same tape (`stc_core::__oracle::tape`).
//!
//! Inputs: when the first byte is odd, the rest as JSON text (any bytes that
//! parse); otherwise a document generated from the bytes, shaped to reach
//! every candidate form and every pricing shortcut: arrays of records over a
//! few shared keys (absent, reordered or extra keys, identifiers and keys
//! that need quoting), objects of objects (keyed tables), nested records
//! (column groups), arrays of scalars as members and items (plain or
//! compact), arrays of arrays, and scalars whose shapes sit near the
//! estimator's edges (short and long strings, bare and quoted, non-ASCII,
//! escapes, numbers with signs, fractions and exponents, literals).
#![no_main]
#![forbid(unsafe_code)]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use stc_core::{Document, EncodeOptions, Limits, Profile, Version};

#[path = "../../stc-core/tests/it/support/reference.rs"]
mod reference;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode & 1 == 1 {
        if let Ok(text) = std::str::from_utf8(rest) {
            check(text);
        }
        return;
    }
    let mut u = Unstructured::new(rest);
    let mut json = String::new();
    // A generator that runs out of bytes leaves an unfinished text: skipped.
    if value(&mut u, &mut json, 0).is_ok() {
        check(&json);
    }
});

fn check(json: &str) {
    let Ok(doc) = Document::parse_json(json, &Limits::default().max_depth(64)) else { return };
    let tape = stc_core::__oracle::tape(&doc);
    for version in [Version::V1, Version::V2] {
        for profile in [Profile::Compact, Profile::Readable] {
            let fast = doc.encode_with(&EncodeOptions::default().version(version).profile(profile));
            let slow = reference::write(tape, profile, version);
            if fast != slow {
                let at = fast.bytes().zip(slow.bytes()).take_while(|(a, b)| a == b).count();
                panic!("{version:?} {profile:?}: the planner differs from the reference at byte {at}\n json: {json}\n fast: {fast}\n slow: {slow}");
            }
        }
    }
}

/// Keys as JSON string bodies: identifiers, ones that need quoting, a key
/// ending in a digit, a literal look-alike, non-ASCII.
const KEYS: [&str; 12] = ["id", "name", "a", "k1", "x y", "", "-", "true", "é", "user_id", "B", "a\\\"b"];

/// String values as JSON string bodies, around the estimator's edges: empty,
/// one letter, bare-able words, punctuation, literal and number look-alikes,
/// 16 and 17 bytes (the long-string cut), escapes, non-ASCII.
const STRINGS: [&str; 18] = [
    "",
    "a",
    "abc",
    "Hello",
    "x y",
    "-",
    "/",
    "true",
    "12",
    "a,b",
    "sixteen_bytes_ab",
    "seventeen_bytes_a",
    "a long string value here",
    "\\n",
    "\\u00e9t\\u00e9",
    "日本",
    "ABC",
    "x/y:z",
];

const NUMBERS: [&str; 10] = ["0", "7", "-1", "42", "1234", "1.5", "-0.25", "1e5", "2E+2", "123456789012345678901234"];

fn scalar(u: &mut Unstructured, out: &mut String) -> Result<()> {
    match u.int_in_range(0..=5u8)? {
        0 => out.push_str(u.choose(&["true", "false", "null"])?),
        1 | 2 => out.push_str(u.choose(&NUMBERS)?),
        _ => string(out, u.choose(&STRINGS)?),
    }
    Ok(())
}

fn string(out: &mut String, body: &str) {
    out.push('"');
    out.push_str(body);
    out.push('"');
}

/// A value; `depth` bounds the nesting (recursion here is the target's own,
/// at most 5 deep).
fn value(u: &mut Unstructured, out: &mut String, depth: u32) -> Result<()> {
    let kind = if depth >= 5 { 0 } else { u.int_in_range(0..=9u8)? };
    match kind {
        0..=2 => scalar(u, out),
        // An array of records over a few shared keys.
        3 | 4 => records(u, out, depth),
        // An object of objects (a keyed table candidate).
        5 => {
            let keys = key_set(u)?;
            members(
                u,
                out,
                |u, out| if u.ratio(1, 6)? { value(u, out, depth + 1) } else { record(u, out, &keys, depth) },
            )
        }
        // An array of scalars, or of values of any kind.
        6 | 7 => {
            let n = u.int_in_range(0..=5u8)?;
            let scalars = u.ratio(1, 2)?;
            out.push('[');
            for m in 0..n {
                if m > 0 {
                    out.push(',');
                }
                if scalars {
                    scalar(u, out)?;
                } else {
                    value(u, out, depth + 1)?;
                }
            }
            out.push(']');
            Ok(())
        }
        // An object with members of any kind.
        _ => members(u, out, |u, out| value(u, out, depth + 1)),
    }
}

/// An object of up to four members, keys from [`KEYS`], each value by `each`.
fn members(
    u: &mut Unstructured,
    out: &mut String,
    mut each: impl FnMut(&mut Unstructured, &mut String) -> Result<()>,
) -> Result<()> {
    let n = u.int_in_range(0..=4u8)?;
    out.push('{');
    for m in 0..n {
        if m > 0 {
            out.push(',');
        }
        string(out, u.choose(&KEYS)?);
        out.push(':');
        each(u, out)?;
    }
    out.push('}');
    Ok(())
}

/// One to four distinct keys.
fn key_set(u: &mut Unstructured) -> Result<Vec<&'static str>> {
    let n = u.int_in_range(1..=4usize)?;
    let mut keys: Vec<&str> = Vec::with_capacity(n);
    for _ in 0..n {
        let k = *u.choose(&KEYS)?;
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    Ok(keys)
}

fn records(u: &mut Unstructured, out: &mut String, depth: u32) -> Result<()> {
    let n = u.int_in_range(0..=6u8)?;
    let keys = key_set(u)?;
    out.push('[');
    for m in 0..n {
        if m > 0 {
            out.push(',');
        }
        record(u, out, &keys, depth)?;
    }
    out.push(']');
    Ok(())
}

/// An object over `keys`: usually all of them in order, sometimes one left
/// out, the order turned, an extra key, or a value nested as a record
/// (a column group candidate).
fn record(u: &mut Unstructured, out: &mut String, keys: &[&'static str], depth: u32) -> Result<()> {
    let mut row: Vec<&str> = keys.to_vec();
    match u.int_in_range(0..=7u8)? {
        0 if row.len() > 1 => {
            let at = u.choose_index(row.len())?;
            row.remove(at);
        }
        1 => row.reverse(),
        2 => row.push(u.choose(&KEYS)?),
        _ => {}
    }
    out.push('{');
    for (m, k) in row.iter().enumerate() {
        if m > 0 {
            out.push(',');
        }
        string(out, k);
        out.push(':');
        match u.int_in_range(0..=9u8)? {
            0 if depth < 4 => {
                let sub = ["x", "y", "id"];
                let width = u.int_in_range(1..=3usize)?;
                record(u, out, &sub[..width], depth + 1)?
            }
            1 => value(u, out, depth + 1)?,
            _ => scalar(u, out)?,
        }
    }
    out.push('}');
    Ok(())
}

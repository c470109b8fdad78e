//! `stc_core::decode_latin1_into` (the one-byte JSON form for JavaScript,
//! written into a caller's kept buffer) against `decode_with`, on any bytes as
//! STC:
//!
//! - the same acceptance, and the same error (kind, offset, line, column,
//!   message), with the output buffer left empty after an error;
//! - on success the one-byte text is exactly `decode_with`'s JSON with every
//!   character beyond U+00FF written as a lower-case `\uXXXX` escape (a
//!   surrogate pair of escapes for an astral character), converted here by
//!   code that shares nothing with stc-core; read as Latin-1 it parses with
//!   `serde_json` to the same value as `decode_with`'s JSON (or both fail:
//!   lone surrogates, which `serde_json` refuses, and its depth limit);
//! - three output buffers give the same bytes: a new `Vec`, a small one
//!   holding bytes that are not UTF-8, and one kept across every call of the
//!   process (so it holds the previous call's output, a one-byte text that is
//!   often not UTF-8, plus more garbage appended here); a kept buffer keeps
//!   its capacity.
//!
//! Each input runs in both versions with the default limits, then without its
//! first byte, with `max_depth` 0 to 5 and the version taken from that byte,
//! so that the depth limit stops the writer in the middle of its output.
//! Input that is not UTF-8 is read lossily (U+FFFD), since the function takes
//! text: that keeps the fuzzer's non-ASCII mutations useful.
#![no_main]
#![forbid(unsafe_code)]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use stc_core::{decode_latin1_into, decode_with, DecodeOptions, Version};

thread_local! {
    /// The buffer kept across calls, as a binding keeps it.
    static KEPT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for version in [Version::V1, Version::V2] {
        check(&text, &DecodeOptions::default().version(version), data);
    }
    if let Some((&first, rest)) = data.split_first() {
        let text = String::from_utf8_lossy(rest);
        let version = if first & 0x80 == 0 { Version::V1 } else { Version::V2 };
        let options = DecodeOptions::default().version(version).max_depth(usize::from(first % 6));
        check(&text, &options, rest);
    }
});

fn check(stc: &str, options: &DecodeOptions, data: &[u8]) {
    let expected = decode_with(stc, options);

    let mut fresh = Vec::new();
    let fresh_result = decode_latin1_into(stc, options, &mut fresh);

    let mut small = vec![0xFF, 0xC3, 0x28, 0x80];
    let small_result = decode_latin1_into(stc, options, &mut small);

    let (kept_result, kept) = KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        // Garbage after the previous call's output: the input reversed and
        // bytes that are never UTF-8.
        kept.extend(data.iter().rev().take(64));
        kept.extend_from_slice(&[0xC0, 0xFF, 0xED, 0xA0, 0x80]);
        let capacity = kept.capacity();
        let result = decode_latin1_into(stc, options, &mut kept);
        assert!(kept.capacity() >= capacity, "the kept buffer lost capacity: {capacity} -> {}", kept.capacity());
        (result, kept.clone())
    });

    for (what, result, out) in [
        ("new buffer", &fresh_result, &fresh),
        ("small dirty buffer", &small_result, &small),
        ("kept buffer", &kept_result, &kept),
    ] {
        match (&expected, result) {
            (Ok(json), Ok(())) => {
                let want = one_byte_form(json);
                assert!(
                    *out == want,
                    "{what}: one-byte form differs\n decode_with: {json:?}\n expected:    {:?}\n got:         {:?}",
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(out)
                );
            }
            (Err(e), Err(g)) => {
                assert_eq!(
                    (g.kind(), g.offset(), g.line(), g.column(), g.message()),
                    (e.kind(), e.offset(), e.line(), e.column(), e.message()),
                    "{what}: not decode_with's error (decode_latin1_into, decode_with)"
                );
                assert!(out.is_empty(), "{what}: {} bytes left in the buffer after an error", out.len());
            }
            (Ok(json), Err(g)) => panic!("{what}: decode_latin1_into rejects ({g}) what decode_with reads: {json:?}"),
            (Err(e), Ok(())) => panic!(
                "{what}: decode_latin1_into accepts what decode_with rejects ({e}): {:?}",
                String::from_utf8_lossy(out)
            ),
        }
    }

    // The same value as JSON: the one-byte text read as Latin-1.
    if let Ok(json) = &expected {
        let latin1: String = fresh.iter().map(|&b| char::from(b)).collect();
        let from_utf8 = serde_json::from_str::<serde_json::Value>(json);
        let from_latin1 = serde_json::from_str::<serde_json::Value>(&latin1);
        match (from_utf8, from_latin1) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "the one-byte text is another value"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("serde_json reads only one of them (UTF-8: {a:?}, one-byte: {b:?})"),
        }
    }
}

/// `json` with every character beyond U+00FF as `\uXXXX` (lower-case hex;
/// astral characters as a surrogate pair) and every other character as its
/// one byte. Written here, independently of stc-core.
fn one_byte_form(json: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    for c in json.chars() {
        let code = u32::from(c);
        if code <= 0xFF {
            out.push(code as u8);
        } else if code <= 0xFFFF {
            out.extend_from_slice(format!("\\u{code:04x}").as_bytes());
        } else {
            let v = code - 0x1_0000;
            let (high, low) = (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
            out.extend_from_slice(format!("\\u{high:04x}\\u{low:04x}").as_bytes());
        }
    }
    out
}

//! stc-core's JSON reader against serde_json: both accept exactly the same
//! inputs, and give the same value for every JSON text (numbers compared as
//! lexemes, keys in order, duplicates resolved the same way on both sides).
//!
//! Known, deliberate deviations are excluded, each named here:
//! - lone surrogate escapes (`"\ud800"`): STC keeps them (spec §5.2);
//!   serde_json rejects them when it builds a `String`. Told apart exactly:
//!   stc-core's canonical output writes a surrogate pair as the character
//!   and only a lone surrogate as a `\uXXXX` escape in D800–DFFF;
//! - nesting: serde_json stops at 128 levels of recursion, stc-core at
//!   `Limits::max_depth`; inputs that hit either limit are skipped.
//! - `arbitrary_precision`'s private key: serde_json reads an object whose
//!   key is `$serde_json::private::Number` as a number token (and rejects it
//!   when the value is not a string), a quirk of the feature this target
//!   needs for exact numbers. Inputs with that key (told by stc-core's
//!   canonical output, where the key is unescaped) are skipped.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{EncodeOptions, ErrorKind, Limits};

/// The prefix of serde_json's private magic keys (`…Number`, `…RawValue`).
const SERDE_PRIVATE: &str = "\"$serde_json::private::";

fuzz_target!(|data: &[u8]| {
    let (limits, options) = options(100);
    let ours = stc_core::encode_bytes_with(data, &options);
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    match (ours, theirs) {
        (Ok(_), _) if stc_core::decode_bytes_with(data, &limits).unwrap_or_default().contains(SERDE_PRIVATE) => {}
        (Ok(_), Ok(value)) => {
            // stc-core's value: its minified JSON (duplicates and lexemes kept),
            // read back by serde_json, which resolves duplicates as it did on the input.
            let minified = stc_core::decode_bytes_with(data, &limits).expect("accepted JSON decodes");
            let ours: serde_json::Value =
                serde_json::from_str(&minified).expect("minified output is JSON to serde_json");
            assert_eq!(
                serde_json::to_string(&ours).unwrap(),
                serde_json::to_string(&value).unwrap(),
                "different values\nstc-core: {minified}"
            );
        }
        (Err(e), Err(_)) => assert!(e.offset().is_some_and(|o| o <= data.len())),
        (Err(e), Ok(_)) if e.kind() == ErrorKind::DepthLimit => {}
        (Ok(_), Err(e)) if e.to_string().contains("recursion limit") => {}
        (Ok(_), Err(_)) if has_lone_surrogate(&stc_core::decode_bytes_with(data, &limits).unwrap_or_default()) => {}
        (Err(e), Ok(_)) => panic!("stc-core rejects JSON that serde_json accepts: {e}"),
        (Ok(_), Err(e)) => panic!("stc-core accepts what serde_json rejects: {e}"),
    }
});

/// Whether canonical minified JSON holds a `\uXXXX` escape in D800–DFFF
/// (only lone surrogates are written that way).
fn has_lone_surrogate(json: &str) -> bool {
    let b = json.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'u') && b.get(i + 2) == Some(&b'd') {
                if let Some(c) = b.get(i + 3) {
                    if matches!(c, b'8'..=b'9' | b'a'..=b'f') {
                        return true;
                    }
                }
            }
            i += 2; // an escape: skip the escaped character
        } else {
            i += 1;
        }
    }
    false
}

/// Limits with `max_depth`, and encode options with those limits; field by
/// field, so that this builds whether or not stc-core's option structs are
/// `#[non_exhaustive]` (with or without builder methods).
#[allow(clippy::field_reassign_with_default)]
fn options(max_depth: usize) -> (Limits, EncodeOptions) {
    let mut limits = Limits::default();
    limits.max_depth = max_depth;
    let mut options = EncodeOptions::default();
    options.limits = limits;
    (limits, options)
}

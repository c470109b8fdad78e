//! `decode_latin1_into` writes the same JSON as `decode_with`, in the one-byte
//! form: every character up to U+00FF as one byte, every other as `\uXXXX`
//! escapes. The oracle converts `decode_with`'s UTF-8 output with code written
//! here (sharing none with stc-core), over every input of the conformance
//! corpus (both versions, each case's options), the shared corpus encoded as
//! version 1 and version 2, and hand-picked edge strings. Errors must be
//! `decode_with`'s, with `out` left empty.
//!
//! The shared corpus is read in place from `../shared/corpus`; set
//! `STC_CORPUS` to read it from elsewhere.

use std::path::Path;

use stc_core::{decode_latin1_into, decode_with, encode_with, DecodeOptions, EncodeOptions, Version};

use crate::support::latin1 as oracle;

/// Decodes `input` both ways (into a reused, dirty buffer) and compares.
fn check(input: &str, options: &DecodeOptions, out: &mut Vec<u8>, what: &str) {
    out.clear();
    out.extend_from_slice(b"stale bytes from an earlier call");
    let expected = decode_with(input, options);
    let got = decode_latin1_into(input, options, out);
    match expected {
        Ok(json) => {
            assert_eq!(got, Ok(()), "{what}: decode_with succeeded");
            assert!(*out == oracle(&json), "{what}: one-byte form differs from decode_with's output {json:?}");
        }
        Err(e) => {
            assert_eq!(got, Err(e), "{what}: not decode_with's error");
            assert!(out.is_empty(), "{what}: out holds {} bytes after an error", out.len());
        }
    }
}

fn versions() -> [DecodeOptions; 2] {
    [DecodeOptions::default().version(Version::V1), DecodeOptions::default().version(Version::V2)]
}

#[test]
fn conformance_inputs_match_decode_with() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/cases");
    let mut out = Vec::new();
    let mut checked = 0;
    for dir in std::fs::read_dir(&cases).unwrap() {
        let dir = dir.unwrap().path();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let text = std::fs::read_to_string(&file).unwrap();
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            for case in doc["cases"].as_array().unwrap() {
                let Some(input) = case["input"].as_str() else { continue };
                let name = format!("{}:{}", file.display(), case["name"]);
                let depth = case["options"]["max_depth"].as_u64();
                for options in versions() {
                    let options = match depth {
                        Some(d) => options.max_depth(d as usize),
                        None => options,
                    };
                    check(input, &options, &mut out, &name);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 2000, "expected the conformance corpus, checked {checked} inputs");
}

#[test]
fn shared_corpus_v1_and_v2_texts_match_decode_with() {
    let mut out = Vec::new();
    for (name, json) in crate::support::json_files() {
        check(&json, &DecodeOptions::default(), &mut out, &format!("{name} as JSON"));
        for version in [Version::V1, Version::V2] {
            let stc = encode_with(&json, &EncodeOptions::default().version(version)).unwrap();
            let options = DecodeOptions::default().version(version);
            check(&stc, &options, &mut out, &format!("{name} as {version:?}"));
        }
    }
}

#[test]
fn edge_strings() {
    let mut out = Vec::new();
    let options = DecodeOptions::default();
    let bodies = [
        "",
        "a",
        "\u{7f}",
        "\u{80}",
        "é",
        "\u{ff}",
        "\u{100}",
        "ā",
        "日本",
        "😀",
        "a😀b",
        "\u{ffff}",
        "\u{10ffff}",
        r"\u00ff",
        r"\u0100",
        r"\ud83d\ude00",
        r"\ud800",
        r"\udc00",
        r"x\udc00\ud800y",
        r"\ud800\u00e9",
        r#"\"\\\/\b\f\n\r\t"#,
        r"\u0000\u001f",
        r"\u00e9\u0041",
        "ÿ\u{100}ÿ",
        "\u{ff}\\u0100",
    ];
    for body in bodies {
        let value = format!("\"{body}\"");
        for input in [value.clone(), format!("{{{value}: {value}}}"), format!("[2]: {value},{value}")] {
            check(&input, &options, &mut out, &input);
        }
        let keyed = format!("[2]{{{value},b}}: {value},1 / {value},2");
        check(&keyed, &options, &mut out, &keyed);
    }
    // Spot checks of the exact bytes, not only against the oracle.
    decode_latin1_into(r#"["\u00ff","\u0100","\ud800","😀"]"#, &options, &mut out).unwrap();
    assert_eq!(out, b"[\"\xff\",\"\\u0100\",\"\\ud800\",\"\\ud83d\\ude00\"]");
}

#[test]
fn errors_are_decode_with_errors_and_leave_out_empty() {
    let mut out = Vec::with_capacity(1 << 16);
    let inputs = [
        "",
        "[",
        "[3]: 1,2",
        "{a: 1,",
        "\"\u{100}",
        r#"["é", "ā", ]"#,
        r#"{"k": "\ud800" x}"#,
        "[1]{a{b}}: 1",
        "[[[[1]]]]",
    ];
    for input in inputs {
        for options in versions() {
            for options in [options, options.max_depth(2)] {
                check(input, &options, &mut out, input);
                assert!(out.capacity() >= 1 << 16, "the buffer keeps its capacity");
            }
        }
    }
}

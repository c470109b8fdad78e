//! The STC reader's string, key and bare-run scans (`parser/`,
//! `scan.rs`: word-at-a-time body scans, canonical-escape detection,
//! bare keys, v2 bare runs) and the JSON writer's copy of canonical bodies
//! (`write_json.rs`), on STC texts built by this target.
//!
//! `arbitrary` picks strings and keys (any Rust `String`), how each quoted
//! one is escaped (serde_json's canonical escaping; every non-ASCII
//! character as `\uXXXX` with surrogate pairs, in upper or lower case; `/` as
//! `\/` and controls as `\u00XX`), whether an identifier key is written bare,
//! and one of a set of templates placing them in every string position of
//! version 1 and version 2 text: a top-level string, an object member's key
//! and value, compact arrays (top level and member), columnar tables (column
//! names and cells), and in version 2 bare string values (members, compact
//! cells, table cells) and keyed tables (row keys). The expected JSON is the
//! same value written by serde_json (`preserve_order`), whose escaping is the
//! canonical one. Checks: `decode` (version 2) gives exactly that JSON; a
//! version 1 reader gives it too, or, where the text holds a version 2 form,
//! fails with `newer_version`.
#![no_main]
#![forbid(unsafe_code)]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use stc_core::{is_bare_string, DecodeOptions, ErrorKind, Version};

#[derive(Debug, Arbitrary)]
struct Input {
    template: u8,
    strings: [Quoted; 2],
    keys: [Quoted; 2],
    readable: bool,
}

/// A string or key and how to write it.
#[derive(Debug, Arbitrary)]
struct Quoted {
    text: String,
    style: u8,
    /// Write an identifier key bare, a bare-able value bare (version 2).
    bare: bool,
}

impl Quoted {
    /// As a JSON string in the chosen escaping.
    fn quoted(&self) -> String {
        match self.style % 4 {
            0 | 1 => serde_json::to_string(&self.text).unwrap(),
            2 => {
                let upper = self.style & 4 != 0;
                let mut out = String::from('"');
                for c in self.text.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        c if c.is_ascii() && c >= ' ' => out.push(c),
                        c => {
                            let mut units = [0u16; 2];
                            for unit in c.encode_utf16(&mut units) {
                                if upper {
                                    out.push_str(&format!("\\u{unit:04X}"));
                                } else {
                                    out.push_str(&format!("\\u{unit:04x}"));
                                }
                            }
                        }
                    }
                }
                out.push('"');
                out
            }
            _ => {
                let mut out = String::from('"');
                for c in self.text.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '/' => out.push_str("\\/"),
                        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
                        c => out.push(c),
                    }
                }
                out.push('"');
                out
            }
        }
    }

    /// As a key: bare when it is an identifier and `bare` is set.
    fn key(&self) -> String {
        if self.bare && is_identifier(&self.text) {
            self.text.clone()
        } else {
            self.quoted()
        }
    }

    /// As a string value; bare (a version 2 form) when allowed, `bare` is set
    /// and `v2` is true. Returns the text and whether it is bare.
    fn value(&self, v2: bool) -> (String, bool) {
        if v2 && self.bare && is_bare_string(&self.text) {
            (self.text.clone(), true)
        } else {
            (self.quoted(), false)
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

fuzz_target!(|input: Input| {
    let [s1, s2] = &input.strings;
    let [k1, k2] = &input.keys;
    let (a, b) = (&s1.text, &s2.text);
    let (ka, kb) = (&k1.text, &k2.text);
    let (colon, comma, slash) = if input.readable { (": ", ", ", "\n/ ") } else { (":", ",", "/") };
    // (STC text, expected value, whether the text holds a version 2 form)
    let (stc, value, v2_form): (String, Value, bool) = match input.template % 9 {
        0 => (s1.quoted(), json!(a), false),
        1 => (format!("{{{}{colon}{}}}", k1.key(), s1.quoted()), json!({ ka: a }), false),
        2 => (format!("([2]{colon}{}{comma}{})", s1.quoted(), s2.quoted()), json!([a, b]), false),
        3 => (format!("{{{}[2]{colon}{}{comma}{}}}", k1.key(), s1.quoted(), s2.quoted()), json!({ ka: [a, b] }), false),
        4 | 5 => {
            if ka == kb {
                return;
            }
            let (c1, c2) = (s1.value(input.template % 9 == 5), s2.value(input.template % 9 == 5));
            let stc =
                format!("([2]{{{},{}}}{colon}{}{comma}{}{slash}{}{comma}{})", k1.key(), k2.key(), c1.0, c2.0, c2.0, c1.0);
            (stc, json!([{ ka: a, kb: b }, { ka: b, kb: a }]), c1.1 || c2.1)
        }
        6 => {
            let (v, bare) = s1.value(true);
            (format!("{{{}{colon}{v}}}", k1.key()), json!({ ka: a }), bare)
        }
        7 => {
            let (c1, c2) = (s1.value(true), s2.value(true));
            (format!("([2]{colon}{}{comma}{})", c1.0, c2.0), json!([a, b]), c1.1 || c2.1)
        }
        _ => {
            // A keyed table: row keys k1 and k2, one column named by s1's text.
            if ka == kb {
                return;
            }
            let column = Quoted { text: a.clone(), style: s1.style, bare: s1.bare };
            let (cell, _) = s2.value(true);
            let stc =
                format!("({{2}}{{{}}}{colon}{}{colon}{cell}{slash}{}{colon}{cell})", column.key(), k1.key(), k2.key());
            (stc, json!({ ka: { a: b }, kb: { a: b } }), true)
        }
    };
    let expected = serde_json::to_string(&value).unwrap();
    let v2 = stc_core::decode_with(&stc, &DecodeOptions::default().version(Version::V2));
    assert_eq!(v2.as_deref().map_err(|e| e.to_string()), Ok(expected.as_str()), "version 2 decode of {stc:?}");
    let v1 = stc_core::decode_with(&stc, &DecodeOptions::default().version(Version::V1));
    match v1 {
        Ok(json) => {
            assert!(!v2_form, "version 1 reads a version 2 form: {stc:?}");
            assert_eq!(json, expected, "version 1 decode of {stc:?}");
        }
        Err(e) => {
            assert!(v2_form, "version 1 rejects {stc:?}: {e}");
            assert_eq!(e.kind(), ErrorKind::NewerVersion, "version 1 on {stc:?}: {e}");
        }
    }
});

//! The reader, corner by corner of RFC 8259 (valid and invalid JSON given to
//! `encode`) and of the STC extensions (given to `decode`), in the spirit of
//! nst/JSONTestSuite's y_/n_ cases. Error kinds and offsets are the spec's
//! (section 4.3).

use stc_core::{decode, encode, EncodeOptions, ErrorKind, ErrorKind::*};

/// JSON texts every reader must accept, with their canonical minified form.
const VALID_JSON: &[(&str, &str)] = &[
    ("0", "0"),
    ("-0", "-0"),
    ("  \t\r\n 1 \n", "1"),
    ("1.0", "1.0"),
    ("1e3", "1e3"),
    ("1E+2", "1E+2"),
    ("1e-0", "1e-0"),
    ("-0.0e-0", "-0.0e-0"),
    ("0.10", "0.10"),
    ("123456789012345678901234567890", "123456789012345678901234567890"),
    ("1e400", "1e400"),
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    ("\"\"", "\"\""),
    (r#""\u0000\u001F\u007f""#, "\"\\u0000\\u001f\u{7f}\""),
    (r#""\"\\\/\b\f\n\r\t""#, r#""\"\\/\b\f\n\r\t""#),
    (r#""\uD834\uDD1E""#, "\"𝄞\""),
    (r#""\uDD1E\uD834""#, r#""\udd1e\ud834""#),
    (r#""\uD800\uD800""#, r#""\ud800\ud800""#),
    ("\"\u{2028}\u{2029}\"", "\"\u{2028}\u{2029}\""),
    ("\"日本語\"", "\"日本語\""),
    ("[]", "[]"),
    ("[ ]", "[]"),
    ("{}", "{}"),
    ("{ }", "{}"),
    ("[[]]", "[[]]"),
    ("[1,[2,[3]]]", "[1,[2,[3]]]"),
    (r#"{"a":1,"a":2}"#, r#"{"a":1,"a":2}"#),
    (r#"{"":0}"#, r#"{"":0}"#),
    (r#"{"b":1,"a":2}"#, r#"{"b":1,"a":2}"#),
    (r#"[{"a":1},{"a":2}]"#, r#"[{"a":1},{"a":2}]"#),
    ("[3]", "[3]"),
    ("[0]", "[0]"),
    ("[-1]", "[-1]"),
    ("[3, 4]", "[3,4]"),
];

/// Texts that are not JSON: `encode` must reject them, never repair them.
const INVALID_JSON: &[(&str, ErrorKind, usize)] = &[
    ("", UnexpectedEnd, 0),
    ("   ", UnexpectedEnd, 3),
    ("NaN", UnexpectedChar, 0),
    ("[Infinity]", UnexpectedChar, 1),
    ("-Infinity", InvalidNumber, 1),
    ("01", InvalidNumber, 1),
    ("-01", InvalidNumber, 2),
    ("+1", UnexpectedChar, 0),
    ("1.", UnexpectedEnd, 2),
    ("1.e3", InvalidNumber, 2),
    (".5", UnexpectedChar, 0),
    ("1e", UnexpectedEnd, 2),
    ("1e+", UnexpectedEnd, 3),
    ("0x10", TrailingCharacters, 1),
    ("[1,]", UnexpectedChar, 3),
    ("[,1]", UnexpectedChar, 1),
    ("[1 2]", UnexpectedChar, 3),
    (r#"{"a":1,}"#, UnexpectedChar, 7),
    (r#"{"a" 1}"#, UnexpectedChar, 5),
    (r#"{a:1}"#, UnexpectedChar, 1),
    (r#"{'a':1}"#, UnexpectedChar, 1),
    ("['a']", UnexpectedChar, 1),
    ("[1] x", TrailingCharacters, 4),
    ("{}}", TrailingCharacters, 2),
    ("[1] /* c */", TrailingCharacters, 4),
    ("[", UnexpectedEnd, 1),
    ("[1", UnexpectedEnd, 2),
    ("[1,", UnexpectedEnd, 3),
    ("{", UnexpectedEnd, 1),
    (r#"{"a""#, UnexpectedEnd, 4),
    (r#"{"a":"#, UnexpectedEnd, 5),
    ("\"abc", UnexpectedEnd, 4),
    ("\"\\", UnexpectedEnd, 2),
    ("\"\\u12", UnexpectedEnd, 5),
    ("\"\\x\"", InvalidEscape, 1),
    ("\"\\u12G4\"", InvalidEscape, 1),
    ("\"\\U0041\"", InvalidEscape, 1),
    ("\"a\u{1}b\"", ControlCharacter, 2),
    ("\"tab\there\"", ControlCharacter, 4),
    ("\"line\nbreak\"", ControlCharacter, 5),
    ("tru", UnexpectedEnd, 3),
    ("trUe", UnexpectedChar, 2),
    ("nul", UnexpectedEnd, 3),
    ("\u{feff}[]", UnexpectedChar, 0),
    ("[\u{a0}]", UnexpectedChar, 1),
    // STC syntax is not JSON.
    ("[2]: 1,2", TrailingCharacters, 3),
    ("[1]{a}: 1", TrailingCharacters, 3),
    (r#"{"a"[2]: 1,2}"#, UnexpectedChar, 4),
];

#[test]
fn valid_json_is_accepted_by_both_readers() {
    for (input, canonical) in VALID_JSON {
        assert_eq!(decode(input).as_deref(), Ok(*canonical), "decode {input:?}");
        let stc = encode(input, &EncodeOptions::default()).unwrap_or_else(|e| panic!("encode {input:?}: {e}"));
        assert_eq!(decode(&stc).as_deref(), Ok(*canonical), "round trip {input:?} via {stc:?}");
    }
}

#[test]
fn invalid_json_is_rejected_by_encode() {
    for &(input, kind, offset) in INVALID_JSON {
        let err = encode(input, &EncodeOptions::default()).expect_err(input);
        assert_eq!((err.kind(), err.offset()), (kind, offset), "{input:?}: {err}");
    }
}

#[test]
fn invalid_utf8_is_rejected_first() {
    for (bytes, offset) in
        [(&b"\xff"[..], 0), (b"[\"\xc3\"]", 2), (b"{\"a\":\"\xed\xa0\x80\"}", 6), (b"[1,\xf0\x9f\x98]", 3)]
    {
        let err = stc_core::encode_bytes(bytes, &EncodeOptions::default()).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (InvalidUtf8, offset), "{bytes:?}");
        let err = stc_core::decode_bytes(bytes, &Default::default()).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (InvalidUtf8, offset), "{bytes:?}");
    }
}

/// STC extensions accepted by `decode`, with the JSON they mean.
const VALID_STC: &[(&str, &str)] = &[
    ("{name: \"foo\"}", r#"{"name":"foo"}"#),
    ("{_a9: 1, true: 2, null: 3, false: 4}", r#"{"_a9":1,"true":2,"null":3,"false":4}"#),
    ("{tags[3]: \"a\",\"b\",\"c\"}", r#"{"tags":["a","b","c"]}"#),
    ("{tags [ 3 ] : 1 , 2 , 3}", r#"{"tags":[1,2,3]}"#),
    ("{t[0]:}", r#"{"t":[]}"#),
    ("{t[0]:, u: 1}", r#"{"t":[],"u":1}"#),
    ("[3]: 1,2,3", "[1,2,3]"),
    ("[0]:", "[]"),
    ("[1]: null", "[null]"),
    ("[4]: 1,\"a\",true,null", r#"[1,"a",true,null]"#),
    ("[2]: [1]: 1, {a: 2}", r#"[[1],{"a":2}]"#),
    ("[[2]: 1,2, 3]", "[[1,2],3]"),
    ("[2]{a,b}: 1,2 / 3,4", r#"[{"a":1,"b":2},{"a":3,"b":4}]"#),
    ("[2]{a,b}:\n  1, 2 /\n  3, 4\n", r#"[{"a":1,"b":2},{"a":3,"b":4}]"#),
    ("[0]{a}:", "[]"),
    ("[1]{\"first name\", id}: \"Ada\", 1", r#"[{"first name":"Ada","id":1}]"#),
    ("[1]{a,a}: 1,2", r#"[{"a":1,"a":2}]"#),
    ("[1]{a}: null", r#"[{"a":null}]"#),
    ("[1]{a}: [2]{b}: 1 / 2", r#"[{"a":[{"b":1},{"b":2}]}]"#),
    ("{r[2]{x,y}: 1,2 / 3,4, n: 0}", r#"{"r":[{"x":1,"y":2},{"x":3,"y":4}],"n":0}"#),
    ("{r: [2]{x}: 1 / 2}", r#"{"r":[{"x":1},{"x":2}]}"#),
    ("[[1]{a}: \" / \", [1]{a}: \",\"]", r#"[[{"a":" / "}],[{"a":","}]]"#),
    ("{s[2]: \"[3]:\",\"[2]{a,b}:\"}", r#"{"s":["[3]:","[2]{a,b}:"]}"#),
    ("[ 2 ] { a } : 1 / 2", r#"[{"a":1},{"a":2}]"#),
    ("[2]{a}:1/2", r#"[{"a":1},{"a":2}]"#),
];

/// STC texts that must be rejected, with the spec's kind and offset.
const INVALID_STC: &[(&str, ErrorKind, usize)] = &[
    ("{a[3]: 1,2}", CountMismatch, 10),
    ("[2]{a,b}: 1 / 2,3", CountMismatch, 12),
    ("[2]{a}: 1,2 / 3", CountMismatch, 9),
    ("{t[3]{a}: 1 / 2}", CountMismatch, 15),
    ("[1]{a}: 1 / 2", CountMismatch, 10),
    ("[3]: 1,2", UnexpectedEnd, 8),
    ("{a[1]: 1,2}", UnexpectedChar, 9),
    ("[1]: 1,2", TrailingCharacters, 6),
    ("[-1]: 1", InvalidCount, 1),
    ("[1.5]{a}: 1", InvalidCount, 1),
    ("[1e1]: 1", InvalidCount, 1),
    ("{a[-1]: 1}", InvalidCount, 3),
    ("{a[x]: 1}", UnexpectedChar, 3),
    ("{a[01]: 1}", InvalidNumber, 4),
    ("{a[2 : 1,2}", UnexpectedChar, 5),
    ("{a[2] 1,2}", UnexpectedChar, 6),
    ("[99]: 1", CountTooLarge, 1),
    ("{a[5]: 1,2}", CountMismatch, 10),
    ("{a[6]: 1,2}", CountTooLarge, 3),
    ("[3]{a,b}: 1,2", CountTooLarge, 1),
    ("[99999999999999999999999999]: 1", CountTooLarge, 1),
    ("[1]{}: 1", UnexpectedChar, 4),
    ("[1]{a,}: 1", UnexpectedChar, 6),
    ("[1]{1}: 1", UnexpectedChar, 4),
    ("[1]{a} 1", UnexpectedChar, 7),
    ("[1]{a", UnexpectedEnd, 5),
    ("[2]{a}: 1 2", UnexpectedChar, 10),
    ("{9a: 1}", UnexpectedChar, 1),
    ("{a-b: 1}", UnexpectedChar, 2),
    ("{é: 1}", UnexpectedChar, 1),
    ("{a: 1 b: 2}", UnexpectedChar, 6),
    ("[2]:", CountTooLarge, 1),
    ("[2]: 1,", UnexpectedEnd, 7),
];

#[test]
fn stc_extensions_decode() {
    for (input, json) in VALID_STC {
        assert_eq!(decode(input).as_deref(), Ok(*json), "{input:?}");
    }
}

#[test]
fn invalid_stc_is_rejected_where_the_spec_says() {
    for &(input, kind, offset) in INVALID_STC {
        let err = decode(input).expect_err(input);
        assert_eq!((err.kind(), err.offset()), (kind, offset), "{input:?}: {err}");
    }
}

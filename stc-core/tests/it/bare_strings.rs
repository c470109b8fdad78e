//! Reading STC version 2 bare strings (spec "Bare strings", design F.4) and
//! the version 1 `newer_version` error for them (F.5): every value position,
//! literals versus runs, trailing spaces, the readable layout, the errors
//! with their positions, and a property test tying the reader to
//! [`is_bare_string`].

use proptest::prelude::*;
use stc_core::{
    decode, decode_with, is_bare_string, parse_stc, validate, validate_with, DecodeOptions, DocumentBuilder, Error,
    ErrorKind, JsonStr, Sink, Version,
};

fn v2() -> DecodeOptions {
    DecodeOptions::default().version(Version::V2)
}

/// The minified JSON string literal holding `s`.
fn quoted(s: &str) -> String {
    format!("\"{}\"", JsonStr::escape(s))
}

/// Decodes `stc` as version 2 through decode, validate and the document
/// builder (all must agree), and checks that version 1 refuses it with
/// `newer_version` at `v1_offset`.
fn reads(stc: &str, json: &str, v1_offset: usize) {
    assert_eq!(decode_with(stc, &v2()).unwrap(), json, "{stc:?}");
    validate_with(stc, &v2()).unwrap();
    let mut b = DocumentBuilder::new();
    parse_stc(stc, &v2(), &mut b).unwrap();
    assert_eq!(b.finish().unwrap().to_json(), json, "{stc:?}");
    let err = decode(stc).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::NewerVersion, Some(v1_offset)), "{stc:?}: {err}");
    assert!(err.message().contains("bare (unquoted) string is STC version 2"), "{err}");
    let v = validate(stc).unwrap_err();
    assert_eq!((v.kind(), v.offset()), (err.kind(), err.offset()), "{stc:?}");
}

fn v2_err(stc: &str) -> Error {
    let err = decode_with(stc, &v2()).unwrap_err();
    let v = validate_with(stc, &v2()).unwrap_err();
    assert_eq!((v.kind(), v.offset()), (err.kind(), err.offset()), "{stc:?}");
    err
}

#[test]
fn every_value_position() {
    // Member value.
    reads("{a: hello world}", r#"{"a":"hello world"}"#, 4);
    reads("{a: 1, b: x}", r#"{"a":1,"b":"x"}"#, 10);
    // Array element (plain JSON array): first, middle, last.
    reads("[x, 1, y z]", r#"["x",1,"y z"]"#, 1);
    reads("[1, y z]", r#"[1,"y z"]"#, 4);
    // Compact element, at value position and as a member.
    reads("([3]: ab,1,cd)", r#"["ab",1,"cd"]"#, 6);
    reads("{t[2]: 1, cd}", r#"{"t":[1,"cd"]}"#, 10);
    // Table cells: first, middle, last before '/', last before the end.
    reads("([2]{a,b}: x,1 / 2,y)", r#"[{"a":"x","b":1},{"a":2,"b":"y"}]"#, 11);
    reads("([2]{a,b}: 1,x / 2,y)", r#"[{"a":1,"b":"x"},{"a":2,"b":"y"}]"#, 13);
    reads("([2]{a,b}: 1,2 / 3,y)", r#"[{"a":1,"b":2},{"a":3,"b":"y"}]"#, 19);
    reads("{t[1]{a,b}: 1,y z}", r#"{"t":[{"a":1,"b":"y z"}]}"#, 14);
    // Keyed-table cells.
    for (stc, json) in [
        ("({2}{a,b}: k:x,1 / j:2,y)", r#"{"k":{"a":"x","b":1},"j":{"a":2,"b":"y"}}"#),
        ("{m{1}{a}: k:v w}", r#"{"m":{"k":{"a":"v w"}}}"#),
    ] {
        assert_eq!(decode_with(stc, &v2()).unwrap(), json, "{stc:?}");
        validate_with(stc, &v2()).unwrap();
        // Version 1 stops at the keyed table first.
        assert_eq!(decode(stc).unwrap_err().kind(), ErrorKind::NewerVersion);
    }
    // Column-group cells (version 1 stops at the group first).
    let stc = "([1]{a,g{b,c}}: x,y,z)";
    assert_eq!(decode_with(stc, &v2()).unwrap(), r#"[{"a":"x","g":{"b":"y","c":"z"}}]"#);
    assert_eq!(decode(stc).unwrap_err().kind(), ErrorKind::NewerVersion);
    assert_eq!(decode("([1]{a,b}: ~,y)").unwrap_err().offset(), Some(11)); // the '~' comes first
    assert_eq!(decode_with("([1]{a,b}: ~,y)", &v2()).unwrap(), r#"[{"b":"y"}]"#);
    // The top-level value.
    reads("hello there", r#""hello there""#, 0);
    reads("  é  ", r#""é""#, 2);
    // A value nested inside a table cell.
    reads("([1]{a}: [2]: p,q)", r#"[{"a":["p","q"]}]"#, 14);
}

#[test]
fn literals_versus_runs() {
    // Exactly a literal: the literal.
    for (stc, json) in [
        ("true", "true"),
        ("([1]: true)", "[true]"),
        ("([2]{a}: null / 1)", r#"[{"a":null},{"a":1}]"#),
        ("([2]{a}: true  / false )", r#"[{"a":true},{"a":false}]"#),
        ("{a: null , b: false}", r#"{"a":null,"b":false}"#),
        ("[true ,null ]", "[true,null]"),
    ] {
        assert_eq!(decode_with(stc, &v2()).unwrap(), json, "{stc:?}");
        assert_eq!(decode(stc).unwrap(), json, "{stc:?}"); // plain version 1 text
    }
    // A run that only starts like one: a string.
    reads("true story", r#""true story""#, 0);
    reads("([1]: true story)", r#"["true story"]"#, 6);
    reads("{a: nullable}", r#"{"a":"nullable"}"#, 4);
    reads("[falsey, null]", r#"["falsey",null]"#, 1);
    reads("([2]{a}: null x / true)", r#"[{"a":"null x"},{"a":true}]"#, 9);
    reads("[trueé]", r#"["trueé"]"#, 1);
    reads("([2]{a}: null / x)", r#"[{"a":null},{"a":"x"}]"#, 16);
}

#[test]
fn trailing_spaces_are_not_part_of_the_run() {
    reads("{a: x y   , b: z  }", r#"{"a":"x y","b":"z"}"#, 4);
    reads("([2]{a,b}: p q  ,r   /   s,t)", r#"[{"a":"p q","b":"r"},{"a":"s","b":"t"}]"#, 11);
    reads("[x  \n]", r#"["x"]"#, 1);
    reads("x   ", r#""x""#, 0);
    // Inner spaces are kept as written.
    reads("[a  b]", r#"["a  b"]"#, 1);
}

#[test]
fn the_readable_layout() {
    reads(
        "([2]{id,name}:\n  1,users /\n  2,order items)",
        r#"[{"id":1,"name":"users"},{"id":2,"name":"order items"}]"#,
        19,
    );
    reads("{tags[2]: api,mcp gateway, n: 1}", r#"{"tags":["api","mcp gateway"],"n":1}"#, 10);
    reads("{\n  a: x,\n  b: [1]{c}:\n    y\n}", r#"{"a":"x","b":[{"c":"y"}]}"#, 7);
}

#[test]
fn a_sink_sees_plain_strings() {
    struct Strings(Vec<(String, bool)>);
    impl<'a> Sink<'a> for Strings {
        fn string(&mut self, value: JsonStr<'a>) -> Result<(), stc_core::Abort> {
            self.0.push((value.raw().to_string(), value.has_escapes()));
            Ok(())
        }
    }
    let mut sink = Strings(Vec::new());
    parse_stc("([3]: a b,\"c\\n\",d'e)", &v2(), &mut sink).unwrap();
    assert_eq!(sink.0, [("a b".into(), false), ("c\\n".into(), true), ("d'e".into(), false)]);
}

#[test]
fn runs_that_must_be_quoted_are_unexpected_char_at_their_first_byte() {
    for (stc, at) in [
        ("{a: True}", 4),
        ("{a: NaN}", 4),
        ("{a: nan}", 4),
        ("[inf]", 1),
        ("([1]: Infinity)", 6),
        ("([2]{a,b}: 1,FALSE / 2,3)", 13),
        ("NULL", 0),
        ("{a: +1}", 4),
        ("[.5 x]", 1),
    ] {
        let err = v2_err(stc);
        assert_eq!((err.kind(), err.offset()), (ErrorKind::UnexpectedChar, Some(at)), "{stc:?}: {err}");
        assert!(err.message().contains("must be quoted"), "{err}");
        // Version 1 keeps its own error (the run is no bare string).
        let v1 = decode(stc).unwrap_err();
        assert_ne!(v1.kind(), ErrorKind::NewerVersion, "{stc:?}");
    }
    // Version 1's errors for these are unchanged: at the first wrong byte.
    assert_eq!(decode("{a: nan}").unwrap_err().offset(), Some(5));
    assert_eq!(decode("{a: True}").unwrap_err().offset(), Some(4));
}

#[test]
fn what_follows_a_run_is_read_as_usual() {
    for (stc, kind, at) in [
        ("{a: ab\"c\"}", ErrorKind::UnexpectedChar, 6),
        ("{a: a\\b}", ErrorKind::UnexpectedChar, 5),
        ("{a: ab\u{1}}", ErrorKind::UnexpectedChar, 6),
        ("([1]: ab\u{7f})", ErrorKind::UnexpectedChar, 8),
        ("([1]: ab\u{85})", ErrorKind::UnexpectedChar, 8),
        ("{a: ab\tcd}", ErrorKind::UnexpectedChar, 7),
        ("{a: x\u{a0}y}", ErrorKind::UnexpectedChar, 5),
        ("([2]: a:b)", ErrorKind::UnexpectedChar, 7),
        ("{a: x y", ErrorKind::UnexpectedEnd, 7),
        ("[x", ErrorKind::UnexpectedEnd, 2),
        ("([1]{a}: ~x)", ErrorKind::UnexpectedChar, 10),
        ("{a: ~}", ErrorKind::UnexpectedChar, 4),
        ("hello [", ErrorKind::TrailingCharacters, 6),
    ] {
        let err = v2_err(stc);
        assert_eq!((err.kind(), err.offset()), (kind, Some(at)), "{stc:?}: {err}");
    }
    // '-' and digits start numbers, never runs.
    for (stc, kind, at) in [
        ("{a: -x}", ErrorKind::InvalidNumber, 5),
        ("{a: 1st}", ErrorKind::UnexpectedChar, 5),
        ("([1]: 1st)", ErrorKind::UnexpectedChar, 7),
        ("[-inf]", ErrorKind::InvalidNumber, 2),
    ] {
        let err = v2_err(stc);
        assert_eq!((err.kind(), err.offset()), (kind, Some(at)), "{stc:?}: {err}");
    }
}

#[test]
fn version_1_positions_have_line_and_column() {
    let stc = "{\n  a: 1,\n  b: naïve text\n}";
    let err = decode(stc).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset(), err.line(), err.column()),
        (ErrorKind::NewerVersion, Some(15), Some(3), Some(6))
    );
    assert_eq!(decode_with(stc, &v2()).unwrap(), r#"{"a":1,"b":"naïve text"}"#);
    let stc = "([1]{a}:\n  é x)";
    let err = decode(stc).unwrap_err();
    assert_eq!((err.offset(), err.line(), err.column()), (Some(11), Some(2), Some(3)));
    // A mistyped literal that qualifies as a bare string is newer_version
    // at its first byte (version 2 would read it as a string).
    for (stc, at) in [("{a: tru}", 4), ("[nul", 1), ("[ture, 1]", 1), ("{a: nulll}", 4)] {
        let err = decode(stc).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (ErrorKind::NewerVersion, Some(at)), "{stc:?}");
    }
}

#[test]
fn json_reading_knows_no_runs() {
    // `parse_json` (the encoder's input) is strict JSON in every version.
    for (json, at) in [("{\"a\": tru}", 9), ("[x]", 1), ("[true story]", 6), ("hello", 0)] {
        let err = stc_core::encode(json).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (ErrorKind::UnexpectedChar, Some(at)), "{json:?}: {err}");
    }
}

/// Characters near every clause of the rule.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::sample::select(vec!['a', 'Z', 'x', 'e', 'E', 'é', '中', '😀', '_', '#', '\'', '(', '=', '!', '|', 'е', 'Ł']),
        3 => Just(' '),
        2 => prop::sample::select(vec!['"', '\\', ',', '/', ':', '[', ']', '{', '}', '~']),
        2 => prop::sample::select(vec!['-', '+', '.', '0', '7']),
        1 => prop::sample::select(vec!['\t', '\n', '\r', '\u{0}', '\u{1f}', '\u{7f}', '\u{85}', '\u{9f}']),
        1 => prop::sample::select(vec!['\u{a0}', '\u{2028}', '\u{3000}', '\u{feff}', '\u{200b}', '\u{202e}', '\u{ad}']),
        1 => any::<char>(),
    ]
}

fn interesting_string() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "", "true", "false", "null", "nan", "inf", "infinity", "True", "NaN", "NULL", "None", "nil",
    ]);
    (words, prop::collection::vec(interesting_char(), 0..8), any::<bool>()).prop_map(|(w, cs, prefix)| {
        let tail: String = cs.into_iter().collect();
        if prefix {
            format!("{w}{tail}")
        } else {
            format!("{tail}{w}")
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// `is_bare_string(s)` ⇒ the version 2 reader reads `s` written bare
    /// back as `s` in every position (version 1: `newer_version` at its
    /// first byte); otherwise it never reads the bare text as `s`.
    #[test]
    fn the_reader_agrees_with_the_rule(s in interesting_string()) {
        let texts = [
            (format!("([1]: {s})"), format!("[{}]", quoted(&s)), 6),
            (format!("{{k: {s}}}"), format!("{{\"k\":{}}}", quoted(&s)), 4),
            (format!("([2]{{a,b}}: {s},1 / 2,{s})"), format!("[{{\"a\":{q},\"b\":1}},{{\"a\":2,\"b\":{q}}}]", q = quoted(&s)), 11),
            (s.clone(), quoted(&s), 0),
        ];
        for (stc, json, at) in texts {
            let got = decode_with(&stc, &v2());
            if is_bare_string(&s) {
                prop_assert_eq!(got.as_deref().ok(), Some(json.as_str()), "{:?}: {:?}", stc, got);
                let err = decode(&stc).unwrap_err();
                prop_assert_eq!((err.kind(), err.offset()), (ErrorKind::NewerVersion, Some(at)), "{:?}", stc);
            } else if let Ok(out) = got {
                prop_assert_ne!(out, json, "{:?}", stc);
            }
        }
    }
}

/// Short texts from STC's pieces, bare runs and literals among them.
fn stc_ish() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "[", "]", "{", "}", ":", ",", "/", "~", " ", "\n", "a", "k:", "x y", "true", "tru", "null", "nu", "false", "T",
        "NaN", "1", "-", "+", ".", "\"s\"", "[1]:", "[2]:", "{a,b}:", "[1]{a}:", "[2]{a}:", "{1}{a}:", "é", "'", "(",
        ")", "@", "None", "е",
    ]);
    prop::collection::vec(piece, 1..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Design F.5 and the fuzz target's rule: where version 1 reads a text
    /// version 2 reads the same value; where only version 2 reads it,
    /// version 1 said `newer_version`.
    #[test]
    fn version_1_reads_the_same_or_says_newer_version(stc in stc_ish()) {
        let one = decode(&stc);
        let two = decode_with(&stc, &v2());
        match (&one, &two) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Ok(_), Err(e)) => prop_assert!(false, "version 2 rejects what version 1 reads: {}", e),
            (Err(e), Ok(_)) => prop_assert_eq!(e.kind(), ErrorKind::NewerVersion, "{:?}: {}", stc, e),
            (Err(_), Err(_)) => {}
        }
    }
}

#[test]
fn look_alikes_of_literals_are_written_quoted_and_refused_bare() {
    // Issue 25: an invisible character, a Cyrillic letter, another
    // language's null.
    let json = "{\"a\":\"true\u{200b}\",\"b\":\"tru\u{435}\",\"c\":\"None\",\"d\":\"Ada\"}";
    let opts = stc_core::EncodeOptions::default().version(Version::V2);
    let stc = stc_core::encode_with(json, &opts).unwrap();
    assert_eq!(stc, "{a:\"true\u{200b}\",b:\"tru\u{435}\",c:\"None\",d:Ada}");
    assert_eq!(decode_with(&stc, &v2()).unwrap(), json);
    for (stc, at) in [("{a: true\u{200b}}", 8), ("{a: tru\u{435}}", 7), ("{a: None}", 4), ("{a: \u{202e}x}", 4)] {
        let err = v2_err(stc);
        assert_eq!((err.kind(), err.offset()), (ErrorKind::UnexpectedChar, Some(at)), "{stc:?}: {err}");
    }
}

#[test]
fn reserved_marks_are_newer_version_where_a_value_is_due() {
    for mark in "!#$%&'()*;<=>?@^_`|".chars() {
        for (stc, at) in
            [(format!("{{a: {mark}ref1}}"), 4), (format!("[1, {mark}x]"), 4), (format!("{{t[1]: {mark}}}"), 7)]
        {
            for err in [v2_err(&stc), decode(&stc).unwrap_err()] {
                assert_eq!((err.kind(), err.offset()), (ErrorKind::NewerVersion, Some(at)), "{stc:?}: {err}");
                assert!(err.message().contains("reserved for a later version"), "{err}");
            }
        }
    }
    // Inside a run they are characters of the string.
    assert_eq!(decode_with("{a: a@b, b: R&D}", &v2()).unwrap(), r#"{"a":"a@b","b":"R&D"}"#);
}

//! `DocumentBuilder`'s typed and checked pushes at their edges: integers
//! written by the core (`push_i64`, `push_u64`) against the lexemes of
//! `to_string`, `push_number`'s grammar check against a plain reference
//! grammar (every kind of error, lexemes around the eight-byte words the
//! check reads), and `push_str`/`push_key` against serde_json's escaping
//! with a byte to escape at every position of the first words. A refused
//! push must leave the document as it was.

use proptest::prelude::*;
use stc_core::{DocumentBuilder, ErrorKind};

/// The document `[value]` built by `push`, as JSON.
fn in_array(push: impl FnOnce(&mut DocumentBuilder<'_>) -> Result<(), stc_core::Error>) -> String {
    let mut b = DocumentBuilder::new();
    b.push_begin_array().unwrap();
    push(&mut b).unwrap();
    b.push_end_array().unwrap();
    b.finish().unwrap().to_json()
}

/// JSON's number grammar, one byte at a time: `-`? int frac? exp?.
fn reference_is_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Pushes `lexeme` as the second element of `[true, _]`: accepted, the
/// document holds it exactly; refused, an `InvalidNumber` error and the
/// document is `[true]`.
fn check_lexeme(lexeme: &str) {
    let mut b = DocumentBuilder::new();
    b.push_begin_array().unwrap();
    b.push_bool(true).unwrap();
    let answer = b.push_number(lexeme);
    b.push_end_array().unwrap();
    let json = b.finish().unwrap().to_json();
    if reference_is_number(lexeme) {
        assert!(answer.is_ok(), "{lexeme:?} refused: {answer:?}");
        assert_eq!(json, format!("[true,{lexeme}]"));
    } else {
        assert_eq!(answer.unwrap_err().kind(), ErrorKind::InvalidNumber, "{lexeme:?}");
        assert_eq!(json, "[true]", "{lexeme:?}");
    }
}

#[test]
fn integers_are_written_as_to_string_writes_them() {
    for v in [i64::MIN, i64::MIN + 1, -1_000_000_000_000, -10, -1, 0, 1, 9, 10, 99, 100, i64::MAX - 1, i64::MAX] {
        assert_eq!(in_array(|b| b.push_i64(v)), format!("[{v}]"));
        assert_eq!(in_array(|b| b.push_i64(v)), in_array(|b| b.push_number(&v.to_string())));
    }
    for v in [0, 1, 10, u64::from(u32::MAX), i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX - 1, u64::MAX] {
        assert_eq!(in_array(|b| b.push_u64(v)), format!("[{v}]"));
    }
    // `-0` is a lexeme only `push_number` can give, and it is kept.
    assert_eq!(in_array(|b| b.push_number("-0")), "[-0]");
    assert_eq!(in_array(|b| b.push_i64(-0)), "[0]");
}

#[test]
fn refused_integer_pushes_have_no_effect() {
    let mut b = DocumentBuilder::new();
    b.push_begin_object().unwrap();
    // A value without its key: refused, and no text is left behind.
    assert_eq!(b.push_i64(-5).unwrap_err().kind(), ErrorKind::InvalidDocument);
    assert_eq!(b.push_u64(7).unwrap_err().kind(), ErrorKind::InvalidDocument);
    assert_eq!(b.push_number("12").unwrap_err().kind(), ErrorKind::InvalidDocument);
    assert_eq!(b.push_str("x").unwrap_err().kind(), ErrorKind::InvalidDocument);
    b.push_key("k").unwrap();
    assert_eq!(b.push_key("k2").unwrap_err().kind(), ErrorKind::InvalidDocument);
    // A bad lexeme is a number error even where no value may go.
    assert_eq!(b.push_number("1.").unwrap_err().kind(), ErrorKind::InvalidNumber);
    b.push_i64(i64::MIN).unwrap();
    b.push_key("u").unwrap();
    b.push_u64(u64::MAX).unwrap();
    b.push_end_object().unwrap();
    assert_eq!(b.push_i64(1).unwrap_err().kind(), ErrorKind::InvalidDocument);
    let doc = b.finish().unwrap();
    assert_eq!(doc.to_json(), r#"{"k":-9223372036854775808,"u":18446744073709551615}"#);
    assert_eq!(doc.node_count(), 5);
}

#[test]
fn every_number_grammar_error_is_refused() {
    // One of each error, alone and after prefixes that put its bytes at
    // every position of an eight-byte word.
    let bad = [
        "",
        "-",
        "+1",
        "01",
        "-01",
        "00",
        "1.",
        "-1.",
        ".5",
        "1.e3",
        "1e",
        "1E",
        "1e+",
        "1e-",
        "1e+-1",
        "1ee1",
        "1.2.3",
        "1e3.5",
        "--1",
        "0x1",
        "1 ",
        " 1",
        "NaN",
        "Infinity",
        "-Infinity",
        "1,0",
        "1_000",
        "٣",
        "1\u{0}",
        "1e1e1",
    ];
    for lexeme in bad {
        assert!(!reference_is_number(lexeme), "{lexeme:?}");
        check_lexeme(lexeme);
    }
    for prefix_len in 0..20 {
        let digits: String = "1234567890123456789".chars().take(prefix_len).collect();
        for lexeme in [
            digits.clone(),
            format!("{digits}."),
            format!("{digits}.5"),
            format!("{digits}e"),
            format!("{digits}e+{digits}"),
            format!("-{digits}"),
            format!("0{digits}"),
            format!("0.{digits}"),
            format!("0.{digits}x"),
            format!("1.{digits}e-"),
            format!("1.{digits}E+7"),
            format!("9{digits} "),
            format!("-0.{digits}e{digits}"),
        ] {
            check_lexeme(&lexeme);
        }
    }
    for good in ["0", "-0", "-0.0", "0.0e0", "1e400", "-1E-400", "123456789012345678901234567890"] {
        assert!(reference_is_number(good));
        check_lexeme(good);
    }
}

#[test]
fn strings_with_a_byte_to_escape_at_every_position() {
    let specials =
        ["\"", "\\", "\n", "\u{0}", "\u{1}", "\u{1f}", " ", "!", "\u{7f}", "\u{80}", "é", "\u{2028}", "\u{1F600}", "/"];
    for len in 0..40 {
        for at in 0..=len {
            for special in specials {
                let mut s: String = "abcdefghijklmnopqrstuvwxyz0123456789ABCD".chars().take(len).collect();
                s.insert_str(at, special);
                let expected = serde_json::to_string(&serde_json::json!({ s.clone(): [s.clone()] })).unwrap();
                let mut b = DocumentBuilder::new();
                b.push_begin_object().unwrap();
                b.push_key(&s).unwrap();
                b.push_begin_array().unwrap();
                b.push_str(&s).unwrap();
                b.push_end_array().unwrap();
                b.push_end_object().unwrap();
                assert_eq!(b.finish().unwrap().to_json(), expected, "{s:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_integer_is_written_as_to_string_writes_it(v in any::<i64>(), u in any::<u64>()) {
        prop_assert_eq!(in_array(|b| b.push_i64(v)), format!("[{v}]"));
        prop_assert_eq!(in_array(|b| b.push_u64(u)), format!("[{u}]"));
    }

    #[test]
    fn any_string_is_escaped_as_serde_json_escapes_it(
        s in prop::collection::vec(
            prop::sample::select(vec!['a', ' ', '"', '\\', '\u{0}', '\u{1f}', '\u{7f}', 'é', '\u{ffff}', '\u{10000}', '!', '#', '[', ']']),
            0..24,
        ).prop_map(|c| c.into_iter().collect::<String>())
    ) {
        let expected = serde_json::to_string(&serde_json::json!({ s.clone(): s.clone() })).unwrap();
        let mut b = DocumentBuilder::new();
        b.push_begin_object().unwrap();
        b.push_key(&s).unwrap();
        b.push_str(&s).unwrap();
        b.push_end_object().unwrap();
        prop_assert_eq!(b.finish().unwrap().to_json(), expected);
    }

    #[test]
    fn push_number_accepts_exactly_the_grammar(
        lexeme in prop::collection::vec(prop::sample::select(b"0123456789-+.eE x".to_vec()), 0..24)
            .prop_map(|b| String::from_utf8(b).unwrap())
    ) {
        check_lexeme(&lexeme);
    }

    #[test]
    fn formatted_floats_are_accepted(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        check_lexeme(&format!("{f:?}"));
        check_lexeme(&format!("{f:e}"));
        check_lexeme(&format!("{f:E}"));
    }
}

/// One builder call, for the sequences below.
#[derive(Debug, Clone, Copy)]
enum Call {
    Null,
    Int,
    Str,
    Key,
    BeginArray,
    EndArray,
    BeginObject,
    EndObject,
}

/// The structure checks as the builder made them before it kept a state
/// (a stack of open containers and an `after_key` flag): `Err(message)`
/// for a refused call, which changes nothing.
#[derive(Default)]
struct Model {
    open: Vec<bool>,
    after_key: bool,
    values: usize,
}

impl Model {
    fn apply(&mut self, call: Call, max_depth: usize) -> Result<(), &'static str> {
        let value = |m: &mut Model| match m.open.last() {
            None if m.values != 0 => Err("a document holds exactly one top-level value"),
            Some(true) if !m.after_key => Err("an object member needs a key before its value"),
            _ => {
                m.after_key = false;
                m.values += 1;
                Ok(())
            }
        };
        match call {
            Call::Null | Call::Int | Call::Str => value(self),
            Call::BeginArray | Call::BeginObject => {
                if self.open.len() >= max_depth {
                    return Err("nesting deeper than the limit");
                }
                value(self)?;
                self.open.push(matches!(call, Call::BeginObject));
                Ok(())
            }
            Call::Key => {
                if self.open.last() != Some(&true) || self.after_key {
                    return Err("a key is only allowed directly inside an object, before a value");
                }
                self.after_key = true;
                Ok(())
            }
            Call::EndArray => {
                if self.open.last() != Some(&false) {
                    return Err("end_array without an open array");
                }
                self.open.pop();
                Ok(())
            }
            Call::EndObject => match self.open.last() {
                Some(true) if self.after_key => Err("end_object right after a key: the member's value is missing"),
                Some(true) => {
                    self.open.pop();
                    Ok(())
                }
                _ => Err("end_object without an open object"),
            },
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any sequence of calls: each accepted or refused (with the same
    /// message) as the model says, and `finish` gives what the model's
    /// accepted calls build.
    #[test]
    fn the_builder_accepts_and_refuses_as_before(
        calls in prop::collection::vec(
            prop::sample::select(vec![
                Call::Null, Call::Int, Call::Str, Call::Key, Call::BeginArray, Call::EndArray,
                Call::BeginObject, Call::EndObject,
            ]),
            0..24,
        ),
        max_depth in 1usize..4,
    ) {
        let mut b = DocumentBuilder::with_capacity(0, max_depth);
        let mut model = Model::default();
        let mut text = String::new();
        for call in calls {
            let expected = model.apply(call, max_depth);
            let answer = match call {
                Call::Null => b.push_null(),
                Call::Int => b.push_i64(-7),
                Call::Str => b.push_str("s\n"),
                Call::Key => b.push_key("k"),
                Call::BeginArray => b.push_begin_array(),
                Call::EndArray => b.push_end_array(),
                Call::BeginObject => b.push_begin_object(),
                Call::EndObject => b.push_end_object(),
            };
            match (expected, answer) {
                (Ok(()), Ok(())) => {
                    // The accepted calls as JSON text, to compare at the end.
                    let piece = match call {
                        Call::Null => "null",
                        Call::Int => "-7",
                        Call::Str => "\"s\\n\"",
                        Call::Key => "\"k\":",
                        Call::BeginArray => "[",
                        Call::EndArray => "]",
                        Call::BeginObject => "{",
                        Call::EndObject => "}",
                    };
                    let needs_comma = matches!(text.chars().last(), Some(c) if c != '[' && c != '{' && c != ':')
                        && !matches!(call, Call::EndArray | Call::EndObject);
                    if needs_comma {
                        text.push(',');
                    }
                    text.push_str(piece);
                }
                (Err(message), Err(e)) => prop_assert!(e.message().contains(message), "{call:?}: {e}"),
                (expected, answer) => prop_assert!(false, "{call:?}: expected {expected:?}, got {answer:?}"),
            }
        }
        let complete = model.values != 0 && model.open.is_empty();
        match b.finish() {
            Ok(doc) => {
                prop_assert!(complete);
                prop_assert_eq!(doc.to_json(), text);
            }
            Err(e) => {
                prop_assert!(!complete, "{e}");
                prop_assert_eq!(e.kind(), ErrorKind::InvalidDocument);
            }
        }
    }
}

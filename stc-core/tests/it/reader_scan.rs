//! The reader's fast scans at their edges, through the public API: string
//! bodies (scanned a word and a 16-byte block at a time, escapes judged
//! canonical or not while reading), bare keys (eight bytes per step).
//!
//! Every decoded string is checked against serde_json (its value, and its
//! canonical JSON text, which serde_json writes the way the spec does), at
//! every position of strings of 0 to 40 bytes, so each special byte lands on
//! every position of an 8-byte word and of a 16-byte block.

use stc_core::{decode, parse_stc, DecodeOptions, ErrorKind, JsonStr, Limits, Sink, Version};

/// The escapes a body may hold, with what they decode to.
const ESCAPES: [(&str, &str); 14] = [
    (r#"\""#, "\""),
    (r"\\", "\\"),
    (r"\/", "/"),
    (r"\b", "\u{8}"),
    (r"\f", "\u{c}"),
    (r"\n", "\n"),
    (r"\r", "\r"),
    (r"\t", "\t"),
    (r"\u0001", "\u{1}"),
    (r"\u001f", "\u{1f}"),
    (r"\u001F", "\u{1f}"),
    (r"\u0041", "A"),
    (r"\u00e9", "é"),
    (r"\uD83D\uDE00", "😀"),
];

/// Plain text of `len` bytes: ASCII, and bytes right next to the special ones.
fn plain(len: usize) -> String {
    let pattern = "ab !#[]^_`{|}~\u{7f}cd0123456789XYZ-+.,:;<=>?@$%&'()*";
    pattern.chars().cycle().take(len).collect()
}

/// The canonical JSON text of a string value, as serde_json writes it.
fn canonical_json(value: &str) -> String {
    serde_json::to_string(value).unwrap()
}

/// Records every string value's body as the reader hands it over.
#[derive(Default)]
struct Strings<'a>(Vec<JsonStr<'a>>);

impl<'a> Sink<'a> for Strings<'a> {
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), stc_core::Abort> {
        self.0.push(value);
        Ok(())
    }
}

/// Decodes the STC string literal `literal` both ways: to JSON text, and as
/// a `JsonStr` (decoded text, canonical body, whether it has escapes).
fn check_string(literal: &str, want: &str) {
    let json = decode(literal).unwrap_or_else(|e| panic!("{literal:?}: {e}"));
    assert_eq!(json, canonical_json(want), "{literal:?}");
    // In an array and in a member too: the writer's separators around it.
    let json = decode(&format!("[{literal},{literal}]")).unwrap();
    assert_eq!(json, format!("[{0},{0}]", canonical_json(want)), "{literal:?}");
    let json = decode(&format!("{{k:{literal},{literal}:1}}")).unwrap();
    assert_eq!(json, format!("{{\"k\":{0},{0}:1}}", canonical_json(want)), "{literal:?}");

    let mut sink = Strings::default();
    parse_stc(literal, &Limits::default(), &mut sink).unwrap();
    let [s] = sink.0[..] else { panic!("{literal:?}: one string expected") };
    let body = &literal[1..literal.len() - 1];
    assert_eq!(s.raw(), body);
    assert_eq!(s.to_str().as_deref(), Some(want), "{literal:?}");
    assert_eq!(s.has_escapes(), body.contains('\\'), "{literal:?}");
    let canonical = canonical_json(want);
    assert_eq!(s.canonical(), &canonical[1..canonical.len() - 1], "{literal:?}");
    assert_eq!(s.to_utf16(), want.encode_utf16().collect::<Vec<_>>(), "{literal:?}");
}

#[test]
fn plain_strings_of_every_length_up_to_40() {
    for len in 0..=40 {
        let text = plain(len);
        check_string(&format!("\"{text}\""), &text);
    }
}

#[test]
fn every_escape_at_every_position_of_strings_up_to_40_bytes() {
    for len in 0..=40 {
        let text = plain(len);
        for at in 0..=len {
            for (escape, value) in ESCAPES {
                let literal = format!("\"{}{escape}{}\"", &text[..at], &text[at..]);
                check_string(&literal, &format!("{}{value}{}", &text[..at], &text[at..]));
            }
        }
    }
}

#[test]
fn canonical_and_non_canonical_escapes_mixed_in_one_string() {
    // The first non-canonical escape, anywhere, makes the body re-canonicalized.
    for len in 0..=24 {
        let text = plain(len);
        for at in 0..=len {
            let literal = format!("\"\\n{}\\u0041{}\\\"\"", &text[..at], &text[at..]);
            check_string(&literal, &format!("\n{}A{}\"", &text[..at], &text[at..]));
            let literal = format!("\"{}\\/{}\\t\"", &text[..at], &text[at..]);
            check_string(&literal, &format!("{}/{}\t", &text[..at], &text[at..]));
        }
    }
}

#[test]
fn multibyte_utf8_across_word_and_block_boundaries() {
    for pad in 0..=33 {
        for ch in ["é", "日", "😀", "\u{80}", "\u{2028}", "\u{fffd}"] {
            let text = format!("{}{ch}{ch}{}", "x".repeat(pad), "y".repeat(pad % 7));
            check_string(&format!("\"{text}\""), &text);
            let literal = format!("\"{}{ch}\\n{ch}\"", "x".repeat(pad));
            check_string(&literal, &format!("{}{ch}\n{ch}", "x".repeat(pad)));
        }
    }
}

#[test]
fn a_raw_control_byte_at_every_position_is_an_error_there() {
    for len in 1..=40 {
        let text = plain(len);
        for at in 0..len {
            for control in ['\u{0}', '\u{1}', '\n', '\u{1f}'] {
                let mut body: Vec<char> = text.chars().collect();
                body[at] = control;
                let literal = format!("[\"{}\"]", body.iter().collect::<String>());
                let e = decode(&literal).unwrap_err();
                assert_eq!((e.kind(), e.offset()), (ErrorKind::ControlCharacter, Some(2 + at)), "{literal:?}");
            }
        }
    }
}

#[test]
fn a_quote_at_every_position_ends_the_string_there() {
    for len in 1..=40 {
        let text = plain(len);
        for at in 0..len {
            // `"` + text[..at] + `"` is the string; the rest is trailing input.
            let literal = format!("\"{}\"{}\"", &text[..at], &text[at..]);
            let spaces = text[at..].len() - text[at..].trim_start_matches(' ').len();
            let e = decode(&literal).unwrap_err();
            assert_eq!((e.kind(), e.offset()), (ErrorKind::TrailingCharacters, Some(at + 2 + spaces)), "{literal:?}");
            assert_eq!(decode(&format!("\"{}\"", &text[..at])).unwrap(), canonical_json(&text[..at]));
        }
    }
}

#[test]
fn unterminated_strings_and_escapes_at_the_end_of_input() {
    for len in 0..=40 {
        let text = plain(len);
        let e = decode(&format!("\"{text}")).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::UnexpectedEnd, Some(len + 1)), "{len}");
        for tail in ["\\", "\\u", "\\u0", "\\u00", "\\u004"] {
            let input = format!("\"{text}{tail}");
            let e = decode(&input).unwrap_err();
            assert_eq!((e.kind(), e.offset()), (ErrorKind::UnexpectedEnd, Some(input.len())), "{input:?}");
        }
        for bad in ["\\x", "\\u00G0", "\\U0041", "\\'"] {
            let input = format!("\"{text}{bad}\"");
            let e = decode(&input).unwrap_err();
            assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidEscape, Some(len + 1)), "{input:?}");
        }
        // A complete escape right at the end, then no closing quote.
        let input = format!("\"{text}\\n");
        let e = decode(&input).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::UnexpectedEnd, Some(input.len())), "{input:?}");
    }
}

#[test]
fn bare_keys_of_every_length_end_at_the_first_other_byte() {
    let chars = "aZ_09bY8c_X7dW6eV5fU4gT3hS2iR1jQ0kPlOmNnM";
    for len in 1..=40 {
        let key = &chars[..len];
        let json = decode(&format!("{{{key}:1,{key}[1]:2}}")).unwrap();
        assert_eq!(json, format!("{{\"{key}\":1,\"{key}\":[2]}}"), "{key}");
        // In a column list and as a keyed row's key (version 2).
        let v2 = DecodeOptions::default().version(Version::V2);
        let json = stc_core::decode_with(&format!("([1]{{{key},b}}:1,2)"), &v2).unwrap();
        assert_eq!(json, format!("[{{\"{key}\":1,\"b\":2}}]"), "{key}");
        let json = stc_core::decode_with(&format!("({{1}}{{x}}:{key}:1)"), &v2).unwrap();
        assert_eq!(json, format!("{{\"{key}\":{{\"x\":1}}}}"), "{key}");
        // The first byte that cannot continue a bare key ends it; what follows must be ':'.
        for after in ["-", "é", "$", ".", "\u{7f}", "😀", "`", "@", "\"", "}"] {
            let input = format!("{{{key}{after}x:1}}");
            let e = decode(&input).unwrap_err();
            assert_eq!(e.offset(), Some(1 + len), "{input:?}: {e}");
        }
    }
}

#[test]
fn numbers_with_digit_runs_of_every_length_up_to_40() {
    let digits = "1234567890123456789012345678901234567890";
    for len in 1..=40 {
        let int = &digits[..len];
        for lexeme in [
            int.to_string(),
            format!("-{int}"),
            format!("0.{int}"),
            format!("{int}.{int}"),
            format!("{int}e{int}"),
            format!("-{int}.5E-{int}"),
            format!("{int}.0e+1"),
        ] {
            assert_eq!(decode(&lexeme).unwrap(), lexeme);
            assert_eq!(decode(&format!("([2]:{lexeme},{lexeme})")).unwrap(), format!("[{lexeme},{lexeme}]"));
            assert_eq!(decode(&format!("{{n:{lexeme}}}")).unwrap(), format!("{{\"n\":{lexeme}}}"));
            assert_eq!(decode(&format!("[{lexeme}]")).unwrap(), format!("[{lexeme}]"));
        }
        // Where a number stops following the grammar: kind and offset.
        for (input, kind, at) in [
            (format!("{{n:{int}.x}}"), ErrorKind::InvalidNumber, 4 + len),
            (format!("{{n:{int}e+}}"), ErrorKind::InvalidNumber, 5 + len),
            (format!("{{n:-{int}.}}"), ErrorKind::InvalidNumber, 5 + len),
            (format!("{int}."), ErrorKind::UnexpectedEnd, 1 + len),
            (format!("{int}E"), ErrorKind::UnexpectedEnd, 1 + len),
            (format!("[0{int}]"), ErrorKind::InvalidNumber, 2),
            (format!("{{n:{int}x}}"), ErrorKind::UnexpectedChar, 3 + len),
        ] {
            let e = decode(&input).unwrap_err();
            assert_eq!((e.kind(), e.offset()), (kind, Some(at)), "{input:?}: {e}");
        }
    }
}

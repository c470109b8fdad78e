//! The reader's run of numbers in a compact body (`k[n]: 1,2,3`, entered at
//! the body's first value when it is a number), against the general path:
//! the same body with a string put first (`k[n+1]: "s",1,2,3`) is read
//! entirely by the main loop. Every fault at every position of the body
//! (a byte deleted, replaced or inserted, the text cut there) gives the same
//! result both ways: the same values (the string aside), or the same error
//! (kind, message, line, and offset and column shifted by the string's
//! length), through `decode_with`, `parse_stc` into `Validate` and
//! `decode_latin1_into`, as version 1 and 2.

use stc_core::{decode_latin1_into, decode_with, parse_stc, DecodeOptions, Error, Validate, Version};

/// The numbers of the body: signs, fractions, exponents, long digit runs.
const BODY: &str = "12,-3.25,0,7e-2,-0.5E+3,9007199254740993,123456789.123456789";
const COUNT: usize = 7;
/// What is put first in the general path's body.
const FIRST: &str = "\"s\",";

/// The bytes put in place of (or before) a body byte.
const BYTES: &[&str] =
    &[",", "-", ".", "e", "E", "+", "0", "1", "x", " ", "/", "]", "}", "\"", "[", "t", "~", ":", "é", "9"];

/// The result of reading `stc` every way (which must agree).
fn read(stc: &str, options: &DecodeOptions) -> Result<String, Error> {
    let r = decode_with(stc, options);
    let v = parse_stc(stc, options, &mut Validate);
    assert_eq!(v.as_ref().err(), r.as_ref().err(), "Validate: {stc}");
    let mut out = Vec::new();
    let l = decode_latin1_into(stc, options, &mut out);
    assert_eq!(l.as_ref().err(), r.as_ref().err(), "latin1: {stc}");
    r
}

/// Checks one mutated body in each place a compact body is read.
fn check(body: &str, options: &DecodeOptions) {
    let general_count = COUNT + 1;
    for (before, after) in [("{k[", "}"), ("[", ""), ("[[", "]"), ("{a:[1,{b[", "}]}")] {
        // Two spaces more before the body: the count guard (two bytes per
        // value) then judges both texts alike.
        let fast = format!("{before}{COUNT}]:   {body}{after}");
        let slow = format!("{before}{general_count}]: {FIRST}{body}{after}");
        let shift = FIRST.len() - 2;
        match (read(&fast, options), read(&slow, options)) {
            (Ok(a), Ok(b)) => {
                // The general path's array holds the string first (minified
                // JSON: `"s",` right after its `[`, the first such text).
                let at = b.find("[\"s\",").unwrap_or_else(|| panic!("{slow}: {b}"));
                assert_eq!(a, format!("{}{}", &b[..at + 1], &b[at + 5..]), "{fast}");
            }
            (Err(a), Err(b)) => {
                let normal = |m: &str| {
                    m.replace(&format!("declares {general_count} "), &format!("declares {COUNT} "))
                        .replace(&format!("count {general_count} "), &format!("count {COUNT} "))
                };
                let body_at = fast.find("]:   ").unwrap() + 5;
                let moved = |o: Option<usize>| o.map(|o| if o >= body_at { o + shift } else { o });
                // Offsets quoted in a message ("opened at byte N") move too.
                let shifted = |m: &str| match m.split_once("byte ") {
                    Some((head, tail)) => {
                        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
                        let at: usize = tail[..digits].parse().unwrap();
                        format!("{head}byte {}{}", moved(Some(at)).unwrap(), &tail[digits..])
                    }
                    None => m.to_string(),
                };
                assert_eq!(a.kind(), b.kind(), "{fast}: {a} / {b}");
                assert_eq!(normal(&shifted(a.message())), normal(b.message()), "{fast}");
                assert_eq!(moved(a.offset()), b.offset(), "{fast}: {a} / {b}");
                assert_eq!(a.line(), b.line(), "{fast}");
                let column_moved = a.column().map(|c| if a.offset() >= Some(body_at) { c + shift } else { c });
                assert_eq!(column_moved, b.column(), "{fast}: {a} / {b}");
            }
            (a, b) => panic!("{fast}: {a:?}\n{slow}: {b:?}"),
        }
    }
}

#[test]
fn every_fault_of_a_compact_body_of_numbers_reads_as_the_general_path_reads_it() {
    let mut cases = 0;
    for version in [Version::V1, Version::V2] {
        let options = DecodeOptions::default().version(version);
        check(BODY, &options);
        for (i, _) in BODY.char_indices().chain([(BODY.len(), ' ')]) {
            let (head, tail) = BODY.split_at(i);
            check(head, &options);
            if let Some(c) = tail.chars().next() {
                let rest = &tail[c.len_utf8()..];
                check(&format!("{head}{rest}"), &options);
                for b in BYTES {
                    check(&format!("{head}{b}{rest}"), &options);
                    check(&format!("{head}{b}{tail}"), &options);
                }
                cases += 2 + 2 * BYTES.len();
            }
        }
        // Spaces around every separator.
        check(&BODY.replace(',', " , "), &options);
    }
    assert!(cases > 2000, "{cases}");
}

#[test]
fn bodies_of_every_length_and_what_follows_them() {
    let options = DecodeOptions::default().version(Version::V2);
    for n in 1..=12 {
        let body: Vec<String> = (0..n).map(|i| format!("{}.5", i * 7)).collect();
        let body = body.join(",");
        for (text, json) in [
            (format!("{{k[{n}]: {body}}}"), format!("{{\"k\":[{body}]}}")),
            (format!("{{k[{n}]: {body}, m: 1}}"), format!("{{\"k\":[{body}],\"m\":1}}")),
            (format!("[[{n}]: {body},2]"), format!("[[{body}],2]")),
            (format!("([{n}]: {body})"), format!("[{body}]")),
        ] {
            let got = read(&text, &options).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(got, json, "{text}");
        }
    }
}

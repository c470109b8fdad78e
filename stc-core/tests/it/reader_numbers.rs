//! The number event (`Sink::number_parts`, `Number`): its values are exactly
//! what parsing the lexeme gives, every reader path reports through it, and
//! a sink that does not override it sees `number` only.

use proptest::prelude::*;
use stc_core::{parse_json, parse_stc, Abort, DecodeOptions, Limits, Number, Sink, Version};

/// Checks one number against the standard library's parsers.
fn check(n: &Number<'_>) {
    let lexeme = n.lexeme();
    let integer = !lexeme.contains(['.', 'e', 'E']);
    assert_eq!(n.is_integer(), integer, "{lexeme}");
    assert_eq!(n.is_negative(), lexeme.starts_with('-'), "{lexeme}");
    let want = if integer { lexeme.parse::<i64>().ok() } else { None };
    assert_eq!(n.as_i64(), want, "{lexeme}");
    let want = lexeme.parse::<f64>().unwrap();
    let got = n.as_f64();
    assert_eq!(got.to_bits(), want.to_bits(), "{lexeme}: {got} != {want}");
    assert_eq!(Number::new(lexeme), Some(*n), "{lexeme}");
}

/// Collects every number the reader reports, with its parts.
#[derive(Default)]
struct Parts<'a> {
    numbers: Vec<Number<'a>>,
    /// Lexemes that reached `number` (never, when `number_parts` is overridden).
    lexemes: usize,
}

impl<'a> Sink<'a> for Parts<'a> {
    fn number_parts(&mut self, n: Number<'a>) -> Result<(), Abort> {
        self.numbers.push(n);
        Ok(())
    }
    fn number(&mut self, _lexeme: &'a str) -> Result<(), Abort> {
        self.lexemes += 1;
        Ok(())
    }
}

/// Overrides `number` only: sees every number there.
#[derive(Default)]
struct Lexemes<'a>(Vec<&'a str>);

impl<'a> Sink<'a> for Lexemes<'a> {
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.0.push(lexeme);
        Ok(())
    }
}

const EDGES: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "9",
    "10",
    "99999999",
    "100000000",
    "123456789012345678",
    "999999999999999999",
    "1000000000000000000",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "9999999999999999999",
    "-9999999999999999999",
    "10000000000000000000",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "123456789012345678901234567890",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "0.0",
    "-0.0",
    "0.1",
    "-0.1",
    "0.5",
    "1.25",
    "1e5",
    "1E5",
    "1E+05",
    "1e-05",
    "-1e-0",
    "0e0",
    "-0e-0",
    "0e999999999999999999999",
    "1e22",
    "1e23",
    "1e-22",
    "1e-23",
    "9007199254740993e0",
    "9007199254740992e1",
    "9007199254740992e-22",
    "9007199254740993e-22",
    "4503599627370497.5",
    "0.30000000000000004",
    "0.1000000000000000055511151231257827",
    "123456789.123456789",
    "1234567890123456789.0",
    "12345678901234567890.0",
    "0.0000000000000000000000000001",
    "1e308",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "1e309",
    "-1e309",
    "1e400",
    "1E+400",
    "2.2250738585072014e-308",
    "4.9e-324",
    "2e-324",
    "1e-400",
    "-1e-400",
    "1e00000000000000000000000000022",
    "1e-00000000000000000000000000022",
    "5e-1",
    "-65.613616999999977",
    "0.00000000001",
    "100000000000000000000000e-2",
];

#[test]
fn edges_match_the_standard_parsers() {
    for lexeme in EDGES {
        let n = Number::new(lexeme).unwrap_or_else(|| panic!("{lexeme} is a number"));
        check(&n);
        // Through the reader too, alone and in every position that has a run of its own.
        for text in [
            lexeme.to_string(),
            format!("[{lexeme}]"),
            format!("[1,{lexeme},2]"),
            format!("{{k[2]: {lexeme},{lexeme}}}"),
            format!("([2]{{a,b}}: {lexeme},\"x\"/\"y\",{lexeme})"),
        ] {
            let mut sink = Parts::default();
            parse_stc(&text, &Limits::default(), &mut sink).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(sink.lexemes, 0);
            assert!(sink.numbers.iter().any(|n| n.lexeme() == *lexeme), "{text}");
            sink.numbers.iter().for_each(check);
        }
    }
}

#[test]
fn new_refuses_what_is_not_one_number() {
    for text in
        ["", "-", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "1 ", " 1", "1,2", "0x10", "1.5.5", "NaN", "--1", "1e5e5"]
    {
        assert_eq!(Number::new(text), None, "{text:?}");
    }
}

#[test]
fn every_corpus_number_matches_the_standard_parsers_through_both_readers() {
    let corpus = crate::support::json_files();
    let mut total = 0;
    for (name, json) in &corpus {
        let mut from_json = Parts::default();
        parse_json(json, &Limits::default(), &mut from_json).unwrap();
        from_json.numbers.iter().for_each(check);
        let mut plain = Lexemes::default();
        parse_json(json, &Limits::default(), &mut plain).unwrap();
        let want: Vec<&str> = plain.0;
        assert_eq!(from_json.numbers.iter().map(|n| n.lexeme()).collect::<Vec<_>>(), want, "{name}");
        for version in [Version::V1, Version::V2] {
            let stc = stc_core::encode_with(json, &stc_core::EncodeOptions::default().version(version)).unwrap();
            let options = DecodeOptions::default().version(version);
            let mut sink = Parts::default();
            parse_stc(&stc, &options, &mut sink).unwrap();
            assert_eq!(sink.lexemes, 0);
            sink.numbers.iter().for_each(check);
            let mut plain = Lexemes::default();
            parse_stc(&stc, &options, &mut plain).unwrap();
            assert_eq!(sink.numbers.iter().map(|n| n.lexeme()).collect::<Vec<_>>(), plain.0, "{name} {version:?}");
            total += sink.numbers.len();
        }
    }
    if !corpus.is_empty() {
        assert!(total > 100_000, "{total}");
    }
}

/// A lexeme of the JSON grammar, with long digit runs and exponents.
fn lexeme() -> impl Strategy<Value = String> {
    let int = prop_oneof!["0", "[1-9][0-9]{0,24}"];
    let frac = prop::option::of("[0-9]{1,24}");
    let exp = prop::option::of(("[eE]", "[+-]?", "[0-9]{1,5}"));
    ("-?", int, frac, exp).prop_map(|(sign, int, frac, exp)| {
        let mut s = format!("{sign}{int}");
        if let Some(f) = frac {
            s.push('.');
            s.push_str(&f);
        }
        if let Some((e, es, ed)) = exp {
            s.push_str(&e);
            s.push_str(&es);
            s.push_str(&ed);
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn generated_lexemes_match_the_standard_parsers(s in lexeme()) {
        let n = Number::new(&s).unwrap();
        check(&n);
        let text = format!("{{k[2]: {s},{s}}}");
        let mut sink = Parts::default();
        parse_stc(&text, &Limits::default(), &mut sink).unwrap();
        prop_assert_eq!(sink.numbers.len(), 2);
        sink.numbers.iter().for_each(check);
    }
}

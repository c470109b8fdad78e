//! Laws of the codec, checked on generated documents (spec section 6).
//!
//! The generator builds a value tree and renders it twice, independently of
//! stc-core: once as a messy JSON source (random whitespace, random escape
//! styles for every character that may be escaped) and once as the canonical
//! minified JSON the spec defines. The codec must map the first to the second.

use proptest::prelude::*;
use stc_core::{decode, decode_with, encode_with, DecodeOptions, EncodeOptions, ErrorKind, Limits, Profile, Version};

#[derive(Debug, Clone)]
enum V {
    Null,
    Bool(bool),
    Num(String),
    Str(Vec<u16>),
    Arr(Vec<V>),
    Obj(Vec<(Vec<u16>, V)>),
}

/// Code units chosen to hit every escaping rule and the separators STC uses.
fn unit_strategy() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        4 => "[a-zA-Z0-9_ ]{1,6}".prop_map(|s| s.encode_utf16().collect()),
        2 => prop::sample::select(vec![
            " / ", ",", ":", "{", "}", "[", "]", "[3]:", "[2]{a,b}:", "\"", "\\", "/", "\u{7f}", "é", "日本",
            "\u{2028}", "😀", "null", "true", "1e3",
        ])
        .prop_map(|s| s.encode_utf16().collect()),
        1 => (0u16..0x20).prop_map(|c| vec![c]),
        1 => (0xD800u16..0xE000).prop_map(|c| vec![c]), // lone surrogate
    ]
}

fn string_strategy() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(unit_strategy(), 0..4).prop_map(|parts| parts.concat())
}

fn key_strategy() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        3 => prop::sample::select(vec!["id", "name", "a", "b", "true", "null", "_x9", "first name", "a-b", "é", ""])
            .prop_map(|s| s.encode_utf16().collect()),
        1 => string_strategy(),
    ]
}

fn number_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,6})?([eE][+-]?[0-9]{1,3})?",
        prop::sample::select(vec!["-0", "1.0", "1e3", "1E+2", "0.10", "1E-7", "-0.0e-0"]).prop_map(String::from),
    ]
}

fn scalar_strategy() -> impl Strategy<Value = V> {
    prop_oneof![
        Just(V::Null),
        any::<bool>().prop_map(V::Bool),
        number_strategy().prop_map(V::Num),
        string_strategy().prop_map(V::Str),
    ]
}

/// Arrays of objects that share (or nearly share) one key sequence, so the
/// columnar rule and its exclusions are exercised.
fn table_strategy() -> impl Strategy<Value = V> {
    (prop::collection::vec(key_strategy(), 1..4), 1usize..5, any::<bool>(), any::<bool>()).prop_flat_map(
        |(keys, rows, shuffle_last, nest_cell)| {
            let width = keys.len();
            prop::collection::vec(prop::collection::vec(scalar_strategy(), width), rows).prop_map(move |cells| {
                let n = cells.len();
                V::Arr(
                    cells
                        .into_iter()
                        .enumerate()
                        .map(|(r, row)| {
                            let mut members: Vec<(Vec<u16>, V)> = keys.iter().cloned().zip(row).collect();
                            if r + 1 == n && n > 1 && shuffle_last {
                                members.reverse();
                            }
                            if r == 0 && nest_cell {
                                members[0].1 = V::Arr(vec![]);
                            }
                            V::Obj(members)
                        })
                        .collect(),
                )
            })
        },
    )
}

/// Semi-uniform records (version 2's shapes): rows of objects whose keys are
/// a subsequence of one list, some members objects with their own optional
/// keys (column groups, absent cells), or a map of such objects (keyed tables).
fn semi_strategy() -> impl Strategy<Value = V> {
    let row = prop::collection::vec(
        (
            prop::sample::select(vec!["id", "name", "a", "b", "x y", "true"]),
            any::<bool>(),
            prop_oneof![
                3 => scalar_strategy(),
                1 => prop::collection::vec((prop::sample::select(vec!["p", "q", "r"]), any::<bool>(), scalar_strategy()), 0..3)
                    .prop_map(|members| V::Obj(
                        members.into_iter().filter(|(_, keep, _)| *keep).map(|(k, _, v)| (k.encode_utf16().collect(), v)).collect()
                    )),
            ],
        ),
        0..4,
    )
    .prop_map(|members| {
        V::Obj(members.into_iter().filter(|(_, keep, _)| *keep).map(|(k, _, v)| (k.encode_utf16().collect(), v)).collect())
    });
    (prop::collection::vec(row, 1..6), any::<bool>(), prop::collection::vec(key_strategy(), 6)).prop_map(
        |(rows, keyed, keys)| {
            if keyed {
                V::Obj(keys.into_iter().zip(rows).collect())
            } else {
                V::Arr(rows)
            }
        },
    )
}

fn value_strategy() -> impl Strategy<Value = V> {
    let leaf = prop_oneof![4 => scalar_strategy(), 1 => table_strategy(), 1 => semi_strategy()];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(V::Arr),
            prop::collection::vec((key_strategy(), inner), 0..6).prop_map(V::Obj),
        ]
    })
}

/// A tiny deterministic generator for rendering choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn ws(out: &mut String, rng: &mut Rng) {
    for _ in 0..rng.pick(3) {
        out.push([' ', '\t', '\n', '\r'][rng.pick(4) as usize]);
    }
}

fn messy_string(out: &mut String, units: &[u16], rng: &mut Rng) {
    out.push('"');
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Err(e) => out.push_str(&format!("\\u{:04X}", e.unpaired_surrogate())),
            Ok(c) => {
                let must = c == '"' || c == '\\' || (c as u32) < 0x20;
                match rng.pick(4) {
                    0 => {
                        let mut buf = [0u16; 2];
                        for u in c.encode_utf16(&mut buf) {
                            if rng.pick(2) == 0 {
                                out.push_str(&format!("\\u{u:04x}"));
                            } else {
                                out.push_str(&format!("\\u{u:04X}"));
                            }
                        }
                    }
                    1 if c == '/' => out.push_str("\\/"),
                    _ if must => match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        c => out.push_str(&format!("\\u{:04x}", c as u32)),
                    },
                    _ => out.push(c),
                }
            }
        }
    }
    out.push('"');
}

fn messy(v: &V, out: &mut String, rng: &mut Rng) {
    ws(out, rng);
    match v {
        V::Null => out.push_str("null"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Num(n) => out.push_str(n),
        V::Str(s) => messy_string(out, s, rng),
        V::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                messy(item, out, rng);
            }
            ws(out, rng);
            out.push(']');
        }
        V::Obj(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(out, rng);
                messy_string(out, k, rng);
                ws(out, rng);
                out.push(':');
                messy(item, out, rng);
            }
            ws(out, rng);
            out.push('}');
        }
    }
    ws(out, rng);
}

/// The spec's canonical string escaping (section 5.2), written independently.
fn canonical_string(out: &mut String, units: &[u16]) {
    out.push('"');
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
        }
    }
    out.push('"');
}

fn canonical(v: &V, out: &mut String) {
    match v {
        V::Null => out.push_str("null"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Num(n) => out.push_str(n),
        V::Str(s) => canonical_string(out, s),
        V::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        V::Obj(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_string(out, k);
                out.push(':');
                canonical(item, out);
            }
            out.push('}');
        }
    }
}

fn render(v: &V, seed: u64) -> (String, String) {
    let mut rng = Rng(seed | 1);
    let mut source = String::new();
    messy(v, &mut source, &mut rng);
    let mut expected = String::new();
    canonical(v, &mut expected);
    (source, expected)
}

/// Whether the decoder's output is RFC 8259 JSON, by the strict reader.
/// (serde_json cannot judge here: it rejects lone-surrogate escapes and
/// numbers beyond f64's range, both of which JSON allows.)
fn is_strict_json(json: &str) -> bool {
    stc_core::parse_json(json, &Limits::default(), &mut stc_core::Validate).is_ok()
}

const PROFILES: [Profile; 2] = [Profile::Compact, Profile::Readable];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Spec 6.1: every JSON text is STC and decodes to its canonical form.
    #[test]
    fn json_is_stc(v in value_strategy(), seed in any::<u64>()) {
        let (source, expected) = render(&v, seed);
        prop_assert_eq!(decode(&source).unwrap(), expected);
    }

    /// Spec 6.2: decode(encode(x)) is the canonical form of x, both profiles.
    #[test]
    fn reversible(v in value_strategy(), seed in any::<u64>()) {
        let (source, expected) = render(&v, seed);
        for p in PROFILES {
            let stc = encode_with(&source, &EncodeOptions::default().profile(p)).unwrap();
            prop_assert_eq!(decode(&stc).unwrap(), expected.clone(), "profile {:?}, stc {}", p, stc);
        }
    }

    /// Spec 6.3 and 6.4: same input, same bytes; canonical forms are fixed points.
    #[test]
    fn deterministic_and_idempotent(v in value_strategy(), seed in any::<u64>(), seed2 in any::<u64>()) {
        let (source, _) = render(&v, seed);
        let (other_source, _) = render(&v, seed2);
        for p in PROFILES {
            let opts = EncodeOptions::default().profile(p);
            let stc = encode_with(&source, &opts).unwrap();
            // Different whitespace and escapes of the same value: same output.
            prop_assert_eq!(&encode_with(&other_source, &opts).unwrap(), &stc);
            let json = decode(&stc).unwrap();
            prop_assert_eq!(encode_with(&json, &opts).unwrap(), stc.clone());
            prop_assert_eq!(decode(&json).unwrap(), json);
        }
    }

    /// Version 2 reads version 1: the v1 encoding of any value (and the JSON
    /// source itself) decodes as version 2 to the value.
    #[test]
    fn v2_reads_v1(v in value_strategy(), seed in any::<u64>()) {
        let (source, expected) = render(&v, seed);
        let v2 = DecodeOptions::default().version(Version::V2);
        prop_assert_eq!(decode_with(&source, &v2).unwrap(), expected.clone());
        for p in PROFILES {
            let stc = encode_with(&source, &EncodeOptions::default().profile(p)).unwrap();
            prop_assert_eq!(decode_with(&stc, &v2).unwrap(), expected.clone(), "profile {:?}, stc {}", p, stc);
        }
    }

    /// Version 2 round trip: decode(v2, encode(v2, x)) is x, both profiles;
    /// validation agrees; a version 1 decoder gives the same value or
    /// `newer_version`, never another value.
    #[test]
    fn v2_reversible_and_v1_never_wrong(v in value_strategy(), seed in any::<u64>()) {
        let (source, expected) = render(&v, seed);
        let v2 = DecodeOptions::default().version(Version::V2);
        for p in PROFILES {
            let stc = encode_with(&source, &EncodeOptions::default().profile(p).version(Version::V2)).unwrap();
            prop_assert_eq!(decode_with(&stc, &v2).unwrap(), expected.clone(), "profile {:?}, stc {}", p, stc);
            prop_assert!(stc_core::validate_with(&stc, &v2).is_ok());
            match decode(&stc) {
                Ok(json) => prop_assert_eq!(json, expected.clone(), "v1 read {}", stc),
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::NewerVersion, "v1 read {}: {}", stc, e),
            }
        }
    }

    /// Mutated version 2 text never panics either version's reader; what
    /// decodes is valid JSON, and decode and validate agree.
    #[test]
    fn total_on_mutated_v2(v in value_strategy(), seed in any::<u64>(), at in any::<usize>(), byte in any::<u8>(), mode in 0u8..3) {
        let (source, _) = render(&v, seed);
        let stc = encode_with(&source, &EncodeOptions::default().version(Version::V2)).unwrap();
        let mut bytes = stc.into_bytes();
        let i = if bytes.is_empty() { 0 } else { at % bytes.len() };
        match mode {
            0 if !bytes.is_empty() => { bytes.remove(i); }
            1 => bytes.insert(i, byte),
            _ => bytes.truncate(i),
        }
        for version in [Version::V1, Version::V2] {
            let options = DecodeOptions::default().version(version);
            let decoded = stc_core::decode_bytes_with(&bytes, &options);
            if let Ok(json) = &decoded {
                prop_assert!(is_strict_json(json), "{}", json);
            }
            let validated = stc_core::validate_bytes_with(&bytes, &options);
            prop_assert_eq!(decoded.err(), validated.err());
        }
    }

    /// The builder's number check agrees with the reader on every short
    /// string over the number alphabet.
    #[test]
    fn builder_number_check_matches_the_reader(s in "[-+.eE0-9]{0,8}") {
        let mut b = stc_core::DocumentBuilder::new();
        prop_assert_eq!(b.push_number(&s).is_ok(), decode(&s).is_ok(), "{:?}", s);
    }

    /// Spec 6.5: any bytes end in a value or an error, never a panic; what
    /// decodes is valid JSON.
    #[test]
    fn total_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(json) = stc_core::decode_bytes_with(&bytes, &Limits::default()) {
            prop_assert!(is_strict_json(&json), "{}", json);
        }
        let _ = stc_core::encode_bytes_with(&bytes, &EncodeOptions::default());
    }

    /// Spec 6.5 on near-valid input: mutated STC never panics, and whatever
    /// still decodes is valid JSON.
    #[test]
    fn total_on_mutated_stc(v in value_strategy(), seed in any::<u64>(), at in any::<usize>(), byte in any::<u8>(), mode in 0u8..3) {
        let (source, _) = render(&v, seed);
        let stc = encode_with(&source, &EncodeOptions::default()).unwrap();
        let mut bytes = stc.into_bytes();
        let i = if bytes.is_empty() { 0 } else { at % bytes.len() };
        match mode {
            0 if !bytes.is_empty() => { bytes.remove(i); }
            1 => bytes.insert(i, byte),
            _ => bytes.truncate(i),
        }
        if let Ok(json) = stc_core::decode_bytes_with(&bytes, &Limits::default()) {
            prop_assert!(is_strict_json(&json), "{}", json);
        }
    }
}

#[test]
fn depth_limit_at_and_past_the_limit() {
    for depth in [1usize, 127, 128, 129, 1000] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let text = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let result = decode(&text);
            if depth <= 128 {
                assert!(result.is_ok(), "depth {depth}");
            } else {
                let err = result.unwrap_err();
                assert_eq!(err.kind(), ErrorKind::DepthLimit);
                assert_eq!(err.offset(), Some(128 * open.len()));
            }
        }
    }
    // A columnar array takes two levels: the array and its rows.
    let nested = format!("{}[2]{{a}}:1/2{}", "[".repeat(127), "]".repeat(127));
    assert_eq!(decode(&nested).unwrap_err().kind(), ErrorKind::DepthLimit);
    let nested = format!("{}[2]{{a}}:1/2{}", "[".repeat(126), "]".repeat(126));
    assert!(decode(&nested).is_ok());
}

#[test]
fn hostile_inputs_fail_fast() {
    let many = "[".repeat(100_000);
    let err = decode(&many).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::DepthLimit, Some(128)));
    // No clamp: with no depth limit the unclosed brackets run to the end of
    // the input (the reader keeps its stack on the heap).
    let err = stc_core::decode_with(&many, &Limits::default().max_depth(usize::MAX)).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::UnexpectedEnd, Some(100_000)));
    // Above 2^64 - 1 no input could hold the count: count_too_large.
    for huge in ["([99999999999999999999999]: 1", "([18446744073709551616]{a}: 1", "{a[18446744073709551616]: 1}"] {
        let err = decode(huge).unwrap_err();
        assert_eq!((err.kind(), err.offset()), (ErrorKind::CountTooLarge, Some(huge.find('[').unwrap() + 1)), "{huge}");
    }
    // Within it, a count the rest of the input cannot hold is count_mismatch
    // at the count, before any value is read; count x columns cannot wrap.
    for short in
        ["([18446744073709551615]{a}: 1", "{a[4000000000]: 1}", "([9223372036854775807]{a,b,c}: 1", "([3]: 1 x"]
    {
        let err = decode(short).unwrap_err();
        assert_eq!(
            (err.kind(), err.offset()),
            (ErrorKind::CountMismatch, Some(short.find('[').unwrap() + 1)),
            "{short}"
        );
    }
}

/// Every proper prefix (at each character boundary) of `stc`, whose
/// top-level value is an array or object, fails to decode at `version`
/// with a syntax error positioned inside the prefix: never a value.
fn every_prefix_fails(stc: &str, version: Version) -> Result<(), TestCaseError> {
    let options = DecodeOptions::default().version(version);
    for (n, _) in stc.char_indices().skip(1) {
        let prefix = &stc[..n];
        match decode_with(prefix, &options) {
            Ok(value) => {
                return Err(TestCaseError::fail(format!(
                    "{version:?}: prefix {prefix:?} of {stc:?} decodes to {value}"
                )))
            }
            Err(e) => {
                prop_assert_eq!(e.category(), stc_core::Category::Syntax, "{:?} {}", prefix, e);
                prop_assert!(e.offset().is_some_and(|o| o <= n), "{:?} {}", prefix, e);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Spec 3.12: no proper prefix of an encoder output whose top-level
    /// value is an array or object decodes, in versions 1 and 2 and both
    /// profiles (a cut text is an error, never a shorter value).
    #[test]
    fn no_proper_prefix_of_an_encoding_decodes(v in prop_oneof![table_strategy(), semi_strategy(), value_strategy()], seed in any::<u64>()) {
        let (source, _) = render(&v, seed);
        prop_assume!(matches!(source.trim_start().as_bytes().first(), Some(b'[' | b'{')));
        for version in [Version::V1, Version::V2] {
            for p in PROFILES {
                let stc = encode_with(&source, &EncodeOptions::default().profile(p).version(version)).unwrap();
                every_prefix_fails(&stc, version)?;
            }
        }
    }
}

/// The texts of issue 25, cut by one byte and everywhere else.
#[test]
fn cut_texts_of_the_issue_are_errors() {
    for (json, version) in [
        (r#"[{"a":1,"b":true},{"a":2,"b":"true"}]"#, Version::V2),
        (r#"[{"a":1},{"a":23}]"#, Version::V1),
        (r#"[{"a":1,"b":"target end-to-end models"},{"a":2,"b":"x"}]"#, Version::V2),
        (r#"{"k":{"n":1},"j":{"n":"ab cd"}}"#, Version::V2),
        (r#"[1,2,3,45]"#, Version::V1),
    ] {
        for p in PROFILES {
            let stc = encode_with(json, &EncodeOptions::default().profile(p).version(version)).unwrap();
            assert_eq!(decode_with(&stc, &DecodeOptions::default().version(version)).unwrap(), json);
            every_prefix_fails(&stc, version).unwrap();
        }
    }
}

//! The readers' number event (`Sink::number_parts`, carrying a
//! `stc_core::Number`: the lexeme with where its integer part and fraction
//! end, and the values computed from them) against parsing the lexeme, on
//! any bytes read as STC (versions 1 and 2) and as JSON:
//!
//! - a sink that overrides `number_parts` gets every number there (the
//!   readers never call its `number`); for each: the lexeme is one JSON
//!   number (the target's own grammar check) lying inside the input;
//!   `is_integer` is true exactly when it has no fraction and no exponent,
//!   `is_negative` exactly when it starts with `-`; `as_i64` is
//!   `lexeme.parse::<i64>()` for an integer (`None` beyond `i64` and for
//!   any other lexeme); `as_f64` is `lexeme.parse::<f64>()`, bit for bit (a
//!   zero keeps its sign, overflow is infinity); and the event equals
//!   `Number::new(lexeme)` (the same parts, found by a scan of its own);
//! - a sink that overrides only `number` (the provided `number_parts`)
//!   sees the same events, the same lexemes in the same order, and the same
//!   result (the same error: kind, offset, line, column, message); the first
//!   sink also asks for the reader's ASCII flags on strings (the hidden
//!   `Sink::ASCII_FLAGS` of the one-byte writer, 9a6165f), so the reader's
//!   two string scans are compared too;
//! - both sinks refusing at the same number (its index taken from the first
//!   byte) stop the reader with the same `Failure` after the same events.
//!
//! `Number::new` itself runs on the input as a lexeme and on the pieces of a
//! number-like text derived from it (every byte mapped to a digit, `.`, `e`,
//! `E`, `+`, `-` or `,`, so that lexemes of every shape and length are likely:
//! the fast path's edges at 19 digits, 2^53 and exponents of ±22): it accepts
//! exactly what the target's grammar check accepts, and its values are the
//! lexeme's. That text is also read (both sinks, all three readers) as a JSON
//! array, a compact body in a member and at the top level, and a two-column
//! table, so that the readers' runs of numbers meet every kind of fault.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{DecodeOptions, Failure, JsonStr, Limits, Number, Sink, Version};

fuzz_target!(|data: &[u8]| {
    // Number::new on the input, and on the pieces of a number-like text made
    // from it, which are then read as the values of arrays and tables.
    if let Ok(s) = std::str::from_utf8(data) {
        check_new(s);
    }
    const ALPHABET: &[u8; 16] = b"0123456789.e-,E+";
    let body: String = data.iter().map(|&b| char::from(ALPHABET[usize::from(b & 15)])).collect();
    let pieces: Vec<&str> = body.split(',').collect();
    for piece in &pieces {
        check_new(piece);
    }
    let n = pieces.len();
    let rows = pieces.chunks(2).map(|row| row.join(",")).collect::<Vec<_>>().join(" / ");
    let texts = [
        format!("[{body}]"),
        format!("{{k[{n}]: {body}, z: 1}}"),
        format!("([{n}]: {body})"),
        format!("([{}]{{a,b}}: {rows})", n.div_ceil(2)),
    ];
    let stop = data.first().map_or(0, |&b| usize::from(b % 8));
    for text in &texts {
        both(text, stop);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        both(text, stop);
    }
});

/// Every reader, then again refusing at number `stop` when there is one.
fn both(text: &str, stop: usize) {
    for reader in [Reader::Stc(Version::V1), Reader::Stc(Version::V2), Reader::Json] {
        if compare(text, reader, None) > stop {
            compare(text, reader, Some(stop));
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Reader {
    Stc(Version),
    Json,
}

/// Reads `text` into both sinks, each refusing at number `stop` (when given),
/// and compares what they saw and how the reader ended; returns the count of
/// numbers seen.
fn compare(text: &str, reader: Reader, stop: Option<usize>) -> usize {
    let mut parts = Recorder::<true>::new(text, stop);
    let mut plain = Recorder::<false>::new(text, stop);
    let (a, b) = match reader {
        Reader::Stc(version) => {
            let options = DecodeOptions::default().version(version);
            (stc_core::parse_stc_to(text, &options, &mut parts), stc_core::parse_stc_to(text, &options, &mut plain))
        }
        Reader::Json => {
            let limits = Limits::default();
            (stc_core::parse_json_to(text, &limits, &mut parts), stc_core::parse_json_to(text, &limits, &mut plain))
        }
    };
    assert_eq!(parts.events.len(), plain.events.len(), "different event counts ({reader:?})");
    for (i, (p, q)) in parts.events.iter().zip(&plain.events).enumerate() {
        assert_eq!(p, q, "event {i} differs ({reader:?}: number_parts, number)");
    }
    match (&a, &b) {
        (Err(Failure::Input(e)), Err(Failure::Input(f))) => assert_eq!(
            (e.kind(), e.offset(), e.line(), e.column(), e.message()),
            (f.kind(), f.offset(), f.line(), f.column(), f.message()),
            "different errors ({reader:?}: number_parts, number)"
        ),
        _ => assert_eq!(a, b, "different results ({reader:?}: number_parts, number)"),
    }
    if let Err(Failure::Sink(n)) = a {
        assert_eq!(Some(n), stop, "a refusal the sink did not make");
    }
    parts.numbers
}

/// One event as a sink saw it (bodies and lexemes as slices of the input).
#[derive(Debug, PartialEq, Eq)]
enum Event<'a> {
    Null,
    Bool(bool),
    /// A number: its offset in the input and its lexeme.
    Number(usize, &'a str),
    /// A string value's raw body.
    Str(&'a str),
    Key(&'a str),
    Array(Option<usize>),
    EndArray,
    Object(Option<usize>),
    EndObject,
}

/// Records every event; counts numbers and refuses at number `stop`.
/// `PARTS`: overrides `number_parts` (else only `number`), and asks the
/// reader for its ASCII flags on strings (the hidden `Sink::ASCII_FLAGS`,
/// which only the one-byte writer sets: the reader's other string scan,
/// `plain_run_ascii`, must end each string where `plain_run` does).
struct Recorder<'a, const PARTS: bool> {
    input: &'a str,
    stop: Option<usize>,
    numbers: usize,
    events: Vec<Event<'a>>,
}

impl<'a, const PARTS: bool> Recorder<'a, PARTS> {
    fn new(input: &'a str, stop: Option<usize>) -> Self {
        Recorder { input, stop, numbers: 0, events: Vec::new() }
    }

    /// Records a number; `Err(index)` when this is the one to refuse.
    fn record_number(&mut self, lexeme: &'a str) -> Result<(), usize> {
        let start = lexeme.as_ptr() as usize;
        let base = self.input.as_ptr() as usize;
        assert!(
            start >= base && start + lexeme.len() <= base + self.input.len(),
            "the lexeme {lexeme:?} is not inside the input"
        );
        self.events.push(Event::Number(start - base, lexeme));
        let index = self.numbers;
        self.numbers += 1;
        if self.stop == Some(index) {
            return Err(index);
        }
        Ok(())
    }
}

impl<'a, const PARTS: bool> Sink<'a, usize> for Recorder<'a, PARTS> {
    const ASCII_FLAGS: bool = PARTS;

    fn null(&mut self) -> Result<(), usize> {
        self.events.push(Event::Null);
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), usize> {
        self.events.push(Event::Bool(value));
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), usize> {
        assert!(!PARTS, "a reader called number, not number_parts, for {lexeme:?}");
        assert!(is_json_number(lexeme), "number {lexeme:?} is not a JSON number");
        self.record_number(lexeme)
    }
    fn number_parts(&mut self, n: Number<'a>) -> Result<(), usize> {
        if !PARTS {
            // The provided method: hands the lexeme to `number`.
            return self.number(n.lexeme());
        }
        check_number(&n);
        assert_eq!(Number::new(n.lexeme()), Some(n), "the reader's parts differ from Number::new's");
        self.record_number(n.lexeme())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), usize> {
        self.events.push(Event::Str(value.raw()));
        Ok(())
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), usize> {
        self.events.push(Event::Array(len));
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), usize> {
        self.events.push(Event::EndArray);
        Ok(())
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), usize> {
        self.events.push(Event::Object(len));
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), usize> {
        self.events.push(Event::Key(key.raw()));
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), usize> {
        self.events.push(Event::EndObject);
        Ok(())
    }
}

/// `Number::new` accepts `s` exactly when it is a JSON number, with the values parsing gives.
fn check_new(s: &str) {
    let n = Number::new(s);
    assert_eq!(n.is_some(), is_json_number(s), "Number::new({s:?}) disagrees with the grammar");
    if let Some(n) = n {
        assert_eq!(n.lexeme(), s);
        check_number(&n);
    }
}

/// A number's classification and values against parsing its lexeme.
fn check_number(n: &Number<'_>) {
    let s = n.lexeme();
    assert!(is_json_number(s), "number {s:?} is not a JSON number");
    let integer = !s.contains(['.', 'e', 'E']);
    assert_eq!(n.is_integer(), integer, "is_integer of {s:?}");
    assert_eq!(n.is_negative(), s.starts_with('-'), "is_negative of {s:?}");
    let i = if integer { s.parse::<i64>().ok() } else { None };
    assert_eq!(n.as_i64(), i, "as_i64 of {s:?}");
    let f: f64 = s.parse().expect("a JSON number parses as f64");
    let got = n.as_f64();
    assert_eq!(got.to_bits(), f.to_bits(), "as_f64 of {s:?}: {got:e}, parse gives {f:e}");
}

/// Whether `s` is a JSON number (RFC 8259 section 6), checked byte by byte.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let run = |i: usize| b[i.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += run(i),
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        let n = run(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = run(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

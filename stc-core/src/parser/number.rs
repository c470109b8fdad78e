//! [`Number`]: a number as the reader read it, for [`Sink::number_parts`](crate::Sink::number_parts).

use super::{Parser, Sink};
use crate::error::{describe, Error, ErrorKind};
use crate::scan::{self, word_at};

/// A number as the reader read it: its exact lexeme (valid JSON number
/// grammar) and where its parts are, which the reader found while scanning
/// it. A sink that builds values ([`Sink::number_parts`](crate::Sink::number_parts))
/// gets them from [`as_i64`](Self::as_i64) and [`as_f64`](Self::as_f64)
/// without scanning the lexeme for its shape again: nothing is computed
/// until one of them is called, so a sink that only wants the lexeme pays
/// nothing for the rest.
///
/// Every value is exactly what parsing the lexeme gives: `as_i64` what
/// `lexeme.parse::<i64>()` gives for an integer lexeme (no fraction, no
/// exponent), `as_f64` what `lexeme.parse::<f64>()` gives for any lexeme
/// (the nearest double; ±infinity beyond its range, a signed zero below it).
///
/// ```
/// use stc_core::Number;
/// let n = Number::new("-9223372036854775808").unwrap();
/// assert_eq!((n.is_integer(), n.as_i64()), (true, Some(i64::MIN)));
/// let n = Number::new("12.5e-1").unwrap();
/// assert_eq!((n.is_integer(), n.as_i64(), n.as_f64()), (false, None, 1.25));
/// assert_eq!(Number::new("9223372036854775808").unwrap().as_i64(), None);
/// assert_eq!(Number::new("1E+400").unwrap().as_f64(), f64::INFINITY);
/// assert!(Number::new("01").is_none() && Number::new("1 ").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    lexeme: &'a str,
    /// The end of the integer part (the sign included): the `.`, the `e`
    /// or `E`, or the end of the lexeme.
    int_end: usize,
    /// The end of the fraction (its `.` included): the `e` or `E` or the
    /// end of the lexeme; `int_end` when there is no fraction.
    frac_end: usize,
}

/// Powers of ten that are exact doubles.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Powers of ten below 10^8, as integers.
const POW10_U64: [u64; 8] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// The value of eight digit values (0–9, one per byte) read as a
/// little-endian word (the first digit in the lowest byte): three
/// multiply-and-shift steps pair digits, then pairs of digits, then
/// quadruples.
#[inline(always)]
fn eight_values(w: u64) -> u64 {
    let w = w.wrapping_mul(10).wrapping_add(w >> 8) & 0x00ff_00ff_00ff_00ff;
    let w = w.wrapping_mul(100).wrapping_add(w >> 16) & 0x0000_ffff_0000_ffff;
    w.wrapping_mul(10_000).wrapping_add(w >> 32) & 0xffff_ffff
}

/// Accumulates the ASCII digits `b[start..end]` onto `v` (`v × 10^len +
/// digits`): eight per step while eight remain, then the last one to seven
/// as the word that ends with them, its bytes before them cleared (leading
/// zeros), when the lexeme has eight bytes there. Wraps beyond 2^64:
/// callers bound the count.
#[inline(always)]
fn accumulate(mut v: u64, b: &[u8], start: usize, end: usize) -> u64 {
    let mut i = start;
    while i + 8 <= end {
        let Some(w) = word_at(b, i) else { break };
        v = v.wrapping_mul(100_000_000).wrapping_add(eight_values(w & 0x0f0f_0f0f_0f0f_0f0f));
        i += 8;
    }
    let k = end - i;
    if k == 0 {
        return v;
    }
    if let Some(w) = end.checked_sub(8).and_then(|at| word_at(b, at)) {
        let w = w & 0x0f0f_0f0f_0f0f_0f0f & (u64::MAX << (8 * (8 - k)));
        return v.wrapping_mul(POW10_U64[k]).wrapping_add(eight_values(w));
    }
    for &d in &b[i..end] {
        v = v.wrapping_mul(10).wrapping_add(u64::from(d & 0x0f));
    }
    v
}

impl<'a> Number<'a> {
    /// The reader's number: `lexeme` with its parts ending at `int_end` and `frac_end`.
    #[inline(always)]
    pub(crate) fn from_parts(lexeme: &'a str, int_end: usize, frac_end: usize) -> Self {
        Number { lexeme, int_end, frac_end }
    }

    /// `lexeme` as a number, if all of it is one JSON number (no sign but
    /// `-`, no leading zeros, no spaces). For a sink's
    /// [`number`](crate::Sink::number) that hands on to its
    /// [`number_parts`](crate::Sink::number_parts).
    pub fn new(lexeme: &'a str) -> Option<Self> {
        let shape = scan_number_shape(lexeme.as_bytes(), 0).ok()?;
        (shape.end == lexeme.len()).then(|| Number::from_parts(lexeme, shape.int_end, shape.frac_end))
    }

    /// The exact lexeme, as written in the input.
    #[inline(always)]
    pub fn lexeme(&self) -> &'a str {
        self.lexeme
    }

    /// Whether the lexeme is an integer: no fraction and no exponent
    /// (`1.0` and `1e3` are not).
    #[inline(always)]
    pub fn is_integer(&self) -> bool {
        self.int_end == self.lexeme.len()
    }

    /// Whether the lexeme starts with `-` (`-0` and `-0.0` too).
    #[inline(always)]
    pub fn is_negative(&self) -> bool {
        self.lexeme.as_bytes().first() == Some(&b'-')
    }

    /// Where the integer digits start (after a `-`).
    #[inline(always)]
    fn int_start(&self) -> usize {
        usize::from(self.is_negative())
    }

    /// The value of an integer lexeme that fits an `i64` (what
    /// `lexeme.parse::<i64>()` gives: `-0` is `Some(0)`); `None` for an
    /// integer outside −2^63 … 2^63 − 1 and for any lexeme with a fraction
    /// or exponent, whatever its value (`1.0`, `1e3`).
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        if !self.is_integer() {
            return None;
        }
        let b = self.lexeme.as_bytes();
        let start = self.int_start();
        if self.int_end - start > 19 {
            return None;
        }
        // At most 19 digits: below 10^19 < 2^64, no wrap.
        let v = accumulate(0, b, start, self.int_end);
        if self.is_negative() {
            (v <= 1 << 63).then(|| (v as i64).wrapping_neg())
        } else {
            i64::try_from(v).ok()
        }
    }

    /// The nearest double to the number (what `lexeme.parse::<f64>()`
    /// gives: ±infinity beyond the range of doubles, a zero of the
    /// lexeme's sign below it). Exact and cheap when the digits make an
    /// integer `m` of at most 2^53 and the decimal exponent `e` (after the
    /// fraction is counted into it) is within ±22: `m × 10^e` (or
    /// `m / 10^−e`) is then one correctly rounded operation on two exact
    /// doubles. Other numbers go through the standard library's parser.
    #[inline]
    pub fn as_f64(&self) -> f64 {
        let b = self.lexeme.as_bytes();
        let start = self.int_start();
        let frac_digits = (self.frac_end - self.int_end).saturating_sub(1);
        if self.int_end - start + frac_digits <= 19 {
            // At most 19 digits: no wrap.
            let mut m = accumulate(0, b, start, self.int_end);
            if frac_digits > 0 {
                m = accumulate(m, b, self.int_end + 1, self.frac_end);
            }
            if m <= 1 << 53 {
                let mut e = -(frac_digits as i64);
                if self.frac_end < b.len() {
                    let mut i = self.frac_end + 1;
                    let minus = b.get(i) == Some(&b'-');
                    i += usize::from(matches!(b.get(i), Some(b'-' | b'+')));
                    // Leading zeros are allowed in an exponent; a value
                    // beyond 10^8 is far outside the fast path anyway.
                    while b.get(i) == Some(&b'0') {
                        i += 1;
                    }
                    let x = if b.len() - i > 8 { 1 << 32 } else { accumulate(0, b, i, b.len()) as i64 };
                    e += if minus { -x } else { x };
                }
                if (-22..=22).contains(&e) {
                    let m = m as f64;
                    let pow = EXACT_POW10[e.unsigned_abs() as usize];
                    let v = if e < 0 { m / pow } else { m * pow };
                    return if self.is_negative() { -v } else { v };
                }
            }
        }
        self.slow_f64()
    }

    #[cold]
    #[inline(never)]
    fn slow_f64(&self) -> f64 {
        // A valid JSON number always parses (overflow is ±infinity).
        self.lexeme.parse::<f64>().unwrap_or(f64::NAN)
    }
}

impl<'a, 's, E, S: Sink<'a, E>> Parser<'a, 's, S, E> {
    /// Reads a number at `-` or a digit; returns its lexeme and parts.
    #[inline(always)]
    pub(super) fn number_lexeme(&mut self) -> Result<Number<'a>, Error> {
        let start = self.pos;
        match scan_number_shape(self.bytes, start) {
            Ok(shape) => {
                self.pos = shape.end;
                Ok(self.number_at(start, shape))
            }
            Err(NumberError { at, expected: None }) => {
                Err(self.err_at(at, ErrorKind::InvalidNumber, "invalid number: leading zeros are not allowed".into()))
            }
            Err(NumberError { at, expected: Some(what) }) => Err(self.number_err(at, what)),
        }
    }

    /// The number scanned at `start` with `shape`.
    #[inline(always)]
    pub(super) fn number_at(&self, start: usize, shape: NumberShape) -> Number<'a> {
        Number::from_parts(self.text.get(start..shape.end).unwrap_or(""), shape.int_end - start, shape.frac_end - start)
    }

    fn number_err(&self, at: usize, what: &str) -> Error {
        let kind = if at >= self.bytes.len() { ErrorKind::UnexpectedEnd } else { ErrorKind::InvalidNumber };
        self.err_at(at, kind, format!("invalid number: expected {what}, found {}", describe(self.bytes, at)))
    }
}

/// Where a number stopped following the grammar, and what it needed there
/// (`None`: a digit after a leading zero).
pub(crate) struct NumberError {
    pub(crate) at: usize,
    pub(crate) expected: Option<&'static str>,
}

/// Whether a number lexeme is an integer (no fraction, no exponent) outside
/// ±(2^53 − 1), the range in which every integer is exactly a double. The
/// JavaScript bindings' one rule for `bigint: true` (such integers become
/// `BigInt`s); any valid JSON number lexeme may be passed.
///
/// ```
/// use stc_core::is_unsafe_integer;
/// assert!(!is_unsafe_integer("9007199254740991"));
/// assert!(is_unsafe_integer("-9007199254740992"));
/// assert!(is_unsafe_integer("12345678901234567890"));
/// assert!(!is_unsafe_integer("1e300"));
/// assert!(!is_unsafe_integer("9007199254740993.0"));
/// ```
pub fn is_unsafe_integer(lexeme: &str) -> bool {
    let digits = lexeme.strip_prefix('-').unwrap_or(lexeme);
    if digits.len() < 16 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    digits.len() > 16 || digits > "9007199254740991"
}

/// Where a number's parts end: see [`scan_number_shape`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberShape {
    /// The end of the integer part: the `.`, the `e`/`E`, or `end`.
    pub(crate) int_end: usize,
    /// The end of the fraction: the `e`/`E` or `end`; `int_end` without one.
    pub(crate) frac_end: usize,
    /// The index after the number.
    pub(crate) end: usize,
}

/// Scans a JSON number starting at `start` (at `-` or a digit):
/// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`. Returns the index
/// after it. The reader uses [`scan_number_shape`]; this is the reference
/// the document's own number scan is tested against.
#[cfg_attr(not(test), allow(dead_code))]
#[inline(always)]
pub(crate) fn scan_number(b: &[u8], start: usize) -> Result<usize, NumberError> {
    scan_number_shape(b, start).map(|shape| shape.end)
}

/// [`scan_number`], with where the integer part and the fraction end (what
/// a [`Number`] keeps).
#[inline(always)]
pub(crate) fn scan_number_shape(b: &[u8], start: usize) -> Result<NumberShape, NumberError> {
    let mut i = start + usize::from(b.get(start) == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(NumberError { at: i, expected: None });
            }
        }
        Some(b'1'..=b'9') => i = scan::digits_end(b, i + 1),
        _ => return Err(NumberError { at: i, expected: Some("a digit") }),
    }
    let int_end = i;
    match b.get(i) {
        Some(b'.') => {
            let end = scan::digits_end(b, i + 1);
            if end == i + 1 {
                return Err(NumberError { at: end, expected: Some("a digit after the decimal point") });
            }
            i = end;
            if let Some(b'e' | b'E') = b.get(i) {
                return exponent(b, i).map(|end| NumberShape { int_end, frac_end: i, end });
            }
            Ok(NumberShape { int_end, frac_end: i, end: i })
        }
        Some(b'e' | b'E') => exponent(b, i).map(|end| NumberShape { int_end, frac_end: i, end }),
        _ => Ok(NumberShape { int_end, frac_end: i, end: i }),
    }
}

/// The exponent of a number at its `e` or `E`: the index after it.
#[inline]
fn exponent(b: &[u8], mut i: usize) -> Result<usize, NumberError> {
    i += 1;
    if let Some(b'+' | b'-') = b.get(i) {
        i += 1;
    }
    match scan::digits_end(b, i) {
        end if end == i => Err(NumberError { at: i, expected: Some("a digit in the exponent") }),
        end => Ok(end),
    }
}

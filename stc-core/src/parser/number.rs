//! [`Number`]: a number as the reader read it, for [`Sink::number_parts`](crate::Sink::number_parts).

use super::scan::word_at;

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

/// The value of eight ASCII digits read as a little-endian word (the
/// first digit in the lowest byte): three multiply-and-shift steps pair
/// digits, then pairs of digits, then quadruples.
#[inline(always)]
fn eight_digits(w: u64) -> u64 {
    let w = w.wrapping_sub(0x3030_3030_3030_3030);
    let w = w.wrapping_mul(10).wrapping_add(w >> 8) & 0x00ff_00ff_00ff_00ff;
    let w = w.wrapping_mul(100).wrapping_add(w >> 16) & 0x0000_ffff_0000_ffff;
    w.wrapping_mul(10_000).wrapping_add(w >> 32) & 0xffff_ffff
}

/// Accumulates the ASCII digits `d` onto `v` (`v × 10^len + d`), eight per
/// step while eight remain. Wraps beyond 2^64: callers bound the count.
#[inline(always)]
fn accumulate(mut v: u64, d: &[u8]) -> u64 {
    let mut i = 0;
    while let Some(w) = word_at(d, i) {
        v = v.wrapping_mul(100_000_000).wrapping_add(eight_digits(w));
        i += 8;
    }
    for &b in &d[i..] {
        v = v.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
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
        let shape = super::scan_number_shape(lexeme.as_bytes(), 0).ok()?;
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

    /// The integer digits (no sign), the fraction digits (no `.`) and the
    /// exponent's text (after `e`/`E`, its sign included; empty when none).
    #[inline(always)]
    fn parts(&self) -> (&'a [u8], &'a [u8], &'a [u8]) {
        let b = self.lexeme.as_bytes();
        let int = &b[usize::from(self.is_negative())..self.int_end];
        let frac = if self.frac_end > self.int_end { &b[self.int_end + 1..self.frac_end] } else { &[][..] };
        let exp = if self.frac_end < b.len() { &b[self.frac_end + 1..] } else { &[][..] };
        (int, frac, exp)
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
        let (digits, _, _) = self.parts();
        if digits.len() > 19 {
            return None;
        }
        // At most 19 digits: below 10^19 < 2^64, no wrap.
        let v = accumulate(0, digits);
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
        let (int, frac, exp) = self.parts();
        if int.len() + frac.len() <= 19 {
            // At most 19 digits: no wrap.
            let m = accumulate(accumulate(0, int), frac);
            if m <= 1 << 53 {
                let mut e = -(frac.len() as i64);
                if !exp.is_empty() {
                    let (minus, digits) = match exp[0] {
                        b'-' => (true, &exp[1..]),
                        b'+' => (false, &exp[1..]),
                        _ => (false, exp),
                    };
                    // Leading zeros are allowed in an exponent; a value
                    // beyond 10^8 is far outside the fast path anyway.
                    let digits = &digits[digits.iter().take_while(|&&b| b == b'0').count()..];
                    let x = if digits.len() > 8 { 1 << 32 } else { accumulate(0, digits) as i64 };
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

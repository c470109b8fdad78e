//! Scanning helpers of the JSON tape reader: whitespace eight bytes at a
//! time (one `u64` read as eight little-endian bytes; no `unsafe`) and
//! JSON's number grammar. String bodies and digit runs are scanned by the
//! reader's own scans (`parser::scan`), canonical escaping is `strings`'.

use crate::parser::scan::{digits_end, word_at, word_non_digit};
pub(crate) use crate::parser::scan::{plain_run, HIGH, ONES};

const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Whether `b` is JSON whitespace.
#[inline(always)]
pub(crate) fn is_ws(b: Option<&u8>) -> bool {
    matches!(b, Some(b' ' | b'\n' | b'\r' | b'\t'))
}

/// The high bit of every byte of `v` that is zero, exactly (no carry
/// crosses a byte).
#[inline(always)]
pub(crate) fn zero_bytes(v: u64) -> u64 {
    !(((v & LOW7) + LOW7) | v) & HIGH
}

/// The index after the ASCII digits from `i`: the STC reader's
/// `parser::scan::digits_end` (eight bytes at a time while eight remain,
/// then one at a time), except for a lexeme (`LEXEME`, the builder's check,
/// where the last few bytes are every number's tail): there the slice's
/// last eight bytes are tested as one word, shifted so that byte `i` comes
/// first (the bytes shifted in are zeros, which are not digits). The reader
/// keeps the plain tail loop (the word path cost it about 5 % on
/// canada.json, where it is inlined).
#[inline(always)]
fn digits<const LEXEME: bool>(b: &[u8], mut i: usize) -> usize {
    if !LEXEME || b.len() < 8 {
        return digits_end(b, i);
    }
    while let Some(w) = word_at(b, i) {
        let other = word_non_digit(w);
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let rest = b.len().saturating_sub(i);
    if rest == 0 {
        return i;
    }
    let last = word_at(b, b.len() - 8).unwrap_or(0);
    let other = word_non_digit(last >> (8 * (8 - rest)));
    i + (other.trailing_zeros() / 8) as usize
}

/// Where the JSON number starting at `start` ends, or `None` when the
/// bytes there do not follow the grammar (`-`? int frac? exp?; no leading
/// zero). What follows the number is the caller's business. `LEXEME`: `b`
/// is one lexeme to check whole (the builder), not a long input (the reader).
#[inline(always)]
pub(crate) fn number_end<const LEXEME: bool>(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + usize::from(b.get(start) == Some(&b'-'));
    match b.get(i)? {
        b'0' => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits::<LEXEME>(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let after = digits::<LEXEME>(b, i + 1);
        if after == i + 1 {
            return None;
        }
        i = after;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let after = digits::<LEXEME>(b, i);
        if after == i {
            return None;
        }
        i = after;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    //! Each helper against the plain code it replaces.

    use super::*;
    use proptest::prelude::*;

    fn naive_digits(b: &[u8], i: usize) -> usize {
        i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count()
    }

    fn naive_ws(b: &[u8]) -> usize {
        b.iter().take_while(|c| is_ws(Some(c))).count()
    }

    /// Bytes from an alphabet with every boundary the helpers look at.
    fn arb_bytes() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop::sample::select(
                b"0123456789/:-+.eE \n\r\t\"\\\x00\x1f\x20\x7f\x80\xffa\x0b\x2f\x3a\x09\x0a\x0d".to_vec(),
            ),
            0..40,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn word_scans_match_byte_scans(b in arb_bytes(), at in any::<prop::sample::Index>()) {
            let i = at.index(b.len() + 1);
            prop_assert_eq!(digits::<false>(&b, i), naive_digits(&b, i));
            prop_assert_eq!(digits::<true>(&b, i), naive_digits(&b, i));
            // `zero_bytes` as the whitespace scan uses it.
            let mut ws = 0;
            while let Some(chunk) = b.get(ws..ws + 8) {
                let w = u64::from_le_bytes(chunk.try_into().unwrap());
                let found = zero_bytes(w ^ (ONES * b' ' as u64))
                    | zero_bytes(w ^ (ONES * b'\n' as u64))
                    | zero_bytes(w ^ (ONES * b'\r' as u64))
                    | zero_bytes(w ^ (ONES * b'\t' as u64));
                let other = !found & HIGH;
                if other != 0 {
                    ws += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                ws += 8;
            }
            if b.get(ws..ws + 8).is_none() {
                ws += naive_ws(&b[ws..]);
            }
            prop_assert_eq!(ws, naive_ws(&b));
        }

        #[test]
        fn number_end_follows_the_reader(b in arb_bytes(), at in any::<prop::sample::Index>()) {
            let i = at.index(b.len() + 1);
            let reference = crate::parser::scan_number(&b, i).ok();
            prop_assert_eq!(number_end::<false>(&b, i), reference);
            prop_assert_eq!(number_end::<true>(&b, i), reference);
        }
    }
}

//! base54: the response alphabet of seed 003.
//!
//! The alphabet is `123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstyz`
//! (Bitcoin's base58 without `u`, `v`, `w`, `x`). The seed names the alphabet
//! but not the mapping, so this crate fixes it the way base58 does:
//!
//! * the bytes, read as one big-endian unsigned integer, are written in base 54
//!   with the most significant digit first (digit value = index in the
//!   alphabet, so `1` is zero and `z` is 53), without leading zero digits;
//! * each leading zero byte of the input becomes one leading `1`.
//!
//! This is a bijection between byte strings and base54 strings: the empty
//! input encodes to the empty string, `[0, 0]` to `11`, `[1]` to `2`, `[54]`
//! to `21`, and every string over the alphabet decodes to exactly one byte
//! string that encodes back to it. No padding, no whitespace, no checksum.
//!
//! Conversion is quadratic in the length, as for every positional base that
//! is not a power of two; callers bound the input size (the service refuses
//! payloads above `Config::max_payload_chars`).

use std::fmt;

/// The 54 digits, in value order.
pub const ALPHABET: &[u8; 54] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstyz";

/// 54^5, the largest power of 54 below 2^32 that leaves room for carries.
const BIG: u64 = 459_165_024;
const BIG_DIGITS: usize = 5;

const INVALID: u8 = 0xff;
const DIGIT_OF: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// A character outside the alphabet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidBase54 {
    /// The offending character.
    pub character: char,
    /// Its position, counted in characters from 0.
    pub position: usize,
}

impl fmt::Display for InvalidBase54 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "character {:?} at position {} is not in the base54 alphabet {}",
            self.character,
            self.position,
            std::str::from_utf8(ALPHABET).unwrap_or_default()
        )
    }
}

impl std::error::Error for InvalidBase54 {}

/// Encodes bytes as base54.
///
/// ```
/// use stc_serve::base54;
/// assert_eq!(base54::encode(b""), "");
/// assert_eq!(base54::encode(&[0, 0, 1]), "112");
/// assert_eq!(base54::encode(&[54]), "21");
/// assert_eq!(base54::decode(&base54::encode(b"model response"))?, b"model response");
/// # Ok::<(), base54::InvalidBase54>(())
/// ```
pub fn encode(bytes: &[u8]) -> String {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    let rest = &bytes[zeros..];
    // The number as limbs in base 54^5, least significant first.
    let mut limbs: Vec<u64> = Vec::with_capacity(rest.len() * 8 / 29 + 1);
    // Feed 32 bits at a time (a shorter first chunk keeps the rest aligned).
    let first = rest.len() % 4;
    let mut chunks: Vec<(u64, u64)> = Vec::with_capacity(rest.len() / 4 + 1);
    if first > 0 {
        chunks.push((1u64 << (8 * first), be_value(&rest[..first])));
    }
    for chunk in rest[first..].chunks_exact(4) {
        chunks.push((1u64 << 32, be_value(chunk)));
    }
    for (scale, value) in chunks {
        let mut carry = value;
        for limb in limbs.iter_mut() {
            // limb < 2^29, scale <= 2^32, carry < 2^33: fits in u64.
            let acc = *limb * scale + carry;
            *limb = acc % BIG;
            carry = acc / BIG;
        }
        while carry > 0 {
            limbs.push(carry % BIG);
            carry /= BIG;
        }
    }
    let mut out = String::with_capacity(zeros + limbs.len() * BIG_DIGITS);
    out.extend(std::iter::repeat_n('1', zeros));
    let mut started = false;
    for &limb in limbs.iter().rev() {
        let mut digits = [0u8; BIG_DIGITS];
        let mut v = limb;
        for d in digits.iter_mut().rev() {
            *d = (v % 54) as u8;
            v /= 54;
        }
        for d in digits {
            if d != 0 || started {
                started = true;
                out.push(ALPHABET[d as usize] as char);
            }
        }
    }
    out
}

fn be_value(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Decodes base54 text to bytes; any character outside the alphabet
/// (including whitespace) is an error naming it and its position.
///
/// ```
/// use stc_serve::base54;
/// assert_eq!(base54::decode("112")?, vec![0, 0, 1]);
/// let err = base54::decode("21O").unwrap_err();
/// assert_eq!((err.character, err.position), ('O', 2));
/// # Ok::<(), base54::InvalidBase54>(())
/// ```
pub fn decode(text: &str) -> Result<Vec<u8>, InvalidBase54> {
    let bytes = text.as_bytes();
    // Validate first so the error names the first bad character.
    if let Some(i) = bytes.iter().position(|&b| DIGIT_OF[b as usize] == INVALID) {
        let position = text[..i].chars().count();
        let character = text[i..].chars().next().unwrap_or('\u{fffd}');
        return Err(InvalidBase54 { character, position });
    }
    let zeros = bytes.iter().take_while(|&&b| b == ALPHABET[0]).count();
    let rest = &bytes[zeros..];
    // The number as 32-bit limbs, least significant first.
    let mut limbs: Vec<u64> = Vec::with_capacity(rest.len() * 6 / 32 + 1);
    let first = rest.len() % BIG_DIGITS;
    let mut feed = |digits: &[u8]| {
        let scale = 54u64.pow(digits.len() as u32);
        let mut carry = digits.iter().fold(0u64, |acc, &c| acc * 54 + u64::from(DIGIT_OF[c as usize]));
        for limb in limbs.iter_mut() {
            // limb < 2^32, scale < 2^29, carry < 2^29: fits in u64.
            let acc = *limb * scale + carry;
            *limb = acc & 0xffff_ffff;
            carry = acc >> 32;
        }
        while carry > 0 {
            limbs.push(carry & 0xffff_ffff);
            carry >>= 32;
        }
    };
    if first > 0 {
        feed(&rest[..first]);
    }
    for chunk in rest[first..].chunks_exact(BIG_DIGITS) {
        feed(chunk);
    }
    let mut out = Vec::with_capacity(zeros + limbs.len() * 4);
    out.resize(zeros, 0);
    let mut started = false;
    for &limb in limbs.iter().rev() {
        for b in (limb as u32).to_be_bytes() {
            if b != 0 || started {
                started = true;
                out.push(b);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference mapping, digit by digit on a byte vector (slow, obvious).
    fn reference_encode(bytes: &[u8]) -> String {
        let zeros = bytes.iter().take_while(|&&b| b == 0).count();
        let mut digits: Vec<u8> = Vec::new(); // base 54, least significant first
        for &b in &bytes[zeros..] {
            let mut carry = u32::from(b);
            for d in digits.iter_mut() {
                carry += u32::from(*d) << 8;
                *d = (carry % 54) as u8;
                carry /= 54;
            }
            while carry > 0 {
                digits.push((carry % 54) as u8);
                carry /= 54;
            }
        }
        let mut s = "1".repeat(zeros);
        s.extend(digits.iter().rev().map(|&d| ALPHABET[d as usize] as char));
        s
    }

    #[test]
    fn alphabet_is_54_distinct_unambiguous_characters() {
        let mut seen = std::collections::HashSet::new();
        assert!(ALPHABET.iter().all(|c| seen.insert(*c)));
        assert_eq!(seen.len(), 54);
        for c in b"0OIl" {
            assert!(!seen.contains(c));
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(encode(&[]), "");
        assert_eq!(encode(&[0]), "1");
        assert_eq!(encode(&[1]), "2");
        assert_eq!(encode(&[53]), "z");
        assert_eq!(encode(&[54]), "21");
        assert_eq!(encode(&[0, 54]), "121");
        assert_eq!(encode(&[255]), "5g"); // 255 = 4*54 + 39
        assert_eq!(encode(&[1, 0]), "5h"); // 256 = 4*54 + 40
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
        assert_eq!(decode("111").unwrap(), vec![0, 0, 0]);
        assert_eq!(decode("5h").unwrap(), vec![1, 0]);
    }

    #[test]
    fn rejects_characters_outside_the_alphabet() {
        for (text, c, pos) in
            [("0", '0', 0), ("12O", 'O', 2), ("abl", 'l', 2), ("ab u", ' ', 2), ("é1", 'é', 0), ("1é", 'é', 1)]
        {
            let err = decode(text).unwrap_err();
            assert_eq!((err.character, err.position), (c, pos), "{text}");
        }
        assert!(decode("uvwx").is_err());
        assert!(decode("IOl0").is_err());
    }

    proptest! {
        #[test]
        fn round_trips_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(decode(&encode(&bytes)).unwrap(), bytes);
        }

        #[test]
        fn round_trips_leading_zeros(zeros in 0usize..20, bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let mut input = vec![0u8; zeros];
            input.extend(bytes);
            let text = encode(&input);
            prop_assert!(text.starts_with(&"1".repeat(zeros)));
            prop_assert_eq!(decode(&text).unwrap(), input);
        }

        #[test]
        fn matches_the_reference_mapping(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
            prop_assert_eq!(encode(&bytes), reference_encode(&bytes));
        }

        #[test]
        fn every_base54_string_round_trips(idx in proptest::collection::vec(0usize..54, 0..200)) {
            let text: String = idx.iter().map(|&i| ALPHABET[i] as char).collect();
            prop_assert_eq!(encode(&decode(&text).unwrap()), text);
        }
    }
}

//! Byte scans of the hot loops, the ground floor both readers stand on:
//! string bodies, escapes, bare keys, digit runs, JSON whitespace and JSON's
//! number grammar. The STC reader (`parser`) uses most of them; the JSON
//! tape reader (`document::tape::json`) and the canonical escaping of
//! `strings` use the string-body, whitespace, digit and number scans. This
//! module uses nothing of the crate but `identifier`'s byte classes.
//!
//! Safe code only: the wide scans read eight bytes as one little-endian
//! `u64`, or a fixed-size block folded with `|` that the compiler can turn
//! into vector instructions, with a byte loop for the tail.

/// Whether a byte ends a plain run inside a quoted string: `"`, `\` or a
/// control character.
#[inline(always)]
fn is_special(b: u8) -> bool {
    // `|`, not `||`: no branches, so the block loop below can be vectorized.
    (b == b'"') | (b == b'\\') | (b < 0x20)
}

/// The block the wide scan looks at per step.
const BLOCK: usize = 16;

/// `0x01` in every byte of a word.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte of a word.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `at` as a little-endian word, if there are eight.
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..at.wrapping_add(8))?;
    <[u8; 8]>::try_from(word).ok().map(u64::from_le_bytes)
}

/// The high bit of each byte of `w` that is special, exact up to and
/// including the lowest such byte (the has-zero-byte test: a borrow only
/// moves upwards, so bits above the lowest one may be false alarms, never
/// the lowest itself). Zero when no byte is special.
#[inline(always)]
fn word_specials(w: u64) -> u64 {
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    ((quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (w.wrapping_sub(ONES * 0x20) & !w))
        & HIGH
}

/// Whether a block holds a special byte (one vector test where the target has them).
#[inline(always)]
fn block_has_special(block: &[u8; BLOCK]) -> bool {
    block.iter().fold(false, |any, &b| any | is_special(b))
}

/// Length of the leading run of bytes that need no attention inside a
/// string: anything but `"`, `\` and control characters (bytes of multi-byte
/// UTF-8 characters are all 0x80 or above, so they are plain).
///
/// Short strings are the common case: the first eight bytes are tested as
/// one word. Past them, blocks of 16 bytes are skipped while none of their
/// bytes is special, then the special byte is found a word at a time and
/// the last few bytes of the input one at a time.
#[inline]
pub(crate) fn plain_run(bytes: &[u8]) -> usize {
    let mut i = 0;
    if let Some(w) = word_at(bytes, 0) {
        let m = word_specials(w);
        if m != 0 {
            return (m.trailing_zeros() / 8) as usize;
        }
        i = 8;
        while let Some(block) = bytes.get(i..i + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok()) {
            if block_has_special(block) {
                break;
            }
            i += BLOCK;
        }
        while let Some(w) = word_at(bytes, i) {
            let m = word_specials(w);
            if m != 0 {
                return i + (m.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
    }
    let rest = &bytes[i..];
    i + rest.iter().position(|&b| is_special(b)).unwrap_or(rest.len())
}

/// [`plain_run`], and whether any byte of the run is non-ASCII (0x80 or
/// above: part of a multi-byte UTF-8 character). The reader's string scan:
/// the flag lets the one-byte writer copy ASCII-only strings as they are.
#[inline]
pub(crate) fn plain_run_ascii(bytes: &[u8]) -> (usize, bool) {
    let mut i = 0;
    let mut high = 0u64;
    if let Some(w) = word_at(bytes, 0) {
        let m = word_specials(w);
        if m != 0 {
            // The high bits of the bytes before the lowest special one.
            let before = (m & m.wrapping_neg()) - 1;
            return ((m.trailing_zeros() / 8) as usize, w & HIGH & before != 0);
        }
        high = w;
        i = 8;
        while let Some(block) = bytes.get(i..i + BLOCK).and_then(|b| <&[u8; BLOCK]>::try_from(b).ok()) {
            if block_has_special(block) {
                break;
            }
            let (a, b) = block.split_at(8);
            high |= u64::from_le_bytes(a.try_into().unwrap_or_default())
                | u64::from_le_bytes(b.try_into().unwrap_or_default());
            i += BLOCK;
        }
        while let Some(w) = word_at(bytes, i) {
            let m = word_specials(w);
            if m != 0 {
                let before = (m & m.wrapping_neg()) - 1;
                return (i + (m.trailing_zeros() / 8) as usize, ((high | (w & before)) & HIGH) != 0);
            }
            high |= w;
            i += 8;
        }
    }
    let rest = &bytes[i..];
    let n = rest.iter().position(|&b| is_special(b)).unwrap_or(rest.len());
    (i + n, high & HIGH != 0 || !rest[..n].is_ascii())
}

/// The high bit of each byte of `w` that is at least `lo`, for bytes whose
/// high bit is set first (so no borrow crosses bytes; `lo` at most 0x80).
#[inline(always)]
fn at_least(w80: u64, lo: u8) -> u64 {
    w80.wrapping_sub(ONES * u64::from(lo)) & HIGH
}

/// The high bit of each byte of `w` that cannot continue a bare key (not
/// `[A-Za-z0-9_]`), exact for every byte.
#[inline(always)]
fn word_non_identifier(w: u64) -> u64 {
    let w80 = w | HIGH;
    let digit = at_least(w80, b'0') & !at_least(w80, b'9' + 1);
    let upper = at_least(w80, b'A') & !at_least(w80, b'Z' + 1);
    let lower = at_least(w80, b'a') & !at_least(w80, b'z' + 1);
    let underscore = at_least(w80, b'_') & !at_least(w80, b'_' + 1);
    // Bytes from 0x80 up matched nothing above by design of the test only
    // for 7-bit values: they are never identifier bytes.
    (!(digit | upper | lower | underscore) | w) & HIGH
}

/// Length of the bare key (`[A-Za-z_][A-Za-z0-9_]*`) at the start of
/// `bytes`; 0 when there is none. The same as `identifier::len`, eight
/// bytes per step.
#[inline]
pub(crate) fn identifier_len(bytes: &[u8]) -> usize {
    match bytes.first() {
        Some(&b) if crate::identifier::is_start(b) => {}
        _ => return 0,
    }
    let mut i = 1;
    while let Some(w) = word_at(bytes, i) {
        let m = word_non_identifier(w);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && crate::identifier::is_continue(bytes[i]) {
        i += 1;
    }
    i
}

/// The high bit of each byte of `w` that is not an ASCII digit, exact for
/// every byte: `x = w ^ '0'` is below 10 exactly for digits; adding 0x76 to
/// its low seven bits sets the high bit from 10 up (no carry leaves a byte),
/// and `| x` keeps the bytes that had it.
#[inline(always)]
pub(crate) fn word_non_digit(w: u64) -> u64 {
    let x = w ^ (ONES * u64::from(b'0'));
    (((x & !HIGH).wrapping_add(ONES * 0x76)) | x) & HIGH
}

/// The index after the run of ASCII digits starting at `i` (`i` itself
/// when there is none), eight bytes per step while eight remain, then one
/// at a time.
#[inline(always)]
pub(crate) fn digits_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(w) = word_at(bytes, i) {
        let m = word_non_digit(w);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// The escape at the start of `s` (which begins with `\`): its length, and
/// whether it is written as canonical JSON writes it (spec "Canonical
/// strings": `\"` `\\` `\b` `\f` `\n` `\r` `\t`, and `\u00xx` in lowercase
/// hex for the other control characters). `None` when it is not a JSON
/// escape. A `\u` escape of anything else (a letter, a surrogate) or in
/// uppercase hex is valid but not canonical.
#[inline]
pub(crate) fn escape(s: &[u8]) -> Option<(usize, bool)> {
    match s.get(1)? {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some((2, true)),
        b'/' => Some((2, false)),
        b'u' => {
            let hex = s.get(2..6)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let canonical = match hex {
                // The short forms' characters: U+0008, U+0009, U+000A, U+000C, U+000D.
                [b'0', b'0', b'0', b'8' | b'9' | b'a' | b'c' | b'd'] => false,
                [b'0', b'0', b'0' | b'1', low] => matches!(low, b'0'..=b'9' | b'a'..=b'f'),
                _ => false,
            };
            Some((6, canonical))
        }
        _ => None,
    }
}

/// Whether `b` is JSON whitespace.
#[inline(always)]
pub(crate) fn is_ws(b: Option<&u8>) -> bool {
    matches!(b, Some(b' ' | b'\n' | b'\r' | b'\t'))
}

/// The index after the run of JSON whitespace starting at `i` (`i` itself
/// when there is none). Indentation is spaces: eight bytes that are all
/// spaces are one comparison; otherwise the first byte that is not a space
/// ends the run unless it is another whitespace byte (a line break, a
/// tab), which is stepped over. The last few bytes one at a time.
#[inline]
pub(crate) fn ws_end(bytes: &[u8], mut i: usize) -> usize {
    const SPACES: u64 = ONES * b' ' as u64;
    while let Some(w) = word_at(bytes, i) {
        let other = w ^ SPACES;
        if other == 0 {
            i += 8;
            continue;
        }
        i += (other.trailing_zeros() / 8) as usize;
        if !matches!(bytes.get(i), Some(b'\n' | b'\r' | b'\t')) {
            return i;
        }
        i += 1;
    }
    while is_ws(bytes.get(i)) {
        i += 1;
    }
    i
}

/// The index after the ASCII digits from `i`: [`digits_end`] (eight bytes
/// at a time while eight remain, then one at a time), except for a lexeme
/// (`LEXEME`, the builder's check, where the last few bytes are every
/// number's tail): there the slice's last eight bytes are tested as one
/// word, shifted so that byte `i` comes first (the bytes shifted in are
/// zeros, which are not digits). The STC reader keeps the plain tail loop
/// (the word path cost it about 5 % on canada.json, where it is inlined).
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
    use super::*;
    use crate::strings::{escape_len, JsonStr};

    /// The byte loop the wide scan must agree with.
    fn plain_run_bytewise(bytes: &[u8]) -> usize {
        bytes.iter().position(|&b| is_special(b)).unwrap_or(bytes.len())
    }

    #[test]
    fn plain_run_ascii_agrees_with_the_byte_loop_at_every_position() {
        // A special byte (or none) at every position, and a non-ASCII byte
        // at every position before, at and after it.
        for len in 0..48 {
            for special in (0..len).map(Some).chain([None]) {
                for high in (0..len).map(Some).chain([None]) {
                    let mut b = vec![b'a'; len];
                    if let Some(h) = high {
                        b[h] = 0xC3;
                    }
                    if let Some(sp) = special {
                        b[sp] = [b'"', b'\\', 0x01][sp % 3];
                    }
                    let n = plain_run_bytewise(&b);
                    let want = (n, !b[..n].is_ascii());
                    assert_eq!(plain_run_ascii(&b), want, "{b:?}");
                    assert_eq!(plain_run(&b), n);
                }
            }
        }
    }

    #[test]
    fn plain_run_finds_a_special_byte_at_every_position_of_a_block() {
        let base: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~\x7f".to_vec();
        for len in 0..=48 {
            let plain = &base[..len];
            assert_eq!(plain_run(plain), len);
            for special in [b'"', b'\\', 0x00, 0x01, 0x1f, b'\n', b'\t'] {
                for at in 0..len {
                    let mut v = plain.to_vec();
                    v[at] = special;
                    assert_eq!(plain_run(&v), at, "byte {special:#x} at {at} of {len}");
                    // A second special byte later does not matter.
                    if at + 1 < len {
                        v[len - 1] = b'"';
                        assert_eq!(plain_run(&v), at, "byte {special:#x} at {at} of {len}, '\"' last");
                    }
                }
            }
        }
        // The bytes next to the special ones are plain: 0x20, 0x21, 0x5b, 0x5d, 0x7f..=0xff.
        let edges: Vec<u8> = [0x20u8, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff].repeat(5);
        assert_eq!(plain_run(&edges), edges.len());
    }

    #[test]
    fn plain_run_treats_multibyte_utf8_as_plain_across_blocks() {
        for pad in 0..20 {
            let text = format!("{}日本語のテキスト😀é\"tail", "x".repeat(pad));
            let want = text.find('"').unwrap();
            assert_eq!(plain_run(text.as_bytes()), want, "pad {pad}");
        }
    }

    #[test]
    fn plain_run_agrees_with_the_byte_loop_on_every_byte_value() {
        for len in [1usize, 7, 8, 15, 16, 17, 31, 32, 33, 40] {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut v = vec![b'a'; len];
                    v[at] = b;
                    assert_eq!(plain_run(&v), plain_run_bytewise(&v), "byte {b:#x} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn identifier_len_agrees_with_identifier_len_on_every_byte_at_every_position() {
        for len in 1..=26 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut v: Vec<u8> = b"a_Zz09AbcdefghijklmnopqrstuvwxyZ"[..len].to_vec();
                    v[at] = b;
                    assert_eq!(identifier_len(&v), crate::identifier::len(&v), "byte {b:#x} at {at} of {len}");
                }
            }
        }
        for text in ["", "9a", "_", "a", "snake_case_key: 1", "idé", "id\u{e9}", "key日本", "k😀"] {
            assert_eq!(identifier_len(text.as_bytes()), crate::identifier::len(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn digits_end_finds_the_first_non_digit_at_every_position() {
        for len in 0..=26 {
            let digits = &b"01234567890123456789012345"[..len];
            for start in 0..=len {
                assert_eq!(digits_end(digits, start), len);
            }
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut v = digits.to_vec();
                    v[at] = b;
                    for start in 0..=at {
                        let want = start + v[start..].iter().position(|c| !c.is_ascii_digit()).unwrap_or(len - start);
                        assert_eq!(digits_end(&v, start), want, "byte {b:#x} at {at} of {len} from {start}");
                    }
                }
            }
        }
    }

    #[test]
    fn ws_end_stops_at_the_first_non_whitespace_byte_of_any_indentation() {
        // Runs of spaces with one other byte (whitespace or not) at every
        // position, from every start.
        for len in 0..=40 {
            for at in (0..len).map(Some).chain([None]) {
                for b in [b'\n', b'\r', b'\t', b' ', b'"', b'{', 0x00, 0x0b, 0x0c, 0x1f, 0x21, 0x80, 0xa0, 0xff] {
                    let mut v = vec![b' '; len];
                    if let Some(at) = at {
                        v[at] = b;
                    }
                    v.push(b'x');
                    for start in 0..=len {
                        let want = start + v[start..].iter().take_while(|c| is_ws(Some(c))).count();
                        assert_eq!(ws_end(&v, start), want, "byte {b:#x} at {at:?} of {len} from {start}");
                        assert_eq!(ws_end(&v[..len], start), want.min(len));
                    }
                }
            }
        }
    }

    #[test]
    fn escape_lengths_agree_with_escape_len() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for b in 0..=255u8 {
            cases.push(vec![b'\\', b]);
            cases.push(vec![b'\\', b, b'x']);
        }
        for hex in ["0000", "001f", "001F", "0020", "00e9", "d800", "DC00", "12G4", "12", "", "ABCD", "abcd"] {
            cases.push(format!("\\u{hex}").into_bytes());
        }
        cases.push(b"\\".to_vec());
        for s in cases {
            assert_eq!(escape(&s).map(|(n, _)| n), escape_len(&s), "{:?}", String::from_utf8_lossy(&s));
        }
    }

    #[test]
    fn an_escape_is_canonical_iff_canonical_json_writes_it_unchanged() {
        let mut escapes: Vec<String> =
            ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"].map(String::from).to_vec();
        for unit in (0..0x80u32).chain([0xe9, 0x2028, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffe]) {
            escapes.push(format!("\\u{unit:04x}"));
            escapes.push(format!("\\u{unit:04X}"));
        }
        for e in escapes {
            let (len, canonical) = escape(e.as_bytes()).unwrap();
            assert_eq!(len, e.len());
            let written = JsonStr::from_escaped(&e).unwrap().canonical().into_owned();
            if e.starts_with("\\u") && (0xd800..0xe000).contains(&u32::from_str_radix(&e[2..], 16).unwrap()) {
                // A surrogate's canonical form depends on its neighbour: never taken as canonical.
                assert!(!canonical, "{e}");
            } else {
                assert_eq!(canonical, written == e, "{e}: canonical form {written}");
            }
        }
    }
}

#[cfg(test)]
mod json_tests {
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
            prop_assert_eq!(ws_end(&b, i), i + naive_ws(&b[i..]));
            let ws = ws_end(&b, 0);
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

//! Scanning helpers shared by the JSON reader and the builder: whitespace,
//! digits and plain string bytes eight at a time (one `u64` read as eight
//! little-endian bytes; no `unsafe`), JSON's number grammar, canonical
//! escaping of Rust and UTF-16 text.

pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;
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

/// The index after the ASCII digits from `i`, eight bytes at a time.
#[inline(always)]
pub(crate) fn digits(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let w = <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes);
        // A byte is a digit when it is 0x30..=0x39: `t` below 10. The high
        // bit of each byte of the sum is set exactly for the others.
        let t = w ^ (ONES * 0x30);
        let other = (((t & LOW7) + ONES * 0x76) | t) & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// Where the JSON number starting at `start` ends, or `None` when the
/// bytes there do not follow the grammar (`-`? int frac? exp?; no leading
/// zero). What follows the number is the caller's business.
#[inline(always)]
pub(crate) fn number_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + usize::from(b.get(start) == Some(&b'-'));
    match b.get(i)? {
        b'0' => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let after = digits(b, i + 1);
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
        let after = digits(b, i);
        if after == i {
            return None;
        }
        i = after;
    }
    Some(i)
}
/// The high bit of the lowest byte of `w` that is `"`, `\` or a control
/// character is set, and no bit below it (higher bytes may be flagged
/// falsely: a borrow runs upward only from a byte that matched).
#[inline(always)]
fn special_bytes(w: u64) -> u64 {
    let quote = w ^ (ONES * b'"' as u64);
    let backslash = w ^ (ONES * b'\\' as u64);
    ((quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (w.wrapping_sub(ONES * 0x20) & !w))
        & HIGH
}

/// Length of the run of bytes that need no attention inside a string (not
/// `"`, `\` or a control character), eight bytes at a time. The last
/// incomplete word of a slice of eight bytes or more is read as the slice's
/// last eight bytes (the bytes read twice are plain, so they cannot hide or
/// fake the first special byte).
#[inline(always)]
pub(crate) fn plain_run(bytes: &[u8]) -> usize {
    let mut skipped = 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let special = special_bytes(<[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes));
        if special != 0 {
            return skipped + (special.trailing_zeros() / 8) as usize;
        }
        skipped += 8;
    }
    let rest = chunks.remainder();
    if rest.is_empty() {
        return skipped;
    }
    if let Some(last) = bytes.len().checked_sub(8).and_then(|at| bytes.get(at..)) {
        let special = special_bytes(<[u8; 8]>::try_from(last).map_or(0, u64::from_le_bytes));
        if special == 0 {
            return bytes.len();
        }
        return bytes.len() - 8 + (special.trailing_zeros() / 8) as usize;
    }
    skipped + rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(rest.len())
}

/// Appends the canonical escaped body of `s` to `out` (exactly what
/// `strings::push_canonical_str` writes: `"`, `\` and control characters
/// escaped): one copy when nothing needs escaping, else the runs between
/// escapes copied whole.
#[inline(always)]
pub(crate) fn push_canonical(out: &mut String, s: &str) {
    let plain = plain_run(s.as_bytes());
    if plain == s.len() {
        out.push_str(s);
    } else {
        push_escaped(out, s, plain);
    }
}

/// The rest of [`push_canonical`] for a string with a byte to escape at `i`.
#[inline(never)]
fn push_escaped(out: &mut String, s: &str, mut i: usize) {
    let b = s.as_bytes();
    out.reserve(b.len() + 8);
    let mut from = 0;
    while let Some(&byte) = b.get(i) {
        // `i` is at an ASCII byte, so both slices are on character boundaries.
        out.push_str(s.get(from..i).unwrap_or(""));
        push_escape(out, byte);
        i += 1;
        from = i;
        i += plain_run(&b[i..]);
    }
    out.push_str(s.get(from..).unwrap_or(""));
}

/// Appends the canonical escaped body of UTF-16 text (lone surrogates
/// allowed): runs of ASCII that need no escape gathered as bytes (up to 64 at
/// a time) and copied as one `&str`; other units of the Basic Multilingual
/// Plane pushed as characters; from the first surrogate on, the general
/// decoder (`strings::push_canonical_utf16`: a pair is one character, a lone
/// surrogate a `\uXXXX` escape).
#[inline]
pub(crate) fn push_canonical_utf16(out: &mut String, units: &[u16]) {
    out.reserve(units.len());
    let plain = |unit: u16| (0x20..0x80).contains(&unit) && unit != u16::from(b'"') && unit != u16::from(b'\\');
    let mut buf = [0u8; 64];
    let mut i = 0;
    while let Some(&u) = units.get(i) {
        if plain(u) {
            let mut n = 0;
            for (slot, &unit) in buf.iter_mut().zip(&units[i..]) {
                if !plain(unit) {
                    break;
                }
                *slot = unit as u8;
                n += 1;
            }
            // ASCII, so always UTF-8.
            out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
            i += n;
            continue;
        }
        if u < 0x80 {
            push_escape(out, u as u8);
        } else if let Some(c) = char::from_u32(u32::from(u)) {
            out.push(c);
        } else {
            crate::strings::push_canonical_utf16(out, &units[i..]);
            return;
        }
        i += 1;
    }
}

/// The canonical escape of `"`, `\` or a control character.
#[inline]
fn push_escape(out: &mut String, byte: u8) {
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        0x08 => out.push_str("\\b"),
        0x0C => out.push_str("\\f"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        _ => push_u_escape(out, u16::from(byte)),
    }
}

fn push_u_escape(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xF)] as char);
    }
}

#[cfg(test)]
mod tests {
    //! Each helper against the plain code it replaces.

    use super::*;
    use proptest::prelude::*;

    fn naive_digits(b: &[u8], i: usize) -> usize {
        i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count()
    }

    fn naive_plain_run(b: &[u8]) -> usize {
        b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20).unwrap_or(b.len())
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
            prop_assert_eq!(digits(&b, i), naive_digits(&b, i));
            prop_assert_eq!(plain_run(&b[i..]), naive_plain_run(&b[i..]));
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
            prop_assert_eq!(number_end(&b, i), reference);
        }

        #[test]
        fn canonical_escaping_matches_strings(
            s in any::<String>(),
            units in prop::collection::vec(prop_oneof![0u16..0x80, 0x20u16..0x7f, any::<u16>(), 0xd800u16..0xe000], 0..150),
        ) {
            let mut mine = String::from("x");
            let mut theirs = String::from("x");
            push_canonical(&mut mine, &s);
            crate::strings::push_canonical_str(&mut theirs, &s);
            prop_assert_eq!(&mine, &theirs);
            let mut mine = String::new();
            let mut theirs = String::new();
            push_canonical_utf16(&mut mine, &units);
            crate::strings::push_canonical_utf16(&mut theirs, &units);
            prop_assert_eq!(mine, theirs);
        }
    }

    #[test]
    fn canonical_escaping_edges() {
        let text: String = (0u8..0x80).map(char::from).chain("é日\u{1F600}\u{7f}".chars()).collect();
        let mut mine = String::new();
        let mut theirs = String::new();
        push_canonical(&mut mine, &text);
        crate::strings::push_canonical_str(&mut theirs, &text);
        assert_eq!(mine, theirs);
        let units: Vec<u16> = (0u16..0x80)
            .chain([0xe9, 0xd83d, 0xde00, 0xd800, 0x41, 0xdc00, 0xdbff, 0xdbff, 0xdfff, 0xfffd, 0xffff, 0xd800])
            .collect();
        let mut mine = String::new();
        let mut theirs = String::new();
        push_canonical_utf16(&mut mine, &units);
        crate::strings::push_canonical_utf16(&mut theirs, &units);
        assert_eq!(mine, theirs);
    }
}

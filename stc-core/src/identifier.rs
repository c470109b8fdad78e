//! Which object keys STC writes without quotes: `[A-Za-z_][A-Za-z0-9_]*`.
//!
//! One rule for both directions: the reader accepts exactly these bare keys
//! (in members and in columnar headers) and the encoder leaves exactly these
//! unquoted. Such a key needs no escapes, so its canonical body is the key.

/// Bit 0: may start a bare key; bit 1: may continue one. A table because
/// the reader asks once per key byte.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphabetic() || c == b'_' {
            t[b] = 0b11;
        } else if c.is_ascii_digit() {
            t[b] = 0b10;
        }
        b += 1;
    }
    t
};

/// Whether `b` may start a bare key: `[A-Za-z_]`.
#[inline]
pub(crate) fn is_start(b: u8) -> bool {
    CLASS[b as usize] & 0b01 != 0
}

/// Whether `b` may continue a bare key: `[A-Za-z0-9_]`.
#[inline]
pub(crate) fn is_continue(b: u8) -> bool {
    CLASS[b as usize] & 0b10 != 0
}

/// Length of the bare key at the start of `bytes`; 0 when there is none.
#[inline]
pub(crate) fn len(bytes: &[u8]) -> usize {
    match bytes.first() {
        Some(&b) if is_start(b) => {
            let mut i = 1;
            while i < bytes.len() && is_continue(bytes[i]) {
                i += 1;
            }
            i
        }
        _ => 0,
    }
}

/// Whether the whole of `key` can be written without quotes.
#[inline]
pub fn is_identifier(key: &str) -> bool {
    !key.is_empty() && len(key.as_bytes()) == key.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        for ok in ["a", "_", "A_9", "true", "null", "api_version"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for no in ["", "9a", "a-b", "a b", "é", "$x", "a.b"] {
            assert!(!is_identifier(no), "{no}");
        }
        assert_eq!(len(b"ab_1-x"), 4);
        assert_eq!(len(b"1ab"), 0);
        assert_eq!(len(b""), 0);
        for b in 0..=255u8 {
            let start = b.is_ascii_alphabetic() || b == b'_';
            assert_eq!(is_start(b), start, "{b}");
            assert_eq!(is_continue(b), start || b.is_ascii_digit(), "{b}");
        }
    }
}

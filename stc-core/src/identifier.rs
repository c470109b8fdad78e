//! Which object keys STC writes without quotes: `[A-Za-z_][A-Za-z0-9_]*`.
//!
//! One rule for both directions: the reader accepts exactly these bare keys
//! (in members and in columnar headers) and the encoder leaves exactly these
//! unquoted. Such a key needs no escapes, so its canonical body is the key.

/// Whether `b` may start a bare key.
#[inline]
pub(crate) const fn is_start(b: u8) -> bool {
    matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'_')
}

/// Whether `b` may continue a bare key.
#[inline]
pub(crate) const fn is_continue(b: u8) -> bool {
    matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
}

/// Length of the bare key at the start of `bytes`; 0 when there is none.
#[inline]
pub(crate) fn len(bytes: &[u8]) -> usize {
    match bytes.split_first() {
        Some((&first, rest)) if is_start(first) => 1 + rest.iter().take_while(|&&b| is_continue(b)).count(),
        _ => 0,
    }
}

/// Whether the whole of `key` can be written without quotes.
#[inline]
pub(crate) fn is_identifier(key: &str) -> bool {
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
    }
}

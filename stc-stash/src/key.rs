//! Stash keys: the first 24 hex characters of the BLAKE3 hash of a payload.

use std::fmt;

/// Number of hex characters in a key (12 bytes, 96 bits).
pub const KEY_HEX_LEN: usize = 24;

/// A stash key: the first 12 bytes of the BLAKE3 hash of the stashed payload,
/// written as 24 lowercase hex characters.
///
/// A key can only be made by hashing a payload ([`Key::of`]) or by parsing
/// exactly 24 lowercase hex characters ([`Key::parse`]); the stores compute
/// the key of what they store themselves, so a caller can never choose it.
///
/// ```
/// use stc_stash::Key;
/// let key = Key::of(b"[1,2,3]");
/// assert_eq!(key.as_str().len(), 24);
/// assert_eq!(Key::parse(key.as_str()).unwrap(), key);
/// assert!(Key::parse("not-a-key").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key([u8; KEY_HEX_LEN]);

/// Why a text is not a stash key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// The text does not have exactly 24 characters.
    Length(usize),
    /// A character is not a lowercase hex digit (0-9, a-f); the byte offset is given.
    NotHex(usize),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Length(n) => {
                write!(f, "a stash key has exactly {KEY_HEX_LEN} hex characters, this one has {n}")
            }
            KeyError::NotHex(at) => {
                write!(f, "a stash key has only lowercase hex digits (0-9, a-f); character {} is not one", at + 1)
            }
        }
    }
}

impl std::error::Error for KeyError {}

impl Key {
    /// The key of a payload: BLAKE3, first 12 bytes, lowercase hex.
    pub fn of(payload: &[u8]) -> Key {
        let hash = blake3::hash(payload);
        let hex = hash.to_hex();
        let mut out = [0u8; KEY_HEX_LEN];
        out.copy_from_slice(&hex.as_bytes()[..KEY_HEX_LEN]);
        Key(out)
    }

    /// Parses a key: exactly 24 lowercase hex characters, nothing else (no
    /// whitespace, no marker syntax, no upper case). Anything else is
    /// rejected before any store is read.
    pub fn parse(text: &str) -> Result<Key, KeyError> {
        let bytes = text.as_bytes();
        if bytes.len() != KEY_HEX_LEN {
            return Err(KeyError::Length(text.chars().count()));
        }
        if let Some(at) = bytes.iter().position(|b| !matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            // The offset is in characters, so that a message can point at it.
            return Err(KeyError::NotHex(text[..at].chars().count()));
        }
        let mut out = [0u8; KEY_HEX_LEN];
        out.copy_from_slice(bytes);
        Ok(Key(out))
    }

    /// The 24 hex characters.
    pub fn as_str(&self) -> &str {
        // Only ASCII hex digits are ever stored.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_blake3_prefix() {
        let key = Key::of(b"hello");
        assert_eq!(key.as_str(), &blake3::hash(b"hello").to_hex()[..24]);
    }

    #[test]
    fn hostile_keys_are_rejected() {
        let good = Key::of(b"x").to_string();
        assert!(Key::parse(&good).is_ok());
        assert_eq!(Key::parse(&good[..23]), Err(KeyError::Length(23)));
        assert_eq!(Key::parse(&format!("{good}0")), Err(KeyError::Length(25)));
        assert_eq!(Key::parse(""), Err(KeyError::Length(0)));
        assert_eq!(
            Key::parse(&good.to_uppercase()).unwrap_err(),
            KeyError::NotHex(good.find(|c: char| c.is_ascii_alphabetic()).unwrap())
        );
        assert!(Key::parse("'; DROP TABLE stash; --xx").is_err());
        assert!(matches!(Key::parse("0123456789abcdef0123456 "), Err(KeyError::NotHex(23))));
        assert!(matches!(Key::parse("<<stc:0123456789abcdef01234567>>"), Err(KeyError::Length(_))));
        assert_eq!(Key::parse("0123456789abcdef012345é"), Err(KeyError::NotHex(22)));
        assert!(matches!(Key::parse("0123456789abcdef0123456\u{0}"), Err(KeyError::NotHex(23))));
    }
}

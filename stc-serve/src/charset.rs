//! The "original encoding" of seed 003: prompts are turned into bytes in the
//! conversation's encoding before base64, and base54 responses are bytes in
//! that encoding, decoded back to text.
//!
//! A small closed set, strict in both directions (no replacement characters,
//! no silent loss): text that the encoding cannot represent and bytes that are
//! not valid in it are errors that say where.

use std::fmt;

/// A supported text encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// UTF-8 (`utf-8`, `utf8`).
    Utf8,
    /// 7-bit US-ASCII (`ascii`, `us-ascii`).
    Ascii,
    /// ISO-8859-1 (`latin-1`, `latin1`, `iso-8859-1`): code points 0..=255.
    Latin1,
    /// UTF-16 with a byte-order mark: written little-endian with a BOM;
    /// read with the BOM's byte order, little-endian when there is none.
    Utf16,
    /// UTF-16 little-endian without BOM (`utf-16-le`).
    Utf16Le,
    /// UTF-16 big-endian without BOM (`utf-16-be`).
    Utf16Be,
}

/// Why text could not be encoded or bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharsetError {
    /// Human-readable description, naming the position.
    pub message: String,
}

impl fmt::Display for CharsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CharsetError {}

/// The names accepted, in canonical form.
pub const NAMES: &[&str] = &["utf-8", "ascii", "latin-1", "utf-16", "utf-16-le", "utf-16-be"];

impl Charset {
    /// Looks an encoding up by name (case-insensitive, `_` same as `-`).
    ///
    /// ```
    /// use stc_serve::charset::Charset;
    /// assert_eq!(Charset::from_name("UTF_8"), Some(Charset::Utf8));
    /// assert_eq!(Charset::from_name("iso-8859-1"), Some(Charset::Latin1));
    /// assert_eq!(Charset::from_name("ebcdic"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Charset> {
        let n = name.trim().to_ascii_lowercase().replace('_', "-");
        Some(match n.as_str() {
            "utf-8" | "utf8" => Charset::Utf8,
            "ascii" | "us-ascii" => Charset::Ascii,
            "latin-1" | "latin1" | "iso-8859-1" | "iso8859-1" | "l1" => Charset::Latin1,
            "utf-16" | "utf16" => Charset::Utf16,
            "utf-16-le" | "utf-16le" | "utf16le" => Charset::Utf16Le,
            "utf-16-be" | "utf-16be" | "utf16be" => Charset::Utf16Be,
            _ => return None,
        })
    }

    /// The canonical name, as stored and reported.
    pub fn name(self) -> &'static str {
        match self {
            Charset::Utf8 => "utf-8",
            Charset::Ascii => "ascii",
            Charset::Latin1 => "latin-1",
            Charset::Utf16 => "utf-16",
            Charset::Utf16Le => "utf-16-le",
            Charset::Utf16Be => "utf-16-be",
        }
    }

    /// Checks that `text` can be encoded, without building the bytes.
    pub fn check(self, text: &str) -> Result<(), CharsetError> {
        let limit = match self {
            Charset::Ascii => 0x7f,
            Charset::Latin1 => 0xff,
            _ => return Ok(()),
        };
        match text.chars().enumerate().find(|(_, c)| u32::from(*c) > limit) {
            Some((i, c)) => Err(CharsetError {
                message: format!(
                    "character {c:?} (U+{:04X}) at position {i} cannot be encoded in {}",
                    u32::from(c),
                    self.name()
                ),
            }),
            None => Ok(()),
        }
    }

    /// Encodes `text` in this encoding.
    ///
    /// ```
    /// use stc_serve::charset::Charset;
    /// assert_eq!(Charset::Latin1.encode("é")?, vec![0xe9]);
    /// assert!(Charset::Ascii.encode("é").is_err());
    /// # Ok::<(), stc_serve::charset::CharsetError>(())
    /// ```
    pub fn encode(self, text: &str) -> Result<Vec<u8>, CharsetError> {
        self.check(text)?;
        Ok(match self {
            Charset::Utf8 | Charset::Ascii => text.as_bytes().to_vec(),
            Charset::Latin1 => text.chars().map(|c| c as u32 as u8).collect(),
            Charset::Utf16 => {
                let mut out = vec![0xff, 0xfe];
                out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
                out
            }
            Charset::Utf16Le => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            Charset::Utf16Be => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        })
    }

    /// Decodes `bytes` in this encoding; invalid bytes are an error naming the offset.
    ///
    /// ```
    /// use stc_serve::charset::Charset;
    /// assert_eq!(Charset::Utf16Be.decode(&[0, 0x68, 0, 0x69])?, "hi");
    /// assert!(Charset::Utf8.decode(b"\xff").is_err());
    /// # Ok::<(), stc_serve::charset::CharsetError>(())
    /// ```
    pub fn decode(self, bytes: &[u8]) -> Result<String, CharsetError> {
        match self {
            Charset::Utf8 => String::from_utf8(bytes.to_vec()).map_err(|e| CharsetError {
                message: format!("invalid utf-8 at byte offset {}", e.utf8_error().valid_up_to()),
            }),
            Charset::Ascii => match bytes.iter().position(|&b| b > 0x7f) {
                Some(i) => Err(CharsetError { message: format!("byte 0x{:02x} at offset {i} is not ascii", bytes[i]) }),
                None => Ok(bytes.iter().map(|&b| b as char).collect()),
            },
            Charset::Latin1 => Ok(bytes.iter().map(|&b| b as char).collect()),
            Charset::Utf16 => match bytes {
                [0xff, 0xfe, rest @ ..] => decode_utf16(rest, 2, u16::from_le_bytes, self),
                [0xfe, 0xff, rest @ ..] => decode_utf16(rest, 2, u16::from_be_bytes, self),
                _ => decode_utf16(bytes, 0, u16::from_le_bytes, self),
            },
            Charset::Utf16Le => decode_utf16(bytes, 0, u16::from_le_bytes, self),
            Charset::Utf16Be => decode_utf16(bytes, 0, u16::from_be_bytes, self),
        }
    }
}

fn decode_utf16(bytes: &[u8], base: usize, unit: fn([u8; 2]) -> u16, cs: Charset) -> Result<String, CharsetError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(CharsetError {
            message: format!("{} input has an odd number of bytes ({})", cs.name(), base + bytes.len()),
        });
    }
    let units = bytes.chunks_exact(2).map(|p| unit([p[0], p[1]]));
    let mut out = String::with_capacity(bytes.len() / 2);
    for r in char::decode_utf16(units) {
        match r {
            Ok(c) => out.push(c),
            Err(e) => {
                // The byte offset of the bad unit: units already decoded, times two.
                let units_before: usize = out.chars().map(char::len_utf16).sum();
                return Err(CharsetError {
                    message: format!(
                        "unpaired surrogate 0x{:04x} at byte offset {} is not valid {}",
                        e.unpaired_surrogate(),
                        base + units_before * 2,
                        cs.name()
                    ),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_charset_round_trips_what_it_can_represent() {
        for name in NAMES {
            let cs = Charset::from_name(name).unwrap();
            assert_eq!(cs.name(), *name);
            for text in ["", "Hello", "tab\tand\nnewline", "ÿé", "日本語 🎉"] {
                match cs.encode(text) {
                    Ok(bytes) => assert_eq!(cs.decode(&bytes).unwrap(), text, "{name} {text:?}"),
                    Err(e) => {
                        assert!(matches!(cs, Charset::Ascii | Charset::Latin1), "{name} {text:?}");
                        assert!(e.message.contains("position"), "{}", e.message);
                    }
                }
            }
        }
    }

    #[test]
    fn decode_errors_name_the_offset() {
        assert_eq!(Charset::Utf8.decode(b"ab\xc3").unwrap_err().message, "invalid utf-8 at byte offset 2");
        assert!(Charset::Ascii.decode(b"a\x80").unwrap_err().message.contains("offset 1"));
        assert!(Charset::Utf16Le.decode(b"a").unwrap_err().message.contains("odd"));
        let lone = [0x61, 0x00, 0x00, 0xd8];
        assert!(Charset::Utf16Le.decode(&lone).unwrap_err().message.contains("byte offset 2"));
        assert_eq!(Charset::Utf16.decode(&[0xfe, 0xff, 0, 0x41]).unwrap(), "A");
        assert_eq!(Charset::Utf16.encode("A").unwrap(), vec![0xff, 0xfe, 0x41, 0]);
    }
}

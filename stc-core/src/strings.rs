//! String content: validated escapes, canonical re-escaping, unescaping.
//!
//! The parser hands strings to a [`Sink`](crate::Sink) as [`JsonStr`]: the
//! bytes between the quotes exactly as written, already validated. Each sink
//! then does only the work it needs: the JSON and STC writers want the
//! *canonical* escaped form, native-object builders want the decoded text.

use std::borrow::Cow;

/// A validated string body (the text between the quotes, escapes included).
///
/// ```
/// use stc_core::JsonStr;
/// let s = JsonStr::from_escaped(r"caf\u00e9 \/ \ud800").unwrap();
/// assert_eq!(s.canonical(), r"café / \ud800");
/// assert!(s.to_str().is_none()); // a lone surrogate is not valid Rust text
/// assert_eq!(s.to_utf16().len(), 8);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct JsonStr<'a> {
    raw: &'a str,
    escapes: Escapes,
}

/// What is known about a body's escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// None: the body is its own decoded text and is canonical.
    None,
    /// Some, as written in the input: canonicalizing may change them.
    AsWritten,
    /// Already canonical, with or without escapes (a document's stored
    /// strings): writing the body is a copy, and whether it has escapes is
    /// looked up only when asked.
    Canonical,
}

/// Equal when the bodies are written the same (what is known about their
/// escaping does not matter).
impl PartialEq for JsonStr<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl Eq for JsonStr<'_> {}

impl<'a> JsonStr<'a> {
    /// Wraps a body known to be valid (used by the parser after it checked it).
    pub(crate) fn new_unchecked(raw: &'a str, escaped: bool) -> JsonStr<'a> {
        JsonStr { raw, escapes: if escaped { Escapes::AsWritten } else { Escapes::None } }
    }

    /// Wraps a body known to be canonical (a [`Document`](crate::Document)'s
    /// stored strings and keys).
    pub(crate) fn canonical_unchecked(raw: &'a str) -> JsonStr<'a> {
        JsonStr { raw, escapes: Escapes::Canonical }
    }

    /// Checks `raw` as the inside of a JSON string literal and wraps it.
    /// Returns `None` when it holds a raw `"`, a raw control character or an
    /// invalid escape.
    pub fn from_escaped(raw: &'a str) -> Option<JsonStr<'a>> {
        let bytes = raw.as_bytes();
        let mut i = 0;
        let mut escaped = false;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => return None,
                b if b < 0x20 => return None,
                b'\\' => {
                    escaped = true;
                    i += escape_len(&bytes[i..])?;
                }
                _ => i += 1,
            }
        }
        Some(JsonStr::new_unchecked(raw, escaped))
    }

    /// The body as written in the input.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// Whether the body contains at least one backslash escape.
    pub fn has_escapes(&self) -> bool {
        match self.escapes {
            Escapes::None => false,
            Escapes::AsWritten => true,
            Escapes::Canonical => self.raw.as_bytes().contains(&b'\\'),
        }
    }

    /// The body in canonical escaping (see the spec, "Canonical strings"):
    /// only `"`, `\`, control characters and lone surrogates are escaped.
    /// Borrows when the input already is canonical.
    pub fn canonical(&self) -> Cow<'a, str> {
        if self.escapes != Escapes::AsWritten {
            return Cow::Borrowed(self.raw);
        }
        let mut out = String::with_capacity(self.raw.len());
        self.write_canonical(&mut out);
        Cow::Owned(out)
    }

    /// Appends the canonical body to `out`.
    #[inline]
    pub fn write_canonical(&self, out: &mut String) {
        if self.escapes != Escapes::AsWritten {
            out.push_str(self.raw);
        } else {
            self.write_recanonicalized(out);
        }
    }

    fn write_recanonicalized(&self, out: &mut String) {
        for unit in Units::new(self.raw) {
            match unit {
                Unit::Text(t) => out.push_str(t),
                Unit::Char(c) => push_canonical_char(out, c),
                Unit::LoneSurrogate(u) => push_u_escape(out, u),
            }
        }
    }

    /// The decoded text, or `None` when it holds a lone surrogate (which
    /// Rust strings cannot represent; use [`to_utf16`](JsonStr::to_utf16)).
    pub fn to_str(&self) -> Option<Cow<'a, str>> {
        if !self.has_escapes() {
            return Some(Cow::Borrowed(self.raw));
        }
        let mut out = String::with_capacity(self.raw.len());
        for unit in Units::new(self.raw) {
            match unit {
                Unit::Text(t) => out.push_str(t),
                Unit::Char(c) => out.push(c),
                Unit::LoneSurrogate(_) => return None,
            }
        }
        Some(Cow::Owned(out))
    }

    /// Whether decoding yields a lone surrogate.
    pub fn has_lone_surrogate(&self) -> bool {
        self.has_escapes() && Units::new(self.raw).any(|u| matches!(u, Unit::LoneSurrogate(_)))
    }

    /// The decoded text as UTF-16 code units; lone surrogates are kept as the
    /// code unit they name (what JavaScript and Python strings hold).
    pub fn to_utf16(&self) -> Vec<u16> {
        let mut out = Vec::with_capacity(self.raw.len());
        for unit in Units::new(self.raw) {
            match unit {
                Unit::Text(t) => out.extend(t.encode_utf16()),
                Unit::Char(c) => {
                    let mut buf = [0u16; 2];
                    out.extend_from_slice(c.encode_utf16(&mut buf));
                }
                Unit::LoneSurrogate(u) => out.push(u),
            }
        }
        out
    }

    /// The canonical escaped body of plain text (what goes between the
    /// quotes of a JSON string holding `text`): only `"`, `\` and control
    /// characters are escaped.
    ///
    /// ```
    /// use stc_core::JsonStr;
    /// assert_eq!(JsonStr::escape("say \"hi\"\n\u{1}é"), r#"say \"hi\"\n\u0001é"#);
    /// ```
    pub fn escape(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        push_canonical_str(&mut out, text);
        out
    }
}

/// Appends the canonical escaped body of a Rust string to `out`.
pub(crate) fn push_canonical_str(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            out.push_str(&s[start..i]);
            push_canonical_char(out, b as char);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
}

/// Appends the canonical escaped body of UTF-16 text (lone surrogates allowed).
pub(crate) fn push_canonical_utf16(out: &mut String, units: &[u16]) {
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => push_canonical_char(out, c),
            Err(e) => push_u_escape(out, e.unpaired_surrogate()),
        }
    }
}

fn push_canonical_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{08}' => out.push_str("\\b"),
        '\u{0C}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 => push_u_escape(out, c as u16),
        c => out.push(c),
    }
}

fn push_u_escape(out: &mut String, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((unit >> shift) & 0xF) as usize] as char);
    }
}

/// Length of the valid escape at the start of `s` (which begins with `\`),
/// or `None` if it is not a JSON escape.
pub(crate) fn escape_len(s: &[u8]) -> Option<usize> {
    match s.get(1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => {
            let hex = s.get(2..6)?;
            hex.iter().all(u8::is_ascii_hexdigit).then_some(6)
        }
        _ => None,
    }
}

fn hex4(h: &[u8]) -> u16 {
    h.iter().fold(0u16, |acc, &b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b.wrapping_sub(b'A').wrapping_add(10) & 0xF,
        };
        (acc << 4) | d as u16
    })
}

/// One piece of a decoded body.
enum Unit<'a> {
    /// A run of text without escapes.
    Text(&'a str),
    /// A character written as an escape.
    Char(char),
    /// A `\uD800`–`\uDFFF` escape with no partner.
    LoneSurrogate(u16),
}

/// Iterates a validated body as text runs and decoded escapes, pairing
/// surrogate escapes where a high one is directly followed by a low one.
struct Units<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Units<'a> {
    fn new(s: &'a str) -> Self {
        Units { s, i: 0 }
    }

    fn u_escape_at(&self, i: usize) -> Option<u16> {
        let b = self.s.as_bytes();
        if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
            b.get(i + 2..i + 6).map(hex4)
        } else {
            None
        }
    }
}

impl<'a> Iterator for Units<'a> {
    type Item = Unit<'a>;

    fn next(&mut self) -> Option<Unit<'a>> {
        let bytes = self.s.as_bytes();
        let start = self.i;
        if start >= bytes.len() {
            return None;
        }
        if bytes[start] != b'\\' {
            let end = bytes[start..].iter().position(|&b| b == b'\\').map_or(bytes.len(), |p| start + p);
            self.i = end;
            // Both ends sit next to ASCII bytes (or the ends of the body).
            return self.s.get(start..end).map(Unit::Text);
        }
        let c = match bytes.get(start + 1) {
            Some(b'u') => {
                let unit = self.u_escape_at(start).unwrap_or(0xFFFD);
                self.i = start + 6;
                if (0xD800..0xDC00).contains(&unit) {
                    if let Some(low) = self.u_escape_at(self.i).filter(|l| (0xDC00..0xE000).contains(l)) {
                        self.i += 6;
                        let cp = 0x10000 + (((unit as u32) - 0xD800) << 10) + ((low as u32) - 0xDC00);
                        return Some(Unit::Char(char::from_u32(cp).unwrap_or('\u{FFFD}')));
                    }
                    return Some(Unit::LoneSurrogate(unit));
                }
                if (0xDC00..0xE000).contains(&unit) {
                    return Some(Unit::LoneSurrogate(unit));
                }
                return Some(Unit::Char(char::from_u32(unit as u32).unwrap_or('\u{FFFD}')));
            }
            Some(b'b') => '\u{08}',
            Some(b'f') => '\u{0C}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(&b) => b as char, // '"', '\\', '/'
            None => '\\',
        };
        self.i = start + 2;
        Some(Unit::Char(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(raw: &str) -> String {
        JsonStr::from_escaped(raw).unwrap().canonical().into_owned()
    }

    #[test]
    fn canonical_escaping() {
        assert_eq!(canon(r"plain"), "plain");
        assert_eq!(canon(r"\/\u0041\u00e9"), "/Aé");
        assert_eq!(canon(r"\u0008\u000C\u000a\u000D\u0009"), r"\b\f\n\r\t");
        assert_eq!(canon(r"\u001F\u0000"), r"\u001f\u0000");
        assert_eq!(canon(r#"\"\\"#), r#"\"\\"#);
        assert_eq!(canon(r"\uD83D\uDE00"), "😀");
        assert_eq!(canon(r"\uD800"), r"\ud800");
        assert_eq!(canon(r"\uDC00\uD800"), r"\udc00\ud800");
        assert_eq!(canon(r"\uD800x"), r"\ud800x");
        assert_eq!(canon(r"\uD800\u0041"), r"\ud800A");
    }

    #[test]
    fn rejects_bad_bodies() {
        for bad in [r"\x", r"\u12G4", r"\u12", "\\", "a\"b", "a\u{1}b"] {
            assert!(JsonStr::from_escaped(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn decoding() {
        let s = JsonStr::from_escaped(r"a\nb\uD83D\uDE00").unwrap();
        assert_eq!(s.to_str().unwrap(), "a\nb😀");
        let lone = JsonStr::from_escaped(r"x\uDBFF").unwrap();
        assert!(lone.has_lone_surrogate());
        assert_eq!(lone.to_utf16(), vec![b'x' as u16, 0xDBFF]);
    }

    #[test]
    fn canonical_from_rust_and_utf16() {
        let mut out = String::new();
        push_canonical_str(&mut out, "a\"b\\c\u{1}\té");
        assert_eq!(out, r#"a\"b\\c\u0001\té"#);
        out.clear();
        push_canonical_utf16(&mut out, &[0x61, 0xD800, 0x62, 0xD83D, 0xDE00]);
        assert_eq!(out, r"a\ud800b😀");
    }

    #[test]
    fn stored_canonical_bodies_answer_like_parsed_ones() {
        for body in ["plain", r#"q\"b\\s\n"#, r"\u0001 \ud800", "é"] {
            let parsed = JsonStr::from_escaped(body).unwrap();
            let stored = JsonStr::canonical_unchecked(body);
            assert_eq!(stored.has_escapes(), parsed.has_escapes(), "{body}");
            assert_eq!(stored.to_str(), parsed.to_str(), "{body}");
            assert_eq!(stored.to_utf16(), parsed.to_utf16(), "{body}");
            assert_eq!(stored.has_lone_surrogate(), parsed.has_lone_surrogate(), "{body}");
            assert_eq!(stored.canonical(), body, "{body}");
            assert_eq!(stored, parsed);
        }
    }
}

//! String content: validated escapes, canonical re-escaping, unescaping.
//!
//! The parser hands strings to a [`Sink`](crate::Sink) as [`JsonStr`]: the
//! bytes between the quotes exactly as written, already validated. Each sink
//! then does only the work it needs: the JSON and STC writers want the
//! *canonical* escaped form, native-object builders want the decoded text.

use std::borrow::Cow;

use crate::scan::plain_run;

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
    /// The body is known to be ASCII (the reader saw no byte from 0x80
    /// up); `false` when it has such bytes or nobody looked.
    ascii: bool,
}

/// What is known about a body's escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// None: the body is its own decoded text and is canonical.
    None,
    /// Some, as written in the input: canonicalizing may change them.
    AsWritten,
    /// Some, every one of them written as canonical JSON writes it (the
    /// reader checked each): the body is canonical as written.
    CanonicalEscaped,
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
        JsonStr { raw, escapes: if escaped { Escapes::AsWritten } else { Escapes::None }, ascii: false }
    }

    /// Wraps a body the parser checked, with what it learnt: whether it has
    /// escapes, and whether all of them are canonical (then writing the body
    /// is a copy).
    #[inline]
    pub(crate) fn parsed(raw: &'a str, escaped: bool, canonical: bool, ascii: bool) -> JsonStr<'a> {
        let escapes = match (escaped, canonical) {
            (false, _) => Escapes::None,
            (true, true) => Escapes::CanonicalEscaped,
            (true, false) => Escapes::AsWritten,
        };
        JsonStr { raw, escapes, ascii }
    }

    /// A [v2] bare string the parser read (no escapes), with whether it is
    /// known to be ASCII.
    #[inline]
    pub(crate) fn bare_unchecked(raw: &'a str, ascii: bool) -> JsonStr<'a> {
        JsonStr { raw, escapes: Escapes::None, ascii }
    }

    /// A bare key the parser read (`[A-Za-z_][A-Za-z0-9_]*`: ASCII, no escapes).
    #[inline]
    pub(crate) fn identifier_unchecked(raw: &'a str) -> JsonStr<'a> {
        JsonStr { raw, escapes: Escapes::None, ascii: true }
    }

    /// Whether the body is known to be ASCII and canonical as written: the
    /// one-byte writer copies it unchanged.
    #[inline(always)]
    pub(crate) fn is_ascii_canonical(&self) -> bool {
        self.ascii && self.escapes != Escapes::AsWritten
    }

    /// Whether writing the canonical body is a copy of the body.
    #[inline(always)]
    pub(crate) fn is_canonical_as_written(&self) -> bool {
        self.escapes != Escapes::AsWritten
    }

    /// Wraps a body known to be canonical (a [`Document`](crate::Document)'s
    /// stored strings and keys).
    pub(crate) fn canonical_unchecked(raw: &'a str) -> JsonStr<'a> {
        JsonStr { raw, escapes: Escapes::Canonical, ascii: false }
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
            Escapes::AsWritten | Escapes::CanonicalEscaped => true,
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

/// Whether a string value may be written without quotes in STC version 2 (a
/// *bare string*; spec 3.11). `s` is the decoded text. The rule is a list
/// of allowed characters, so that no bare string can look like something
/// else (a literal, a number, `~`, whitespace, an invisible character):
///
/// * it is not empty;
/// * its first character is a *bare letter*: an ASCII letter `A`–`Z`
///   `a`–`z`, or one of the non-ASCII letters of [`is_bare_letter`];
/// * every other character is a bare letter, an ASCII digit, U+0020 SPACE,
///   or one of the ASCII marks `! # $ % & ' * + - . ; < = > ? @ ^ _` `` ` `` `|`;
/// * its last character is not a space;
/// * it is not, ignoring ASCII case, one of the words a reader could take
///   for a literal, a number or a null of another language: `true`,
///   `false`, `null`, `nan`, `inf`, `infinity`, `none`, `nil`, `undefined`.
///
/// The version 2 writer writes a qualifying string bare when its first
/// character is ASCII; the version 2 reader reads a bare run back as
/// exactly this string.
///
/// ```
/// use stc_core::is_bare_string;
/// assert!(is_bare_string("GET"));
/// assert!(!is_bare_string("Paris, France")); // ',' ends a cell
/// assert!(is_bare_string("true story"));
/// assert!(is_bare_string("café au lait"));
/// assert!(!is_bare_string("True")); // a literal look-alike
/// assert!(!is_bare_string("None"));
/// assert!(!is_bare_string("tru\u{435}")); // a Cyrillic е: not a bare letter
/// assert!(!is_bare_string("true\u{200b}")); // an invisible character
/// assert!(!is_bare_string("2024-01-01")); // starts like a number
/// assert!(!is_bare_string("@ref1")); // '@' may not start one (reserved)
/// assert!(!is_bare_string("f(x)")); // parentheses are never bare
/// assert!(!is_bare_string("a ")); // a space at the end
/// assert!(!is_bare_string("")); // empty
/// ```
pub fn is_bare_string(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else { return false };
    is_bare_first(first) && !s.ends_with(' ') && s.chars().all(is_bare_char) && !is_literal_lookalike(s)
}

/// Whether `c` may start a bare string: an ASCII letter or a non-ASCII bare
/// letter ([`is_bare_letter`]).
#[inline]
pub(crate) fn is_bare_first(c: char) -> bool {
    c.is_ascii_alphabetic() || is_bare_letter(c)
}

/// The non-ASCII characters a bare string may hold (spec 3.11): letters of
/// scripts that hold no look-alike of an ASCII letter, digit or mark, minus
/// the few that do.
///
/// * U+00C0–U+00FF but U+00D7 `×` and U+00F7 `÷` (Latin-1 letters);
/// * U+0100–U+017E but U+0131 `ı`, U+0138 `ĸ`, U+013F `Ŀ`, U+0140 `ŀ`,
///   U+0149 `ŉ` (Latin Extended-A; U+017F `ſ` is outside);
/// * U+3041–U+3096 (Hiragana), U+30A1–U+30FA (Katakana; not U+30FC `ー`);
/// * U+4E01–U+9FFF (CJK Unified Ideographs but U+4E00 `一`, a dash's look-alike);
/// * U+AC00–U+D7A3 (Hangul syllables).
///
/// Greek, Cyrillic and the scripts written right to left are not in the
/// list (Cyrillic `е` is Latin `e`'s twin; a right-to-left run reorders
/// the commas around it): such strings are quoted.
///
/// ```
/// use stc_core::is_bare_letter;
/// assert!(is_bare_letter('é') && is_bare_letter('東') && is_bare_letter('ł'));
/// assert!(!is_bare_letter('е') && !is_bare_letter('\u{200b}') && !is_bare_letter('a'));
/// ```
#[inline]
pub fn is_bare_letter(c: char) -> bool {
    matches!(c as u32,
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x130 | 0x132..=0x137 | 0x139..=0x13E | 0x141..=0x148 | 0x14A..=0x17E
        | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x4E01..=0x9FFF | 0xAC00..=0xD7A3)
}

/// Whether `c` may appear inside a bare string (the rules for the ends are
/// in [`is_bare_string`]).
#[inline]
pub(crate) fn is_bare_char(c: char) -> bool {
    if c.is_ascii() {
        return BARE_BYTE[c as usize];
    }
    is_bare_letter(c)
}

/// For each byte, whether it is an ASCII character that may appear inside a
/// bare string: letters, digits, the space and the marks
/// `! # $ % & ' * + - . ; < = > ? @ ^ _` `` ` `` `|` (bytes from 0x80 up:
/// `false`; the characters they start are judged by [`is_bare_letter`]).
pub(crate) const BARE_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x20;
    while b < 0x7F {
        t[b] = !matches!(b as u8, b'"' | b'\\' | b',' | b'/' | b':' | b'[' | b']' | b'{' | b'}' | b'~' | b'(' | b')');
        b += 1;
    }
    t
};

/// For each byte, whether it is an ASCII mark reserved for later versions
/// of STC where a value is due (spec 3.12): a reader reports it as
/// `newer_version`. They are the marks a bare string may hold but not
/// start, and the parentheses (which enclose a top-level header form, and
/// are reserved everywhere else).
pub(crate) const RESERVED_START: [bool; 256] = {
    let mut t = [false; 256];
    let marks = b"!#$%&'()*;<=>?@^_`|";
    let mut i = 0;
    while i < marks.len() {
        t[marks[i] as usize] = true;
        i += 1;
    }
    t
};

/// The length of the character at the start of `bytes` (valid UTF-8, first
/// byte 0x80 or above) if it is a bare letter ([`is_bare_letter`]), else 0.
#[inline]
pub(crate) fn bare_char_len(bytes: &[u8]) -> usize {
    let at = |i: usize| u32::from(bytes.get(i).copied().unwrap_or(0) & 0x3F);
    let (c, n) = match bytes.first().copied().unwrap_or(0) {
        b @ 0xC2..=0xDF => ((u32::from(b & 0x1F) << 6) | at(1), 2),
        b @ 0xE0..=0xEF => ((u32::from(b & 0x0F) << 12) | (at(1) << 6) | at(2), 3),
        _ => return 0,
    };
    match char::from_u32(c) {
        Some(c) if is_bare_letter(c) => n,
        _ => 0,
    }
}

/// [`is_bare_string`] for a run the reader took: a non-empty string of
/// characters that [`is_bare_char`] allows, starting with a bare letter and
/// not ending with a space. Only the literal look-alikes are left to check.
#[inline]
pub(crate) fn is_bare_run(run: &str) -> bool {
    let bare = !run.is_empty() && !is_literal_lookalike(run);
    debug_assert_eq!(bare, is_bare_string(run), "{run:?}");
    bare
}

/// The words, compared ignoring ASCII case, that a string may not be bare
/// as: a reader could take them for a literal, a number or another
/// language's null.
pub const LOOKALIKE_WORDS: [&str; 9] = ["true", "false", "null", "nan", "inf", "infinity", "none", "nil", "undefined"];

/// Whether `s` is, ignoring ASCII case, one of [`LOOKALIKE_WORDS`].
pub(crate) fn is_literal_lookalike(s: &str) -> bool {
    (3..=9).contains(&s.len()) && LOOKALIKE_WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// Appends the canonical escaped body of a Rust string to `out` (`"`, `\`
/// and control characters escaped): one copy when nothing needs escaping,
/// else the runs between escapes copied whole.
#[inline(always)]
pub(crate) fn push_canonical_str(out: &mut String, s: &str) {
    let plain = plain_run(s.as_bytes());
    if plain == s.len() {
        out.push_str(s);
    } else {
        push_escaped(out, s, plain);
    }
}

/// The rest of [`push_canonical_str`] for a string with a byte to escape at `i`.
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
/// decoder (a pair is one character, a lone surrogate a `\uXXXX` escape).
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
            push_canonical_utf16_general(out, &units[i..]);
            return;
        }
        i += 1;
    }
}

/// [`push_canonical_utf16`] one decoded character at a time.
fn push_canonical_utf16_general(out: &mut String, units: &[u16]) {
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => push_canonical_char(out, c),
            Err(e) => push_u_escape(out, e.unpaired_surrogate()),
        }
    }
}

fn push_canonical_char(out: &mut String, c: char) {
    match u8::try_from(c) {
        Ok(b) if b == b'"' || b == b'\\' || b < 0x20 => push_escape(out, b),
        _ => out.push(c),
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

    #[test]
    fn bare_string_not_empty() {
        assert!(!is_bare_string(""));
        assert!(is_bare_string("a"));
    }

    #[test]
    fn bare_string_forbidden_characters_anywhere() {
        for c in ['"', '\\', ',', '/', ':', '[', ']', '{', '}', '~', '(', ')'] {
            for s in [format!("{c}"), format!("a{c}"), format!("a{c}b"), format!("{c}b")] {
                assert!(!is_bare_string(&s), "{s:?}");
            }
        }
        for ok in ["a!b", "a#b", "a$%&'*;<=>?@^_`|b", "x=y", "a.b", "a-b", "a+b", "a1", "a<br>", "R&D", "it's"] {
            assert!(is_bare_string(ok), "{ok:?}");
        }
        for b in 0x20u8..0x7F {
            let s = format!("a{}b", b as char);
            assert_eq!(is_bare_string(&s), !br#"",/:[]{}~\()"#.contains(&b), "{s:?}");
        }
    }

    #[test]
    fn bare_string_invisible_bidi_and_control_characters() {
        for c in [
            '\u{0}',
            '\u{1}',
            '\t',
            '\n',
            '\r',
            '\u{1F}',
            '\u{7F}',
            '\u{80}',
            '\u{85}',
            '\u{9F}',
            '\u{AD}',
            '\u{34F}',
            '\u{61C}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2066}',
            '\u{2069}',
            '\u{FE0F}',
            '\u{FEFF}',
            '\u{E0041}',
            '\u{301}',
        ] {
            assert!(!is_bare_string(&format!("a{c}b")), "{c:?}");
        }
        for c in ['é', 'Ł', 'ß', 'ø', '中', 'あ', 'カ', '한'] {
            assert!(is_bare_string(&format!("a{c}b")), "{c:?}");
        }
    }

    #[test]
    fn bare_string_look_alike_scripts_are_quoted() {
        // Cyrillic, Greek, fullwidth, mathematical letters, the look-alike
        // Latin letters left out, digits of other scripts, emoji.
        for s in [
            "tru\u{435}",
            "\u{43d}ull",
            "f\u{3b1}lse",
            "ｔｒｕｅ",
            "\u{1d42d}rue",
            "\u{131}",
            "\u{17f}alse",
            "\u{661}",
            "a\u{ff10}",
            "\u{4e00}1",
            "\u{30fc}1",
            "😀 ok",
            "Москва",
            "שלום",
        ] {
            assert!(!is_bare_string(s), "{s:?}");
        }
    }

    #[test]
    fn bare_string_whitespace_other_than_space() {
        for c in [
            '\u{A0}', '\u{1680}', '\u{2000}', '\u{200A}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}',
            '\u{0B}', '\u{0C}',
        ] {
            assert!(!is_bare_string(&format!("a{c}b")), "{c:?}");
        }
        assert!(is_bare_string("a b"));
        assert!(is_bare_string("a  b   c"));
    }

    #[test]
    fn bare_string_ends_are_not_spaces() {
        for s in [" ", "  ", " a", "a ", " a ", "a b "] {
            assert!(!is_bare_string(s), "{s:?}");
        }
        assert!(is_bare_string("a b"));
    }

    #[test]
    fn bare_string_first_character_is_a_letter() {
        for s in [
            "-", "-a", "+a", ".a", "0", "0a", "9 lives", "1st", ".hidden", "+1", "-inf", "_1", "#tag", "@user", "'a'",
            "!x", "$5", "%d", "&amp", "*x", ";x", "<b>", "=x", ">x", "?x", "^x", "`x`", "|x",
        ] {
            assert!(!is_bare_string(s), "{s:?}");
        }
        for s in ["a-", "a+", "a.", "a0", "v1.2.3", "x9", "e5", "E", "éte", "東京"] {
            assert!(is_bare_string(s), "{s:?}");
        }
    }

    #[test]
    fn bare_string_literal_lookalikes() {
        for w in LOOKALIKE_WORDS {
            for s in [w.to_string(), w.to_ascii_uppercase(), {
                let mut t = w.to_string();
                t[..1].make_ascii_uppercase();
                t
            }] {
                assert!(!is_bare_string(&s), "{s:?}");
            }
        }
        for s in ["NaN", "Inf", "INFINITY", "nULL", "tRuE", "FaLsE", "None", "NIL", "Undefined"] {
            assert!(!is_bare_string(s), "{s:?}");
        }
        // Only whole-string matches: longer or shorter words qualify.
        for s in ["true story", "nullable", "nul", "tru", "falsey", "na", "info", "infinite", "nan2", "Nancy", "truE!"]
        {
            assert!(is_bare_string(s), "{s:?}");
        }
    }

    #[test]
    fn bare_ascii_table_matches_the_char_rule() {
        for b in 0u8..0x80 {
            let c = b as char;
            let expected = c.is_ascii_alphanumeric() || c == ' ' || "!#$%&'*+-.;<=>?@^_`|".contains(c);
            assert_eq!(is_bare_char(c), expected, "{b:#x}");
            assert_eq!(RESERVED_START[b as usize], "!#$%&'()*;<=>?@^_`|".contains(c), "{b:#x}");
        }
    }

    #[test]
    fn bare_char_len_matches_the_char_rule_for_every_non_ascii_char() {
        let mut buf = [0u8; 4];
        for c in ('\u{80}'..=char::MAX).filter(|c| !c.is_ascii()) {
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            let expected = if is_bare_char(c) { c.len_utf8() } else { 0 };
            assert_eq!(bare_char_len(bytes), expected, "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn bare_byte_table_matches_the_char_rule() {
        for b in 0u8..=255 {
            assert_eq!(BARE_BYTE[b as usize], b.is_ascii() && is_bare_char(b as char), "{b:#x}");
        }
    }

    /// The escaping of `push_canonical_str` and `push_canonical_utf16`,
    /// one character at a time through the general path, and serde_json's
    /// (which escapes exactly `"`, `\` and control characters, in lowercase
    /// hex): the fast paths must agree with both.
    fn escaped_both_ways(s: &str) -> (String, String, String) {
        let mut fast = String::from("x");
        push_canonical_str(&mut fast, s);
        let units: Vec<u16> = s.encode_utf16().collect();
        let mut general = String::from("x");
        push_canonical_utf16_general(&mut general, &units);
        let quoted = serde_json::to_string(s).unwrap();
        let serde = format!("x{}", &quoted[1..quoted.len() - 1]);
        (fast, general, serde)
    }

    #[test]
    fn canonical_escaping_edges() {
        let text: String = (0u8..0x80).map(char::from).chain("é日\u{1F600}\u{7f}".chars()).collect();
        for len in 0..=text.chars().count() {
            let s: String = text.chars().take(len).collect();
            let (fast, general, serde) = escaped_both_ways(&s);
            assert_eq!(fast, general, "{s:?}");
            assert_eq!(fast, serde, "{s:?}");
        }
        let units: Vec<u16> = (0u16..0x80)
            .chain([0xe9, 0xd83d, 0xde00, 0xd800, 0x41, 0xdc00, 0xdbff, 0xdbff, 0xdfff, 0xfffd, 0xffff, 0xd800])
            .collect();
        for from in 0..units.len() {
            let mut fast = String::new();
            let mut general = String::new();
            push_canonical_utf16(&mut fast, &units[from..]);
            push_canonical_utf16_general(&mut general, &units[from..]);
            assert_eq!(fast, general, "from {from}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn canonical_escaping_fast_paths_match(
            s in proptest::prelude::any::<String>(),
            units in proptest::collection::vec(
                proptest::prop_oneof![0u16..0x80, 0x20u16..0x7f, proptest::prelude::any::<u16>(), 0xd800u16..0xe000],
                0..150,
            ),
        ) {
            let (fast, general, serde) = escaped_both_ways(&s);
            proptest::prop_assert_eq!(&fast, &general);
            proptest::prop_assert_eq!(&fast, &serde);
            let mut fast = String::new();
            let mut general = String::new();
            push_canonical_utf16(&mut fast, &units);
            push_canonical_utf16_general(&mut general, &units);
            proptest::prop_assert_eq!(fast, general);
        }
    }
}

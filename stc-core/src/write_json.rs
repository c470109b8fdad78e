//! The JSON writers: [`Sink`]s that write JSON text, minified or indented.
//!
//! They are the only code that writes JSON: decoding streams the parser's
//! events into [`JsonWriter`], and [`Document::to_json`] and
//! [`Document::to_json_pretty`] replay a document's tape into these same
//! writers. Strings are written in canonical escaping and number lexemes are
//! copied verbatim.
//!
//! [`Document::to_json`]: crate::Document::to_json
//! [`Document::to_json_pretty`]: crate::Document::to_json_pretty

use crate::parser::{Abort, Sink};
use crate::strings::JsonStr;

/// A [`Sink`] that writes minified JSON text with canonical strings and
/// number lexemes copied verbatim.
///
/// ```
/// use stc_core::{parse_stc, JsonWriter, Limits};
/// let mut w = JsonWriter::with_capacity(64);
/// parse_stc(r#"{ids[2]: 1,2, "k\u00e9": "v"}"#, &Limits::default(), &mut w)?;
/// assert_eq!(w.into_string(), r#"{"ids":[1,2],"ké":"v"}"#);
/// # Ok::<(), stc_core::Error>(())
/// ```
///
/// No stack is needed for separators: a comma is due exactly when the last
/// thing written was a complete value and the next is not a closing bracket.
#[derive(Debug, Default)]
pub struct JsonWriter {
    out: String,
    need_comma: bool,
}

impl JsonWriter {
    /// A writer with room for about `capacity` bytes of output.
    pub fn with_capacity(capacity: usize) -> Self {
        JsonWriter { out: String::with_capacity(capacity), need_comma: false }
    }

    /// A writer appending to `out` (emptied first, its capacity kept), with
    /// room for about `capacity` bytes of output.
    pub(crate) fn from_string(mut out: String, capacity: usize) -> Self {
        out.clear();
        out.reserve(capacity);
        JsonWriter { out, need_comma: false }
    }

    /// The JSON text written so far.
    pub fn into_string(self) -> String {
        self.out
    }

    #[inline]
    fn sep(&mut self) {
        if self.need_comma {
            self.out.push(',');
        }
    }

    #[inline]
    fn scalar(&mut self, text: &str) -> Result<(), Abort> {
        self.sep();
        self.out.push_str(text);
        self.need_comma = true;
        Ok(())
    }

    /// The separator if one is due, and an opening quote.
    #[inline]
    fn open_quote(&mut self) {
        if self.need_comma {
            self.out.push_str(",\"");
        } else {
            self.out.push('"');
        }
    }
}

#[inline]
fn push_quoted(out: &mut String, s: JsonStr<'_>) {
    out.push('"');
    s.write_canonical(out);
    out.push('"');
}

impl<'a> Sink<'a> for JsonWriter {
    #[inline]
    fn null(&mut self) -> Result<(), Abort> {
        self.scalar("null")
    }
    #[inline]
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.scalar(if value { "true" } else { "false" })
    }
    #[inline]
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.scalar(lexeme)
    }
    #[inline]
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        // One reservation for the separator, the quotes and a canonical body.
        self.out.reserve(value.raw().len() + 3);
        self.open_quote();
        value.write_canonical(&mut self.out);
        self.out.push('"');
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.push('[');
        self.need_comma = false;
        Ok(())
    }
    #[inline]
    fn end_array(&mut self) -> Result<(), Abort> {
        self.out.push(']');
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.push('{');
        self.need_comma = false;
        Ok(())
    }
    #[inline(always)]
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.out.reserve(key.raw().len() + 4);
        self.open_quote();
        key.write_canonical(&mut self.out);
        self.out.push_str("\":");
        self.need_comma = false;
        Ok(())
    }
    #[inline]
    fn end_object(&mut self) -> Result<(), Abort> {
        self.out.push('}');
        self.need_comma = true;
        Ok(())
    }
}

/// A [`Sink`] that writes [`JsonWriter`]'s minified JSON directly in its
/// one-byte form (see [`decode_latin1_into`](crate::decode_latin1_into)):
/// the same bytes as [`JsonWriter`] followed by [`utf8_to_latin1_json`].
/// A string the reader saw to be ASCII, and canonical as written, is copied
/// as it is; any other is converted as it is written.
#[derive(Debug, Default)]
pub(crate) struct Latin1Writer {
    out: Vec<u8>,
    need_comma: bool,
    /// Room for the canonical form of bodies whose escapes change.
    scratch: String,
}

impl Latin1Writer {
    /// A writer appending to `out` (emptied first, its capacity kept), with
    /// room for about `capacity` bytes of output.
    pub(crate) fn from_vec(mut out: Vec<u8>, capacity: usize) -> Self {
        out.clear();
        out.reserve(capacity);
        Latin1Writer { out, need_comma: false, scratch: String::new() }
    }

    /// The bytes written so far.
    pub(crate) fn into_vec(self) -> Vec<u8> {
        self.out
    }

    #[inline]
    fn sep(&mut self) {
        if self.need_comma {
            self.out.push(b',');
        }
    }

    #[inline]
    fn scalar(&mut self, text: &str) -> Result<(), Abort> {
        self.sep();
        self.out.extend_from_slice(text.as_bytes());
        self.need_comma = true;
        Ok(())
    }

    /// The separator if one is due, an opening quote, and the body.
    #[inline(always)]
    fn quoted_body(&mut self, s: JsonStr<'_>) {
        self.out.reserve(s.raw().len() + 4);
        if self.need_comma {
            self.out.extend_from_slice(b",\"");
        } else {
            self.out.push(b'"');
        }
        if s.is_ascii_canonical() {
            self.out.extend_from_slice(s.raw().as_bytes());
        } else {
            self.convert(s);
        }
    }

    /// A body that may hold non-ASCII characters (or escapes that change).
    #[cold]
    #[inline(never)]
    fn convert(&mut self, s: JsonStr<'_>) {
        if s.is_canonical_as_written() {
            push_latin1(&mut self.out, s.raw().as_bytes());
        } else {
            self.scratch.clear();
            s.write_canonical(&mut self.scratch);
            push_latin1(&mut self.out, self.scratch.as_bytes());
        }
    }
}

impl<'a> Sink<'a> for Latin1Writer {
    const ASCII_FLAGS: bool = true;
    #[inline]
    fn null(&mut self) -> Result<(), Abort> {
        self.scalar("null")
    }
    #[inline]
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.scalar(if value { "true" } else { "false" })
    }
    #[inline]
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.scalar(lexeme)
    }
    #[inline]
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.quoted_body(value);
        self.out.push(b'"');
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.push(b'[');
        self.need_comma = false;
        Ok(())
    }
    #[inline]
    fn end_array(&mut self) -> Result<(), Abort> {
        self.out.push(b']');
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.push(b'{');
        self.need_comma = false;
        Ok(())
    }
    #[inline(always)]
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.quoted_body(key);
        self.out.extend_from_slice(b"\":");
        self.need_comma = false;
        Ok(())
    }
    #[inline]
    fn end_object(&mut self) -> Result<(), Abort> {
        self.out.push(b'}');
        self.need_comma = true;
        Ok(())
    }
}

/// Appends UTF-8 text `src` to `out` in the one-byte form: ASCII runs
/// copied whole, every other character as one byte up to U+00FF, as
/// `\uXXXX` escapes (two for a pair) above.
fn push_latin1(out: &mut Vec<u8>, src: &[u8]) {
    let end = src.len();
    let mut r = 0;
    while r < end {
        let run = ascii_run(&src[r..]);
        out.extend_from_slice(&src[r..r + run]);
        r += run;
        while r < end {
            let lead = src[r];
            if lead < 0x80 {
                break;
            }
            let cont = |k: usize| u32::from(src.get(r + k).copied().unwrap_or(0x80) & 0x3F);
            if lead < 0xE0 {
                let u = ((u32::from(lead) & 0x1F) << 6) | cont(1);
                r += 2;
                match u8::try_from(u) {
                    Ok(b) => out.push(b),
                    Err(_) => push_escape(out, u),
                }
            } else if lead < 0xF0 {
                let u = ((u32::from(lead) & 0x0F) << 12) | (cont(1) << 6) | cont(2);
                r += 3;
                push_escape(out, u);
            } else {
                let u = ((u32::from(lead) & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
                r += 4;
                let v = u - 0x10000;
                push_escape(out, 0xD800 | (v >> 10));
                push_escape(out, 0xDC00 | (v & 0x3FF));
            }
        }
    }
}

/// Rewrites minified JSON text `out` (UTF-8) in place into its one-byte form:
/// every character up to U+00FF as one byte (Latin-1), every other as a
/// `\uXXXX` escape (two for a pair). Such characters only occur inside
/// strings (the structure is ASCII), where JSON allows the escapes: the text
/// is the same JSON value.
///
/// `decode_latin1_into` of ASCII input (whose output is ASCII but for
/// characters written as escapes the canonical form writes raw), and the
/// one-byte writer's reference in its unit test. This pass costs one
/// word-at-a-time ASCII scan when the text is ASCII, and otherwise rewrites
/// the text from its first non-ASCII byte through the spare room at the end
/// of `out` (no allocation once `out` is large enough).
pub(crate) fn utf8_to_latin1_json(out: &mut Vec<u8>) {
    if out.is_ascii() {
        return;
    }
    let end = out.len();
    let first = ascii_run(out);
    let mut r = first;
    while r < end {
        if out[r] < 0x80 {
            let run = ascii_run(&out[r..end]);
            out.extend_from_within(r..r + run);
            r += run;
            continue;
        }
        // A run of non-ASCII characters (UTF-8 from a `String`: the lead
        // byte gives the width, continuation bytes six bits each), each
        // written as one byte or as escapes, with one reservation per
        // character; ASCII ends the run.
        while r < end {
            let lead = out[r];
            if lead < 0x80 {
                break;
            }
            out.reserve(12);
            let cont = |k: usize| u32::from(out.get(r + k).copied().unwrap_or(0x80) & 0x3F);
            if lead < 0xE0 {
                let u = ((u32::from(lead) & 0x1F) << 6) | cont(1);
                r += 2;
                match u8::try_from(u) {
                    Ok(b) => out.push(b),
                    Err(_) => push_escape(out, u),
                }
            } else if lead < 0xF0 {
                let u = ((u32::from(lead) & 0x0F) << 12) | (cont(1) << 6) | cont(2);
                r += 3;
                push_escape(out, u);
            } else {
                let u = ((u32::from(lead) & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
                r += 4;
                let v = u - 0x10000;
                push_escape(out, 0xD800 | (v >> 10));
                push_escape(out, 0xDC00 | (v & 0x3FF));
            }
        }
    }
    out.copy_within(end.., first);
    out.truncate(first + (out.len() - end));
}

/// Appends `\uXXXX` (lowercase hex) for the UTF-16 unit `unit`.
#[inline(always)]
fn push_escape(out: &mut Vec<u8>, unit: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let u = unit as usize;
    out.extend_from_slice(&[b'\\', b'u', HEX[(u >> 12) & 15], HEX[(u >> 8) & 15], HEX[(u >> 4) & 15], HEX[u & 15]]);
}

/// Length of the run of ASCII bytes at the start of `bytes`: 16 at a time
/// (an OR of each 16 with no early exit, which vectorizes), then the first
/// non-ASCII byte of the last block or of the tail found eight at a time.
#[inline]
fn ascii_run(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut n = 0;
    for chunk in bytes.chunks_exact(16) {
        if chunk.iter().fold(0, |acc, b| acc | b) >= 0x80 {
            break;
        }
        n += 16;
    }
    let mut words = bytes[n..].chunks_exact(8);
    for w in &mut words {
        let high = u64::from_le_bytes(w.try_into().expect("eight bytes")) & HIGH;
        if high != 0 {
            return n + (high.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + words.remainder().iter().position(|b| !b.is_ascii()).unwrap_or(bytes.len() - n)
}

/// A [`Sink`] that writes indented JSON: two spaces per level, `": "` after
/// keys, empty containers as `[]` and `{}` (the layout of
/// `JSON.stringify(v, null, 2)`).
///
/// Like [`JsonWriter`] it needs no stack: the depth and whether the innermost
/// container is still empty say where each line break goes.
#[derive(Debug, Default)]
pub(crate) struct PrettyJsonWriter {
    out: String,
    depth: usize,
    /// The last thing written was a complete value.
    need_comma: bool,
    /// The last thing written was a key (its value follows on the same line).
    after_key: bool,
    /// The innermost container has no child yet.
    empty: bool,
}

impl PrettyJsonWriter {
    /// A writer with room for about `capacity` bytes of output.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        PrettyJsonWriter { out: String::with_capacity(capacity), ..Default::default() }
    }

    /// The JSON text written so far.
    pub(crate) fn into_string(self) -> String {
        self.out
    }

    #[inline]
    fn newline(&mut self, depth: usize) {
        const SPACES: &str = "\n                                                                ";
        let mut width = depth * 2;
        // Most lines fit in one copy of the prefix.
        let first = width.min(SPACES.len() - 1);
        self.out.push_str(&SPACES[..1 + first]);
        width -= first;
        while width > 0 {
            let n = width.min(SPACES.len() - 1);
            self.out.push_str(&SPACES[1..1 + n]);
            width -= n;
        }
    }

    /// Separator and line break before a value or key.
    fn before_item(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if self.need_comma {
            self.out.push(',');
        }
        if self.depth > 0 {
            self.newline(self.depth);
        }
        self.empty = false;
    }

    fn scalar(&mut self, text: &str) -> Result<(), Abort> {
        self.before_item();
        self.out.push_str(text);
        self.need_comma = true;
        Ok(())
    }

    fn open(&mut self, bracket: char) -> Result<(), Abort> {
        self.before_item();
        self.out.push(bracket);
        self.depth += 1;
        self.need_comma = false;
        self.empty = true;
        Ok(())
    }

    fn close(&mut self, bracket: char) -> Result<(), Abort> {
        self.depth = self.depth.saturating_sub(1);
        if !self.empty {
            self.newline(self.depth);
        }
        self.out.push(bracket);
        self.need_comma = true;
        self.empty = false;
        Ok(())
    }
}

impl<'a> Sink<'a> for PrettyJsonWriter {
    #[inline]
    fn null(&mut self) -> Result<(), Abort> {
        self.scalar("null")
    }
    #[inline]
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.scalar(if value { "true" } else { "false" })
    }
    #[inline]
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.scalar(lexeme)
    }
    #[inline]
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.before_item();
        push_quoted(&mut self.out, value);
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.open('[')
    }
    #[inline]
    fn end_array(&mut self) -> Result<(), Abort> {
        self.close(']')
    }
    #[inline]
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.open('{')
    }
    #[inline]
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.before_item();
        push_quoted(&mut self.out, key);
        self.out.push_str(": ");
        self.need_comma = false;
        self.after_key = true;
        Ok(())
    }
    #[inline]
    fn end_object(&mut self) -> Result<(), Abort> {
        self.close('}')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_stc, DecodeOptions, Version};

    /// The one-byte writer against the UTF-8 writer and the rewrite.
    fn same(stc: &str, options: &DecodeOptions) {
        let mut utf8 = JsonWriter::with_capacity(0);
        let a = parse_stc(stc, options, &mut utf8);
        let mut want = utf8.into_string().into_bytes();
        utf8_to_latin1_json(&mut want);
        let mut one = Latin1Writer::from_vec(Vec::new(), 0);
        let b = parse_stc(stc, options, &mut one);
        assert_eq!(a, b, "{stc}");
        if a.is_ok() {
            assert_eq!(one.into_vec(), want, "{stc}");
        }
    }

    #[test]
    fn decode_latin1_into_takes_either_path_to_the_same_bytes() {
        // ASCII input whose escapes become characters (the rewrite path),
        // and the same with a non-ASCII character (the one-byte writer).
        let mut out = Vec::new();
        for (stc, want) in [
            (
                r#"{"k\u00e9": ["\u00e9\u0101", "\ud83d\ude00", "a\/b"]}"#,
                &b"{\"k\xe9\":[\"\xe9\\u0101\",\"\\ud83d\\ude00\",\"a/b\"]}"[..],
            ),
            (
                r#"{"k\u00e9": ["\u00e9\u0101", "\ud83d\ude00", "a\/bé"]}"#,
                &b"{\"k\xe9\":[\"\xe9\\u0101\",\"\\ud83d\\ude00\",\"a/b\xe9\"]}"[..],
            ),
        ] {
            crate::decode_latin1_into(stc, &DecodeOptions::default(), &mut out).unwrap();
            assert_eq!(out, want, "{stc}");
        }
    }

    #[test]
    fn latin1_writer_writes_what_the_rewrite_of_the_utf8_writer_writes() {
        let v2 = DecodeOptions::default().version(Version::V2);
        for s in ["a", "é", "ā", "😀", "\\u00e9", "\\u0101", "\\ud83d\\ude00", "\\/é", "\\n", "x\\\"é", "ÿ\\t€"]
        {
            for body in
                [s.to_string(), format!("{s}{s}abcdefghijklmnopqrstuvwxyz{s}"), format!("{}{s}", "q".repeat(40))]
            {
                same(&format!("{{\"{body}\": [\"{body}\", 1, true], k: \"{body}\"}}"), &DecodeOptions::default());
                same(&format!("{{k: {body}, m[1]{{a}}: {body}}}"), &v2);
            }
        }
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        for name in ["twitter.json", "gsoc-2018.json", "random.json", "citm_catalog.json"] {
            let Ok(json) = std::fs::read_to_string(corpus.join(name)) else { continue };
            for version in [Version::V1, Version::V2] {
                let stc = crate::encode_with(&json, &crate::EncodeOptions::default().version(version)).unwrap();
                same(&stc, &DecodeOptions::default().version(version));
            }
        }
    }
}

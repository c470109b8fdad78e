//! The JSON writers: [`Sink`]s that write JSON text, minified or indented.
//!
//! They are the only code that writes JSON: decoding streams the parser's
//! events into [`JsonWriter`], and [`Document::to_json`] and
//! [`Document::to_json_pretty`] replay a document's tape into these same
//! writers, and [`decode_to`](crate::decode_to) hands [`JsonWriter`]'s text
//! on in chunks. Strings are written in canonical escaping and number lexemes are
//! copied verbatim.
//!
//! [`Document::to_json`]: crate::Document::to_json
//! [`Document::to_json_pretty`]: crate::Document::to_json_pretty

use crate::options::AsDecodeOptions;
use crate::parser::{parse_stc_to, Abort, Failure, Sink};
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

/// How much JSON [`decode_to`](crate::decode_to) collects before handing it
/// on: big enough that each hand-over is one large write, small enough to
/// stay in the allocator's heap (below glibc's 128 KiB mmap threshold).
pub(crate) const DECODE_CHUNK: usize = 64 << 10;

/// [`decode_to`](crate::decode_to) with the chunk size given: the events go
/// to a [`JsonWriter`] whose text is handed to `hand` whenever at least
/// `chunk` bytes have collected, and once more at the end. The writer keeps
/// its separator state across a hand-over, so the chunks joined are
/// [`decode_with`](crate::decode_with)'s text.
pub(crate) fn decode_chunked<E>(
    stc: &str,
    options: &(impl AsDecodeOptions + ?Sized),
    chunk: usize,
    hand: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), Failure<E>> {
    let capacity = (stc.len() + stc.len() / 2).min(chunk.saturating_add(chunk / 4));
    let mut sink = ChunkedJsonWriter { writer: JsonWriter::with_capacity(capacity), chunk, hand };
    parse_stc_to(stc, options, &mut sink)?;
    sink.hand_over().map_err(Failure::Sink)
}

/// The sink of [`decode_chunked`]: a [`JsonWriter`] emptied into `hand`
/// after any event that leaves `chunk` bytes or more in it.
struct ChunkedJsonWriter<F> {
    writer: JsonWriter,
    chunk: usize,
    hand: F,
}

impl<F> ChunkedJsonWriter<F> {
    /// Hands the text written so far on (none: no call), keeping the
    /// writer's state and its buffer's capacity.
    fn hand_over<E>(&mut self) -> Result<(), E>
    where
        F: FnMut(&str) -> Result<(), E>,
    {
        if !self.writer.out.is_empty() {
            (self.hand)(&self.writer.out)?;
            self.writer.out.clear();
        }
        Ok(())
    }

    /// After an event: hands the text on once a chunk has collected.
    #[inline]
    fn after<E>(&mut self, written: Result<(), Abort>) -> Result<(), E>
    where
        F: FnMut(&str) -> Result<(), E>,
    {
        // `JsonWriter` never refuses.
        debug_assert!(written.is_ok());
        if self.writer.out.len() >= self.chunk {
            self.hand_over()
        } else {
            Ok(())
        }
    }
}

impl<'a, E, F: FnMut(&str) -> Result<(), E>> Sink<'a, E> for ChunkedJsonWriter<F> {
    #[inline]
    fn null(&mut self) -> Result<(), E> {
        let written = self.writer.null();
        self.after(written)
    }
    #[inline]
    fn boolean(&mut self, value: bool) -> Result<(), E> {
        let written = self.writer.boolean(value);
        self.after(written)
    }
    #[inline]
    fn number(&mut self, lexeme: &'a str) -> Result<(), E> {
        let written = self.writer.number(lexeme);
        self.after(written)
    }
    #[inline]
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), E> {
        let written = self.writer.string(value);
        self.after(written)
    }
    #[inline]
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), E> {
        let written = self.writer.begin_array(len);
        self.after(written)
    }
    #[inline]
    fn end_array(&mut self) -> Result<(), E> {
        let written = self.writer.end_array();
        self.after(written)
    }
    #[inline]
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), E> {
        let written = self.writer.begin_object(len);
        self.after(written)
    }
    #[inline]
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), E> {
        let written = self.writer.key(key);
        self.after(written)
    }
    #[inline]
    fn end_object(&mut self) -> Result<(), E> {
        let written = self.writer.end_object();
        self.after(written)
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

    /// `decode_chunked` at chunk size `chunk`: the pieces joined (every
    /// piece but the last at least `chunk` bytes, none empty), or the error.
    fn chunked(stc: &str, options: &DecodeOptions, chunk: usize) -> Result<String, crate::Error> {
        let mut pieces: Vec<String> = Vec::new();
        let r = decode_chunked(stc, options, chunk, |piece| {
            pieces.push(piece.to_string());
            Ok::<(), ()>(())
        });
        assert!(pieces.iter().all(|p| !p.is_empty()), "an empty piece");
        if let Some((_, full)) = pieces.split_last() {
            assert!(full.iter().all(|p| p.len() >= chunk), "a piece shorter than {chunk} before the last");
        }
        match r {
            Ok(()) => Ok(pieces.concat()),
            Err(Failure::Input(e)) => Err(e),
            Err(Failure::Sink(())) => unreachable!("the closure never refuses"),
        }
    }

    /// Every input of the conformance corpus, with its `max_depth`, in both
    /// versions.
    fn conformance_inputs() -> Vec<(String, DecodeOptions)> {
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/cases");
        let mut inputs = Vec::new();
        for dir in std::fs::read_dir(&cases).unwrap() {
            for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
                let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
                let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
                for case in doc["cases"].as_array().unwrap() {
                    let Some(input) = case["input"].as_str() else { continue };
                    for version in [Version::V1, Version::V2] {
                        let mut options = DecodeOptions::default().version(version);
                        if let Some(d) = case["options"]["max_depth"].as_u64() {
                            options = options.max_depth(d as usize);
                        }
                        inputs.push((input.to_string(), options));
                    }
                }
            }
        }
        inputs
    }

    #[test]
    fn decode_to_equals_decode_with_at_every_chunk_size_on_the_conformance_cases() {
        let inputs = conformance_inputs();
        assert!(inputs.len() > 2000, "expected the conformance corpus, found {} inputs", inputs.len());
        for (input, options) in &inputs {
            let expected = crate::decode_with(input, options);
            let longest = expected.as_ref().map_or(input.len(), String::len);
            for chunk in 1..=longest + 1 {
                assert_eq!(chunked(input, options, chunk), expected, "{input:?} at chunk size {chunk}");
            }
        }
    }

    #[test]
    fn decode_to_equals_decode_with_on_the_shared_corpus() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        let Ok(entries) = std::fs::read_dir(&corpus) else { return };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let json = std::fs::read_to_string(&path).unwrap();
            for version in [Version::V1, Version::V2] {
                let stc = crate::encode_with(&json, &crate::EncodeOptions::default().version(version)).unwrap();
                let options = DecodeOptions::default().version(version);
                let expected = crate::decode_with(&stc, &options);
                for chunk in [1, 3, 100, 4096, DECODE_CHUNK, usize::MAX] {
                    assert!(chunked(&stc, &options, chunk) == expected, "{} {version:?} at {chunk}", path.display());
                }
                // A cut input: the error of decode_with, after some pieces.
                let at = (0..=stc.len() * 2 / 3).rev().find(|&i| stc.is_char_boundary(i)).unwrap();
                let cut = &stc[..at];
                let err = crate::decode_with(cut, &options).unwrap_err();
                assert_eq!(chunked(cut, &options, 100), Err(err), "{} cut", path.display());
            }
        }
    }

    #[test]
    fn decode_to_stops_at_the_closures_error_and_returns_it() {
        let stc = r#"[{"a":1,"b":"x"},{"a":2,"b":"y"},{"a":3,"b":"z"},[true,false,null]]"#;
        for refuse_at in 0..6 {
            let mut calls = 0;
            let r = decode_chunked(stc, &DecodeOptions::default(), 4, |piece| {
                calls += 1;
                if calls > refuse_at {
                    Err(format!("refused {piece}"))
                } else {
                    Ok(())
                }
            });
            match r {
                Err(Failure::Sink(e)) => assert!(e.starts_with("refused "), "{e}"),
                other => panic!("refusal {refuse_at}: {other:?}"),
            }
            assert_eq!(calls, refuse_at + 1, "called again after refusing");
        }
        // The public form with its 64 KiB pieces: one piece for a small text.
        let mut pieces = Vec::new();
        crate::decode_to(stc, &DecodeOptions::default(), |p| {
            pieces.push(p.to_string());
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(pieces, [crate::decode(stc).unwrap()]);
    }
}

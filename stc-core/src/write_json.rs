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

/// Where [`JsonWriter`] writes: a `String` (UTF-8, what [`decode`] returns)
/// or a [`Latin1`] byte buffer (what [`decode_latin1_into`] fills). Only the
/// character encoding of string bodies differs; the JSON is written once, by
/// [`JsonWriter`]'s `Sink` methods.
///
/// [`decode`]: crate::decode
/// [`decode_latin1_into`]: crate::decode_latin1_into
pub(crate) trait JsonOut {
    /// Room for `n` more bytes.
    fn reserve(&mut self, n: usize);
    /// Text that is ASCII: punctuation, literals, number lexemes.
    fn ascii(&mut self, s: &str);
    /// One ASCII byte.
    fn byte(&mut self, b: u8);
    /// A string body in canonical escaping.
    fn canonical(&mut self, s: JsonStr<'_>);
}

impl JsonOut for String {
    #[inline]
    fn reserve(&mut self, n: usize) {
        String::reserve(self, n);
    }
    #[inline]
    fn ascii(&mut self, s: &str) {
        self.push_str(s);
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.push(char::from(b));
    }
    #[inline]
    fn canonical(&mut self, s: JsonStr<'_>) {
        s.write_canonical(self);
    }
}

/// A one-byte (Latin-1) output: characters up to U+00FF as one byte each,
/// every other character as a `\uXXXX` escape (two for a pair). Escapes are
/// only needed inside strings (the structure is ASCII), and JSON allows them
/// there, so the text is the same JSON value as the UTF-8 one.
#[derive(Debug)]
pub(crate) struct Latin1<'b>(pub(crate) &'b mut Vec<u8>);

impl Latin1<'_> {
    /// Appends `s` in the one-byte form.
    fn text(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        // Most bodies are ASCII: one word-at-a-time check, one copy.
        if s.is_ascii() {
            self.0.extend_from_slice(s.as_bytes());
            return;
        }
        let mut rest = s;
        loop {
            let run = rest.bytes().position(|b| !b.is_ascii()).unwrap_or(rest.len());
            self.0.extend_from_slice(&rest.as_bytes()[..run]);
            let mut chars = rest[run..].chars();
            let Some(c) = chars.next() else { return };
            match u8::try_from(u32::from(c)) {
                Ok(b) => self.0.push(b),
                Err(_) => {
                    for unit in c.encode_utf16(&mut [0u16; 2]) {
                        let u = usize::from(*unit);
                        self.0.extend_from_slice(&[
                            b'\\',
                            b'u',
                            HEX[u >> 12],
                            HEX[(u >> 8) & 15],
                            HEX[(u >> 4) & 15],
                            HEX[u & 15],
                        ]);
                    }
                }
            }
            rest = chars.as_str();
        }
    }
}

impl JsonOut for Latin1<'_> {
    #[inline]
    fn reserve(&mut self, n: usize) {
        self.0.reserve(n);
    }
    #[inline]
    fn ascii(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }
    #[inline]
    fn byte(&mut self, b: u8) {
        self.0.push(b);
    }
    #[inline]
    fn canonical(&mut self, s: JsonStr<'_>) {
        // A body that needs re-escaping is rare: it goes through a copy.
        self.text(&s.canonical());
    }
}

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
///
/// The output type `O` is `String` for every public use; the crate also
/// writes the one-byte form of [`decode_latin1_into`](crate::decode_latin1_into)
/// with this same writer.
#[derive(Debug, Default)]
pub struct JsonWriter<O = String> {
    out: O,
    need_comma: bool,
}

impl JsonWriter {
    /// A writer with room for about `capacity` bytes of output.
    pub fn with_capacity(capacity: usize) -> Self {
        JsonWriter { out: String::with_capacity(capacity), need_comma: false }
    }

    /// The JSON text written so far.
    pub fn into_string(self) -> String {
        self.out
    }
}

impl<'b> JsonWriter<Latin1<'b>> {
    /// A writer appending the one-byte form to `out`.
    pub(crate) fn latin1(out: &'b mut Vec<u8>) -> Self {
        JsonWriter { out: Latin1(out), need_comma: false }
    }
}

// The output types are the crate's own: no caller names `O` or `JsonOut`.
#[allow(private_bounds)]
impl<O: JsonOut> JsonWriter<O> {
    #[inline]
    fn sep(&mut self) {
        if self.need_comma {
            self.out.byte(b',');
        }
    }

    #[inline]
    fn scalar(&mut self, text: &str) -> Result<(), Abort> {
        self.sep();
        self.out.ascii(text);
        self.need_comma = true;
        Ok(())
    }

    /// The separator if one is due, and an opening quote.
    #[inline]
    fn open_quote(&mut self) {
        if self.need_comma {
            self.out.ascii(",\"");
        } else {
            self.out.byte(b'"');
        }
    }
}

#[inline]
fn push_quoted(out: &mut String, s: JsonStr<'_>) {
    out.push('"');
    s.write_canonical(out);
    out.push('"');
}

#[allow(private_bounds)]
impl<'a, O: JsonOut> Sink<'a> for JsonWriter<O> {
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
        // The reader checked the lexeme against JSON's grammar: it is ASCII.
        self.scalar(lexeme)
    }
    #[inline]
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        // One reservation for the separator, the quotes and a canonical body.
        self.out.reserve(value.raw().len() + 3);
        self.open_quote();
        self.out.canonical(value);
        self.out.byte(b'"');
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.byte(b'[');
        self.need_comma = false;
        Ok(())
    }
    #[inline]
    fn end_array(&mut self) -> Result<(), Abort> {
        self.out.byte(b']');
        self.need_comma = true;
        Ok(())
    }
    #[inline]
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.byte(b'{');
        self.need_comma = false;
        Ok(())
    }
    #[inline(always)]
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.out.reserve(key.raw().len() + 4);
        self.open_quote();
        self.out.canonical(key);
        self.out.ascii("\":");
        self.need_comma = false;
        Ok(())
    }
    #[inline]
    fn end_object(&mut self) -> Result<(), Abort> {
        self.out.byte(b'}');
        self.need_comma = true;
        Ok(())
    }
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

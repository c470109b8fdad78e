//! A JSON document as a flat tape, the encoder's input.
//!
//! The encoder must look at an array's elements before it can choose between
//! a columnar, a compact and a plain array, so it needs the document in
//! memory. A tape (one `Vec` of nodes in document order, each container
//! knowing where it ends) gives that lookahead at the cost of one allocation
//! that grows geometrically; strings and number lexemes borrow from the input
//! whenever they are already canonical.

use std::borrow::Cow;

use crate::error::{Error, ErrorKind};
use crate::options::{EncodeOptions, Limits};
use crate::parser::{parse_json, scan_number, Abort, Sink, MAX_DEPTH_LIMIT};
use crate::strings::{push_canonical_str, push_canonical_utf16, JsonStr};

/// One entry of the tape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    /// The exact number lexeme.
    Number(Cow<'a, str>),
    /// Canonically escaped string body.
    String(Cow<'a, str>),
    /// Canonically escaped key body; the member's value follows it.
    Key(Cow<'a, str>),
    /// `len` elements; the next node after the array is at `end`.
    Array {
        len: usize,
        end: usize,
    },
    /// `len` members (key + value each); the next node after it is at `end`.
    Object {
        len: usize,
        end: usize,
    },
}

/// A JSON value held as a tape, ready to [`encode`](Document::encode).
///
/// ```
/// use stc_core::{Document, EncodeOptions, Limits, Profile};
/// let doc = Document::parse_json(r#"{"tags": ["a", "b"]}"#, &Limits::default()).unwrap();
/// assert_eq!(doc.encode(Profile::Readable), r#"{tags[2]: "a","b"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    pub(crate) nodes: Vec<Node<'a>>,
}

impl<'a> Document<'a> {
    /// Reads strict JSON into a document (borrowing from `json`).
    pub fn parse_json(json: &'a str, limits: &Limits) -> Result<Document<'a>, Error> {
        let mut builder = DocumentBuilder::with_capacity(json.len() / 8 + 4, limits.max_depth);
        parse_json(json, limits, &mut builder)?;
        builder.finish()
    }

    /// Writes the document as STC in the given profile. Infallible: a
    /// document always holds exactly one well-formed value.
    pub fn encode(&self, profile: crate::Profile) -> String {
        crate::encode::encode_document(self, &EncodeOptions::profile(profile))
    }

    /// Writes the document as minified JSON (canonical strings, exact lexemes).
    ///
    /// ```
    /// use stc_core::{Document, Limits};
    /// let doc = Document::parse_json("[1.0, {\"a\": \"\\u00e9\"}]", &Limits::default()).unwrap();
    /// assert_eq!(doc.to_json(), r#"[1.0,{"a":"é"}]"#);
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.nodes.len() * 8);
        // Same separator rule as the streaming writer: a comma goes before
        // anything but a closing bracket that follows a complete value.
        let mut closers: Vec<(usize, u8)> = Vec::new();
        let mut need_comma = false;
        for (i, node) in self.nodes.iter().enumerate() {
            while let Some(&(end, c)) = closers.last() {
                if end != i {
                    break;
                }
                out.push(c as char);
                closers.pop();
                need_comma = true;
            }
            if need_comma {
                out.push(',');
            }
            need_comma = true;
            match node {
                Node::Null => out.push_str("null"),
                Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Node::Number(n) => out.push_str(n),
                Node::String(s) | Node::Key(s) => {
                    out.push('"');
                    out.push_str(s);
                    out.push('"');
                    if matches!(node, Node::Key(_)) {
                        out.push(':');
                        need_comma = false;
                    }
                }
                Node::Array { end, .. } | Node::Object { end, .. } => {
                    let (open, close) = if matches!(node, Node::Array { .. }) { ('[', b']') } else { ('{', b'}') };
                    out.push(open);
                    closers.push((*end, close));
                    need_comma = false;
                }
            }
        }
        while let Some((_, c)) = closers.pop() {
            out.push(c as char);
        }
        out
    }

    /// Writes the document as indented JSON (two spaces, `": "` after keys,
    /// the layout of `JSON.stringify(v, null, 2)`), e.g. to measure what a
    /// pretty-printed response costs.
    ///
    /// ```
    /// use stc_core::{Document, Limits};
    /// let doc = Document::parse_json(r#"{"a":[1,{}],"b":[]}"#, &Limits::default()).unwrap();
    /// assert_eq!(doc.to_json_pretty(), "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}");
    /// ```
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::with_capacity(self.nodes.len() * 16);
        self.pretty(0, 0, &mut out);
        out
    }

    fn pretty(&self, i: usize, indent: usize, out: &mut String) -> usize {
        fn newline(out: &mut String, indent: usize) {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', indent * 2));
        }
        match self.nodes.get(i) {
            Some(&Node::Array { end, .. }) | Some(&Node::Object { end, .. }) => {
                let is_array = matches!(self.nodes.get(i), Some(Node::Array { .. }));
                out.push(if is_array { '[' } else { '{' });
                let mut j = i + 1;
                while j < end {
                    if j > i + 1 {
                        out.push(',');
                    }
                    newline(out, indent + 1);
                    if let Some(Node::Key(k)) = self.nodes.get(j) {
                        out.push('"');
                        out.push_str(k);
                        out.push_str("\": ");
                        j += 1;
                    }
                    j = self.pretty(j, indent + 1, out);
                }
                if end > i + 1 {
                    newline(out, indent);
                }
                out.push(if is_array { ']' } else { '}' });
                end
            }
            Some(Node::Null) => {
                out.push_str("null");
                i + 1
            }
            Some(Node::Bool(b)) => {
                out.push_str(if *b { "true" } else { "false" });
                i + 1
            }
            Some(Node::Number(n)) => {
                out.push_str(n);
                i + 1
            }
            Some(Node::String(s)) | Some(Node::Key(s)) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
                i + 1
            }
            None => i + 1,
        }
    }

    /// Number of tape nodes (keys count as nodes); a rough size measure.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

/// Builds a [`Document`] value by value, for callers that hold data in their
/// own types (the Python and JavaScript bindings' `dumps`/`stringify`).
///
/// Calls must form exactly one JSON value: inside an object, every value is
/// preceded by one key. Misuse returns [`ErrorKind::InvalidDocument`].
///
/// ```
/// use stc_core::{DocumentBuilder, Profile};
/// let mut b = DocumentBuilder::new();
/// b.push_begin_object()?;
/// b.push_key("id")?;
/// b.push_number("1.50")?;
/// b.push_key("name")?;
/// b.push_str("x\"y")?;
/// b.push_end_object()?;
/// assert_eq!(b.finish()?.encode(Profile::Compact), r#"{id:1.50,name:"x\"y"}"#);
/// # Ok::<(), stc_core::Error>(())
/// ```
#[derive(Debug)]
pub struct DocumentBuilder<'a> {
    nodes: Vec<Node<'a>>,
    /// Indices of the open containers.
    stack: Vec<usize>,
    /// True right after a key, until its value.
    after_key: bool,
    max_depth: usize,
}

impl Default for DocumentBuilder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> DocumentBuilder<'a> {
    /// An empty builder with the default depth limit.
    pub fn new() -> Self {
        Self::with_capacity(16, Limits::default().max_depth)
    }

    /// An empty builder with room for `nodes` nodes and the given depth limit
    /// (clamped to [`MAX_DEPTH_LIMIT`]).
    pub fn with_capacity(nodes: usize, max_depth: usize) -> Self {
        DocumentBuilder {
            nodes: Vec::with_capacity(nodes),
            stack: Vec::new(),
            after_key: false,
            max_depth: max_depth.min(MAX_DEPTH_LIMIT),
        }
    }

    /// The finished document, or an error if the value is incomplete.
    pub fn finish(self) -> Result<Document<'a>, Error> {
        if self.nodes.is_empty() || !self.stack.is_empty() {
            return Err(invalid("the document is incomplete: a value or a closing bracket is missing"));
        }
        Ok(Document { nodes: self.nodes })
    }

    // ---- unchecked core, used by the parser (which guarantees structure) ----

    #[inline]
    fn count_element(&mut self) {
        if let Some(&top) = self.stack.last() {
            if let Some(Node::Array { len, .. }) = self.nodes.get_mut(top) {
                *len += 1;
            }
        }
    }

    #[inline]
    fn leaf(&mut self, node: Node<'a>) {
        self.count_element();
        self.nodes.push(node);
    }

    #[inline]
    fn open(&mut self, node: Node<'a>) {
        self.count_element();
        self.stack.push(self.nodes.len());
        self.nodes.push(node);
    }

    #[inline]
    fn close(&mut self) {
        let end_index = self.nodes.len();
        if let Some(top) = self.stack.pop() {
            if let Some(Node::Array { end, .. } | Node::Object { end, .. }) = self.nodes.get_mut(top) {
                *end = end_index;
            }
        }
    }

    #[inline]
    fn add_key(&mut self, key: Cow<'a, str>) {
        if let Some(&top) = self.stack.last() {
            if let Some(Node::Object { len, .. }) = self.nodes.get_mut(top) {
                *len += 1;
            }
        }
        self.nodes.push(Node::Key(key));
    }

    // ---- checked public API -------------------------------------------------

    fn top_is_object(&self) -> Option<bool> {
        self.stack.last().map(|&i| matches!(self.nodes.get(i), Some(Node::Object { .. })))
    }

    fn check_value(&mut self) -> Result<(), Error> {
        match self.top_is_object() {
            None if !self.nodes.is_empty() => Err(invalid("a document holds exactly one top-level value")),
            Some(true) if !self.after_key => Err(invalid("an object member needs a key before its value")),
            _ => {
                self.after_key = false;
                Ok(())
            }
        }
    }

    fn check_open(&mut self) -> Result<(), Error> {
        self.check_value()?;
        if self.stack.len() >= self.max_depth {
            return Err(Error::detached(
                ErrorKind::DepthLimit,
                format!("nesting deeper than the limit of {}", self.max_depth),
            ));
        }
        Ok(())
    }

    /// Adds `null`.
    pub fn push_null(&mut self) -> Result<(), Error> {
        self.check_value()?;
        self.leaf(Node::Null);
        Ok(())
    }

    /// Adds `true` or `false`.
    pub fn push_bool(&mut self, value: bool) -> Result<(), Error> {
        self.check_value()?;
        self.leaf(Node::Bool(value));
        Ok(())
    }

    /// Adds a number given as its lexeme, which must follow JSON's number
    /// grammar (`-0`, `1.50`, `1e400` and 40-digit integers are all fine).
    pub fn push_number(&mut self, lexeme: &str) -> Result<(), Error> {
        if !is_json_number(lexeme) {
            return Err(Error::detached(ErrorKind::InvalidNumber, format!("'{lexeme}' is not a JSON number")));
        }
        self.check_value()?;
        self.leaf(Node::Number(Cow::Owned(lexeme.to_string())));
        Ok(())
    }

    /// Adds a string value.
    pub fn push_str(&mut self, value: &str) -> Result<(), Error> {
        self.check_value()?;
        let mut body = String::with_capacity(value.len());
        push_canonical_str(&mut body, value);
        self.leaf(Node::String(Cow::Owned(body)));
        Ok(())
    }

    /// Adds a string value given as UTF-16 code units; lone surrogates are
    /// kept (as `\uXXXX` escapes in the output).
    pub fn push_utf16(&mut self, value: &[u16]) -> Result<(), Error> {
        self.check_value()?;
        let mut body = String::with_capacity(value.len());
        push_canonical_utf16(&mut body, value);
        self.leaf(Node::String(Cow::Owned(body)));
        Ok(())
    }

    /// Opens an array.
    pub fn push_begin_array(&mut self) -> Result<(), Error> {
        self.check_open()?;
        self.open(Node::Array { len: 0, end: 0 });
        Ok(())
    }

    /// Closes the innermost array.
    pub fn push_end_array(&mut self) -> Result<(), Error> {
        if self.top_is_object() != Some(false) {
            return Err(invalid("end_array without an open array"));
        }
        self.close();
        Ok(())
    }

    /// Opens an object.
    pub fn push_begin_object(&mut self) -> Result<(), Error> {
        self.check_open()?;
        self.open(Node::Object { len: 0, end: 0 });
        Ok(())
    }

    /// Adds a key to the innermost object.
    pub fn push_key(&mut self, key: &str) -> Result<(), Error> {
        self.check_key()?;
        let mut body = String::with_capacity(key.len());
        push_canonical_str(&mut body, key);
        self.add_key(Cow::Owned(body));
        Ok(())
    }

    /// Adds a key given as UTF-16 code units (lone surrogates kept).
    pub fn push_key_utf16(&mut self, key: &[u16]) -> Result<(), Error> {
        self.check_key()?;
        let mut body = String::with_capacity(key.len());
        push_canonical_utf16(&mut body, key);
        self.add_key(Cow::Owned(body));
        Ok(())
    }

    fn check_key(&mut self) -> Result<(), Error> {
        if self.top_is_object() != Some(true) || self.after_key {
            return Err(invalid("a key is only allowed directly inside an object, before a value"));
        }
        self.after_key = true;
        Ok(())
    }

    /// Closes the innermost object.
    pub fn push_end_object(&mut self) -> Result<(), Error> {
        if self.top_is_object() != Some(true) || self.after_key {
            return Err(invalid("end_object without an open object, or right after a key"));
        }
        self.close();
        Ok(())
    }
}

fn invalid(message: &str) -> Error {
    Error::detached(ErrorKind::InvalidDocument, message.to_string())
}

/// Whether `s` is exactly one JSON number.
pub(crate) fn is_json_number(s: &str) -> bool {
    matches!(scan_number(s.as_bytes(), 0), Ok(end) if end == s.len())
}

impl<'a> Sink<'a> for DocumentBuilder<'a> {
    fn null(&mut self) -> Result<(), Abort> {
        self.leaf(Node::Null);
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.leaf(Node::Bool(value));
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.leaf(Node::Number(Cow::Borrowed(lexeme)));
        Ok(())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.leaf(Node::String(value.canonical()));
        Ok(())
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.open(Node::Array { len: 0, end: 0 });
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.close();
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.open(Node::Object { len: 0, end: 0 });
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.add_key(key.canonical());
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_rejects_misuse() {
        let mut b = DocumentBuilder::new();
        b.push_begin_object().unwrap();
        assert_eq!(b.push_null().unwrap_err().kind(), ErrorKind::InvalidDocument);
        assert_eq!(b.push_end_array().unwrap_err().kind(), ErrorKind::InvalidDocument);
        b.push_key("k").unwrap();
        assert_eq!(b.push_key("k2").unwrap_err().kind(), ErrorKind::InvalidDocument);
        assert_eq!(b.push_end_object().unwrap_err().kind(), ErrorKind::InvalidDocument);
        b.push_null().unwrap();
        b.push_end_object().unwrap();
        assert_eq!(b.push_null().unwrap_err().kind(), ErrorKind::InvalidDocument);
        assert!(b.finish().is_ok());
        assert!(DocumentBuilder::new().finish().is_err());
    }

    #[test]
    fn builder_checks_numbers_and_depth() {
        let mut b = DocumentBuilder::new();
        for bad in
            ["", "-", "01", "-01", "1.", ".5", "+1", "NaN", "1 ", " 1", "--1", "1e", "1e+", "1.e3", "0x1", "1e3.5"]
        {
            assert_eq!(b.push_number(bad).unwrap_err().kind(), ErrorKind::InvalidNumber, "{bad:?}");
        }
        for good in ["0", "-0", "1.0", "1e3", "1E+2", "-0.0e-0", "0.10", "123456789012345678901234567890"] {
            assert!(b.push_number(good).is_ok(), "{good:?}");
            b = DocumentBuilder::new();
        }
        let mut b = DocumentBuilder::with_capacity(0, 2);
        b.push_begin_array().unwrap();
        b.push_begin_array().unwrap();
        assert_eq!(b.push_begin_array().unwrap_err().kind(), ErrorKind::DepthLimit);
    }
}

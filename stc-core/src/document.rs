//! [`Document`]: a JSON value held in memory as a flat tape, and the two ways
//! to fill one: [`Document::parse_json`] (the parser into an unchecked,
//! private tape writer) and the checked [`DocumentBuilder`].
//!
//! Writing a document is the writers' job: [`Document::replay`] feeds it to
//! any [`Sink`], which is how `to_json` and `to_json_pretty` reach the JSON
//! writers of `write_json.rs`; the STC encoder (`write_stc.rs`, which owns
//! `Document::encode`, `Document::encode_to` and `Document::encode_gated`)
//! walks the tape directly because it needs lookahead.
//!
//! The encoder must look at an array's elements before it can choose between
//! a columnar, a compact and a plain array, so it needs the document in
//! memory. A tape (nodes in document order, each container knowing its
//! length and where it ends) gives that lookahead. It is compact (issue 12:
//! `stc encode` within 2x the input): 8 bytes a node, numbers and strings as
//! spans of the input whenever the input's escaping already is canonical,
//! other text in one arena (`document/tape.rs` has the layout and limits).

mod tape;

use crate::error::{Error, ErrorKind};
use crate::options::Limits;
use crate::parser::{parse_json_to, Abort, Failure, Sink};
use crate::scan::{self, number_end};
use crate::strings::JsonStr;
use crate::strings::{push_canonical_str as push_canonical, push_canonical_utf16};
use crate::write_json::{JsonWriter, PrettyJsonWriter};
use tape::{read_json, too_large, TapeWriter, TextKind};
pub use tape::{Node, Tape};

/// A JSON value held as a tape, ready to [`encode`](Document::encode).
///
/// ```
/// use stc_core::{Document, EncodeOptions, Limits, Profile};
/// let doc = Document::parse_json(r#"{"tags": ["a", "b"]}"#, &Limits::default()).unwrap();
/// assert_eq!(doc.encode(Profile::Readable), r#"{tags: ["a", "b"]}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    /// The compact tape (8 bytes a node; see `document/tape.rs`).
    pub(crate) nodes: Tape<'a>,
}

impl<'a> Document<'a> {
    /// Reads strict JSON into a document (borrowing from `json`).
    ///
    /// The parser guarantees the structure, so this goes through an unchecked
    /// tape writer, not through [`DocumentBuilder`]'s checks.
    ///
    /// The tape addresses at most 4 GiB - 1 of text: a longer `json` is an
    /// [`ErrorKind::InvalidDocument`] error (never a wrong document).
    pub fn parse_json(json: &'a str, limits: &Limits) -> Result<Document<'a>, Error> {
        if json.len() >= u32::MAX as usize {
            return Err(too_large("an input of 4 GiB or more"));
        }
        // The fast reader builds the tape of every valid input; for anything
        // it refuses, the general reader gives the error (kind, position and
        // message exactly as before).
        if let Some(tape) = read_json(json, limits.max_depth) {
            return Ok(Document { nodes: tape.trimmed() });
        }
        Self::parse_json_general(json, limits)
    }

    /// [`parse_json`](Self::parse_json) through the general reader
    /// (`parser.rs`) and a tape sink: the error path, and the reference the
    /// fast reader is tested against.
    #[cold]
    pub(crate) fn parse_json_general(json: &'a str, limits: &Limits) -> Result<Document<'a>, Error> {
        let mut tape = Parsed(TapeWriter::new(json, json.len() / 8 + 4));
        match parse_json_to(json, limits, &mut tape) {
            Ok(()) => Ok(Document { nodes: tape.0.finish().trimmed() }),
            Err(Failure::Input(e)) | Err(Failure::Sink(e)) => Err(e),
        }
    }

    /// Reports the document's values to `sink` in order, exactly as the
    /// parser reports a text holding the same value: strings and keys come in
    /// canonical escaping, numbers as their exact lexemes, and containers with
    /// their length (`Some(n)`). Stops at the sink's first refusal and returns
    /// it unchanged ([`Abort`], or the sink's own error type).
    ///
    /// This is how a document is written as JSON: [`to_json`](Document::to_json)
    /// replays it into the same [`JsonWriter`] that decoding uses.
    ///
    /// ```
    /// use stc_core::{Abort, Document, Limits, Sink};
    ///
    /// /// Collects the keys, whatever the nesting.
    /// struct Keys(Vec<String>);
    /// impl<'a> Sink<'a> for Keys {
    ///     fn key(&mut self, key: stc_core::JsonStr<'a>) -> Result<(), Abort> {
    ///         self.0.push(key.to_str().unwrap_or_default().into_owned());
    ///         Ok(())
    ///     }
    /// }
    /// let doc = Document::parse_json(r#"{"a": [{"b\n": 1}], "c": null}"#, &Limits::default())?;
    /// let mut keys = Keys(Vec::new());
    /// doc.replay(&mut keys).unwrap();
    /// assert_eq!(keys.0, ["a", "b\n", "c"]);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn replay<'s, E>(&'s self, sink: &mut impl Sink<'s, E>) -> Result<(), E> {
        // The containers still open: where each ends, and whether it is an array.
        let mut open: Vec<(usize, bool)> = Vec::new();
        for i in 0..self.nodes.len() {
            let Some(node) = self.nodes.get(i) else { break };
            while let Some(&(end, is_array)) = open.last() {
                if end != i {
                    break;
                }
                open.pop();
                if is_array {
                    sink.end_array()?;
                } else {
                    sink.end_object()?;
                }
            }
            match node {
                Node::Null => sink.null()?,
                Node::Bool(b) => sink.boolean(b)?,
                Node::Number(n) => sink.number(n)?,
                Node::String(s) => sink.string(JsonStr::canonical_unchecked(s))?,
                Node::Key(k) => sink.key(JsonStr::canonical_unchecked(k))?,
                Node::Array { len, end } => {
                    sink.begin_array(Some(len))?;
                    open.push((end, true));
                }
                Node::Object { len, end } => {
                    sink.begin_object(Some(len))?;
                    open.push((end, false));
                }
            }
        }
        while let Some((_, is_array)) = open.pop() {
            if is_array {
                sink.end_array()?;
            } else {
                sink.end_object()?;
            }
        }
        Ok(())
    }

    /// Writes the document as minified JSON (canonical strings, exact lexemes).
    ///
    /// ```
    /// use stc_core::{Document, Limits};
    /// let doc = Document::parse_json("[1.0, {\"a\": \"\\u00e9\"}]", &Limits::default()).unwrap();
    /// assert_eq!(doc.to_json(), r#"[1.0,{"a":"é"}]"#);
    /// ```
    pub fn to_json(&self) -> String {
        let mut writer = JsonWriter::with_capacity(self.nodes.len() * 8);
        // JsonWriter never aborts.
        let _ = self.replay(&mut writer);
        writer.into_string()
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
        let mut writer = PrettyJsonWriter::with_capacity(self.nodes.len() * 16);
        // PrettyJsonWriter never aborts.
        let _ = self.replay(&mut writer);
        writer.into_string()
    }

    /// Number of tape nodes (keys count as nodes); a rough size measure.
    ///
    /// ```
    /// use stc_core::{Document, Limits};
    /// let doc = Document::parse_json(r#"{"a":[1,2]}"#, &Limits::default()).unwrap();
    /// assert_eq!(doc.node_count(), 5); // object, key, array, 1, 2
    /// ```
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Heap bytes the document holds beyond the text it was parsed from:
    /// its tape (8 bytes a node) and the strings that are not spans of that
    /// text (bodies whose escaping was not canonical, and everything a
    /// [`DocumentBuilder`] added). A measure of the encoder's memory.
    ///
    /// ```
    /// use stc_core::{Document, Limits};
    /// let doc = Document::parse_json(r#"{"a":[1,2],"b":"\u00e9"}"#, &Limits::default()).unwrap();
    /// assert_eq!(doc.node_count(), 7);
    /// // 7 nodes of 8 bytes, room for a few more, and "é" re-escaped.
    /// assert!(doc.tape_bytes() >= 7 * 8 + "é".len());
    /// ```
    pub fn tape_bytes(&self) -> usize {
        self.nodes.heap_bytes()
    }
    /// A document holding `nodes` (tests build unusual tapes directly, e.g.
    /// nesting deeper than any reader's limit). Containers take their
    /// lengths from what they hold and close at their `end`.
    #[cfg(test)]
    pub(crate) fn from_nodes(nodes: &[Node<'_>]) -> Document<'static> {
        let mut tape = TapeWriter::new("", nodes.len());
        let mut ends: Vec<usize> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            while ends.last() == Some(&i) {
                ends.pop();
                tape.close();
            }
            let added = match *node {
                Node::Null => tape.literal(None),
                Node::Bool(b) => tape.literal(Some(b)),
                Node::Number(n) => tape.number(n),
                Node::String(s) => tape.owned_str(false, |a| a.push_str(s)),
                Node::Key(k) => tape.owned_str(true, |a| a.push_str(k)),
                Node::Array { end, .. } | Node::Object { end, .. } => {
                    ends.push(end);
                    tape.open(matches!(node, Node::Object { .. }))
                }
            };
            added.expect("a small test tape");
        }
        for _ in ends {
            tape.close();
        }
        Document { nodes: tape.finish() }
    }
}

/// The unchecked tape writer behind [`Document::parse_json`]: the parser
/// guarantees the structure, so it only appends nodes. Private, so that no
/// caller can feed it a sequence that is not one value; [`DocumentBuilder`]
/// is the checked way in. Its refusals cannot happen for an input under
/// 4 GiB (fewer nodes than bytes), but would come back as they are.
struct Parsed<'a>(TapeWriter<'a>);

impl<'a> Sink<'a, Error> for Parsed<'a> {
    fn null(&mut self) -> Result<(), Error> {
        self.0.literal(None)
    }
    fn boolean(&mut self, value: bool) -> Result<(), Error> {
        self.0.literal(Some(value))
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Error> {
        self.0.number(lexeme)
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Error> {
        self.0.json_str(value, false)
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Error> {
        self.0.open(false)
    }
    fn end_array(&mut self) -> Result<(), Error> {
        self.0.close();
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Error> {
        self.0.open(true)
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Error> {
        self.0.json_str(key, true)
    }
    fn end_object(&mut self) -> Result<(), Error> {
        self.0.close();
        Ok(())
    }
}

/// Builds a [`Document`] value by value, for callers that hold data in their
/// own types (the Python and JavaScript bindings' `dumps`/`stringify`).
///
/// Every call is checked, so a built document always holds exactly one
/// well-formed value: keys only directly inside objects, one key before each
/// member's value, brackets balanced, one top-level value, numbers in JSON's
/// grammar, nesting within the depth limit. A refused `push_*` call returns
/// the error ([`ErrorKind::InvalidDocument`], [`ErrorKind::InvalidNumber`]
/// or [`ErrorKind::DepthLimit`]) and has no effect; [`finish`] refuses an
/// incomplete value.
///
/// The builder is also a [`Sink`], with the same checks, so a parser or a
/// [`Document::replay`] can drive it. A `Sink` can only answer [`Abort`], so
/// the builder keeps the first refusal and [`finish`] returns it.
///
/// [`finish`]: DocumentBuilder::finish
///
/// ```
/// use stc_core::{DocumentBuilder, ErrorKind, Profile};
/// let mut b = DocumentBuilder::new();
/// b.push_begin_object()?;
/// b.push_key("id")?;
/// b.push_number("1.50")?;
/// b.push_key("name")?;
/// b.push_str("x\"y")?;
/// assert_eq!(b.push_null().unwrap_err().kind(), ErrorKind::InvalidDocument); // no key
/// b.push_end_object()?;
/// assert_eq!(b.finish()?.encode(Profile::Compact), r#"{id:1.50,name:"x\"y"}"#);
/// # Ok::<(), stc_core::Error>(())
/// ```
#[derive(Debug)]
pub struct DocumentBuilder<'a> {
    /// Every text goes to the tape's arena (the builder has no input text).
    tape: TapeWriter<'a>,
    /// What the next call may add (kept up to date by every push, so a
    /// check is one comparison).
    state: State,
    max_depth: usize,
    /// The first call refused through the `Sink` interface.
    refused: Option<Error>,
}

impl Default for DocumentBuilder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> DocumentBuilder<'a> {
    /// An empty builder with the default depth limit.
    ///
    /// ```
    /// let mut b = stc_core::DocumentBuilder::new();
    /// b.push_null()?;
    /// assert_eq!(b.finish()?.to_json(), "null");
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::with_capacity(16, Limits::default().max_depth)
    }

    /// An empty builder with room for `nodes` nodes and the given depth limit
    /// (any value: the builder keeps its own stack, no recursion).
    ///
    /// ```
    /// use stc_core::{DocumentBuilder, ErrorKind};
    /// let mut b = DocumentBuilder::with_capacity(8, 1);
    /// b.push_begin_array()?;
    /// assert_eq!(b.push_begin_array().unwrap_err().kind(), ErrorKind::DepthLimit);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn with_capacity(nodes: usize, max_depth: usize) -> Self {
        DocumentBuilder { tape: TapeWriter::new("", nodes), state: State::Empty, max_depth, refused: None }
    }

    /// The finished document, or an error if the value is incomplete or a
    /// call through the [`Sink`] interface was refused.
    ///
    /// ```
    /// use stc_core::{DocumentBuilder, ErrorKind};
    /// let mut b = DocumentBuilder::new();
    /// b.push_begin_array()?;
    /// assert_eq!(b.finish().unwrap_err().kind(), ErrorKind::InvalidDocument);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    pub fn finish(self) -> Result<Document<'a>, Error> {
        if let Some(err) = self.refused {
            return Err(err);
        }
        if self.tape.len() == 0 || self.tape.depth() != 0 {
            return Err(invalid("the document is incomplete: a value or a closing bracket is missing"));
        }
        Ok(Document { nodes: self.tape.finish() })
    }

    // ---- the checks ---------------------------------------------------------

    #[inline(always)]
    fn check_value(&mut self) -> Result<(), Error> {
        match self.state {
            State::Array => Ok(()),
            State::Value => {
                self.state = State::Key;
                Ok(())
            }
            State::Empty => {
                self.state = State::Done;
                Ok(())
            }
            other => Err(refused(other, Call::Value)),
        }
    }

    #[inline(always)]
    fn check_open(&mut self) -> Result<(), Error> {
        if self.tape.depth() >= self.max_depth {
            return Err(self.too_deep());
        }
        self.check_value()
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Error {
        Error::detached(ErrorKind::DepthLimit, format!("nesting deeper than the limit of {}", self.max_depth))
    }

    #[inline(always)]
    fn check_key(&mut self) -> Result<(), Error> {
        if self.state != State::Key {
            return Err(refused(self.state, Call::Key));
        }
        self.state = State::Value;
        Ok(())
    }

    /// The state after the innermost container closed: after a value in
    /// the one around it.
    #[inline(always)]
    fn closed(&mut self) {
        self.tape.close();
        self.state = match self.tape.top_is_object() {
            None => State::Done,
            Some(true) => State::Key,
            Some(false) => State::Array,
        };
    }

    /// Opens an array or an object, after `check_open`; when the tape
    /// refuses (the document outgrew what it addresses), no effect.
    #[inline(always)]
    fn open(&mut self, object: bool) -> Result<(), Error> {
        let state = self.state;
        self.check_open()?;
        if let Err(e) = self.tape.open(object) {
            self.state = state;
            return Err(e);
        }
        self.state = if object { State::Key } else { State::Array };
        Ok(())
    }

    /// Runs `check`, then adds the text the caller appended to the arena
    /// from `start` as a node of `kind`; when either refuses, the text is
    /// taken back and the call has no effect.
    #[inline(always)]
    fn add_arena_text(
        &mut self,
        check: impl FnOnce(&mut Self) -> Result<(), Error>,
        kind: TextKind,
        start: usize,
    ) -> Result<(), Error> {
        let state = self.state;
        if let Err(e) = check(self) {
            self.tape.arena_mut().truncate(start);
            return Err(e);
        }
        self.tape.arena_text(kind, start).inspect_err(|_| self.state = state)
    }

    /// A `Sink` answer: keeps the first refusal for [`finish`](Self::finish).
    fn sink_answer(&mut self, checked: Result<(), Error>) -> Result<(), Abort> {
        checked.map_err(|err| {
            self.refused.get_or_insert(err);
            Abort
        })
    }

    /// Runs `add` on the tape after `check` passed; when the tape refuses
    /// (the document outgrew what it addresses) the call has no effect.
    #[inline(always)]
    fn add(
        &mut self,
        check: impl FnOnce(&mut Self) -> Result<(), Error>,
        add: impl FnOnce(&mut TapeWriter<'a>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let state = self.state;
        check(self)?;
        add(&mut self.tape).inspect_err(|_| self.state = state)
    }

    // ---- the public calls ---------------------------------------------------

    /// Adds `null`.
    #[inline]
    pub fn push_null(&mut self) -> Result<(), Error> {
        self.add(Self::check_value, |t| t.literal(None))
    }

    /// Adds `true` or `false`.
    #[inline]
    pub fn push_bool(&mut self, value: bool) -> Result<(), Error> {
        self.add(Self::check_value, |t| t.literal(Some(value)))
    }

    /// Adds a number given as its lexeme, which must follow JSON's number
    /// grammar (`-0`, `1.50`, `1e400` and 40-digit integers are all fine);
    /// the lexeme is kept exactly as given. Any other text is refused with
    /// [`ErrorKind::InvalidNumber`] (before the structure is checked).
    ///
    /// This is the push for a float a binding formatted itself (Python's
    /// `repr`, JavaScript's `Number.prototype.toString`), whose spelling is
    /// the binding's business: the lexeme is copied into the document and
    /// checked there, whole words at a time.
    ///
    /// ```
    /// use stc_core::{DocumentBuilder, ErrorKind};
    /// let mut b = DocumentBuilder::new();
    /// assert_eq!(b.push_number("1.").unwrap_err().kind(), ErrorKind::InvalidNumber);
    /// b.push_number("-6.5e+16")?;
    /// assert_eq!(b.finish()?.to_json(), "-6.5e+16");
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    #[inline]
    pub fn push_number(&mut self, lexeme: &str) -> Result<(), Error> {
        if number_end::<true>(lexeme.as_bytes(), 0) != Some(lexeme.len()) {
            return Err(Error::detached(ErrorKind::InvalidNumber, format!("'{lexeme}' is not a JSON number")));
        }
        let arena = self.tape.arena_mut();
        let start = arena.len();
        arena.push_str(lexeme);
        self.add_arena_text(Self::check_value, TextKind::Number, start)
    }

    /// Adds an integer, written in decimal by the core: the same document
    /// as `push_number(&value.to_string())`, without a lexeme to check.
    /// The push for a binding's machine integers (Python `int` within
    /// 64 bits, a JavaScript `BigInt` that fits).
    ///
    /// ```
    /// let mut b = stc_core::DocumentBuilder::new();
    /// b.push_begin_array()?;
    /// b.push_i64(i64::MIN)?;
    /// b.push_i64(0)?;
    /// b.push_end_array()?;
    /// assert_eq!(b.finish()?.to_json(), "[-9223372036854775808,0]");
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    #[inline]
    pub fn push_i64(&mut self, value: i64) -> Result<(), Error> {
        self.push_integer(value)
    }

    /// Adds an unsigned integer, written in decimal by the core: the same
    /// document as `push_number(&value.to_string())` (e.g. `u64::MAX`, which
    /// [`push_i64`](Self::push_i64) cannot take).
    ///
    /// ```
    /// let mut b = stc_core::DocumentBuilder::new();
    /// b.push_u64(u64::MAX)?;
    /// assert_eq!(b.finish()?.to_json(), "18446744073709551615");
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    #[inline]
    pub fn push_u64(&mut self, value: u64) -> Result<(), Error> {
        self.push_integer(value)
    }

    /// An integer in decimal (`itoa`), added as a number with no lexeme to check.
    #[inline]
    fn push_integer(&mut self, value: impl itoa::Integer) -> Result<(), Error> {
        let mut digits = itoa::Buffer::new();
        let arena = self.tape.arena_mut();
        let start = arena.len();
        arena.push_str(digits.format(value));
        self.add_arena_text(Self::check_value, TextKind::Number, start)
    }

    /// Adds a string value (any text: it is escaped canonically).
    #[inline]
    pub fn push_str(&mut self, value: &str) -> Result<(), Error> {
        let start = push_text(self.tape.arena_mut(), value);
        self.add_arena_text(Self::check_value, TextKind::String, start)
    }

    /// Adds a string value that the document may borrow: when `value` needs
    /// no escaping (no `"`, `\` or control character, the common case) the
    /// document keeps the slice itself, with no copy; otherwise it is
    /// escaped into the document as [`push_str`](Self::push_str) does. The
    /// same document as `push_str(value)`, which is what the writers see.
    ///
    /// For a caller whose strings outlive the builder (a Rust caller's own
    /// data; a binding's string objects kept alive by the value being
    /// encoded). A borrowed string takes 16 bytes of the document (its
    /// `&str`) instead of its length in bytes.
    ///
    /// ```
    /// let text = String::from("borrowed");
    /// let mut b = stc_core::DocumentBuilder::new();
    /// b.push_begin_array()?;
    /// b.push_str_borrowed(&text)?;
    /// b.push_str_borrowed("a\nb")?;
    /// b.push_end_array()?;
    /// assert_eq!(b.finish()?.to_json(), r#"["borrowed","a\nb"]"#);
    /// # Ok::<(), stc_core::Error>(())
    /// ```
    #[inline]
    pub fn push_str_borrowed(&mut self, value: &'a str) -> Result<(), Error> {
        match plain_prefix(value) {
            None => self.add(Self::check_value, |t| t.borrowed_str(false, value)),
            Some((plain, rest)) => {
                let start = push_escaped(self.tape.arena_mut(), plain, rest);
                self.add_arena_text(Self::check_value, TextKind::String, start)
            }
        }
    }

    /// Adds a key that the document may borrow (see
    /// [`push_str_borrowed`](Self::push_str_borrowed)): the same document as
    /// `push_key(key)`.
    #[inline]
    pub fn push_key_borrowed(&mut self, key: &'a str) -> Result<(), Error> {
        match plain_prefix(key) {
            None => self.add(Self::check_key, |t| t.borrowed_str(true, key)),
            Some((plain, rest)) => {
                let start = push_escaped(self.tape.arena_mut(), plain, rest);
                self.add_arena_text(Self::check_key, TextKind::Key, start)
            }
        }
    }

    /// Adds a string value given as UTF-16 code units; lone surrogates are
    /// kept (as `\uXXXX` escapes in the output).
    pub fn push_utf16(&mut self, value: &[u16]) -> Result<(), Error> {
        self.add(Self::check_value, |t| t.owned_str(false, |arena| push_canonical_utf16(arena, value)))
    }

    /// Opens an array.
    #[inline]
    pub fn push_begin_array(&mut self) -> Result<(), Error> {
        self.open(false)
    }

    /// Closes the innermost array.
    #[inline]
    pub fn push_end_array(&mut self) -> Result<(), Error> {
        if self.state != State::Array {
            return Err(refused(self.state, Call::EndArray));
        }
        self.closed();
        Ok(())
    }

    /// Opens an object.
    #[inline]
    pub fn push_begin_object(&mut self) -> Result<(), Error> {
        self.open(true)
    }

    /// Adds a key to the innermost object (any text: it is escaped
    /// canonically).
    #[inline]
    pub fn push_key(&mut self, key: &str) -> Result<(), Error> {
        let start = push_text(self.tape.arena_mut(), key);
        self.add_arena_text(Self::check_key, TextKind::Key, start)
    }

    /// Adds a key given as UTF-16 code units (lone surrogates kept).
    pub fn push_key_utf16(&mut self, key: &[u16]) -> Result<(), Error> {
        self.add(Self::check_key, |t| t.owned_str(true, |arena| push_canonical_utf16(arena, key)))
    }

    /// Closes the innermost object.
    #[inline]
    pub fn push_end_object(&mut self) -> Result<(), Error> {
        if self.state != State::Key {
            return Err(refused(self.state, Call::EndObject));
        }
        self.closed();
        Ok(())
    }
}

/// The checked builder as a [`Sink`]: the same checks as the `push_*`
/// methods; a refused event answers [`Abort`] and is kept for
/// [`finish`](DocumentBuilder::finish).
///
/// ```
/// use stc_core::{parse_stc, DocumentBuilder, Limits, Profile};
/// let mut b = DocumentBuilder::new();
/// parse_stc(r#"([2]{id,ok}: 1,true / 2,false)"#, &Limits::default(), &mut b)?;
/// assert_eq!(b.finish()?.encode(Profile::Compact), "([2]{id,ok}:1,true/2,false)");
/// # Ok::<(), stc_core::Error>(())
/// ```
impl<'a> Sink<'a> for DocumentBuilder<'a> {
    fn null(&mut self) -> Result<(), Abort> {
        let r = self.push_null();
        self.sink_answer(r)
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        let r = self.push_bool(value);
        self.sink_answer(r)
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        let r = self.push_number(lexeme);
        self.sink_answer(r)
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        let r = self.add(Self::check_value, |t| t.json_str(value, false));
        self.sink_answer(r)
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        let r = self.push_begin_array();
        self.sink_answer(r)
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        let r = self.push_end_array();
        self.sink_answer(r)
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        let r = self.push_begin_object();
        self.sink_answer(r)
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        let r = self.add(Self::check_key, |t| t.json_str(key, true));
        self.sink_answer(r)
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        let r = self.push_end_object();
        self.sink_answer(r)
    }
}

/// Where a [`DocumentBuilder`] is: what its next call may add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing yet: one value.
    Empty,
    /// The one top-level value is complete.
    Done,
    /// Inside an array: a value or its end.
    Array,
    /// Inside an object, before a member: a key or its end.
    Key,
    /// Right after a key: its value.
    Value,
}

/// A call the builder refused, for its message.
#[derive(Clone, Copy)]
enum Call {
    Value,
    Key,
    EndArray,
    EndObject,
}

/// The error of `call` refused in `state` (the messages of the checks
/// before the state was kept).
#[cold]
#[inline(never)]
fn refused(state: State, call: Call) -> Error {
    invalid(match (call, state) {
        (Call::Value, State::Key) => "an object member needs a key before its value",
        (Call::Value, _) => "a document holds exactly one top-level value",
        (Call::Key, _) => "a key is only allowed directly inside an object, before a value",
        (Call::EndArray, _) => "end_array without an open array",
        (Call::EndObject, State::Value) => "end_object right after a key: the member's value is missing",
        (Call::EndObject, _) => "end_object without an open object",
    })
}

fn invalid(message: &str) -> Error {
    Error::detached(ErrorKind::InvalidDocument, message.to_string())
}

/// Appends `s`'s canonical body to `arena` and returns where it starts.
/// A string of up to 64 bytes (most keys and values) with nothing to escape
/// is found so by word reads (the last one overlapping) and copied; any
/// other goes through the canonical escaping (which scans it again, from
/// the start, up to its first byte to escape).
#[inline(always)]
fn push_text(arena: &mut String, s: &str) -> usize {
    let start = arena.len();
    if short_and_plain(s.as_bytes()) {
        arena.push_str(s);
    } else {
        push_canonical(arena, s);
    }
    start
}

/// `None` when `s` holds no byte that canonical escaping changes (`"`,
/// `\`, a control character): short strings are found so by overlapping
/// words, others by the reader's scan. Otherwise `s` split at its first
/// such byte (an ASCII byte, so on a character boundary).
#[inline(always)]
fn plain_prefix(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    if short_and_plain(b) {
        return None;
    }
    let at = scan::plain_run(b);
    if at == b.len() {
        return None;
    }
    s.split_at_checked(at)
}

/// Appends the canonical body of `plain` + `rest`, where `plain` needs no
/// escaping, to `arena` and returns where it starts (`rest` starts at a
/// byte to escape, so it is not scanned again from `plain`'s start).
#[inline(never)]
fn push_escaped(arena: &mut String, plain: &str, rest: &str) -> usize {
    let start = arena.len();
    arena.push_str(plain);
    push_canonical(arena, rest);
    start
}

/// Whether `b` is at most 64 bytes long and holds no byte that canonical
/// escaping changes (`"`, `\`, a control character). Bytes are read as
/// words of eight (or four), the last one overlapping the one before, so
/// every byte is looked at; a byte flagged wrongly only sends the string to
/// the general path.
#[inline(always)]
fn short_and_plain(b: &[u8]) -> bool {
    let n = b.len();
    let word = |at: usize| b.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()).map_or(0, u64::from_le_bytes);
    let half = |at: usize| b.get(at..at + 4).and_then(|w| <[u8; 4]>::try_from(w).ok()).map_or(0, u32::from_le_bytes);
    match n {
        8..=15 => !word_special(word(0)) && !word_special(word(n - 8)),
        16..=64 => {
            let mut at = 0;
            while at + 8 < n {
                if word_special(word(at)) {
                    return false;
                }
                at += 8;
            }
            !word_special(word(n - 8))
        }
        4..=7 => !word_special(u64::from(half(0)) | u64::from(half(n - 4)) << 32),
        0..=3 => b.iter().all(|&c| c >= 0x20 && c != b'"' && c != b'\\'),
        _ => false,
    }
}

/// Whether a byte of `w` may be `"`, `\` or below 0x20: never false when
/// one is (the usual test for a zero byte: a borrow only flags more bytes).
#[inline(always)]
fn word_special(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    (quote | backslash | control) & HIGH != 0
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

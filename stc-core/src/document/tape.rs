//! The compact tape behind [`Document`](crate::Document): 8 bytes per value,
//! key and container, strings and numbers as spans of the input text.
//!
//! Every node is one [`Word`] (two `u32`s) in document order:
//!
//! | node | `head` (tag in bits 0–2, arena flag bit 3, 28 bits above) | `tail` |
//! |---|---|---|
//! | `null`, `false`, `true` | tag | 0 |
//! | number, string, key | tag, where the text is, its length in bytes | its offset |
//! | array, object | tag, its length (elements or members) | index of the node after it |
//!
//! A number lexeme, or a string or key body whose escaping is already
//! canonical, is a span of the parsed input; a body that canonical escaping
//! changes (`\/`, `\u00e9`), and everything a
//! [`DocumentBuilder`](crate::DocumentBuilder) adds, is a span of one owned
//! arena `String`. A length of 2^28 − 1 or more is kept in a side list
//! (`long`, by node index), so nothing is ever cut short.
//!
//! Limits: offsets and node indices are `u32`. A parsed input must be shorter
//! than 4 GiB (its arena is never longer than the input, since canonical
//! escaping never lengthens a body, and it holds fewer nodes than bytes); a
//! built document stops at 2^32 − 1 nodes or 4 GiB of arena text. Past them
//! the caller gets an [`ErrorKind::InvalidDocument`] error, never a wrong
//! tape.
//!
//! The writers read the tape through [`Tape::get`], which hands out a
//! [`Node`] by value: the old, wide node as a view.

mod json;

use crate::error::{Error, ErrorKind};
use crate::strings::JsonStr;
pub(crate) use json::read as read_json;

const NULL: u32 = 0;
const FALSE: u32 = 1;
const TRUE: u32 = 2;
const NUMBER: u32 = 3;
const STRING: u32 = 4;
const KEY: u32 = 5;
const ARRAY: u32 = 6;
const OBJECT: u32 = 7;
const TAG: u32 = 0b111;
/// The text is in the arena, not the input.
const IN_ARENA: u32 = 0b1000;
const SHIFT: u32 = 4;
/// The largest length kept in `head`; this value itself says "see `long`".
const LONG: u32 = u32::MAX >> SHIFT;

/// One node of the tape, as the writers see it (by value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node<'t> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// The exact number lexeme.
    Number(&'t str),
    /// Canonically escaped string body (the writers copy it as it is).
    String(&'t str),
    /// Canonically escaped key body; the member's value follows it.
    Key(&'t str),
    /// `len` elements; the next node after the array is at `end`.
    Array {
        /// How many elements.
        len: usize,
        /// The index of the node after the array.
        end: usize,
    },
    /// `len` members (key + value each); the next node after it is at `end`.
    Object {
        /// How many members.
        len: usize,
        /// The index of the node after the object.
        end: usize,
    },
}

/// Which text node [`TapeWriter::arena_text`] adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextKind {
    Number,
    String,
    Key,
}

/// One node as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    head: u32,
    tail: u32,
}

/// The error for a document the tape cannot address.
pub(crate) fn too_large(what: &str) -> Error {
    Error::detached(
        ErrorKind::InvalidDocument,
        format!("the document is too large to encode: {what} (the encoder addresses at most 4 GiB - 1)"),
    )
}

/// The nodes of one document (see the module documentation).
#[derive(Clone, Default)]
pub struct Tape<'a> {
    /// The parsed input text ("" for a built document).
    input: &'a str,
    /// Text that is not a span of the input.
    arena: String,
    words: Vec<Word>,
    /// `(node index, length)` of every node whose length does not fit in
    /// its `head`, ascending by index once the tape is finished.
    long: Vec<(u32, u32)>,
    /// Strings a builder borrowed (`push_str_borrowed`): a text node that is
    /// not in the arena is `borrowed[tail]` when this is not empty (a built
    /// document has no input), else a span of the input.
    borrowed: Vec<&'a str>,
}

impl<'a> Tape<'a> {
    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the tape holds no node (only while it is being built).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The node at index `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<Node<'_>> {
        let w = *self.words.get(i)?;
        Some(match w.head & TAG {
            NULL => Node::Null,
            FALSE => Node::Bool(false),
            TRUE => Node::Bool(true),
            NUMBER => Node::Number(self.text(i, w)),
            STRING => Node::String(self.text(i, w)),
            KEY => Node::Key(self.text(i, w)),
            ARRAY => Node::Array { len: self.length(i, w), end: w.tail as usize },
            _ => Node::Object { len: self.length(i, w), end: w.tail as usize },
        })
    }

    /// Whether the node at `i` is an array or an object.
    #[inline]
    pub fn is_container(&self, i: usize) -> bool {
        self.words.get(i).is_some_and(|w| w.head & TAG >= ARRAY)
    }

    /// Index of the node after the value at `i` (a container's `end`).
    #[inline]
    pub fn skip(&self, i: usize) -> usize {
        match self.words.get(i) {
            Some(w) if w.head & TAG >= ARRAY => w.tail as usize,
            _ => i + 1,
        }
    }

    /// The nodes in order, as a vector (tests compare tapes with it).
    #[cfg(test)]
    pub(crate) fn to_vec(&self) -> Vec<Node<'_>> {
        (0..self.len()).filter_map(|i| self.get(i)).collect()
    }

    /// The tape without the room reserved for nodes that did not come
    /// (the parser reserves one node per 8 bytes of input), when that room
    /// is more than an eighth of it. A large tape shrinks in place; only a
    /// small one is copied.
    pub(crate) fn trimmed(mut self) -> Self {
        if self.words.capacity() - self.words.len() > self.words.len() / 8 {
            self.words.shrink_to_fit();
        }
        self
    }

    /// Bytes the tape holds beyond the input text: nodes, arena and long
    /// lengths (what [`Document::tape_bytes`](crate::Document::tape_bytes)
    /// reports).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<Word>()
            + self.arena.capacity()
            + self.long.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.borrowed.capacity() * std::mem::size_of::<&str>()
    }

    /// The text of the number, string or key at `i` ("" for any other
    /// node): what the writers compare and copy.
    #[inline(always)]
    pub fn body(&self, i: usize) -> &str {
        match self.words.get(i) {
            Some(&w) if matches!(w.head & TAG, NUMBER | STRING | KEY) => self.text(i, w),
            _ => "",
        }
    }

    /// Whether the number, string or key nodes at `i` and `j` hold the same
    /// text, compared on the tape: the same span (a key read twice from one
    /// place) is equal at once, different lengths differ at once, and only
    /// then are the bytes compared, without building a `&str` (no UTF-8
    /// boundary checks). Any other node holds the empty text.
    #[inline]
    pub(crate) fn same_text(&self, i: usize, j: usize) -> bool {
        let text = |i: usize| match self.words.get(i) {
            Some(&w) if matches!(w.head & TAG, NUMBER | STRING | KEY) => Some(w),
            _ => None,
        };
        let (a, b) = match (text(i), text(j)) {
            (Some(a), Some(b)) => (a, b),
            (None, None) => return true,
            (Some(w), None) => return self.length(i, w) == 0,
            (None, Some(w)) => return self.length(j, w) == 0,
        };
        let len = self.length(i, a);
        if len != self.length(j, b) {
            return false;
        }
        if a.tail == b.tail && a.head & IN_ARENA == b.head & IN_ARENA {
            return true;
        }
        self.bytes(a, len) == self.bytes(b, len)
    }

    /// The bytes of a text node's word `w` of length `len`.
    #[inline(always)]
    fn bytes(&self, w: Word, len: usize) -> &[u8] {
        let start = w.tail as usize;
        let source = if w.head & IN_ARENA != 0 {
            self.arena.as_bytes()
        } else if self.borrowed.is_empty() {
            self.input.as_bytes()
        } else {
            return self.borrowed.get(start).map_or(&[], |s| s.as_bytes());
        };
        source.get(start..start + len).unwrap_or(&[])
    }

    #[inline(always)]
    fn length(&self, i: usize, w: Word) -> usize {
        let small = w.head >> SHIFT;
        if small != LONG {
            return small as usize;
        }
        self.long_length(i)
    }

    /// A length kept in `long`: never absent on a finished tape (0 rather
    /// than a panic otherwise).
    #[cold]
    #[inline(never)]
    fn long_length(&self, i: usize) -> usize {
        match self.long.binary_search_by_key(&(i as u32), |e| e.0) {
            Ok(at) => self.long[at].1 as usize,
            Err(_) => 0,
        }
    }

    #[inline(always)]
    fn text(&self, i: usize, w: Word) -> &str {
        let len = self.length(i, w);
        let start = w.tail as usize;
        let source = if w.head & IN_ARENA != 0 {
            self.arena.as_str()
        } else if self.borrowed.is_empty() {
            self.input
        } else {
            return self.borrowed.get(start).copied().unwrap_or("");
        };
        source.get(start..start + len).unwrap_or("")
    }
}

/// The nodes, as a list.
impl std::fmt::Debug for Tape<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries((0..self.len()).filter_map(|i| self.get(i))).finish()
    }
}

/// Equal when they hold the same nodes (wherever their text is kept).
impl PartialEq for Tape<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

impl Eq for Tape<'_> {}

/// Fills a [`Tape`]: appends nodes and sets each container's length and end
/// when it closes. It checks only what the tape needs (sizes); the structure
/// is the parser's or the checked builder's business.
#[derive(Debug)]
pub(crate) struct TapeWriter<'a> {
    tape: Tape<'a>,
    /// The open containers.
    stack: Vec<Open>,
}

/// An open container: its index, whether it is an object, and its elements
/// (or members) so far.
#[derive(Debug, Clone, Copy)]
struct Open {
    index: u32,
    len: u32,
    object: bool,
}

impl<'a> TapeWriter<'a> {
    /// A writer whose numbers and strings may borrow from `input`, with room
    /// for `nodes` nodes.
    pub(crate) fn new(input: &'a str, nodes: usize) -> Self {
        TapeWriter {
            tape: Tape {
                input,
                arena: String::new(),
                words: Vec::with_capacity(nodes),
                long: Vec::new(),
                borrowed: Vec::new(),
            },
            stack: Vec::new(),
        }
    }

    /// Number of nodes so far.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tape.words.len()
    }

    /// Number of open containers.
    #[inline]
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The innermost open container is an object (`Some(true)`), an array
    /// (`Some(false)`), or there is none.
    pub(crate) fn top_is_object(&self) -> Option<bool> {
        self.stack.last().map(|open| open.object)
    }

    /// The finished tape (the caller checked that every container closed).
    pub(crate) fn finish(self) -> Tape<'a> {
        let mut tape = self.tape;
        // Containers close after their children, so their long lengths came
        // in out of order.
        tape.long.sort_unstable_by_key(|e| e.0);
        tape
    }

    /// Refuses one more node when the tape holds all it can address.
    #[inline(always)]
    fn room(&self) -> Result<(), Error> {
        if u32::try_from(self.tape.words.len()).map_or(true, |n| n == u32::MAX) {
            return Err(too_large("more than 4,294,967,295 values and keys"));
        }
        Ok(())
    }

    /// Appends a node (after [`room`](Self::room)), its length in `head`
    /// when it fits, else in `long`.
    #[inline(always)]
    fn push(&mut self, flags: u32, len: usize, tail: u32) {
        let head = if len < LONG as usize {
            flags | (len as u32) << SHIFT
        } else {
            // Lengths are of text under 4 GiB or of fewer than 2^32 nodes.
            self.tape.long.push((self.tape.words.len() as u32, u32::try_from(len).unwrap_or(u32::MAX)));
            flags | LONG << SHIFT
        };
        self.tape.words.push(Word { head, tail });
    }

    /// Counts one more element when the innermost container is an array
    /// (an object counts its keys instead).
    #[inline(always)]
    fn count_element(&mut self) {
        if let Some(top) = self.stack.last_mut() {
            if !top.object {
                top.len = top.len.saturating_add(1);
            }
        }
    }

    /// Counts one more member of the innermost object.
    #[inline(always)]
    fn count_member(&mut self) {
        if let Some(top) = self.stack.last_mut() {
            top.len = top.len.saturating_add(1);
        }
    }

    /// `null`, `true` or `false`, as an element or a member's value.
    #[inline(always)]
    pub(crate) fn literal(&mut self, value: Option<bool>) -> Result<(), Error> {
        self.room()?;
        self.count_element();
        let tag = match value {
            None => NULL,
            Some(false) => FALSE,
            Some(true) => TRUE,
        };
        self.push(tag, 0, 0);
        Ok(())
    }

    /// Where `text` starts in the input, if it is a slice of it.
    #[inline]
    fn input_offset(&self, text: &str) -> Option<u32> {
        let base = self.tape.input.as_ptr() as usize;
        let at = (text.as_ptr() as usize).checked_sub(base)?;
        // Inputs are shorter than 4 GiB (Document::parse_json checks), so `at` fits.
        (at + text.len() <= self.tape.input.len()).then_some(at as u32)
    }

    /// A text node of `tag` (`NUMBER`, `STRING` or `KEY`), counted in its
    /// container.
    #[inline(always)]
    fn text_node(&mut self, tag: u32, len: usize, tail: u32) {
        if tag & TAG == KEY {
            self.count_member();
        } else {
            self.count_element();
        }
        self.push(tag, len, tail);
    }

    /// A text node whose text was just appended to the arena from `start`;
    /// refused (and the text taken back) when the arena outgrows 4 GiB.
    #[inline(always)]
    fn arena_node(&mut self, tag: u32, start: usize) -> Result<(), Error> {
        if u32::try_from(self.tape.arena.len()).is_err() {
            self.tape.arena.truncate(start);
            return Err(too_large("more than 4 GiB of string text"));
        }
        let len = self.tape.arena.len() - start;
        self.text_node(tag | IN_ARENA, len, start as u32);
        Ok(())
    }

    /// A number lexeme: a span of the input when it is a slice of it, else
    /// copied into the arena.
    #[inline(always)]
    pub(crate) fn number(&mut self, lexeme: &str) -> Result<(), Error> {
        self.room()?;
        match self.input_offset(lexeme) {
            Some(at) => {
                self.text_node(NUMBER, lexeme.len(), at);
                Ok(())
            }
            None => {
                let start = self.tape.arena.len();
                self.tape.arena.push_str(lexeme);
                self.arena_node(NUMBER, start)
            }
        }
    }

    /// A string value or a key (`key`) from a reader: a span of the input
    /// when its escaping already is canonical, else its canonical body in the
    /// arena.
    #[inline]
    pub(crate) fn json_str(&mut self, value: JsonStr<'_>, key: bool) -> Result<(), Error> {
        self.room()?;
        let tag = if key { KEY } else { STRING };
        let raw = value.raw();
        let at = self.input_offset(raw);
        if let (Some(at), false) = (at, value.has_escapes()) {
            self.text_node(tag, raw.len(), at);
            return Ok(());
        }
        let start = self.tape.arena.len();
        value.write_canonical(&mut self.tape.arena);
        if let Some(at) = at {
            if self.tape.arena[start..] == *raw {
                self.tape.arena.truncate(start);
                self.text_node(tag, raw.len(), at);
                return Ok(());
            }
        }
        self.arena_node(tag, start)
    }

    /// A string value or a key (`key`) whose canonical body `write` appends
    /// to the arena (the builder's `push_str`, `push_utf16`, ...).
    #[inline(always)]
    pub(crate) fn owned_str(&mut self, key: bool, write: impl FnOnce(&mut String)) -> Result<(), Error> {
        self.room()?;
        let start = self.tape.arena.len();
        write(&mut self.tape.arena);
        self.arena_node(if key { KEY } else { STRING }, start)
    }

    /// A string value or a key (`key`) that needs no escaping, kept as the
    /// caller's slice (a builder only: the tape has no input).
    #[inline(always)]
    pub(crate) fn borrowed_str(&mut self, key: bool, text: &'a str) -> Result<(), Error> {
        self.room()?;
        let Ok(at) = u32::try_from(self.tape.borrowed.len()) else {
            return Err(too_large("more than 4,294,967,295 strings"));
        };
        self.tape.borrowed.push(text);
        self.text_node(if key { KEY } else { STRING }, text.len(), at);
        Ok(())
    }

    /// The arena, for a caller that writes a text first and then adds its
    /// node with [`arena_text`](Self::arena_text) (the builder's pushes).
    #[inline(always)]
    pub(crate) fn arena_mut(&mut self) -> &mut String {
        &mut self.tape.arena
    }

    /// A number (`key` ignored), string or key whose text the caller has
    /// just appended to the arena from `start`; refused, with the text taken
    /// back, when the tape holds all the nodes it can address or the arena
    /// outgrows 4 GiB.
    #[inline(always)]
    pub(crate) fn arena_text(&mut self, kind: TextKind, start: usize) -> Result<(), Error> {
        if let Err(e) = self.room() {
            self.tape.arena.truncate(start);
            return Err(e);
        }
        let tag = match kind {
            TextKind::Number => NUMBER,
            TextKind::String => STRING,
            TextKind::Key => KEY,
        };
        self.arena_node(tag, start)
    }

    /// Opens an array or an object (`object`).
    #[inline]
    pub(crate) fn open(&mut self, object: bool) -> Result<(), Error> {
        self.room()?;
        self.count_element();
        let index = self.tape.words.len() as u32;
        self.push(if object { OBJECT } else { ARRAY }, 0, 0);
        self.stack.push(Open { index, len: 0, object });
        Ok(())
    }

    /// Closes the innermost container (nothing if none is open): sets its
    /// length and its end.
    #[inline]
    pub(crate) fn close(&mut self) {
        let Some(Open { index, len, object }) = self.stack.pop() else {
            return;
        };
        let end = self.tape.words.len() as u32; // below u32::MAX: see `room`
        let tag = if object { OBJECT } else { ARRAY };
        let head = if len < LONG {
            tag | len << SHIFT
        } else {
            self.tape.long.push((index, len));
            tag | LONG << SHIFT
        };
        if let Some(w) = self.tape.words.get_mut(index as usize) {
            *w = Word { head, tail: end };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_eight_bytes() {
        assert_eq!(std::mem::size_of::<Word>(), 8);
    }

    #[test]
    fn long_lengths_are_kept_beside_the_nodes() {
        // A length that does not fit in `head`, for a string and an array:
        // set by hand (building 2^28 elements would take gigabytes).
        let mut w = TapeWriter::new("", 4);
        w.open(false).unwrap();
        w.owned_str(false, |s| s.push_str("abc")).unwrap();
        w.literal(None).unwrap();
        w.close();
        let mut tape = w.finish();
        tape.words[0].head = ARRAY | LONG << SHIFT;
        tape.long = vec![(0, 2)];
        assert_eq!(tape.get(0), Some(Node::Array { len: 2, end: 3 }));
        tape.words[1].head = STRING | IN_ARENA | LONG << SHIFT;
        tape.long = vec![(0, 2), (1, 3)];
        assert_eq!(tape.get(1), Some(Node::String("abc")));
        // A missing entry reads as 0, never a panic.
        tape.long.clear();
        assert_eq!(tape.get(1), Some(Node::String("")));
    }

    #[test]
    fn push_moves_big_lengths_aside() {
        let mut w = TapeWriter::new("", 1);
        w.push(ARRAY, LONG as usize + 5, 9);
        w.push(ARRAY, 7, 9);
        let tape = w.finish();
        assert_eq!(tape.get(0), Some(Node::Array { len: LONG as usize + 5, end: 9 }));
        assert_eq!(tape.get(1), Some(Node::Array { len: 7, end: 9 }));
        assert_eq!(tape.long, [(0, LONG + 5)]);
    }

    #[test]
    fn canonical_bodies_borrow_and_others_go_to_the_arena() {
        let input = r#"["a\nb", "a\/b", "plain", 12]"#;
        let mut w = TapeWriter::new(input, 4);
        w.open(false).unwrap();
        w.json_str(JsonStr::from_escaped(&input[2..6]).unwrap(), false).unwrap();
        w.json_str(JsonStr::from_escaped(&input[10..14]).unwrap(), false).unwrap();
        w.json_str(JsonStr::from_escaped(&input[18..23]).unwrap(), false).unwrap();
        w.number(&input[26..28]).unwrap();
        w.number("7").unwrap(); // not a slice of the input: copied
        w.close();
        let tape = w.finish();
        assert_eq!(tape.arena, "a/b7");
        assert_eq!(
            tape.to_vec(),
            [
                Node::Array { len: 5, end: 6 },
                Node::String(r"a\nb"),
                Node::String("a/b"),
                Node::String("plain"),
                Node::Number("12"),
                Node::Number("7"),
            ]
        );
        assert_eq!(tape.words[1].head & IN_ARENA, 0);
        assert_ne!(tape.words[2].head & IN_ARENA, 0);
    }
}

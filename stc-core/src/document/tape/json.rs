//! A JSON reader that writes the tape directly: the fast path of
//! [`Document::parse_json`](crate::Document::parse_json).
//!
//! It accepts a subset of what the general reader (`parser.rs`, through
//! `parse_json_to` and a tape sink) accepts and builds the very same tape
//! (same nodes, same spans, same arena text). It answers `None` at the first
//! byte it does not like, without saying why: the caller then runs the
//! general reader, which gives the error (its kind, position and message),
//! so errors stay exactly what they were. Everything valid is read here;
//! invalid input is read twice, once up to the error and once in full by the
//! general reader.
//!
//! What it saves over the general reader plus a sink:
//! - one loop for JSON only (no STC dialect checks, no `Result` per event);
//! - spans written as offsets (no `&str` built and located again);
//! - a string's escapes checked for canonical form while it is scanned, so
//!   a body like `a\nb` or `\u0001` is a span at once, without writing its
//!   canonical form to the arena and comparing;
//! - numbers scanned once;
//! - element counts taken from the commas (no count per node), and no room
//!   check per node: an input under 4 GiB has fewer nodes than bytes.

use super::{Tape, Word, ARRAY, FALSE, IN_ARENA, KEY, LONG, NULL, NUMBER, OBJECT, SHIFT, STRING, TAG, TRUE};
use crate::scan::{is_ws, number_end, plain_run, ws_end};
use crate::strings::JsonStr;

/// Reads `input` (shorter than 4 GiB: the caller checks) into a tape, or
/// `None` for anything the general reader must look at.
pub(crate) fn read(input: &str, max_depth: usize) -> Option<Tape<'_>> {
    let mut reader = Reader {
        input,
        bytes: input.as_bytes(),
        pos: 0,
        words: Vec::with_capacity(input.len() / 8 + 4),
        arena: String::new(),
        long: Vec::new(),
        stack: Vec::new(),
        max_depth,
    };
    reader.run()?;
    let Reader { words, arena, mut long, .. } = reader;
    long.sort_unstable_by_key(|e| e.0);
    Some(Tape { input, arena, words, long, borrowed: Vec::new() })
}

/// An open container: its node index, its elements (or members) so far.
#[derive(Clone, Copy)]
struct Open {
    index: u32,
    len: u32,
    object: bool,
}

struct Reader<'a> {
    input: &'a str,
    bytes: &'a [u8],
    pos: usize,
    words: Vec<Word>,
    arena: String,
    long: Vec<(u32, u32)>,
    stack: Vec<Open>,
    max_depth: usize,
}

impl Reader<'_> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips whitespace: most tokens are followed by none or by one byte
    /// of it (`": "`), looked at one by one; a longer run (a line break and
    /// its indentation) is skipped eight bytes at a time.
    #[inline(always)]
    fn ws(&mut self) {
        if !is_ws(self.bytes.get(self.pos)) {
            return;
        }
        self.pos += 1;
        if !is_ws(self.bytes.get(self.pos)) {
            return;
        }
        self.ws_run();
    }

    /// A run of two or more whitespace bytes (a line break and its indentation).
    fn ws_run(&mut self) {
        self.pos = ws_end(self.bytes, self.pos);
    }

    /// Appends a node; a length that does not fit in `head` goes to `long`.
    #[inline(always)]
    fn push(&mut self, tag: u32, len: usize, tail: u32) {
        let head = if len < LONG as usize { tag | (len as u32) << SHIFT } else { self.long_node(len) };
        self.words.push(Word { head, tail });
    }

    #[cold]
    #[inline(never)]
    fn long_node(&mut self, len: usize) -> u32 {
        // Text lengths and node counts are below 4 GiB (input under 4 GiB).
        self.long.push((self.words.len() as u32, len as u32));
        LONG << SHIFT
    }

    /// The whole input: one value between optional whitespace.
    fn run(&mut self) -> Option<()> {
        self.ws();
        'value: loop {
            // A value at `pos` (whitespace skipped).
            match self.peek()? {
                b'"' => self.string(STRING)?,
                b'-' | b'0'..=b'9' => self.number()?,
                b'{' => {
                    self.open(OBJECT, true)?;
                    self.ws();
                    if self.peek()? == b'}' {
                        self.pos += 1;
                        self.close(0);
                    } else {
                        self.member()?;
                        continue 'value;
                    }
                }
                b'[' => {
                    self.open(ARRAY, false)?;
                    self.ws();
                    match self.peek()? {
                        b']' => {
                            self.pos += 1;
                            self.close(0);
                        }
                        b'-' | b'0'..=b'9' => {
                            let n = self.number_run()?;
                            if self.bytes.get(self.pos) == Some(&b']') {
                                self.pos += 1;
                                self.close(n);
                            } else if let Some(top) = self.stack.last_mut() {
                                top.len = n - 1;
                            }
                        }
                        _ => continue 'value,
                    }
                }
                b't' => self.literal(b"true", TRUE)?,
                b'f' => self.literal(b"false", FALSE)?,
                b'n' => self.literal(b"null", NULL)?,
                _ => return None,
            }
            // A value is complete: continue the innermost container.
            loop {
                let Some(top) = self.stack.last().copied() else {
                    break 'value;
                };
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        if let Some(t) = self.stack.last_mut() {
                            t.len += 1;
                        }
                        self.ws();
                        if top.object {
                            self.member()?;
                        }
                        continue 'value;
                    }
                    b']' if !top.object => {
                        self.pos += 1;
                        self.close(top.len + 1);
                    }
                    b'}' if top.object => {
                        self.pos += 1;
                        self.close(top.len + 1);
                    }
                    _ => return None,
                }
            }
        }
        self.ws();
        (self.pos == self.bytes.len()).then_some(())
    }

    /// Opens a container at its bracket; `None` past the depth limit.
    #[inline(always)]
    fn open(&mut self, tag: u32, object: bool) -> Option<()> {
        if self.stack.len() >= self.max_depth {
            return None;
        }
        self.pos += 1;
        let index = self.words.len() as u32;
        self.words.push(Word { head: tag, tail: 0 });
        // `len` counts the commas; the closing bracket adds the first element.
        self.stack.push(Open { index, len: 0, object });
        Some(())
    }

    /// Closes the innermost container, which holds `len` elements or members.
    #[inline(always)]
    fn close(&mut self, len: u32) {
        let Some(open) = self.stack.pop() else { return };
        self.set_container(open.index, if open.object { OBJECT } else { ARRAY }, len);
    }

    /// Sets the container node at `index` (tag `tag`) to `len` elements or
    /// members, ending here.
    #[inline(always)]
    fn set_container(&mut self, index: u32, tag: u32, len: u32) {
        let end = self.words.len() as u32;
        let head = if len < LONG {
            tag | len << SHIFT
        } else {
            self.long.push((index, len));
            tag | LONG << SHIFT
        };
        if let Some(w) = self.words.get_mut(index as usize) {
            *w = Word { head, tail: end };
        }
    }

    /// Numbers from `pos` (at `-` or a digit) as long as `,` or `, ` leads
    /// to another: how many (at least one), `pos` after the last.
    #[inline(always)]
    fn number_run(&mut self) -> Option<u32> {
        let b = self.bytes;
        let mut n = 1;
        self.number()?;
        loop {
            if b.get(self.pos) != Some(&b',') {
                return Some(n);
            }
            let at = self.pos + 1 + usize::from(b.get(self.pos + 1) == Some(&b' '));
            if !matches!(b.get(at), Some(b'-' | b'0'..=b'9')) {
                return Some(n);
            }
            n += 1;
            self.pos = at;
            self.number()?;
        }
    }

    /// A member's key and its `:` (at the key's `"`), whitespace after it skipped.
    #[inline(always)]
    fn member(&mut self) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        self.string(KEY)?;
        self.ws();
        if self.peek()? != b':' {
            return None;
        }
        self.pos += 1;
        self.ws();
        Some(())
    }

    #[inline(always)]
    fn literal(&mut self, word: &[u8], tag: u32) -> Option<()> {
        if !self.bytes[self.pos..].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        self.words.push(Word { head: tag, tail: 0 });
        Some(())
    }

    /// A number at `-` or a digit, in JSON's grammar, as a span.
    #[inline(always)]
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let end = number_end::<false>(self.bytes, start)?;
        self.pos = end;
        self.push(NUMBER, end - start, start as u32);
        Some(())
    }

    /// A string or key body at its `"`: a span when its escaping is canonical
    /// (checked while scanning), else its canonical form in the arena.
    #[inline(always)]
    fn string(&mut self, tag: u32) -> Option<()> {
        let b = self.bytes;
        let start = self.pos + 1;
        let mut i = start;
        // Where the first escape that may not be canonical starts (`usize::MAX`: none).
        let mut first_other = usize::MAX;
        loop {
            i += plain_run(&b[i..]);
            match *b.get(i)? {
                b'"' => break,
                b'\\' => match *b.get(i + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'/' => {
                        first_other = first_other.min(i);
                        i += 2;
                    }
                    b'u' => {
                        let hex = b.get(i + 2..i + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        if !canonical_u_escape(hex) {
                            first_other = first_other.min(i);
                        }
                        i += 6;
                    }
                    _ => return None,
                },
                // A raw control character.
                _ => return None,
            }
        }
        self.pos = i + 1;
        if first_other == usize::MAX {
            self.push(tag, i - start, start as u32);
        } else {
            self.recanonicalized(tag, start, first_other, i);
        }
        Some(())
    }

    /// A body whose escapes may change in canonical form (`\/`, most
    /// `\uXXXX`) from `other` on: what the tape writer does with it
    /// (`TapeWriter::json_str`), with the part before `other` copied as it
    /// is (its escapes are canonical and none is a surrogate, so no pair is
    /// split there).
    #[cold]
    #[inline(never)]
    fn recanonicalized(&mut self, tag: u32, start: usize, other: usize, end: usize) {
        let raw = self.input.get(start..end).unwrap_or("");
        let at = self.arena.len();
        // `other` is at a `\`, so on a character boundary.
        self.arena.push_str(self.input.get(start..other).unwrap_or(""));
        JsonStr::new_unchecked(self.input.get(other..end).unwrap_or(""), true).write_canonical(&mut self.arena);
        if self.arena[at..] == *raw {
            self.arena.truncate(at);
            self.push(tag, raw.len(), start as u32);
        } else {
            // The arena is never longer than the input (canonical escaping
            // never lengthens a body), so under 4 GiB.
            let len = self.arena.len() - at;
            self.push(tag | IN_ARENA, len, at as u32);
        }
        debug_assert!(self.words.last().is_some_and(|w| w.head & TAG == tag));
    }
}

/// Whether `\u` + `hex` (four hex digits) is canonical escaping: lowercase
/// digits for a control character that has no short escape. Anything else
/// (a lone surrogate included, which is canonical too) is checked the slow
/// way, by writing the canonical form.
#[inline(always)]
fn canonical_u_escape(hex: &[u8]) -> bool {
    match hex {
        [b'0', b'0', b'0', d] => matches!(d, b'0'..=b'7' | b'b' | b'e' | b'f'),
        [b'0', b'0', b'1', d] => matches!(d, b'0'..=b'9' | b'a'..=b'f'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    //! The fast reader against the general one (`Document::parse_json_general`):
    //! whatever it accepts, the general reader accepts with the very same tape
    //! (nodes, spans, arena, long lengths); whatever the general reader
    //! accepts, it accepts too (valid input never takes the slow path); and
    //! `Document::parse_json` answers exactly as the general reader does,
    //! errors included (kind, offset, message).

    use super::*;
    use crate::{Document, Limits};
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};

    fn same_tape(a: &Tape<'_>, b: &Tape<'_>) -> bool {
        a.input.as_ptr() == b.input.as_ptr() && a.words == b.words && a.arena == b.arena && a.long == b.long
    }

    /// Checks the three properties on `input` with depth limit `max_depth`.
    fn check(input: &str, max_depth: usize) {
        let limits = Limits::default().max_depth(max_depth);
        let general = Document::parse_json_general(input, &limits);
        let fast = read(input, max_depth);
        match (&fast, &general) {
            (Some(f), Ok(g)) => assert!(same_tape(f, &g.nodes), "different tapes for {input:?}"),
            (Some(_), Err(e)) => panic!("the fast reader accepts {input:?}, the general one says {e}"),
            (None, Ok(_)) => panic!("the fast reader refuses valid JSON {input:?}"),
            (None, Err(_)) => {}
        }
        let answer = Document::parse_json(input, &limits);
        match (answer, general) {
            (Ok(a), Ok(g)) => assert!(same_tape(&a.nodes, &g.nodes)),
            (Err(a), Err(g)) => assert_eq!(a, g, "{input:?}"),
            (a, g) => panic!("{input:?}: parse_json {a:?}, general {g:?}"),
        }
    }

    fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                json_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }

    /// Every `input` string of the conformance cases (encode, json-invalid,
    /// roundtrip, ... whatever they are meant for, all are reader inputs).
    fn conformance_inputs() -> Vec<String> {
        let mut files = Vec::new();
        json_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/cases"), &mut files);
        assert!(!files.is_empty(), "conformance cases not found");
        let mut inputs = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            for case in value["cases"].as_array().into_iter().flatten() {
                for field in ["input", "expected"] {
                    if let Some(s) = case[field].as_str() {
                        inputs.push(s.to_string());
                    }
                }
            }
        }
        inputs
    }

    #[test]
    fn conformance_inputs_read_as_the_general_reader_reads_them() {
        let inputs = conformance_inputs();
        assert!(inputs.len() > 200, "{} inputs", inputs.len());
        for input in &inputs {
            check(input, 128);
            check(input, 3);
        }
    }

    #[test]
    fn corpus_documents_read_as_the_general_reader_reads_them() {
        let dir = match std::env::var_os("STC_CORPUS") {
            Some(dir) => PathBuf::from(dir),
            None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
        };
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            if entry.path().extension().is_some_and(|e| e == "ndjson") {
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    check(line, 128);
                }
            } else if entry.path().extension().is_some_and(|e| e == "json") {
                check(&text, 128);
                // Cut short (at a character boundary): every prefix is an error.
                for cut in [1, 7, text.len() / 3, text.len() / 2, text.len() - 1] {
                    let cut = (cut..text.len()).find(|&c| text.is_char_boundary(c)).unwrap_or(text.len());
                    check(&text[..cut], 128);
                }
            }
            seen += 1;
        }
        assert!(seen >= 14, "expected the shared corpus in {}", dir.display());
    }

    #[test]
    fn edges() {
        for input in [
            "",
            " ",
            "0",
            "-0",
            "-",
            "01",
            "1.",
            "1.5e",
            "1e+",
            "1E-7",
            "-12.5e+3",
            "[1,]",
            "[,1]",
            "{,}",
            "[]",
            "{}",
            " [ ] ",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "[1 2]",
            "[1]x",
            "nul",
            "nulls",
            "true",
            "tru",
            "falsey",
            "\"\\u00e9\"",
            "\"\\u00E9\"",
            "\"\\u001f\"",
            "\"\\u001F\"",
            "\"\\u0008\"",
            "\"\\b\"",
            "\"\\/\"",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\\ud800\\udc00\"",
            "\"\\udc00\\ud800\"",
            "\"\\u0000\\u007f\"",
            "\"\u{7f}\"",
            "\"a\tb\"",
            "\"\\\"\\\\\"",
            "\"abc",
            "\"\\u12\"",
            "\"\\u12",
            "[[[]]]",
            "[{\"\":{}}]",
            "\u{feff}1",
            "1\u{a0}",
            "\"0123456789abcdef\\n0123456789abcdef\\\"\"",
            "[true,false,null]",
            "[1,2,]",
            "[1, 2]",
            "[1,  2]",
            "[1,\n2]",
            "[1 ,2]",
            "[-1,-0,0.5e3, 7,1E+2]",
            "[1,-]",
            "[1,2,01]",
            "[1,2.]",
            "[[1,2],[3, 4],[]]",
            "{\"a\":1,2}",
            "{\"a\":1, \"b\":2}",
            "1,2",
            "1, 2",
            "[1,2,\"a\"]",
            "[1,2,[3]]",
            "[1,2 ]",
            "[1,2,3",
            "[1,2,3,",
            "[[1,2],[3,4]",
            "[0,-0,1e5,-1.5E-3]",
            "[1]",
            "[-]",
            "[1,2}",
            "\t\r\n1\t\r\n",
        ] {
            check(input, 128);
            check(input, 1);
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        check(&deep, 128);
        check(&deep, 200);
        check(&deep, 199);
    }

    /// JSON text with every kind of escape (canonical or not) and whitespace.
    fn arb_json() -> impl Strategy<Value = String> {
        let string = prop::collection::vec(
            prop_oneof![
                Just("a".to_string()),
                Just("é".to_string()),
                Just("日".to_string()),
                Just("\u{1F600}".to_string()),
                Just("\u{7f}".to_string()),
                Just(" ".to_string()),
                prop::sample::select(vec!["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"])
                    .prop_map(str::to_string),
                (0u16..=0xffff, any::<bool>()).prop_map(|(u, upper)| {
                    let hex = format!("\\u{u:04x}");
                    if upper {
                        hex.to_uppercase().replace("\\U", "\\u")
                    } else {
                        hex
                    }
                }),
                prop::sample::select(vec![0x00u16, 0x08, 0x0b, 0x1f, 0xd800, 0xdbff, 0xdc00, 0xdfff])
                    .prop_map(|u| format!("\\u{u:04x}")),
            ],
            0..6,
        )
        .prop_map(|parts| format!("\"{}\"", parts.concat()));
        let number = prop_oneof![
            Just("0".to_string()),
            Just("-0".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
            (any::<u32>(), 0u32..1000).prop_map(|(a, b)| format!("{a}.{b:03}E-{}", b % 40)),
        ];
        let ws = prop::sample::select(vec!["", "", " ", "\n  ", "\t", "\r\n", "\n            ", "\n\t\t        \t  "]);
        let leaf = prop_oneof![
            string.clone(),
            number,
            Just("true".to_string()),
            Just("false".to_string()),
            Just("null".to_string())
        ];
        leaf.prop_recursive(6, 64, 8, move |inner| {
            prop_oneof![
                (prop::collection::vec((inner.clone(), ws.clone()), 0..8)).prop_map(|items| {
                    let body: Vec<String> = items.into_iter().map(|(v, w)| format!("{w}{v}{w}")).collect();
                    format!("[{}]", body.join(","))
                }),
                (prop::collection::vec((string.clone(), inner, ws.clone()), 0..8)).prop_map(|members| {
                    let body: Vec<String> =
                        members.into_iter().map(|(k, v, w)| format!("{w}{k}{w}:{w}{v}{w}")).collect();
                    format!("{{{}}}", body.join(","))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn generated_json_reads_as_the_general_reader_reads_it(json in arb_json(), depth in 1usize..8) {
            check(&json, 128);
            check(&json, depth);
        }

        /// Invalid mutations: a byte deleted, replaced or inserted (kept only
        /// when the result is still UTF-8).
        #[test]
        fn mutated_json_reads_as_the_general_reader_reads_it(
            json in arb_json(),
            at in any::<prop::sample::Index>(),
            op in 0u8..3,
            byte in prop::sample::select(b"\"\\,:[]{}0-.eE+tfn \x01\x7fu/".to_vec()),
        ) {
            let mut bytes = json.into_bytes();
            let i = at.index(bytes.len() + 1);
            match op {
                0 if i < bytes.len() => { bytes.remove(i); }
                1 if i < bytes.len() => bytes[i] = byte,
                _ => bytes.insert(i, byte),
            }
            if let Ok(text) = String::from_utf8(bytes) {
                check(&text, 128);
            }
        }
    }
}

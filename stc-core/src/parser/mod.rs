//! The byte-level reader of STC (and, in strict mode, of JSON).
//!
//! One left-to-right pass over the input bytes with an explicit stack of open
//! containers on the heap: the reader never recurses on input depth, so the
//! depth limit is only a policy (any value, no clamp). Every value is reported
//! to a [`Sink`] as it is read, so decoding to JSON text, building a
//! [`Document`](crate::Document), building Python or JavaScript objects and
//! plain validation all share this one reader.
//!
//! Here: the entry points and the reader's state, its errors and lexing;
//! `sink.rs` the public [`Sink`] API, `grammar.rs` values, objects and
//! arrays, `tables.rs` headers, tables and column groups, `number.rs` the
//! number grammar and [`Number`].

use crate::error::{describe, Error, ErrorKind};
use crate::identifier;
use crate::options::{AsDecodeOptions, Limits, Version};
use crate::strings::{
    bare_char_len, is_bare_first, is_bare_run, is_literal_lookalike, JsonStr, BARE_BYTE, RESERVED_START,
};

mod grammar;
mod number;
mod sink;
mod tables;

use crate::scan::{self, plain_run, plain_run_ascii};
#[cfg(test)]
pub(crate) use number::scan_number;
use number::scan_number_shape;
pub use number::{is_unsafe_integer, Number};
pub use sink::{Abort, Failure, Sink, Validate, MAX_DEPTH_LIMIT};

/// Reads `input` as STC, reporting values to `sink`.
///
/// This is the most general entry point; [`decode`](crate::decode) and
/// [`validate`](crate::validate) are built on it.
///
/// `options` is `&`[`DecodeOptions`](crate::DecodeOptions) (limits and
/// version) or `&Limits` (version 1).
pub fn parse_stc<'a, S: Sink<'a>>(
    input: &'a str,
    options: &(impl AsDecodeOptions + ?Sized),
    sink: &mut S,
) -> Result<(), Error> {
    let options = options.as_decode_options();
    let mut parser = Parser::new(input, &options.limits, options.version, Dialect::Stc, sink);
    let r = parser.run();
    parser.aborted(r)
}

/// Reads `input` as strict RFC 8259 JSON (no STC syntax), reporting values
/// to `sink`.
pub fn parse_json<'a, S: Sink<'a>>(input: &'a str, limits: &Limits, sink: &mut S) -> Result<(), Error> {
    let mut parser = Parser::new(input, limits, Version::V1, Dialect::Json, sink);
    let r = parser.run();
    parser.aborted(r)
}

/// [`parse_stc`] for a sink with its own error type `E`: a refusal comes
/// back unchanged as [`Failure::Sink`], an input error as [`Failure::Input`].
pub fn parse_stc_to<'a, E, S: Sink<'a, E>>(
    input: &'a str,
    options: &(impl AsDecodeOptions + ?Sized),
    sink: &mut S,
) -> Result<(), Failure<E>> {
    let options = options.as_decode_options();
    Parser::new(input, &options.limits, options.version, Dialect::Stc, sink).run()
}

/// [`parse_json`] for a sink with its own error type `E` (see [`parse_stc_to`]).
pub fn parse_json_to<'a, E, S: Sink<'a, E>>(input: &'a str, limits: &Limits, sink: &mut S) -> Result<(), Failure<E>> {
    Parser::new(input, limits, Version::V1, Dialect::Json, sink).run()
}

/// Checks UTF-8 up front so the reader can slice freely.
pub(crate) fn utf8(input: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(input)
        .map_err(|e| Error::at(input, e.valid_up_to(), ErrorKind::InvalidUtf8, "invalid UTF-8".to_string()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Json,
    Stc,
}

/// One open container of the reader's own stack (heap, not the call stack).
/// Small and `Copy`: a table's extra state lives in [`Table`].
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// A JSON array, after an element.
    Array { open: usize },
    /// An object, after a member's value.
    Object { open: usize },
    /// A compact body with `left` values still to read after the current one.
    Compact { open: usize, count_at: usize, left: usize },
    /// A columnar or keyed table: the innermost entry of `Parser::tables`.
    Table,
}

/// One entry of a column list, flattened: a group opens, holds its columns
/// and closes, so rows are read by walking the entries left to right.
#[derive(Debug, Clone, Copy)]
enum Column<'a> {
    Leaf(JsonStr<'a>),
    Open(JsonStr<'a>),
    Close,
}

/// The state of an open table.
#[derive(Debug, Clone, Copy)]
struct Table {
    open: usize,
    count_at: usize,
    /// The declared rows, and those still to read after the current one.
    count: usize,
    rows_left: usize,
    leaves: usize,
    /// Its column entries: `columns[first..end]`.
    first: usize,
    end: usize,
    /// The entry the current cell belongs to.
    at: usize,
    /// The first byte of the current row (depth errors of row and group objects).
    row_at: usize,
    /// Groups entered in the current row, and how many of them (the
    /// outermost) have been reported because a leaf in them was present.
    groups_open: usize,
    groups_emitted: usize,
    /// Where this table's open groups start in `Parser::groups`.
    groups_base: usize,
    keyed: bool,
    /// Whether the column list has groups (rows then walk `Open`/`Close` entries).
    grouped: bool,
    /// The `len` given to row objects (`Some(leaves)` when no cell can be absent).
    row_len: Option<usize>,
}

/// What the main loop does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Read a value at `pos` (whitespace skipped).
    Value,
    /// A value (or an absent cell) is complete: continue the innermost container.
    After,
}

/// A header's count as written: `None` when it is above 2^64 − 1.
type Count = Option<u64>;

struct Parser<'a, 's, S, E> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    dialect: Dialect,
    v2: bool,
    sink: &'s mut S,
    stack: Vec<Frame>,
    tables: Vec<Table>,
    columns: Vec<Column<'a>>,
    /// Names of the groups open in the rows being read (all tables).
    groups: Vec<JsonStr<'a>>,
    /// Where the sink refused (the position of an `Aborted` error).
    refused_at: usize,
    /// The text opened with `(`: its top-level value must be a header form.
    enclosed: bool,
    /// A header form was read as the top-level value.
    top_header: bool,
    error_type: std::marker::PhantomData<fn() -> E>,
}

type PResult<E> = Result<(), Failure<E>>;

impl<'a, 's, S: Sink<'a, Abort>> Parser<'a, 's, S, Abort> {
    /// Turns a refusal into an [`ErrorKind::Aborted`] error at the token.
    fn aborted(&self, r: PResult<Abort>) -> Result<(), Error> {
        r.map_err(|f| match f {
            Failure::Input(e) => e,
            Failure::Sink(Abort) => {
                self.err_at(self.refused_at, ErrorKind::Aborted, "stopped by the caller".to_string())
            }
        })
    }
}

/// Bytes a header's count candidate may hold (judged as a whole afterwards).
#[inline]
fn is_count_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

impl<'a, 's, E, S: Sink<'a, E>> Parser<'a, 's, S, E> {
    fn new(text: &'a str, limits: &Limits, version: Version, dialect: Dialect, sink: &'s mut S) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            max_depth: limits.max_depth,
            dialect,
            v2: version >= Version::V2 && dialect == Dialect::Stc,
            sink,
            stack: Vec::with_capacity(32),
            tables: Vec::new(),
            columns: Vec::new(),
            groups: Vec::new(),
            refused_at: 0,
            enclosed: false,
            top_header: false,
            error_type: std::marker::PhantomData,
        }
    }

    fn run(&mut self) -> PResult<E> {
        if self.text.starts_with('\u{feff}') {
            return Err(self
                .err_at(
                    0,
                    ErrorKind::UnexpectedChar,
                    "the text starts with a byte-order mark (U+FEFF, bytes EF BB BF); STC and JSON text has none: \
                     remove it"
                        .to_string(),
                )
                .into());
        }
        self.skip_ws();
        // A top-level compact array, table or keyed table is enclosed in
        // `(` `)` (spec 3.12): its count-delimited body then has an end a
        // cut text lacks, and `[N]`, the start of every top-level table, is
        // no longer a whole text.
        let open = self.pos;
        if self.dialect == Dialect::Stc && self.peek() == Some(b'(') {
            self.enclosed = true;
            self.pos += 1;
            self.skip_ws();
            if !matches!(self.peek(), Some(b'[' | b'{')) {
                return Err(self.expected("a compact array, table or keyed table after '('").into());
            }
        }
        let start = self.pos;
        self.read()?;
        if self.enclosed {
            if !self.top_header {
                return Err(self
                    .err_at(
                        start,
                        ErrorKind::UnexpectedChar,
                        "'(' encloses only a top-level compact array, table or keyed table; write this value without \
                         parentheses"
                            .to_string(),
                    )
                    .into());
            }
            self.skip_ws();
            if self.peek() != Some(b')') {
                return Err(self
                    .expected(&format!("')' closing the '(' at offset {open} (the top-level table ends here)"))
                    .into());
            }
            self.pos += 1;
        }
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self
                .err(
                    ErrorKind::TrailingCharacters,
                    format!("expected end of input after the value, found {}", self.found()),
                )
                .into());
        }
        Ok(())
    }

    // ---- errors ------------------------------------------------------------

    fn err_at(&self, offset: usize, kind: ErrorKind, message: String) -> Error {
        Error::at(self.bytes, offset, kind, message)
    }

    fn err(&self, kind: ErrorKind, message: String) -> Error {
        self.err_at(self.pos, kind, message)
    }

    fn found(&self) -> String {
        describe(self.bytes, self.pos)
    }

    /// "expected X, found Y" at the current position; end of input is always
    /// reported as [`ErrorKind::UnexpectedEnd`].
    fn expected(&self, what: &str) -> Error {
        let kind = if self.pos >= self.bytes.len() { ErrorKind::UnexpectedEnd } else { ErrorKind::UnexpectedChar };
        self.err(kind, format!("expected {what}, found {}", self.found()))
    }

    fn newer(&self, at: usize, what: &str) -> Error {
        self.err_at(at, ErrorKind::NewerVersion, format!("{what} is STC version 2; decode with version 2"))
    }

    /// Too few values or rows for the count written at `count_at`.
    fn too_few(&self, count_at: usize, what: &str) -> Error {
        let count = self.count_text(count_at);
        self.err_at(
            count_at,
            ErrorKind::CountMismatch,
            format!("the header declares {count} {what} but the body ends at {}", self.found()),
        )
    }

    fn count_text(&self, at: usize) -> &str {
        let digits = self.bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        self.text.get(at..at + digits).unwrap_or("")
    }

    #[inline]
    fn sink_result(&mut self, r: Result<(), E>, at: usize) -> PResult<E> {
        r.map_err(|e| {
            self.refused_at = at;
            Failure::Sink(e)
        })
    }

    // ---- lexing ------------------------------------------------------------

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while scan::is_ws(self.bytes.get(self.pos)) {
            self.pos += 1;
        }
    }

    /// Opens one level at `at` (`depth_limit` there when it is one too many).
    #[inline]
    fn enter(&mut self, at: usize) -> Result<(), Error> {
        if self.depth >= self.max_depth {
            return Err(self.err_at(
                at,
                ErrorKind::DepthLimit,
                format!("nesting deeper than the limit of {}", self.max_depth),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Reads a string literal at `"`; returns its validated body, marked
    /// canonical when all its escapes (if any) are written canonically.
    #[inline(always)]
    fn string_body(&mut self) -> Result<JsonStr<'a>, Error> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut escaped = false;
        let mut canonical = true;
        let mut non_ascii = false;
        loop {
            // Fast scan over bytes that need no attention.
            if S::ASCII_FLAGS {
                let (n, high) = plain_run_ascii(&self.bytes[self.pos..]);
                self.pos += n;
                non_ascii |= high;
            } else {
                self.pos += plain_run(&self.bytes[self.pos..]);
                non_ascii = true;
            }
            match self.peek() {
                Some(b'"') => {
                    let body = self.text.get(start..self.pos).unwrap_or("");
                    self.pos += 1;
                    return Ok(JsonStr::parsed(body, escaped, canonical, !non_ascii));
                }
                Some(b'\\') => match scan::escape(&self.bytes[self.pos..]) {
                    Some((n, canon)) => {
                        escaped = true;
                        canonical &= canon;
                        self.pos += n;
                    }
                    None => return Err(self.bad_escape()),
                },
                Some(b) => return Err(self.control_character(b)),
                None => return Err(self.unterminated(open)),
            }
        }
    }

    #[cold]
    fn control_character(&self, b: u8) -> Error {
        self.err(
            ErrorKind::ControlCharacter,
            format!("raw control character U+{:04X} in string; write it as an escape", b),
        )
    }

    #[cold]
    fn unterminated(&self, open: usize) -> Error {
        self.err(ErrorKind::UnexpectedEnd, format!("unterminated string (opened at byte {open}), found end of input"))
    }

    #[cold]
    fn bad_escape(&self) -> Error {
        let rest = &self.bytes[self.pos..];
        if rest.len() < 2 || (rest[1] == b'u' && rest.len() < 6 && rest[2..].iter().all(u8::is_ascii_hexdigit)) {
            return self.err_at(
                self.bytes.len(),
                ErrorKind::UnexpectedEnd,
                "unterminated escape, found end of input".into(),
            );
        }
        let shown = String::from_utf8_lossy(&rest[..rest.len().min(6)]).into_owned();
        let shown: String = shown.chars().take_while(|c| !c.is_control() && *c != '"').collect();
        self.err(
            ErrorKind::InvalidEscape,
            format!("invalid escape '{shown}'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"),
        )
    }

    fn literal(&mut self, word: &'static str) -> Result<(), Error> {
        let end = self.pos + word.len();
        let got = &self.bytes[self.pos..end.min(self.bytes.len())];
        if got == word.as_bytes() {
            self.pos = end;
            return Ok(());
        }
        // Point at the first byte that differs.
        let same = got.iter().zip(word.as_bytes()).take_while(|(a, b)| a == b).count();
        self.pos += same;
        Err(self.expected(&format!("'{word}'")))
    }

    /// key = string / identifier   (identifier: STC only)
    #[inline(always)]
    fn key(&mut self) -> Result<JsonStr<'a>, Error> {
        match self.peek() {
            Some(b'"') => self.string_body(),
            Some(b) if self.dialect == Dialect::Stc && identifier::is_start(b) => {
                let start = self.pos;
                self.pos += scan::identifier_len(&self.bytes[start..]);
                Ok(JsonStr::identifier_unchecked(self.text.get(start..self.pos).unwrap_or("")))
            }
            _ if self.dialect == Dialect::Json => {
                Err(self.expected("'\"' to start an object key (JSON keys are quoted)"))
            }
            _ => Err(self.expected("an object key")),
        }
    }

    /// The count candidate at `pos`: the run of bytes a number could hold,
    /// judged whole. `invalid_count` at its first byte unless it is a count
    /// (digits, no sign, no leading zero); `None` for a count above 2^64 − 1.
    fn count(&mut self) -> Result<Count, Error> {
        let at = self.pos;
        let len = self.bytes[at..].iter().take_while(|&&b| is_count_byte(b)).count();
        self.pos = at + len;
        let text = &self.bytes[at..at + len];
        if text.is_empty() && at == self.bytes.len() {
            return Err(self.expected("an array count"));
        }
        let digits = !text.is_empty() && text.iter().all(u8::is_ascii_digit);
        if !digits || (text.len() > 1 && text[0] == b'0') {
            let shown: String = String::from_utf8_lossy(text).chars().take(24).collect();
            let found = if shown.is_empty() { describe(self.bytes, at) } else { format!("'{shown}'") };
            return Err(self.err_at(
                at,
                ErrorKind::InvalidCount,
                format!("array count must be a non-negative integer without leading zeros, found {found}"),
            ));
        }
        Ok(self.text.get(at..at + len).and_then(|t| t.parse::<u64>().ok()))
    }

    /// The count guard, run when a header is complete (at `pos`, after its
    /// `:`): `count_too_large` above 2^64 − 1, `count_mismatch` when the
    /// rest of the input is shorter than the shortest body of that count:
    /// `count × cells` values of at least one byte each with one separator
    /// byte between any two (`2 × count × cells − 1` bytes), and for a keyed
    /// table a key and `:` (two bytes) more per row.
    fn guard(&self, count_at: usize, count: Count, cells: usize, keyed: bool) -> Result<usize, Error> {
        let Some(count) = count else {
            return Err(self.err_at(
                count_at,
                ErrorKind::CountTooLarge,
                format!("array count {} is above the largest count, 2^64 - 1", self.count_text(count_at)),
            ));
        };
        let remaining = (self.bytes.len() - self.pos) as u128;
        let values = u128::from(count) * cells as u128;
        let keys = if keyed { 2 * u128::from(count) } else { 0 };
        if (2 * values).saturating_sub(1) + keys > remaining {
            return Err(self.err_at(
                count_at,
                ErrorKind::CountMismatch,
                format!("array count {} is larger than the rest of the input can hold", self.count_text(count_at)),
            ));
        }
        // Fits in the input, so in usize.
        Ok(count as usize)
    }
}

/// `1 value`, `2 values`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

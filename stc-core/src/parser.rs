//! The byte-level reader of STC (and, in strict mode, of JSON).
//!
//! One left-to-right pass over the input bytes with an explicit stack of open
//! containers on the heap: the reader never recurses on input depth, so the
//! depth limit is only a policy (any value, no clamp). Every value is reported
//! to a [`Sink`] as it is read, so decoding to JSON text, building a
//! [`Document`](crate::Document), building Python or JavaScript objects and
//! plain validation all share this one reader.

use crate::error::{describe, Error, ErrorKind};
use crate::identifier;
use crate::options::{AsDecodeOptions, Limits, Version};
use crate::strings::{
    bare_char_len, is_bare_first, is_bare_run, is_literal_lookalike, JsonStr, BARE_BYTE, RESERVED_START,
};

mod number;

use crate::scan::{self, plain_run, plain_run_ascii};
pub use number::Number;

/// Returned by a [`Sink`] to stop the parser. The sink keeps whatever detail
/// it needs; the parser reports [`ErrorKind::Aborted`] at the current token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abort;

/// Receives the values of a document in order, as the parser reads them.
///
/// Containers are bracketed by `begin_*`/`end_*`; inside an object every value
/// is preceded by exactly one [`key`](Sink::key). `len` is `Some(n)` when the
/// size is known up front (empty containers, STC compact and columnar
/// arrays, keyed tables, and the rows of a table read as version 1); rows
/// read as version 2 may hold absent cells, so they and group objects give
/// `None`. A hint only: the events that follow are what count.
///
/// Every method may refuse with the sink's error type `E`. The default,
/// [`Abort`], carries nothing: [`parse_stc`] and [`parse_json`] turn it into
/// an [`ErrorKind::Aborted`] error at the current token. A sink with its own
/// error type (a binding's exception, an I/O error) is driven by
/// [`parse_stc_to`] / [`parse_json_to`], which hand that value back unchanged
/// as [`Failure::Sink`]; [`Document::replay`](crate::Document::replay) returns
/// it as is.
///
/// ```
/// use stc_core::{parse_stc, Abort, JsonStr, Limits, Sink};
///
/// /// Counts numbers, whatever the nesting.
/// struct CountNumbers(usize);
/// impl<'a> Sink<'a> for CountNumbers {
///     fn number(&mut self, _lexeme: &'a str) -> Result<(), Abort> { self.0 += 1; Ok(()) }
/// }
///
/// let mut sink = CountNumbers(0);
/// parse_stc("{scores[3]: 95,87,91, n: 1e3}", &Limits::default(), &mut sink).unwrap();
/// assert_eq!(sink.0, 4);
/// ```
#[allow(unused_variables)]
pub trait Sink<'a, E = Abort> {
    /// `null`.
    fn null(&mut self) -> Result<(), E> {
        Ok(())
    }
    /// `true` or `false`.
    fn boolean(&mut self, value: bool) -> Result<(), E> {
        Ok(())
    }
    /// A number, as its exact lexeme (valid JSON number grammar).
    fn number(&mut self, lexeme: &'a str) -> Result<(), E> {
        Ok(())
    }
    /// A number, with what the reader found while scanning it: whether it
    /// is an integer, and its value as an `i64` ([`Number::as_i64`]) or
    /// `f64` ([`Number::as_f64`]) without scanning the lexeme again. The
    /// readers ([`parse_stc`], [`parse_json`] and the `_to` forms) report
    /// every number through this method; the default hands the lexeme to
    /// [`number`](Sink::number), so a sink that does not override it sees
    /// `number` only, as before, and pays nothing for the parts (they are
    /// computed only when asked for).
    ///
    /// Other producers of events, such as
    /// [`Document::replay`](crate::Document::replay), may call `number`
    /// alone: a sink that overrides this method should make `number` do
    /// the same, for example with `Number::new(lexeme)`.
    ///
    /// ```
    /// use stc_core::{parse_stc, Abort, Limits, Number, Sink};
    ///
    /// /// Builds each number as an `i64` or an `f64`.
    /// #[derive(Default)]
    /// struct Values(Vec<Result<i64, f64>>);
    /// impl<'a> Sink<'a> for Values {
    ///     fn number_parts(&mut self, n: Number<'a>) -> Result<(), Abort> {
    ///         self.0.push(n.as_i64().ok_or_else(|| n.as_f64()));
    ///         Ok(())
    ///     }
    ///     fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
    ///         self.number_parts(Number::new(lexeme).ok_or(Abort)?)
    ///     }
    /// }
    ///
    /// let mut sink = Values::default();
    /// parse_stc("{n[4]: -7,0.5,1e2,99999999999999999999}", &Limits::default(), &mut sink).unwrap();
    /// assert_eq!(sink.0, [Ok(-7), Err(0.5), Err(100.0), Err(1e20)]);
    /// ```
    #[inline(always)]
    fn number_parts(&mut self, n: Number<'a>) -> Result<(), E> {
        self.number(n.lexeme())
    }
    /// Whether the reader should find out, for each quoted string, whether
    /// its body is ASCII (the crate's one-byte JSON writer copies such
    /// strings as they are). It costs the reader 3–8 % on string-heavy
    /// input, so it is off unless a sink asks. Not part of the stable API.
    #[doc(hidden)]
    const ASCII_FLAGS: bool = false;
    /// A string value.
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), E> {
        Ok(())
    }
    /// The start of an array.
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), E> {
        Ok(())
    }
    /// The end of the innermost array.
    fn end_array(&mut self) -> Result<(), E> {
        Ok(())
    }
    /// The start of an object.
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), E> {
        Ok(())
    }
    /// An object key; the member's value follows.
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), E> {
        Ok(())
    }
    /// The end of the innermost object.
    fn end_object(&mut self) -> Result<(), E> {
        Ok(())
    }
}

/// Why [`parse_stc_to`] or [`parse_json_to`] stopped: the input (a syntax
/// or limit [`Error`], with its position), or the sink's own error value,
/// returned unchanged.
///
/// ```
/// use stc_core::{parse_stc_to, Failure, Limits, Sink};
///
/// /// Refuses numbers above a bound, with its own error type.
/// struct Bounded(u64);
/// #[derive(Debug, PartialEq)]
/// struct TooBig(String);
/// impl<'a> Sink<'a, TooBig> for Bounded {
///     fn number(&mut self, lexeme: &'a str) -> Result<(), TooBig> {
///         match lexeme.parse::<u64>() {
///             Ok(n) if n <= self.0 => Ok(()),
///             _ => Err(TooBig(lexeme.to_string())),
///         }
///     }
/// }
///
/// let r = parse_stc_to("{scores[3]: 95,870,91}", &Limits::default(), &mut Bounded(100));
/// assert!(matches!(r, Err(Failure::Sink(TooBig(ref n))) if n == "870"));
/// let r = parse_stc_to("{scores[3]: 95}", &Limits::default(), &mut Bounded(100));
/// assert_eq!(r.unwrap_err().input_error().map(|e| e.kind()), Some(stc_core::ErrorKind::CountMismatch));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure<E> {
    /// The input is not valid (syntax) or exceeds a limit.
    Input(Error),
    /// The sink refused, with its own error value.
    Sink(E),
}

impl<E> Failure<E> {
    /// The input error, if the input was at fault.
    pub fn input_error(&self) -> Option<&Error> {
        match self {
            Failure::Input(e) => Some(e),
            Failure::Sink(_) => None,
        }
    }
}

impl<E> From<Error> for Failure<E> {
    fn from(e: Error) -> Self {
        Failure::Input(e)
    }
}

impl<E: std::fmt::Display> std::fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Input(e) => e.fmt(f),
            Failure::Sink(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for Failure<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failure::Input(e) => Some(e),
            Failure::Sink(e) => Some(e),
        }
    }
}

/// A sink that ignores everything: parsing into it only validates.
#[derive(Debug, Default, Clone, Copy)]
pub struct Validate;

impl<'a> Sink<'a> for Validate {}

/// Formerly the largest depth limit accepted (larger limits were clamped to
/// it). The reader no longer recurses and honours any
/// [`max_depth`](Limits::max_depth); this constant stays for callers that
/// used it as a conservative depth for walks of their own.
pub const MAX_DEPTH_LIMIT: usize = 1024;

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

    /// Reads a number at `-` or a digit; returns its lexeme and parts.
    #[inline(always)]
    fn number_lexeme(&mut self) -> Result<Number<'a>, Error> {
        let start = self.pos;
        match scan_number_shape(self.bytes, start) {
            Ok(shape) => {
                self.pos = shape.end;
                Ok(self.number_at(start, shape))
            }
            Err(NumberError { at, expected: None }) => {
                Err(self.err_at(at, ErrorKind::InvalidNumber, "invalid number: leading zeros are not allowed".into()))
            }
            Err(NumberError { at, expected: Some(what) }) => Err(self.number_err(at, what)),
        }
    }

    /// The number scanned at `start` with `shape`.
    #[inline(always)]
    fn number_at(&self, start: usize, shape: NumberShape) -> Number<'a> {
        Number::from_parts(self.text.get(start..shape.end).unwrap_or(""), shape.int_end - start, shape.frac_end - start)
    }

    fn number_err(&self, at: usize, what: &str) -> Error {
        let kind = if at >= self.bytes.len() { ErrorKind::UnexpectedEnd } else { ErrorKind::InvalidNumber };
        self.err_at(at, kind, format!("invalid number: expected {what}, found {}", describe(self.bytes, at)))
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

    // ---- the reader ----------------------------------------------------------

    /// Reads one value at `pos` (whitespace skipped) and everything it holds.
    fn read(&mut self) -> PResult<E> {
        let base = self.stack.len();
        loop {
            if self.value()? == Step::Value {
                continue;
            }
            // A value is complete: continue the innermost open container
            // until it needs another value.
            loop {
                if self.stack.len() == base {
                    return Ok(());
                }
                let top = self.stack.len() - 1;
                match self.stack[top] {
                    Frame::Array { open } => {
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                break;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.depth -= 1;
                                let r = self.sink.end_array();
                                self.sink_result(r, open)?;
                            }
                            _ => return Err(self.expected("',' or ']' after array element").into()),
                        }
                    }
                    Frame::Object { open } => {
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                if self.member()? {
                                    break;
                                }
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.depth -= 1;
                                let r = self.sink.end_object();
                                self.sink_result(r, open)?;
                            }
                            _ => return Err(self.expected("',' or '}' after object member").into()),
                        }
                    }
                    Frame::Compact { open, count_at, left } => {
                        if left == 0 {
                            self.stack.pop();
                            self.depth -= 1;
                            let r = self.sink.end_array();
                            self.sink_result(r, open)?;
                            continue;
                        }
                        self.stack[top] = Frame::Compact { open, count_at, left: left - 1 };
                        self.skip_ws();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                self.compact_value_start(count_at)?;
                                break;
                            }
                            None | Some(b']' | b'}' | b'/') => return Err(self.too_few(count_at, "values").into()),
                            _ => return Err(self.expected("',' between array values").into()),
                        }
                    }
                    Frame::Table => {
                        if self.table_cells()? {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// value = object / array / string / number / true / false / null, at
    /// `pos`. A scalar is read whole ([`Step::After`]); a container is opened
    /// and its first content read as far as the next value ([`Step::Value`])
    /// or its end.
    #[inline]
    fn value(&mut self) -> Result<Step, Failure<E>> {
        let at = self.pos;
        // One call of `sink.string` for quoted and bare strings alike (it
        // stays inlined into the reader).
        let s = match self.peek() {
            Some(b'"') => self.string_body()?,
            Some(b'-' | b'0'..=b'9') => {
                let lexeme = self.number_lexeme()?;
                let r = self.sink.number_parts(lexeme);
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            Some(b'{') => return self.object(),
            Some(b'[') => return self.array(),
            Some(b't') if self.is_word(at, b"true") => {
                self.pos = at + 4;
                let r = self.sink.boolean(true);
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            Some(b'f') if self.is_word(at, b"false") => {
                self.pos = at + 5;
                let r = self.sink.boolean(false);
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            Some(b'n') if self.is_word(at, b"null") => {
                self.pos = at + 4;
                let r = self.sink.null();
                self.sink_result(r, at)?;
                return Ok(Step::After);
            }
            _ => match self.not_a_word(at)? {
                Some(s) => s,
                None => return Ok(Step::After),
            },
        };
        let r = self.sink.string(s);
        self.sink_result(r, at)?;
        Ok(Step::After)
    }

    /// Whether the literal `word` is written at `at` and is the whole value
    /// there: in STC a bare run must not go on after it (`true story`,
    /// `nullable` are runs, read by [`bare`](Self::bare)). One byte is
    /// looked at after the word on the fast path.
    #[inline]
    fn is_word(&self, at: usize, word: &[u8]) -> bool {
        self.bytes[at..].starts_with(word)
            && (self.dialect == Dialect::Json
                || !self.bytes.get(at + word.len()).is_some_and(|&b| b >= 0x80 || BARE_BYTE[b as usize]))
    }

    /// At a value position that holds no literal alone and starts no quoted
    /// string, number, array, header or object. JSON: the error of the
    /// literal the first byte begins, or "expected a value". STC: the bare
    /// run there: a literal (reported here; `None`), [v2] a bare string to
    /// report, or the error (see [`bare`](Self::bare)).
    #[inline(never)]
    fn not_a_word(&mut self, at: usize) -> Result<Option<JsonStr<'a>>, Failure<E>> {
        if self.dialect == Dialect::Stc {
            if let Some(run) = self.bare(at)? {
                return Ok(run);
            }
        }
        let word = match self.peek() {
            Some(b't') => "true",
            Some(b'f') => "false",
            Some(b'n') => "null",
            _ => return Err(self.expected("a value").into()),
        };
        // A misspelt literal (or one followed by a run that is no bare
        // string, which the rule never gives: such runs always qualify).
        self.literal(word)?;
        let r = match word {
            "true" => self.sink.boolean(true),
            "false" => self.sink.boolean(false),
            _ => self.sink.null(),
        };
        self.sink_result(r, at)?;
        Ok(None)
    }

    /// The bare run at `at` (spec "Bare strings"): the longest stretch of
    /// characters allowed in a bare string, trailing spaces not included.
    /// Exactly `true`, `false` or `null`: that literal, reported
    /// (`Some(None)`). A bare string: [v2] that string, to report
    /// (`Some(Some(_))`); [v1] `newer_version` at `at`. Otherwise [v2] a
    /// non-empty run is `unexpected_char` at `at` (it must be quoted); `None`
    /// leaves the version 1 error (and an empty run's) to the caller.
    fn bare(&mut self, at: usize) -> Result<Option<Option<JsonStr<'a>>>, Failure<E>> {
        match self.text[at..].chars().next() {
            Some(c) if is_bare_first(c) => {}
            Some(c) if c.is_ascii() && RESERVED_START[c as usize] => {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::NewerVersion,
                        format!(
                            "'{c}' where a value is due is reserved for a later version of STC; a string that \
                             starts with it must be quoted"
                        ),
                    )
                    .into());
            }
            Some(c) if self.v2 && !c.is_ascii() => {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::UnexpectedChar,
                        format!(
                            "'{}' (U+{:04X}) may not start a bare string: only ASCII letters and the letters listed \
                             in the spec do; quote the string",
                            c.escape_debug(),
                            c as u32
                        ),
                    )
                    .into());
            }
            Some('+' | '.') if self.v2 => {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::UnexpectedChar,
                        "a string that starts with '+' or '.' must be quoted (a number starts with '-' or a digit)"
                            .to_string(),
                    )
                    .into());
            }
            _ => return Ok(None),
        }
        let end = self.run_end(at);
        let run = self.text.get(at..end).unwrap_or("");
        let literal = match run {
            "true" => Some(self.sink.boolean(true)),
            "false" => Some(self.sink.boolean(false)),
            "null" => Some(self.sink.null()),
            _ => None,
        };
        if let Some(r) = literal {
            self.pos = end;
            self.sink_result(r, at)?;
            return Ok(Some(None));
        }
        if is_bare_run(run) {
            if !self.v2 {
                return Err(self
                    .err_at(
                        at,
                        ErrorKind::NewerVersion,
                        "a bare (unquoted) string is STC version 2; decode with version 2 or quote the string"
                            .to_string(),
                    )
                    .into());
            }
            self.pos = end;
            return Ok(Some(Some(JsonStr::bare_unchecked(run, S::ASCII_FLAGS && run.is_ascii()))));
        }
        if !self.v2 || run.is_empty() {
            return Ok(None);
        }
        let shown: String = run.chars().take(24).collect();
        let shown = if shown.len() < run.len() { format!("{shown}...") } else { shown };
        debug_assert!(is_literal_lookalike(run), "{run:?}");
        let why = "the literals true, false and null are lowercase, and a string spelled like true, false, null, \
                   nan, inf, infinity, none, nil or undefined (in any letter case) must be quoted";
        Err(self.err_at(at, ErrorKind::UnexpectedChar, format!("'{shown}' is not a value: {why}")).into())
    }

    /// Where the bare run starting at `at` ends: after its last character
    /// that is not a space.
    #[inline]
    fn run_end(&self, at: usize) -> usize {
        let bytes = self.bytes;
        let mut i = at;
        loop {
            while i < bytes.len() && BARE_BYTE[bytes[i] as usize] {
                i += 1;
            }
            match bytes.get(i) {
                Some(&b) if b >= 0x80 => match bare_char_len(&bytes[i..]) {
                    0 => break,
                    n => i += n,
                },
                _ => break,
            }
        }
        while i > at && bytes[i - 1] == b' ' {
            i -= 1;
        }
        i
    }

    /// At `{` in value position: an object, or [v2] a keyed table.
    fn object(&mut self) -> Result<Step, Failure<E>> {
        let open = self.pos;
        self.enter(open)?;
        self.pos += 1;
        self.skip_ws();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                self.depth -= 1;
                let r = self.sink.begin_object(Some(0));
                self.sink_result(r, open)?;
                let r = self.sink.end_object();
                self.sink_result(r, open)?;
                Ok(Step::After)
            }
            Some(b'0'..=b'9') if self.dialect == Dialect::Stc => {
                if !self.v2 {
                    return Err(self.newer(open, "a keyed table").into());
                }
                // The `{` is this table's level, counted above.
                self.keyed_header(open, None)
            }
            _ => {
                let r = self.sink.begin_object(None);
                self.sink_result(r, open)?;
                self.stack.push(Frame::Object { open });
                Ok(if self.member()? { Step::Value } else { Step::After })
            }
        }
    }

    /// member = key ":" value / key header / [v2] key keyed-table, at the
    /// key. `true` when a value follows at `pos`; `false` when the member is
    /// complete (a header whose body was empty) or a table's first cell was
    /// handled.
    #[inline(always)]
    fn member(&mut self) -> Result<bool, Failure<E>> {
        let key_at = self.pos;
        let key = self.key()?;
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                let r = self.sink.key(key);
                self.sink_result(r, key_at)?;
                self.skip_ws();
                Ok(true)
            }
            Some(b'[') if self.dialect == Dialect::Stc => {
                let open = self.pos;
                self.pos += 1;
                self.skip_ws();
                let count_at = self.pos;
                let count = self.count()?;
                self.skip_ws();
                if self.peek() != Some(b']') {
                    return Err(self.expected("']' after the array count").into());
                }
                self.pos += 1;
                self.skip_ws();
                match self.peek() {
                    Some(b':' | b'{') => {}
                    _ => return Err(self.expected("':' or '{' after the array header").into()),
                }
                Ok(self.header(open, count_at, count, Some((key, key_at)))? == Step::Value)
            }
            Some(b'{') if self.dialect == Dialect::Stc => {
                let open = self.pos;
                if !self.v2 {
                    return Err(self.newer(open, "a keyed table").into());
                }
                self.pos += 1;
                Ok(self.keyed_header(open, Some((key, key_at)))? == Step::Value)
            }
            _ => Err(self.expected("':' after object key").into()),
        }
    }

    /// After the first number of a JSON array, read at its bracket: the
    /// numbers that follow, each after its `,`, read here rather than one
    /// trip through the main loop per number. Stops before the `,` of
    /// anything else (and at anything but a `,`), where the main loop
    /// continues; a number is read by the same call at the same position
    /// as there, so errors are unchanged.
    #[inline(never)]
    fn number_run(&mut self) -> PResult<E> {
        loop {
            self.skip_ws();
            if self.peek() != Some(b',') {
                return Ok(());
            }
            let comma = self.pos;
            self.pos += 1;
            self.skip_ws();
            let at = self.pos;
            if !matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                self.pos = comma;
                return Ok(());
            }
            let lexeme = self.number_lexeme()?;
            let r = self.sink.number_parts(lexeme);
            self.sink_result(r, at)?;
        }
    }

    /// At `[` in value position: a JSON array or a header.
    fn array(&mut self) -> Result<Step, Failure<E>> {
        let open = self.pos;
        self.enter(open)?;
        self.pos += 1;
        self.skip_ws();
        match self.peek() {
            Some(b']') => {
                self.pos += 1;
                self.depth -= 1;
                let r = self.sink.begin_array(Some(0));
                self.sink_result(r, open)?;
                let r = self.sink.end_array();
                self.sink_result(r, open)?;
                return Ok(Step::After);
            }
            Some(b'-' | b'0'..=b'9') if self.dialect == Dialect::Stc => {
                // `[candidate]` followed by ':' or '{' is a header; anything
                // else makes the number the first element of a JSON array.
                let num_at = self.pos;
                // Fast path: a well-formed number that ends the candidate is
                // read once, whichever it turns out to be.
                if let Ok(shape) = scan_number_shape(self.bytes, num_at) {
                    let end = shape.end;
                    if !self.bytes.get(end).is_some_and(|&b| is_count_byte(b)) {
                        self.pos = end;
                        self.skip_ws();
                        let is_header = self.peek() == Some(b']') && {
                            self.pos += 1;
                            self.skip_ws();
                            matches!(self.peek(), Some(b':' | b'{'))
                        };
                        if is_header {
                            let after = self.pos;
                            self.pos = num_at;
                            let count = self.count()?;
                            self.pos = after;
                            // The `[` is this array's level, counted above.
                            self.depth -= 1;
                            return self.header(open, num_at, count, None);
                        }
                        let r = self.sink.begin_array(None);
                        self.sink_result(r, open)?;
                        self.stack.push(Frame::Array { open });
                        let r = self.sink.number_parts(self.number_at(num_at, shape));
                        self.sink_result(r, num_at)?;
                        self.pos = end;
                        self.number_run()?;
                        return Ok(Step::After);
                    }
                }
                let len = self.bytes[num_at..].iter().take_while(|&&b| is_count_byte(b)).count();
                self.pos = num_at + len;
                self.skip_ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    self.skip_ws();
                    if let Some(b':' | b'{') = self.peek() {
                        let after = self.pos;
                        self.pos = num_at;
                        let count = self.count()?;
                        self.pos = after;
                        // The `[` is this array's level, counted above.
                        self.depth -= 1;
                        return self.header(open, num_at, count, None);
                    }
                }
                self.pos = num_at;
            }
            _ => {}
        }
        let r = self.sink.begin_array(None);
        self.sink_result(r, open)?;
        self.stack.push(Frame::Array { open });
        Ok(Step::Value)
    }

    /// After `[count]` (at `:` or `{`): the column list if any, `:`, the
    /// count guard, then the body is opened. `member` is the key of a member
    /// header, whose array level is checked here (a value-position `[` was
    /// counted when met and is counted again here).
    fn header(
        &mut self,
        open: usize,
        count_at: usize,
        count: Count,
        member: Option<(JsonStr<'a>, usize)>,
    ) -> Result<Step, Failure<E>> {
        self.top_level_header(open)?;
        if self.peek() == Some(b'{') {
            let first = self.columns.len();
            let leaves = self.column_list()?;
            let count = self.guard(count_at, count, leaves, false)?;
            self.open_body(open, member)?;
            let r = self.sink.begin_array(Some(count));
            self.sink_result(r, open)?;
            self.open_table(open, count_at, count, first, leaves, false)
        } else {
            self.pos += 1; // ':'
            let count = self.guard(count_at, count, 1, false)?;
            self.open_body(open, member)?;
            let r = self.sink.begin_array(Some(count));
            self.sink_result(r, open)?;
            if count == 0 {
                self.depth -= 1;
                let r = self.sink.end_array();
                self.sink_result(r, open)?;
                return Ok(Step::After);
            }
            self.stack.push(Frame::Compact { open, count_at, left: count - 1 });
            self.skip_ws();
            self.compact_value_start(count_at)?;
            if matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                self.compact_numbers()?;
                return Ok(Step::After);
            }
            Ok(Step::Value)
        }
    }

    /// At the first value of a compact body (the innermost frame), when it
    /// is a number: that number and the numbers that follow, each after its
    /// `,`, read here rather than one trip through the main loop per value.
    /// Stops after the body's last value, or before the `,` of anything
    /// else (and at anything but a `,`), with the frame's count of values
    /// left updated; the main loop continues there. A number is read by the
    /// same call at the same position as there, and the separators are
    /// checked by the main loop's code, so the events and errors are the same.
    #[inline(never)]
    fn compact_numbers(&mut self) -> PResult<E> {
        let top = self.stack.len() - 1;
        let Frame::Compact { open, count_at, mut left } = self.stack[top] else {
            unreachable!("called in a compact body")
        };
        loop {
            let at = self.pos;
            let n = self.number_lexeme()?;
            let r = self.sink.number_parts(n);
            self.sink_result(r, at)?;
            if left == 0 {
                break;
            }
            self.skip_ws();
            if self.peek() != Some(b',') {
                break;
            }
            let comma = self.pos;
            self.pos += 1;
            self.skip_ws();
            if !matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                self.pos = comma;
                break;
            }
            left -= 1;
        }
        self.stack[top] = Frame::Compact { open, count_at, left };
        Ok(())
    }

    /// At a header form that is the top-level value (the stack is empty):
    /// an error unless the text opened with `(`; else noted, for the `)`.
    #[inline]
    fn top_level_header(&mut self, open: usize) -> Result<(), Error> {
        if !self.stack.is_empty() {
            return Ok(());
        }
        if !self.enclosed {
            return Err(self.err_at(
                open,
                ErrorKind::UnexpectedChar,
                "a compact array, table or keyed table at the top level must be enclosed in parentheses, \
                 '([N]...)' (STC texts from before this rule lack them: encode the JSON again)"
                    .to_string(),
            ));
        }
        self.top_header = true;
        Ok(())
    }

    /// [v2] After the `{` of a keyed table (whitespace not yet skipped).
    fn keyed_header(&mut self, open: usize, member: Option<(JsonStr<'a>, usize)>) -> Result<Step, Failure<E>> {
        if member.is_none() {
            self.top_level_header(open)?;
        }
        self.skip_ws();
        let count_at = self.pos;
        let count = self.count()?;
        self.skip_ws();
        if self.peek() != Some(b'}') {
            return Err(self.expected("'}' after the keyed table's count").into());
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() != Some(b'{') {
            return Err(self.expected("'{' to start the keyed table's column list").into());
        }
        let first = self.columns.len();
        let leaves = self.column_list()?;
        let count = self.guard(count_at, count, leaves, true)?;
        if member.is_none() {
            // The `{` was counted when met.
            self.depth -= 1;
        }
        self.open_body(open, member)?;
        let r = self.sink.begin_object(Some(count));
        self.sink_result(r, open)?;
        self.open_table(open, count_at, count, first, leaves, true)
    }

    /// Checks the body's own level at `open` and reports a member's key.
    #[inline]
    fn open_body(&mut self, open: usize, member: Option<(JsonStr<'a>, usize)>) -> PResult<E> {
        self.enter(open)?;
        if let Some((key, key_at)) = member {
            let r = self.sink.key(key);
            self.sink_result(r, key_at)?;
        }
        Ok(())
    }

    /// At a compact body's next value (whitespace skipped): `count_mismatch`
    /// at the count if the body ends here.
    #[inline]
    fn compact_value_start(&self, count_at: usize) -> Result<(), Error> {
        match self.peek() {
            None | Some(b']' | b'}' | b'/') => Err(self.too_few(count_at, "values")),
            _ => Ok(()),
        }
    }

    /// column-list = "{" column *( "," column ) "}" ":", at `{`; [v2] a column
    /// may carry its own list. Appends the flattened entries to `columns` and
    /// returns the number of leaves.
    fn column_list(&mut self) -> Result<usize, Error> {
        self.pos += 1;
        let mut open_groups = 0usize;
        let mut leaves = 0usize;
        'columns: loop {
            self.skip_ws();
            let key = match self.peek() {
                Some(b) if b == b'"' || (self.dialect == Dialect::Stc && identifier::is_start(b)) => self.key()?,
                _ => return Err(self.expected("a column name")),
            };
            self.skip_ws();
            if self.peek() == Some(b'{') {
                if !self.v2 {
                    return Err(self.newer(self.pos, "a column group"));
                }
                self.pos += 1;
                self.columns.push(Column::Open(key));
                open_groups += 1;
                continue;
            }
            self.columns.push(Column::Leaf(key));
            leaves += 1;
            loop {
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        continue 'columns;
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        if open_groups == 0 {
                            break 'columns;
                        }
                        self.columns.push(Column::Close);
                        open_groups -= 1;
                        self.skip_ws();
                    }
                    _ => return Err(self.expected("',' or '}' in the column list")),
                }
            }
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.expected("':' after the column list"));
        }
        self.pos += 1;
        Ok(leaves)
    }

    /// Opens a table whose columns start at `columns[first]`, after its
    /// guard; reads up to its first cell.
    fn open_table(
        &mut self,
        open: usize,
        count_at: usize,
        count: usize,
        first: usize,
        leaves: usize,
        keyed: bool,
    ) -> Result<Step, Failure<E>> {
        if count == 0 {
            self.columns.truncate(first);
            return self.close_table_now(open, keyed).map(|()| Step::After);
        }
        let end = self.columns.len();
        let grouped = end - first != leaves;
        self.tables.push(Table {
            open,
            count_at,
            count,
            rows_left: count - 1,
            leaves,
            first,
            end,
            at: first,
            row_at: self.pos,
            groups_open: 0,
            groups_emitted: 0,
            groups_base: self.groups.len(),
            keyed,
            grouped,
            row_len: if self.v2 || grouped { None } else { Some(leaves) },
        });
        self.stack.push(Frame::Table);
        self.skip_ws();
        self.start_row()?;
        Ok(if self.cell()? { Step::Value } else { Step::After })
    }

    fn close_table_now(&mut self, open: usize, keyed: bool) -> PResult<E> {
        self.depth -= 1;
        let r = if keyed { self.sink.end_object() } else { self.sink.end_array() };
        self.sink_result(r, open)
    }

    /// At a row's first byte (whitespace skipped): its level, [keyed] its key
    /// and `:`, its object.
    fn start_row(&mut self) -> PResult<E> {
        let ti = self.tables.len() - 1;
        if let None | Some(b']' | b'}') = self.peek() {
            return Err(self.too_few(self.tables[ti].count_at, "rows").into());
        }
        let row_at = self.pos;
        self.enter(row_at)?;
        if self.tables[ti].keyed {
            let key = match self.peek() {
                Some(b) if b == b'"' || identifier::is_start(b) => self.key()?,
                _ => return Err(self.expected("a row key").into()),
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.expected("':' after the row key").into());
            }
            self.pos += 1;
            self.skip_ws();
            let r = self.sink.key(key);
            self.sink_result(r, row_at)?;
        }
        let r = self.sink.begin_object(self.tables[ti].row_len);
        self.sink_result(r, row_at)?;
        let t = &mut self.tables[ti];
        t.row_at = row_at;
        t.at = t.first;
        t.groups_open = 0;
        t.groups_emitted = 0;
        Ok(())
    }

    /// At a cell (whitespace skipped; `tables.last().at` at or before its
    /// leaf: groups opening here are entered first). `true` when a value
    /// follows at `pos`, `false` for an absent cell (already consumed).
    #[inline(always)]
    fn cell(&mut self) -> Result<bool, Failure<E>> {
        let ti = self.tables.len() - 1;
        if self.tables[ti].grouped {
            self.enter_groups(ti);
        }
        let Column::Leaf(name) = self.columns[self.tables[ti].at] else {
            unreachable!("a group holds at least one column")
        };
        let at = self.pos;
        match self.peek() {
            Some(b'~') if self.dialect == Dialect::Stc => {
                if !self.v2 {
                    return Err(self.newer(at, "an absent cell '~'").into());
                }
                self.pos += 1;
                return Ok(false);
            }
            None | Some(b']' | b'}') => return Err(self.too_few(self.tables[ti].count_at, "rows").into()),
            _ => {}
        }
        if self.tables[ti].groups_emitted < self.tables[ti].groups_open {
            self.emit_groups(ti, at)?;
        }
        let r = self.sink.key(name);
        self.sink_result(r, at)?;
        Ok(true)
    }

    /// Enters the groups that open before the current cell's leaf.
    #[inline(always)]
    fn enter_groups(&mut self, ti: usize) {
        let t = &mut self.tables[ti];
        while let Column::Open(name) = self.columns[t.at] {
            self.groups.push(name);
            t.groups_open += 1;
            t.at += 1;
        }
    }

    /// Reports the groups a present cell is the first present leaf of
    /// (outermost first): each is a level, checked at the row's first byte.
    #[cold]
    fn emit_groups(&mut self, ti: usize, at: usize) -> PResult<E> {
        while self.tables[ti].groups_emitted < self.tables[ti].groups_open {
            self.enter(self.tables[ti].row_at)?;
            let t = self.tables[ti];
            let group = self.groups[t.groups_base + t.groups_emitted];
            let r = self.sink.key(group);
            self.sink_result(r, at)?;
            let r = self.sink.begin_object(None);
            self.sink_result(r, at)?;
            self.tables[ti].groups_emitted += 1;
        }
        Ok(())
    }

    /// Leaves the groups that close after the current cell's leaf.
    fn leave_groups(&mut self, ti: usize) -> PResult<E> {
        loop {
            let t = self.tables[ti];
            if t.at >= t.end || !matches!(self.columns[t.at], Column::Close) {
                return Ok(());
            }
            if t.groups_emitted == t.groups_open {
                self.tables[ti].groups_emitted -= 1;
                self.depth -= 1;
                let r = self.sink.end_object();
                self.sink_result(r, t.row_at)?;
            }
            self.groups.pop();
            let t = &mut self.tables[ti];
            t.groups_open -= 1;
            t.at += 1;
        }
    }

    /// After a cell of the innermost table: [`after_cell`](Self::after_cell),
    /// then, while the next cell holds a scalar, that scalar read and
    /// reported here and the next cell's separator checked, without a trip
    /// through the main loop per cell. The same calls at the same positions
    /// as the main loop makes, so the events and errors are the same.
    /// `true` when a value that is no scalar follows at `pos`; `false` as
    /// for `after_cell`.
    #[inline(never)]
    fn table_cells(&mut self) -> Result<bool, Failure<E>> {
        loop {
            if !self.after_cell()? {
                return Ok(false);
            }
            if !self.scalar_here()? {
                return Ok(true);
            }
        }
    }

    /// At a value (whitespace skipped): anything but an object or array (a
    /// number, a quoted or [v2] bare string, a literal, or the error there)
    /// read whole and reported as [`value`](Self::value) would (`true`); an
    /// object or array is left to `value` (`false`, `pos` unchanged).
    #[inline(always)]
    fn scalar_here(&mut self) -> Result<bool, Failure<E>> {
        let at = self.pos;
        let r = match self.peek() {
            Some(b'"') => {
                let s = self.string_body()?;
                self.sink.string(s)
            }
            Some(b'-' | b'0'..=b'9') => {
                let lexeme = self.number_lexeme()?;
                self.sink.number_parts(lexeme)
            }
            Some(b't') if self.is_word(at, b"true") => {
                self.pos = at + 4;
                self.sink.boolean(true)
            }
            Some(b'f') if self.is_word(at, b"false") => {
                self.pos = at + 5;
                self.sink.boolean(false)
            }
            Some(b'n') if self.is_word(at, b"null") => {
                self.pos = at + 4;
                self.sink.null()
            }
            Some(b'{' | b'[') => return Ok(false),
            _ => match self.not_a_word(at)? {
                Some(s) => self.sink.string(s),
                None => return Ok(true),
            },
        };
        self.sink_result(r, at)?;
        Ok(true)
    }

    /// After a cell of the innermost table. `true` when a value follows at
    /// `pos` (the next cell); `false` when the state moved without one (an
    /// absent cell, or the table ended: continue with the enclosing frame).
    #[inline]
    fn after_cell(&mut self) -> Result<bool, Failure<E>> {
        let ti = self.tables.len() - 1;
        self.tables[ti].at += 1;
        if self.tables[ti].grouped {
            self.leave_groups(ti)?;
        }
        self.skip_ws();
        let t = &self.tables[ti];
        if t.at < t.end {
            return match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    self.cell()
                }
                Some(b'/' | b']' | b'}') => {
                    let message = format!(
                        "row {} ends before its last cell; the header names {}",
                        t.count - t.rows_left,
                        plural(t.leaves, "column")
                    );
                    Err(self.err(ErrorKind::CountMismatch, message).into())
                }
                None => Err(self.too_few(t.count_at, "rows").into()),
                _ => Err(self.expected("',' between row values").into()),
            };
        }
        // The row is complete.
        let (row_at, rows_left) = (t.row_at, t.rows_left);
        self.depth -= 1;
        let r = self.sink.end_object();
        self.sink_result(r, row_at)?;
        if rows_left == 0 {
            let t = self.tables.pop().expect("a table is open");
            self.columns.truncate(t.first);
            self.stack.pop();
            self.close_table_now(t.open, t.keyed)?;
            return Ok(false);
        }
        self.tables[ti].rows_left -= 1;
        match self.peek() {
            Some(b'/') => {
                self.pos += 1;
                self.skip_ws();
                self.start_row()?;
                self.cell()
            }
            Some(b',') => {
                let t = &self.tables[ti];
                let message = format!(
                    "row {} has more cells than the header's {}",
                    t.count - rows_left,
                    plural(t.leaves, "column")
                );
                Err(self.err(ErrorKind::CountMismatch, message).into())
            }
            None | Some(b']' | b'}') => Err(self.too_few(self.tables[ti].count_at, "rows").into()),
            _ => Err(self.expected("'/' between rows").into()),
        }
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

/// Where a number stopped following the grammar, and what it needed there
/// (`None`: a digit after a leading zero).
pub(crate) struct NumberError {
    pub(crate) at: usize,
    pub(crate) expected: Option<&'static str>,
}

/// Whether a number lexeme is an integer (no fraction, no exponent) outside
/// ±(2^53 − 1), the range in which every integer is exactly a double. The
/// JavaScript bindings' one rule for `bigint: true` (such integers become
/// `BigInt`s); any valid JSON number lexeme may be passed.
///
/// ```
/// use stc_core::is_unsafe_integer;
/// assert!(!is_unsafe_integer("9007199254740991"));
/// assert!(is_unsafe_integer("-9007199254740992"));
/// assert!(is_unsafe_integer("12345678901234567890"));
/// assert!(!is_unsafe_integer("1e300"));
/// assert!(!is_unsafe_integer("9007199254740993.0"));
/// ```
pub fn is_unsafe_integer(lexeme: &str) -> bool {
    let digits = lexeme.strip_prefix('-').unwrap_or(lexeme);
    if digits.len() < 16 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    digits.len() > 16 || digits > "9007199254740991"
}

/// Where a number's parts end: see [`scan_number_shape`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumberShape {
    /// The end of the integer part: the `.`, the `e`/`E`, or `end`.
    pub(crate) int_end: usize,
    /// The end of the fraction: the `e`/`E` or `end`; `int_end` without one.
    pub(crate) frac_end: usize,
    /// The index after the number.
    pub(crate) end: usize,
}

/// Scans a JSON number starting at `start` (at `-` or a digit):
/// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`. Returns the index
/// after it. The reader uses [`scan_number_shape`]; this is the reference
/// the document's own number scan is tested against.
#[cfg_attr(not(test), allow(dead_code))]
#[inline(always)]
pub(crate) fn scan_number(b: &[u8], start: usize) -> Result<usize, NumberError> {
    scan_number_shape(b, start).map(|shape| shape.end)
}

/// [`scan_number`], with where the integer part and the fraction end (what
/// a [`Number`] keeps).
#[inline(always)]
pub(crate) fn scan_number_shape(b: &[u8], start: usize) -> Result<NumberShape, NumberError> {
    let mut i = start + usize::from(b.get(start) == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(NumberError { at: i, expected: None });
            }
        }
        Some(b'1'..=b'9') => i = scan::digits_end(b, i + 1),
        _ => return Err(NumberError { at: i, expected: Some("a digit") }),
    }
    let int_end = i;
    match b.get(i) {
        Some(b'.') => {
            let end = scan::digits_end(b, i + 1);
            if end == i + 1 {
                return Err(NumberError { at: end, expected: Some("a digit after the decimal point") });
            }
            i = end;
            if let Some(b'e' | b'E') = b.get(i) {
                return exponent(b, i).map(|end| NumberShape { int_end, frac_end: i, end });
            }
            Ok(NumberShape { int_end, frac_end: i, end: i })
        }
        Some(b'e' | b'E') => exponent(b, i).map(|end| NumberShape { int_end, frac_end: i, end }),
        _ => Ok(NumberShape { int_end, frac_end: i, end: i }),
    }
}

/// The exponent of a number at its `e` or `E`: the index after it.
#[inline]
fn exponent(b: &[u8], mut i: usize) -> Result<usize, NumberError> {
    i += 1;
    if let Some(b'+' | b'-') = b.get(i) {
        i += 1;
    }
    match scan::digits_end(b, i) {
        end if end == i => Err(NumberError { at: i, expected: Some("a digit in the exponent") }),
        end => Ok(end),
    }
}

//! The byte-level reader of STC (and, in strict mode, of JSON).
//!
//! One recursive-descent pass over the input bytes. Every value is reported
//! to a [`Sink`] as it is read, so decoding to JSON text, building a
//! [`Document`](crate::Document), building Python or JavaScript objects and
//! plain validation all share this one reader. Recursion is bounded by the
//! depth limit, which is itself capped at [`MAX_DEPTH_LIMIT`].

use crate::error::{describe, Error, ErrorKind};
use crate::identifier;
use crate::options::{AsDecodeOptions, Limits};
use crate::strings::{escape_len, JsonStr};

/// Returned by a [`Sink`] to stop the parser. The sink keeps whatever detail
/// it needs; the parser reports [`ErrorKind::Aborted`] at the current token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abort;

/// Receives the values of a document in order, as the parser reads them.
///
/// Containers are bracketed by `begin_*`/`end_*`; inside an object every value
/// is preceded by exactly one [`key`](Sink::key). `len` is `Some(n)` when the
/// size is known up front (STC compact and columnar arrays, columnar rows).
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

/// The largest depth limit accepted; larger requests are clamped to it so
/// that the recursive reader can never exhaust a thread's stack.
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
    let mut parser = Parser::new(input, &options.limits, Dialect::Stc, sink);
    let r = parser.run();
    parser.aborted(r)
}

/// Reads `input` as strict RFC 8259 JSON (no STC syntax), reporting values
/// to `sink`.
pub fn parse_json<'a, S: Sink<'a>>(input: &'a str, limits: &Limits, sink: &mut S) -> Result<(), Error> {
    let mut parser = Parser::new(input, limits, Dialect::Json, sink);
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
    Parser::new(input, &options.limits, Dialect::Stc, sink).run()
}

/// [`parse_json`] for a sink with its own error type `E` (see [`parse_stc_to`]).
pub fn parse_json_to<'a, E, S: Sink<'a, E>>(input: &'a str, limits: &Limits, sink: &mut S) -> Result<(), Failure<E>> {
    Parser::new(input, limits, Dialect::Json, sink).run()
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

struct Parser<'a, 's, S, E> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    dialect: Dialect,
    sink: &'s mut S,
    /// Where the sink refused (the position of an `Aborted` error).
    refused_at: usize,
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

impl<'a, 's, E, S: Sink<'a, E>> Parser<'a, 's, S, E> {
    fn new(text: &'a str, limits: &Limits, dialect: Dialect, sink: &'s mut S) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            max_depth: limits.max_depth.min(MAX_DEPTH_LIMIT),
            dialect,
            sink,
            refused_at: 0,
            error_type: std::marker::PhantomData,
        }
    }

    fn run(&mut self) -> PResult<E> {
        self.skip_ws();
        self.value()?;
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
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn enter(&mut self, at: usize, levels: usize) -> Result<(), Error> {
        if self.depth + levels > self.max_depth {
            return Err(self.err_at(
                at,
                ErrorKind::DepthLimit,
                format!("nesting deeper than the limit of {}", self.max_depth),
            ));
        }
        self.depth += levels;
        Ok(())
    }

    /// Reads a string literal at `"`; returns its validated body.
    fn string_body(&mut self) -> Result<JsonStr<'a>, Error> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut escaped = false;
        loop {
            // Fast scan over bytes that need no attention.
            self.pos += plain_run(&self.bytes[self.pos..]);
            match self.peek() {
                Some(b'"') => {
                    let body = self.text.get(start..self.pos).unwrap_or("");
                    self.pos += 1;
                    return Ok(JsonStr::new_unchecked(body, escaped));
                }
                Some(b'\\') => match escape_len(&self.bytes[self.pos..]) {
                    Some(n) => {
                        escaped = true;
                        self.pos += n;
                    }
                    None => return Err(self.bad_escape()),
                },
                Some(b) => {
                    return Err(self.err(
                        ErrorKind::ControlCharacter,
                        format!("raw control character U+{:04X} in string; write it as an escape", b),
                    ))
                }
                None => {
                    return Err(self.err(
                        ErrorKind::UnexpectedEnd,
                        format!("unterminated string (opened at byte {open}), found end of input"),
                    ))
                }
            }
        }
    }

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

    /// Reads a number at `-` or a digit; returns its lexeme.
    fn number_lexeme(&mut self) -> Result<&'a str, Error> {
        let start = self.pos;
        match scan_number(self.bytes, start) {
            Ok(end) => {
                self.pos = end;
                Ok(self.text.get(start..end).unwrap_or(""))
            }
            Err(NumberError { at, expected: None }) => {
                Err(self.err_at(at, ErrorKind::InvalidNumber, "invalid number: leading zeros are not allowed".into()))
            }
            Err(NumberError { at, expected: Some(what) }) => Err(self.number_err(at, what)),
        }
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

    // ---- grammar -----------------------------------------------------------

    /// value = object / array / string / number / true / false / null
    /// (leading whitespace already skipped)
    fn value(&mut self) -> PResult<E> {
        let at = self.pos;
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => {
                let s = self.string_body()?;
                let r = self.sink.string(s);
                self.sink_result(r, at)
            }
            Some(b'-' | b'0'..=b'9') => {
                let lexeme = self.number_lexeme()?;
                let r = self.sink.number(lexeme);
                self.sink_result(r, at)
            }
            Some(b't') => {
                self.literal("true")?;
                let r = self.sink.boolean(true);
                self.sink_result(r, at)
            }
            Some(b'f') => {
                self.literal("false")?;
                let r = self.sink.boolean(false);
                self.sink_result(r, at)
            }
            Some(b'n') => {
                self.literal("null")?;
                let r = self.sink.null();
                self.sink_result(r, at)
            }
            _ => Err(self.expected("a value").into()),
        }
    }

    fn object(&mut self) -> PResult<E> {
        let open = self.pos;
        self.enter(open, 1)?;
        self.pos += 1;
        let r = self.sink.begin_object(None);
        self.sink_result(r, open)?;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.member()?;
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.expected("',' or '}' after object member").into()),
                }
            }
        }
        self.depth -= 1;
        let r = self.sink.end_object();
        self.sink_result(r, open)
    }

    /// member = key ":" value / key array-header ":" body   (STC only: the second)
    fn member(&mut self) -> PResult<E> {
        let key_at = self.pos;
        let key = self.key()?;
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                let r = self.sink.key(key);
                self.sink_result(r, key_at)?;
                self.skip_ws();
                self.value()
            }
            Some(b'[') if self.dialect == Dialect::Stc => {
                let open = self.pos;
                self.pos += 1;
                self.skip_ws();
                let count_at = self.pos;
                let count = self.count_token()?;
                self.skip_ws();
                if self.peek() != Some(b']') {
                    return Err(self.expected("']' after the array count").into());
                }
                self.pos += 1;
                self.skip_ws();
                let r = self.sink.key(key);
                self.sink_result(r, key_at)?;
                match self.peek() {
                    Some(b':' | b'{') => self.header_body(open, count, count_at),
                    _ => Err(self.expected("':' or '{' after the array header").into()),
                }
            }
            _ => Err(self.expected("':' after object key").into()),
        }
    }

    /// key = string / identifier   (identifier: STC only)
    fn key(&mut self) -> Result<JsonStr<'a>, Error> {
        match self.peek() {
            Some(b'"') => self.string_body(),
            Some(b) if self.dialect == Dialect::Stc && identifier::is_start(b) => {
                let start = self.pos;
                self.pos += identifier::len(&self.bytes[start..]);
                Ok(JsonStr::new_unchecked(self.text.get(start..self.pos).unwrap_or(""), false))
            }
            _ if self.dialect == Dialect::Json => {
                Err(self.expected("'\"' to start an object key (JSON keys are quoted)"))
            }
            _ => Err(self.expected("an object key")),
        }
    }

    /// A header count: digits only, no sign, fraction, exponent or leading zero.
    fn count_token(&mut self) -> Result<usize, Error> {
        let at = self.pos;
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let lexeme = self.number_lexeme()?;
                self.count_value(lexeme, at)
            }
            _ => Err(self.expected("an array count")),
        }
    }

    fn count_value(&self, lexeme: &str, at: usize) -> Result<usize, Error> {
        if !lexeme.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.err_at(
                at,
                ErrorKind::InvalidCount,
                format!("array count must be a non-negative integer, found '{lexeme}'"),
            ));
        }
        // A count beyond usize saturates: the remaining-input check rejects it
        // at the same point as any other oversized count, on every platform.
        Ok(lexeme.parse::<usize>().unwrap_or(usize::MAX))
    }

    /// array = "[" [ value *( "," value ) ] "]" / header-array   (at '[')
    fn array(&mut self) -> PResult<E> {
        let open = self.pos;
        self.enter(open, 1)?;
        self.pos += 1;
        self.skip_ws();
        match self.peek() {
            Some(b']') => {
                self.pos += 1;
                self.depth -= 1;
                let r = self.sink.begin_array(Some(0));
                self.sink_result(r, open)?;
                let r = self.sink.end_array();
                return self.sink_result(r, open);
            }
            Some(b'-' | b'0'..=b'9') if self.dialect == Dialect::Stc => {
                // `[N]` followed by ':' or '{' is a header; anything else makes
                // N the first element of a JSON array. Decided after reading
                // the number, with no backtracking over values.
                let num_at = self.pos;
                let lexeme = self.number_lexeme()?;
                self.skip_ws();
                if self.peek() == Some(b']') {
                    let close = self.pos;
                    self.pos += 1;
                    self.skip_ws();
                    if let Some(b':' | b'{') = self.peek() {
                        self.depth -= 1;
                        let count = self.count_value(lexeme, num_at)?;
                        return self.header_body(open, count, num_at);
                    }
                    self.pos = close;
                }
                let r = self.sink.begin_array(None);
                self.sink_result(r, open)?;
                let r = self.sink.number(lexeme);
                self.sink_result(r, num_at)?;
            }
            _ => {
                let r = self.sink.begin_array(None);
                self.sink_result(r, open)?;
                self.value()?;
            }
        }
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    self.value()?;
                }
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.expected("',' or ']' after array element").into()),
            }
        }
        self.depth -= 1;
        let r = self.sink.end_array();
        self.sink_result(r, open)
    }

    /// After `[N]` (at ':' or '{'): a compact body or a column list and rows.
    fn header_body(&mut self, open: usize, count: usize, count_at: usize) -> PResult<E> {
        if self.peek() == Some(b'{') {
            let columns = self.columns()?;
            self.check_fits(count_at, count, Some(count.saturating_mul(columns.len())))?;
            self.columnar_body(open, count, &columns)
        } else {
            self.pos += 1; // ':'
            self.check_fits(count_at, count, None)?;
            self.compact_body(open, count)
        }
    }

    /// Fails before any work when `cells` values cannot fit in the rest of the
    /// input (each value needs at least one byte).
    fn check_fits(&self, at: usize, count: usize, cells: Option<usize>) -> Result<(), Error> {
        let remaining = self.bytes.len() - self.pos;
        if cells.unwrap_or(count) > remaining {
            let digits = self.bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
            let written = self.text.get(at..at + digits).unwrap_or("");
            return Err(self.err_at(
                at,
                ErrorKind::CountTooLarge,
                format!("array count {written} is larger than the rest of the input can hold"),
            ));
        }
        Ok(())
    }

    /// compact-body = [ value *( "," value ) ]  — exactly `count` values.
    fn compact_body(&mut self, open: usize, count: usize) -> PResult<E> {
        self.enter(open, 1)?;
        let r = self.sink.begin_array(Some(count));
        self.sink_result(r, open)?;
        for i in 0..count {
            self.skip_ws();
            if i > 0 {
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    Some(b'}' | b']' | b'/') => {
                        return Err(self
                            .err(
                                ErrorKind::CountMismatch,
                                format!("array header declares {} but only {i} were given", plural(count, "value")),
                            )
                            .into())
                    }
                    _ => return Err(self.expected("',' between array values").into()),
                }
            }
            self.value()?;
        }
        self.depth -= 1;
        let r = self.sink.end_array();
        self.sink_result(r, open)
    }

    /// columns = "{" key *( "," key ) "}" ":"   (at '{')
    fn columns(&mut self) -> Result<Vec<JsonStr<'a>>, Error> {
        self.pos += 1;
        let mut columns = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b) if b == b'"' || identifier::is_start(b) => columns.push(self.key()?),
                _ => return Err(self.expected("a column name")),
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.expected("',' or '}' in the column list")),
            }
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.expected("':' after the column list"));
        }
        self.pos += 1;
        Ok(columns)
    }

    /// rows = [ row *( "/" row ) ], row = value *( "," value ) — exactly
    /// `count` rows of exactly `columns.len()` values.
    fn columnar_body(&mut self, open: usize, count: usize, columns: &[JsonStr<'a>]) -> PResult<E> {
        let width = columns.len();
        self.enter(open, 2)?;
        let r = self.sink.begin_array(Some(count));
        self.sink_result(r, open)?;
        for row in 0..count {
            self.skip_ws();
            if row > 0 {
                match self.peek() {
                    Some(b'/') => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    Some(b',') => {
                        return Err(self
                            .err(
                                ErrorKind::CountMismatch,
                                format!("row {row} has more values than the header's {}", plural(width, "column")),
                            )
                            .into())
                    }
                    Some(b'}' | b']') => {
                        return Err(self
                            .err(
                                ErrorKind::CountMismatch,
                                format!("array header declares {} but only {row} were given", plural(count, "row")),
                            )
                            .into())
                    }
                    _ => return Err(self.expected("'/' between rows").into()),
                }
            }
            let row_at = self.pos;
            let r = self.sink.begin_object(Some(width));
            self.sink_result(r, row_at)?;
            for (c, column) in columns.iter().enumerate() {
                if c > 0 {
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            self.skip_ws();
                        }
                        Some(b'/' | b'}' | b']') => {
                            return Err(self
                                .err(
                                    ErrorKind::CountMismatch,
                                    format!(
                                        "row {} has {} but the header names {}",
                                        row + 1,
                                        plural(c, "value"),
                                        plural(width, "column")
                                    ),
                                )
                                .into())
                        }
                        _ => return Err(self.expected("',' between row values").into()),
                    }
                }
                let at = self.pos;
                let r = self.sink.key(*column);
                self.sink_result(r, at)?;
                self.value()?;
            }
            let r = self.sink.end_object();
            self.sink_result(r, row_at)?;
        }
        // A further row separator can only mean the header undercounts.
        let before = self.pos;
        self.skip_ws();
        if self.peek() == Some(b'/') {
            return Err(self
                .err(ErrorKind::CountMismatch, format!("more rows than the {count} the array header declares"))
                .into());
        }
        self.pos = before;
        self.depth -= 2;
        let r = self.sink.end_array();
        self.sink_result(r, open)
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

/// Length of the leading run of bytes that need no attention inside a string:
/// anything but `"`, `\` and control characters. Scans eight bytes per step
/// (SWAR): a word is skipped whole when none of its bytes can be special.
#[inline]
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut skipped = 0;
    for chunk in bytes.chunks_exact(8) {
        let w = <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes);
        let quote = w ^ (ONES * b'"' as u64);
        let backslash = w ^ (ONES * b'\\' as u64);
        // Nonzero iff some byte is zero (resp. below 0x20): the classic
        // has-zero-byte test, exact for detecting presence.
        let special = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        if special & HIGH != 0 {
            break;
        }
        skipped += 8;
    }
    let rest = &bytes[skipped..];
    skipped + rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(rest.len())
}

/// Where a number stopped following the grammar, and what it needed there
/// (`None`: a digit after a leading zero).
pub(crate) struct NumberError {
    pub(crate) at: usize,
    pub(crate) expected: Option<&'static str>,
}

/// Scans a JSON number starting at `start` (at `-` or a digit):
/// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`. Returns the index
/// after it. Shared by the reader and by [`DocumentBuilder::push_number`].
///
/// [`DocumentBuilder::push_number`]: crate::DocumentBuilder::push_number
pub(crate) fn scan_number(b: &[u8], start: usize) -> Result<usize, NumberError> {
    let digits = |i: usize| b.get(i..).map_or(0, |rest| rest.iter().take_while(|c| c.is_ascii_digit()).count());
    let mut i = start + usize::from(b.get(start) == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(NumberError { at: i, expected: None });
            }
        }
        Some(b'1'..=b'9') => i += digits(i),
        _ => return Err(NumberError { at: i, expected: Some("a digit") }),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        match digits(i) {
            0 => return Err(NumberError { at: i, expected: Some("a digit after the decimal point") }),
            n => i += n,
        }
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        match digits(i) {
            0 => return Err(NumberError { at: i, expected: Some("a digit in the exponent") }),
            n => i += n,
        }
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::plain_run;

    #[test]
    fn plain_run_finds_the_first_special_byte() {
        let base = b"abcdefghijklmnopqrstuvwxyz0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~\x7f";
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..40 {
                let mut v = base[..40].to_vec();
                v[at] = special;
                assert_eq!(plain_run(&v), at, "byte {special:#x} at {at}");
            }
        }
        assert_eq!(plain_run(base), base.len());
        // UTF-8 multi-byte sequences (bytes >= 0x80) are plain.
        assert_eq!(plain_run("日本語のテキスト\"".as_bytes()), "日本語のテキスト".len());
        assert_eq!(plain_run(b""), 0);
    }
}

//! The one error type of the codec.
//!
//! Every failure says *what* went wrong (a stable [`ErrorKind`] and a human
//! message naming what was expected) and *where* (byte offset, 1-based line and
//! column). Line and column are computed only when an error is built, so the
//! happy path never pays for them.

use std::fmt;

/// What kind of problem stopped the codec.
///
/// Each kind has a stable snake_case [`code`](ErrorKind::code) that the
/// bindings expose unchanged (`err.code` in JavaScript, `err.kind` in Python)
/// and that the conformance corpus uses to name expected failures.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input ended where more was required (truncated text).
    UnexpectedEnd,
    /// A byte that cannot start or continue the expected token.
    UnexpectedChar,
    /// A number that breaks the JSON number grammar (`01`, `1.`, `-`, `1e`).
    InvalidNumber,
    /// A backslash escape that is not one of JSON's (`\x`, `\u12G4`).
    InvalidEscape,
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlCharacter,
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// A complete value was followed by more text.
    TrailingCharacters,
    /// Arrays and objects nest deeper than the configured limit.
    DepthLimit,
    /// An array header count that is not a non-negative integer (`[-1]:`, `[1.5]:`).
    InvalidCount,
    /// An array header count larger than the rest of the input can hold.
    CountTooLarge,
    /// An array body whose values or rows disagree with the header's count.
    CountMismatch,
    /// A document built through [`DocumentBuilder`](crate::DocumentBuilder)
    /// whose calls do not form one JSON value.
    InvalidDocument,
    /// A [`Sink`](crate::Sink) asked the parser to stop.
    Aborted,
    /// A value serde could not serialize ([`to_string`](crate::to_string):
    /// a map with non-string keys, a failing `Serialize`) or text that does
    /// not fit the target type ([`from_str`](crate::from_str)).
    SerdeData,
    /// A construct of a newer STC version than the reader was asked to read
    /// (a version 2 column group, absent cell, keyed table or bare string
    /// read as version 1), positioned at the construct's first byte. Decode with
    /// [`Version::V2`](crate::Version::V2).
    NewerVersion,
}

/// The broad class of an [`ErrorKind`], in the manner of serde_json's
/// `Category`: lets a caller tell bad input from a limit, a misuse of the API,
/// or its own cancellation without listing every kind.
///
/// ```
/// use stc_core::{Category, ErrorKind};
/// assert_eq!(stc_core::decode("[1,").unwrap_err().category(), Category::Syntax);
/// assert_eq!(ErrorKind::DepthLimit.category(), Category::Limit);
/// assert_eq!(ErrorKind::Aborted.category(), Category::Aborted);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// The input is not valid STC or JSON (including truncated text and
    /// invalid UTF-8). Errors of this category carry a position.
    Syntax,
    /// The input is well-formed but exceeds a configured limit (depth).
    Limit,
    /// The data cannot be represented: a misused
    /// [`DocumentBuilder`](crate::DocumentBuilder) or a serde data error.
    Data,
    /// A [`Sink`](crate::Sink) stopped the parser (the caller's own reason).
    Aborted,
}

impl Category {
    /// `"syntax"`, `"limit"`, `"data"` or `"aborted"`.
    pub const fn name(self) -> &'static str {
        match self {
            Category::Syntax => "syntax",
            Category::Limit => "limit",
            Category::Data => "data",
            Category::Aborted => "aborted",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl ErrorKind {
    /// The stable identifier of this kind, shared by every binding.
    ///
    /// ```
    /// assert_eq!(stc_core::ErrorKind::CountMismatch.code(), "count_mismatch");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected_end",
            ErrorKind::UnexpectedChar => "unexpected_char",
            ErrorKind::InvalidNumber => "invalid_number",
            ErrorKind::InvalidEscape => "invalid_escape",
            ErrorKind::ControlCharacter => "control_character",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::TrailingCharacters => "trailing_characters",
            ErrorKind::DepthLimit => "depth_limit",
            ErrorKind::InvalidCount => "invalid_count",
            ErrorKind::CountTooLarge => "count_too_large",
            ErrorKind::CountMismatch => "count_mismatch",
            ErrorKind::InvalidDocument => "invalid_document",
            ErrorKind::Aborted => "aborted",
            ErrorKind::SerdeData => "serde_data",
            ErrorKind::NewerVersion => "newer_version",
        }
    }

    /// The kind's [`Category`].
    pub const fn category(self) -> Category {
        match self {
            ErrorKind::DepthLimit => Category::Limit,
            ErrorKind::InvalidDocument | ErrorKind::SerdeData => Category::Data,
            ErrorKind::Aborted => Category::Aborted,
            _ => Category::Syntax,
        }
    }

    /// Every [`code`](ErrorKind::code), in the order of [`ALL`](ErrorKind::ALL):
    /// the one list the bindings export and their typed unions are checked against.
    pub const CODES: &'static [&'static str] = &[
        "unexpected_end",
        "unexpected_char",
        "invalid_number",
        "invalid_escape",
        "control_character",
        "invalid_utf8",
        "trailing_characters",
        "depth_limit",
        "invalid_count",
        "count_too_large",
        "count_mismatch",
        "invalid_document",
        "aborted",
        "serde_data",
        "newer_version",
    ];

    /// Every kind, in declaration order (for tests and documentation).
    pub const ALL: [ErrorKind; 15] = [
        ErrorKind::UnexpectedEnd,
        ErrorKind::UnexpectedChar,
        ErrorKind::InvalidNumber,
        ErrorKind::InvalidEscape,
        ErrorKind::ControlCharacter,
        ErrorKind::InvalidUtf8,
        ErrorKind::TrailingCharacters,
        ErrorKind::DepthLimit,
        ErrorKind::InvalidCount,
        ErrorKind::CountTooLarge,
        ErrorKind::CountMismatch,
        ErrorKind::InvalidDocument,
        ErrorKind::Aborted,
        ErrorKind::SerdeData,
        ErrorKind::NewerVersion,
    ];
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A codec failure: kind, position and message.
///
/// `Display` renders `"<message> at line L column C"`.
///
/// ```
/// let err = stc_core::decode("{a: 1,\n b 2}").unwrap_err();
/// assert_eq!(err.kind(), stc_core::ErrorKind::UnexpectedChar);
/// assert_eq!((err.line(), err.column(), err.offset()), (Some(2), Some(4), Some(10)));
/// assert_eq!(err.to_string(), "expected ':' after object key, found '2' at line 2 column 4");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

// Boxed so that `Result<_, Error>` stays one word: the reader's hot paths
// move less.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    offset: usize,
    line: usize,
    column: usize,
    message: String,
}

impl Error {
    /// Builds an error at byte `offset` of `input`, computing line and column.
    pub(crate) fn at(input: &[u8], offset: usize, kind: ErrorKind, message: String) -> Error {
        let offset = offset.min(input.len());
        let (line, column) = line_column(input, offset);
        Error(Box::new(Inner { kind, offset, line, column, message }))
    }

    /// An error with no position in any input (documents built by hand).
    pub(crate) fn detached(kind: ErrorKind, message: String) -> Error {
        Error(Box::new(Inner { kind, offset: 0, line: 0, column: 0, message }))
    }

    /// The [`ErrorKind::InvalidUtf8`] error for text that is valid up to the
    /// end of `valid_prefix` and cannot be UTF-8 right after it, positioned as
    /// the readers position it. For callers whose text arrives as UTF-16 and
    /// holds a lone surrogate (JavaScript strings), which has no UTF-8 form.
    ///
    /// ```
    /// let err = stc_core::Error::invalid_utf8("[\"a\n");
    /// assert_eq!(
    ///     (err.kind(), err.offset(), err.line(), err.column()),
    ///     (stc_core::ErrorKind::InvalidUtf8, Some(4), Some(2), Some(1))
    /// );
    /// ```
    pub fn invalid_utf8(valid_prefix: &str) -> Error {
        let bytes = valid_prefix.as_bytes();
        Error::at(bytes, bytes.len(), ErrorKind::InvalidUtf8, "invalid UTF-8".to_string())
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The kind's [`Category`].
    pub fn category(&self) -> Category {
        self.0.kind.category()
    }

    /// Byte offset into the UTF-8 input where the problem was found. For an
    /// input that ended early this is the input's length. `None` for errors
    /// that have no position in any input (a misused
    /// [`DocumentBuilder`](crate::DocumentBuilder), serde data errors).
    pub fn offset(&self) -> Option<usize> {
        self.positioned().then_some(self.0.offset)
    }

    /// 1-based line of [`offset`](Error::offset); lines end at `\n`.
    pub fn line(&self) -> Option<usize> {
        self.positioned().then_some(self.0.line)
    }

    /// 1-based column of [`offset`](Error::offset), counted in Unicode
    /// scalar values from the start of the line.
    pub fn column(&self) -> Option<usize> {
        self.positioned().then_some(self.0.column)
    }

    /// [`offset`](Error::offset) counted in characters (Unicode scalar
    /// values) of `input`, the text the error came from: Python's string index.
    /// A byte that is not UTF-8 counts as one character.
    ///
    /// ```
    /// let input = "[\"é\", 1 1]";
    /// let err = stc_core::decode(input).unwrap_err();
    /// assert_eq!((err.offset(), err.char_offset(input)), (Some(9), Some(8)));
    /// ```
    pub fn char_offset(&self, input: &str) -> Option<usize> {
        let prefix = input.as_bytes().get(..self.offset()?)?;
        Some(prefix.iter().filter(|&&b| (b & 0xC0) != 0x80).count())
    }

    /// [`offset`](Error::offset) counted in UTF-16 code units of `input`, the
    /// text the error came from: JavaScript's string index.
    ///
    /// ```
    /// let input = "[\"😀\", 1 1]";
    /// let err = stc_core::decode(input).unwrap_err();
    /// assert_eq!((err.offset(), err.utf16_offset(input)), (Some(11), Some(9)));
    /// ```
    pub fn utf16_offset(&self, input: &str) -> Option<usize> {
        let prefix = input.get(..self.offset()?)?;
        Some(prefix.encode_utf16().count())
    }

    fn positioned(&self) -> bool {
        self.0.line != 0
    }

    /// The message without position: what was expected and what was found.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.line == 0 {
            f.write_str(&self.0.message)
        } else {
            write!(f, "{} at line {} column {}", self.0.message, self.0.line, self.0.column)
        }
    }
}

impl std::error::Error for Error {}

/// An unknown name given for a [`Version`](crate::Version), [`Profile`](crate::Profile),
/// [`Tokenizer`](crate::Tokenizer) or [`Chosen`](crate::Chosen). Its message
/// lists the valid names; the CLI and every binding report it unchanged.
///
/// ```
/// let err = "p50k".parse::<stc_core::Tokenizer>().unwrap_err();
/// assert_eq!((err.what(), err.given()), ("tokenizer", "p50k"));
/// assert_eq!(err.expected()[0], "estimate");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseNameError {
    what: &'static str,
    given: String,
    expected: &'static [&'static str],
}

impl ParseNameError {
    pub(crate) fn new(what: &'static str, given: &str, expected: &'static [&'static str]) -> ParseNameError {
        // Hostile input may be huge: the message quotes at most 64 characters of it.
        let given: String = given.chars().take(64).collect();
        ParseNameError { what, given, expected }
    }

    /// What was being named: `"profile"`, `"tokenizer"`, `"choice"` or `"version"`.
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// The name given (at most its first 64 characters).
    pub fn given(&self) -> &str {
        &self.given
    }

    /// The valid names.
    pub fn expected(&self) -> &'static [&'static str] {
        self.expected
    }
}

impl fmt::Display for ParseNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {:?} (expected one of: {})", self.what, self.given, self.expected.join(", "))
    }
}

impl std::error::Error for ParseNameError {}

/// A value given for an option that is outside the option's bounds: a
/// [`MinSaving`](crate::MinSaving) outside 0 to 1, a number of
/// [`Seconds`](crate::Seconds) that is not above 0 and at most a day, or a
/// text that is not a number at all. Its message names the option, quotes
/// what was given and says what is expected; the CLI, the services and every
/// binding report it unchanged. (An unknown *name* is a [`ParseNameError`].)
///
/// ```
/// let err = stc_core::MinSaving::try_from(2.0).unwrap_err();
/// assert_eq!((err.option(), err.given()), ("min_saving", "2"));
/// assert_eq!(err.to_string(), "invalid min_saving 2 (expected a number from 0 to 1)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    option: &'static str,
    given: String,
    expected: &'static str,
}

impl OptionError {
    /// `value` when it is within the option's bounds (`within`), else its
    /// refusal, the number shown in Rust's shortest form (`2`, `0.5`, `NaN`).
    pub(crate) fn bounded(
        option: &'static str,
        value: f64,
        within: bool,
        expected: &'static str,
    ) -> Result<f64, OptionError> {
        Self::bounded_shown(option, value, within, expected, || value.to_string())
    }

    /// [`bounded`](Self::bounded) with the refused number written by
    /// `shown` (called only on a refusal; see `MinSaving::try_from_shown`).
    pub(crate) fn bounded_shown(
        option: &'static str,
        value: f64,
        within: bool,
        expected: &'static str,
        shown: impl FnOnce() -> String,
    ) -> Result<f64, OptionError> {
        if within {
            Ok(value)
        } else {
            Err(OptionError { option, given: shown(), expected })
        }
    }

    /// The number a text holds (surrounding spaces allowed), else the
    /// refusal of the text, quoted, at most 64 characters of it.
    pub(crate) fn number_in(option: &'static str, text: &str, expected: &'static str) -> Result<f64, OptionError> {
        text.trim().parse::<f64>().map_err(|_| {
            let given: String = text.chars().take(64).collect();
            OptionError { option, given: format!("{given:?}"), expected }
        })
    }

    /// The option: `"min_saving"` or `"seconds"`.
    pub fn option(&self) -> &'static str {
        self.option
    }

    /// What was given, as the message shows it (a number as is, a text quoted).
    pub fn given(&self) -> &str {
        &self.given
    }

    /// What the option takes, in words (`"a number from 0 to 1"`).
    pub fn expected(&self) -> &'static str {
        self.expected
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} {} (expected {})", self.option, self.given, self.expected)
    }
}

impl std::error::Error for OptionError {}

/// Line and column (both 1-based) of a byte offset. Columns count characters;
/// a byte that is not valid UTF-8 counts as one column.
fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = &input[..offset];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    // Count characters: every byte that is not a UTF-8 continuation byte.
    let column = 1 + before[line_start..].iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    (line, column)
}

/// Describes the byte at `offset` for messages: `'x'`, `end of input`, or
/// the character it starts.
pub(crate) fn describe(input: &[u8], offset: usize) -> String {
    match input.get(offset) {
        None => "end of input".to_string(),
        Some(&b) if b.is_ascii_graphic() => format!("'{}'", b as char),
        Some(b' ') => "' '".to_string(),
        Some(b'\n') => "a newline".to_string(),
        Some(b'\t') => "a tab".to_string(),
        Some(b'\r') => "a carriage return".to_string(),
        Some(&b) if b < 0x80 => format!("byte 0x{b:02x}"),
        Some(_) => {
            let tail = &input[offset..input.len().min(offset + 4)];
            let ch = (1..=tail.len()).find_map(|n| std::str::from_utf8(&tail[..n]).ok()).and_then(|s| s.chars().next());
            match ch {
                Some(c) => format!("'{c}' (U+{:04X})", c as u32),
                None => "a byte that is not UTF-8".to_string(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_characters() {
        let s = "ab\ncé d".as_bytes();
        assert_eq!(line_column(s, 0), (1, 1));
        assert_eq!(line_column(s, 3), (2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(line_column(s, 6), (2, 3));
        assert_eq!(line_column(s, s.len()), (2, 5));
    }

    #[test]
    fn codes_list_follows_all() {
        let codes: Vec<_> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(codes, ErrorKind::CODES);
    }

    #[test]
    fn detached_errors_have_no_position() {
        let err = Error::detached(ErrorKind::InvalidDocument, "x".into());
        assert_eq!((err.offset(), err.line(), err.column(), err.char_offset("abc")), (None, None, None, None));
        assert_eq!(err.category(), Category::Data);
        let at = Error::at(b"", 0, ErrorKind::UnexpectedEnd, "y".into());
        assert_eq!((at.offset(), at.line(), at.column()), (Some(0), Some(1), Some(1)));
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<_> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), ErrorKind::ALL.len());
    }
}

//! The reader's public face: the [`Sink`] it reports to, [`Abort`],
//! [`Failure`] and the validating sink [`Validate`].

use super::Number;
use crate::error::Error;
use crate::strings::JsonStr;

/// Returned by a [`Sink`] to stop the parser. The sink keeps whatever detail
/// it needs; the parser reports [`ErrorKind::Aborted`](crate::ErrorKind::Aborted) at the current token.
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
/// [`Abort`], carries nothing: [`parse_stc`](crate::parse_stc) and [`parse_json`](crate::parse_json) turn it into
/// an [`ErrorKind::Aborted`](crate::ErrorKind::Aborted) error at the current token. A sink with its own
/// error type (a binding's exception, an I/O error) is driven by
/// [`parse_stc_to`](crate::parse_stc_to) / [`parse_json_to`](crate::parse_json_to), which hand that value back unchanged
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
    /// readers ([`parse_stc`](crate::parse_stc), [`parse_json`](crate::parse_json) and the `_to` forms) report
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

/// Why [`parse_stc_to`](crate::parse_stc_to) or [`parse_json_to`](crate::parse_json_to) stopped: the input (a syntax
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
/// [`max_depth`](crate::Limits::max_depth); this constant stays for callers that
/// used it as a conservative depth for walks of their own.
pub const MAX_DEPTH_LIMIT: usize = 1024;

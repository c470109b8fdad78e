//! `dumps`: Python objects → `stc_core::DocumentBuilder` → STC text.
//!
//! The walk accepts what `json.dumps` accepts (dict, list, tuple, str, int,
//! float, bool, None and their subclasses, plus whatever a `default` hook
//! turns other objects into) and writes numbers as `json.dumps` spells them:
//! `int.__repr__` and `float.__repr__`. Everything about the output format is
//! the core's.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::dict::BoundDictIterator;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use stc_core::{DocumentBuilder, EncodeOptions, ErrorKind};

use crate::text::{limits, parse_profile, parse_version, run_detached};

struct Walker<'py, 'd> {
    builder: DocumentBuilder<'static>,
    default: Option<&'d Bound<'py, PyAny>>,
    sort_keys: bool,
    skipkeys: bool,
    max_depth: usize,
    /// The open containers, innermost last: the walk keeps its own stack on
    /// the heap, so nesting depth costs no native stack (and Python's
    /// recursion limit plays no part).
    stack: Vec<Frame<'py>>,
    /// How many `default` results are being walked right now: a hook that
    /// keeps returning unsupported objects must end in an error, not in an
    /// endless loop.
    default_depth: usize,
}

/// An open container being walked, and how many `default` calls produced it
/// (given back to [`Walker::default_depth`] when it closes).
struct Frame<'py> {
    items: Items<'py>,
    next: usize,
    defaults: usize,
}

enum Items<'py> {
    List(Bound<'py, PyList>),
    Tuple(Bound<'py, PyTuple>),
    /// A snapshot of a dict's `(key, value)` pairs: a `default` hook may
    /// mutate the dict while it is walked.
    Dict(Bound<'py, PyList>),
    /// An exact `dict` read in place (no `default` hook, no `sort_keys`: no
    /// Python code runs during the walk, so nothing can change it).
    DictIter(BoundDictIterator<'py>),
}

/// The next thing in a container.
enum Step<'py> {
    Item(Bound<'py, PyAny>),
    Member((Bound<'py, PyAny>, Bound<'py, PyAny>)),
}

/// Whether the innermost open container is an object.
fn frame_items_kind(stack: &[Frame<'_>]) -> Option<bool> {
    stack.last().map(|f| matches!(f.items, Items::Dict(_) | Items::DictIter(_)))
}

/// A builder error as a Python exception.
fn builder_error(err: stc_core::Error) -> PyErr {
    if err.kind() == ErrorKind::DepthLimit {
        PyValueError::new_err(format!("{err} (is there a circular reference?)"))
    } else {
        PyValueError::new_err(err.to_string())
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
}

/// A Python `str` as UTF-8 (borrowed: CPython's own UTF-8 form of the
/// string), or as UTF-16 code units when it holds lone surrogates (which
/// UTF-8 cannot carry; the core escapes them).
enum Text<'s> {
    Utf8(&'s str),
    Utf16(Vec<u16>),
}

fn text_of<'s>(s: &'s Bound<'_, PyString>) -> PyResult<Text<'s>> {
    match s.to_str() {
        Ok(text) => Ok(Text::Utf8(text)),
        Err(_) => {
            let bytes = s.call_method1("encode", ("utf-16-le", "surrogatepass"))?.cast_into::<PyBytes>()?;
            let units = bytes.as_bytes().chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            Ok(Text::Utf16(units))
        }
    }
}

/// `int.__repr__(obj)`: the lexeme `json.dumps` writes for an int (also for
/// int subclasses such as IntEnum, whose own repr is not a number).
fn int_lexeme(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(itoa::Buffer::new().format(v).to_string());
    }
    let repr = obj.py().get_type::<PyInt>().call_method1("__repr__", (obj,))?;
    repr.extract::<String>()
}

/// `float.__repr__(obj)` (what `json.dumps` writes), or `ValueError` for NaN
/// and infinities (strict JSON).
fn float_lexeme(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let value: f64 = obj.extract()?;
    if !value.is_finite() {
        let shown = if value.is_nan() {
            "nan"
        } else if value > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        return Err(PyValueError::new_err(format!("Out of range float values are not JSON compliant: {shown}")));
    }
    Ok(float_repr(value))
}

/// Python's `repr` of a finite float, without calling into Python.
///
/// Ryu and CPython's `repr` both print the shortest digit string that reads
/// back as the same double, and both break ties between equally short
/// strings towards the nearest (then even) one, so the digits agree. CPython
/// then lays them out in positional notation when the decimal exponent is in
/// -4 ..= 15 (adding `.0` to whole numbers) and in exponential notation
/// otherwise, with a signed exponent of at least two digits: `1e-05`,
/// `1e+16`, `0.0001`, `1.5`.
fn float_repr(value: f64) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(value.abs());
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The significant digits, and `point` such that value = 0.DIGITS × 10^point.
    let mut digits = [0u8; 32];
    let mut n = 0;
    let mut point = int_part.len() as i32 + exponent;
    for b in int_part.bytes().chain(frac_part.bytes()) {
        if n == 0 && b == b'0' {
            point -= 1;
        } else if n < digits.len() {
            digits[n] = b;
            n += 1;
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = std::str::from_utf8(&digits[..n]).unwrap_or("0");
    let n = n as i32;
    let mut out = String::with_capacity(digits.len() + 8);
    if value < 0.0 {
        out.push('-');
    }
    if -4 < point && point <= 16 {
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        } else if point >= n {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', (point - n) as usize));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    } else {
        let exponent = point - 1;
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        if exponent.abs() < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(exponent.abs()));
    }
    out
}

impl<'py> Walker<'py, '_> {
    /// Walks `root` and everything in it, in document order, without recursion.
    fn walk(&mut self, root: &Bound<'py, PyAny>) -> PyResult<()> {
        self.value(root.clone())?;
        while let Some(frame) = self.stack.last_mut() {
            let index = frame.next;
            frame.next += 1;
            // What comes next in the innermost container (taken out of the
            // frame first: handling it pushes and pops frames).
            let step = match &mut frame.items {
                // The length is read at each step: a `default` hook may
                // have changed the list (as json.dumps allows).
                Items::List(list) => (index < list.len()).then(|| list.get_item(index)).transpose()?.map(Step::Item),
                Items::Tuple(tuple) => {
                    (index < tuple.len()).then(|| tuple.get_item(index)).transpose()?.map(Step::Item)
                }
                Items::Dict(items) => match (index < items.len()).then(|| items.get_item(index)).transpose()? {
                    Some(pair) => Some(Step::Member(pair.extract()?)),
                    None => None,
                },
                Items::DictIter(iter) => iter.next().map(Step::Member),
            };
            match step {
                Some(Step::Item(item)) => self.value(item)?,
                Some(Step::Member((key, value))) => {
                    if self.key(&key)? {
                        self.value(value)?;
                    }
                }
                None => {
                    let object = matches!(frame_items_kind(&self.stack), Some(true));
                    self.close(object)?;
                }
            }
        }
        Ok(())
    }

    /// Closes the innermost container.
    fn close(&mut self, object: bool) -> PyResult<()> {
        if let Some(frame) = self.stack.pop() {
            self.default_depth -= frame.defaults;
        }
        if object {
            self.builder.push_end_object().map_err(builder_error)
        } else {
            self.builder.push_end_array().map_err(builder_error)
        }
    }

    /// Writes a scalar, or opens a container (its items follow in [`walk`](Self::walk)).
    fn value(&mut self, mut obj: Bound<'py, PyAny>) -> PyResult<()> {
        // `default` calls applied to reach `obj`, while they return objects
        // that need another call.
        let mut defaults = 0;
        loop {
            if obj.is_none() {
                return self.builder.push_null().map_err(builder_error);
            }
            if let Ok(b) = obj.cast::<PyBool>() {
                return self.builder.push_bool(b.is_true()).map_err(builder_error);
            }
            if let Ok(s) = obj.cast::<PyString>() {
                return match text_of(s)? {
                    Text::Utf8(text) => self.builder.push_str(text),
                    Text::Utf16(units) => self.builder.push_utf16(&units),
                }
                .map_err(builder_error);
            }
            if obj.is_instance_of::<PyInt>() {
                let lexeme = int_lexeme(&obj)?;
                return self.builder.push_number(&lexeme).map_err(builder_error);
            }
            if obj.is_instance_of::<PyFloat>() {
                let lexeme = float_lexeme(&obj)?;
                return self.builder.push_number(&lexeme).map_err(builder_error);
            }
            let items = if let Ok(list) = obj.cast::<PyList>() {
                Some(Items::List(list.clone()))
            } else if let Ok(tuple) = obj.cast::<PyTuple>() {
                Some(Items::Tuple(tuple.clone()))
            } else {
                None
            };
            if let Some(items) = items {
                self.builder.push_begin_array().map_err(builder_error)?;
                return self.open(items, defaults);
            }
            if let Ok(dict) = obj.cast::<PyDict>() {
                let items = if self.default.is_none() && !self.sort_keys && obj.is_exact_instance_of::<PyDict>() {
                    Items::DictIter(dict.iter())
                } else {
                    // A snapshot of the items: hooks may mutate the dict while we walk it.
                    let items = dict.items();
                    if self.sort_keys {
                        items.sort()?;
                    }
                    Items::Dict(items)
                };
                self.builder.push_begin_object().map_err(builder_error)?;
                return self.open(items, defaults);
            }
            let Some(default) = self.default else {
                return Err(PyTypeError::new_err(format!(
                    "Object of type {} is not JSON serializable",
                    type_name(&obj)
                )));
            };
            if self.default_depth + defaults >= self.max_depth {
                return Err(PyValueError::new_err(format!(
                    "the default hook was applied more than {} times in a row",
                    self.max_depth
                )));
            }
            obj = default.call1((obj,))?;
            defaults += 1;
        }
    }

    fn open(&mut self, items: Items<'py>, defaults: usize) -> PyResult<()> {
        self.default_depth += defaults;
        self.stack.push(Frame { items, next: 0, defaults });
        Ok(())
    }

    /// Writes a key the way `json.dumps` converts keys; `Ok(false)` when the
    /// member is skipped (`skipkeys`).
    fn key(&mut self, key: &Bound<'py, PyAny>) -> PyResult<bool> {
        let text: String = if let Ok(s) = key.cast::<PyString>() {
            match text_of(s)? {
                Text::Utf8(text) => self.builder.push_key(text),
                Text::Utf16(units) => self.builder.push_key_utf16(&units),
            }
            .map_err(builder_error)?;
            return Ok(true);
        } else if key.is_none() {
            "null".to_string()
        } else if let Ok(b) = key.cast::<PyBool>() {
            if b.is_true() { "true" } else { "false" }.to_string()
        } else if key.is_instance_of::<PyInt>() {
            int_lexeme(key)?
        } else if key.is_instance_of::<PyFloat>() {
            float_lexeme(key)?
        } else if self.skipkeys {
            return Ok(false);
        } else {
            return Err(PyTypeError::new_err(format!(
                "keys must be str, int, float, bool or None, not {}",
                type_name(key)
            )));
        };
        self.builder.push_key(&text).map_err(builder_error)?;
        Ok(true)
    }
}

/// Serializes a Python object to STC text, like json.dumps.
#[pyfunction]
#[pyo3(
    signature = (obj, *, profile = String::from("compact"), default = None, sort_keys = false, skipkeys = false, max_depth = None, version = None),
    text_signature = "(obj, *, profile='compact', default=None, sort_keys=False, skipkeys=False, max_depth=None, version=1)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    profile: String,
    default: Option<Bound<'py, PyAny>>,
    sort_keys: bool,
    skipkeys: bool,
    max_depth: Option<usize>,
    version: Option<Bound<'py, PyAny>>,
) -> PyResult<String> {
    let options = EncodeOptions::default().profile(parse_profile(&profile)?).version(parse_version(version.as_ref())?);
    // Any limit is honoured: the walk and the core keep their stacks on the heap.
    let max_depth = limits(max_depth).max_depth;
    let mut walker = Walker {
        builder: DocumentBuilder::with_capacity(64, max_depth),
        default: default.as_ref(),
        sort_keys,
        skipkeys,
        max_depth,
        stack: Vec::new(),
        default_depth: 0,
    };
    walker.walk(obj)?;
    let doc = walker.builder.finish().map_err(builder_error)?;
    // The tape is built; writing it out needs no Python object.
    let size_hint = doc.node_count() * 8;
    Ok(run_detached(py, size_hint, move || doc.encode_with(&options)))
}

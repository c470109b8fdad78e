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

use crate::pyobj::{ascii_str, output_str, KeepAlive};
use crate::text::{limits, parse_profile, parse_version, run_detached};

struct Walker<'py, 'd, 'k> {
    builder: DocumentBuilder<'k>,
    /// The `str`s whose text the builder borrows.
    keep: &'k KeepAlive,
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
    /// The built-in types the walk tests first, by pointer.
    exact: ExactTypes,
    /// Where floats are spelled.
    float_text: FloatText,
}

/// The type objects of `str`, `int`, `float`, `dict`, `list` and `bool`: an
/// object whose type is one of these exactly is handled without the
/// subclass checks (which read the type's flags through a call in the
/// stable ABI).
struct ExactTypes {
    str: *mut pyo3::ffi::PyTypeObject,
    int: *mut pyo3::ffi::PyTypeObject,
    float: *mut pyo3::ffi::PyTypeObject,
    dict: *mut pyo3::ffi::PyTypeObject,
    list: *mut pyo3::ffi::PyTypeObject,
    bool: *mut pyo3::ffi::PyTypeObject,
}

impl ExactTypes {
    fn new(py: Python<'_>) -> Self {
        use pyo3::type_object::PyTypeInfo;
        ExactTypes {
            str: PyString::type_object_raw(py),
            int: PyInt::type_object_raw(py),
            float: PyFloat::type_object_raw(py),
            dict: PyDict::type_object_raw(py),
            list: PyList::type_object_raw(py),
            bool: PyBool::type_object_raw(py),
        }
    }
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
    if let Some(text) = ascii_str(s) {
        return Ok(Text::Utf8(text));
    }
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

/// `float.__repr__(obj)` (what `json.dumps` writes) in `out`, or
/// `ValueError` for NaN and infinities (strict JSON).
fn float_lexeme<'b>(obj: &Bound<'_, PyAny>, out: &'b mut FloatText) -> PyResult<&'b str> {
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
    Ok(out.repr(value))
}

/// Room for Python's `repr` of a finite float (at most 24 bytes:
/// `-1.2345678901234567e-308`).
struct FloatText {
    ryu: ryu::Buffer,
    bytes: [u8; 32],
}

impl FloatText {
    fn new() -> Self {
        FloatText { ryu: ryu::Buffer::new(), bytes: [0; 32] }
    }

    /// Python's `repr` of a finite float, without calling into Python.
    ///
    /// Ryu and CPython's `repr` both print the shortest digit string that
    /// reads back as the same double, and both break ties between equally
    /// short strings towards the nearest (then even) one, so the digits
    /// agree; so does the layout in most cases. Where `x` is the decimal
    /// exponent (`d.ddd × 10^x`), CPython writes positional notation for
    /// -4 ≤ x < 16 (whole numbers with `.0`) and `d.ddde±XX` otherwise (a
    /// signed exponent of at least two digits); ryu writes positional for
    /// -5 ≤ x < 16 and `d.ddde-X` / `de X` otherwise. So ryu's text is taken as
    /// it is, except that an exponent gets its sign and two digits (`1e16` →
    /// `1e+16`, `1.5e-7` → `1.5e-07`) and x = -5 (`0.0000ddd`) is laid out
    /// as `d.dde-05`.
    fn repr(&mut self, value: f64) -> &str {
        let shortest = self.ryu.format_finite(value);
        let text = shortest.as_bytes();
        let (sign, body) = match text.split_first() {
            Some((b'-', rest)) => (&b"-"[..], rest),
            _ => (&b""[..], text),
        };
        // The significand as written (`d` or `d.ddd`, in one or two
        // parts) and the exponent's text (`16`, `-7`).
        let (lead, rest, exponent): (&[u8], &[u8], &[u8]) = if let Some(e) = body.iter().position(|&b| b == b'e') {
            (&body[..e], b"", &body[e + 1..])
        } else if let Some(digits) = body.strip_prefix(b"0.0000") {
            // 0.0000ddd (x = -5; the first of `digits` is not 0).
            match digits.split_first() {
                Some((first, [])) => (std::slice::from_ref(first), b"", b"-5"),
                Some((first, others)) => (std::slice::from_ref(first), others, b"-5"),
                None => return shortest,
            }
        } else {
            return shortest;
        };
        let out = &mut self.bytes;
        let mut n = 0;
        let mut put = |bytes: &[u8]| {
            out[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
        };
        put(sign);
        put(lead);
        if !rest.is_empty() {
            put(b".");
            put(rest);
        }
        let (minus, digits) = match exponent.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, exponent),
        };
        put(if minus { b"e-" } else { b"e+" });
        if digits.len() < 2 {
            put(b"0");
        }
        put(digits);
        std::str::from_utf8(&self.bytes[..n]).unwrap_or("0.0")
    }
}

impl<'py> Walker<'py, '_, '_> {
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
            // The exact built-in types first, by their type pointer (one
            // comparison each; no subclass check through the type's flags).
            let ty = obj.get_type_ptr();
            let exact = &self.exact;
            if ty == exact.str {
                let s = obj.cast_exact::<PyString>()?;
                // ASCII text borrowed by the document (no copy), other text copied.
                if let Some(text) = self.keep.ascii(s) {
                    return self.builder.push_str_borrowed(text).map_err(builder_error);
                }
                return match text_of(s)? {
                    Text::Utf8(text) => self.builder.push_str(text),
                    Text::Utf16(units) => self.builder.push_utf16(&units),
                }
                .map_err(builder_error);
            } else if ty == exact.int {
                return self.int(&obj);
            } else if ty == exact.float {
                let lexeme = float_lexeme(&obj, &mut self.float_text)?;
                return self.builder.push_number(lexeme).map_err(builder_error);
            } else if ty == exact.dict && self.default.is_none() && !self.sort_keys {
                let dict = obj.cast_exact::<PyDict>()?;
                self.builder.push_begin_object().map_err(builder_error)?;
                return self.open(Items::DictIter(dict.iter()), defaults);
            } else if ty == exact.list {
                let list = obj.cast_exact::<PyList>()?;
                self.builder.push_begin_array().map_err(builder_error)?;
                return self.open(Items::List(list.clone()), defaults);
            } else if ty == exact.bool {
                return self.builder.push_bool(obj.cast_exact::<PyBool>()?.is_true()).map_err(builder_error);
            }
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
                // int.__repr__ (an IntEnum's own repr is not a number): the
                // value, as for an exact int.
                return self.int(&obj);
            }
            if obj.is_instance_of::<PyFloat>() {
                let lexeme = float_lexeme(&obj, &mut self.float_text)?;
                return self.builder.push_number(lexeme).map_err(builder_error);
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

    /// Writes an `int` (or a subclass) as `int.__repr__` spells it: within
    /// 64 bits typed (the core writes the digits), beyond through Python.
    fn int(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        if let Ok(v) = obj.extract::<i64>() {
            return self.builder.push_i64(v).map_err(builder_error);
        }
        if let Ok(v) = obj.extract::<u64>() {
            return self.builder.push_u64(v).map_err(builder_error);
        }
        let lexeme = int_lexeme(obj)?;
        self.builder.push_number(&lexeme).map_err(builder_error)
    }

    fn open(&mut self, items: Items<'py>, defaults: usize) -> PyResult<()> {
        self.default_depth += defaults;
        self.stack.push(Frame { items, next: 0, defaults });
        Ok(())
    }

    /// Writes a key the way `json.dumps` converts keys; `Ok(false)` when the
    /// member is skipped (`skipkeys`).
    fn key(&mut self, key: &Bound<'py, PyAny>) -> PyResult<bool> {
        let exact_str = key.get_type_ptr() == self.exact.str;
        let text: String = if let Ok(s) = if exact_str { key.cast_exact::<PyString>() } else { key.cast::<PyString>() }
        {
            if let Some(text) = self.keep.ascii(s) {
                self.builder.push_key_borrowed(text).map_err(builder_error)?;
                return Ok(true);
            }
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
            float_lexeme(key, &mut self.float_text)?.to_string()
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
    signature = (obj, *, profile = "compact", default = None, sort_keys = false, skipkeys = false, max_depth = None, version = None),
    text_signature = "(obj, *, profile='compact', default=None, sort_keys=False, skipkeys=False, max_depth=None, version=1)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    profile: &str,
    default: Option<Bound<'py, PyAny>>,
    sort_keys: bool,
    skipkeys: bool,
    max_depth: Option<usize>,
    version: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = EncodeOptions::default().profile(parse_profile(profile)?).version(parse_version(version.as_ref())?);
    // Any limit is honoured: the walk and the core keep their stacks on the heap.
    let max_depth = limits(max_depth).max_depth;
    // Dropped after the document that borrows from it.
    let keep = KeepAlive::new();
    let mut walker = Walker {
        builder: DocumentBuilder::with_capacity(64, max_depth),
        keep: &keep,
        default: default.as_ref(),
        sort_keys,
        skipkeys,
        max_depth,
        stack: Vec::with_capacity(16),
        default_depth: 0,
        exact: ExactTypes::new(py),
        float_text: FloatText::new(),
    };
    walker.walk(obj)?;
    let doc = walker.builder.finish().map_err(builder_error)?;
    // The tape is built; writing it out needs no Python object.
    let size_hint = doc.node_count() * 8;
    let text = run_detached(py, size_hint, move || doc.encode_with(&options));
    output_str(py, &text)
}

/// `_dumps_split(obj, loops)`: where `dumps(obj)` spends its time (a
/// benchmark helper for `bench/split.py`, not API). Runs the three stages of
/// `dumps` with the default options `loops` times and returns the best time
/// of each, in seconds: the walk of the objects into the builder, the
/// builder's `finish`, and the core's planning and writing of STC.
#[pyfunction]
#[pyo3(name = "_dumps_split")]
pub(crate) fn dumps_split(obj: &Bound<'_, PyAny>, loops: usize) -> PyResult<(f64, f64, f64)> {
    let options = EncodeOptions::default();
    let max_depth = limits(None).max_depth;
    let mut best = [f64::INFINITY; 3];
    for _ in 0..loops.max(1) {
        let start = std::time::Instant::now();
        let keep = KeepAlive::new();
        let mut walker = Walker {
            builder: DocumentBuilder::with_capacity(64, max_depth),
            keep: &keep,
            default: None,
            sort_keys: false,
            skipkeys: false,
            max_depth,
            stack: Vec::new(),
            default_depth: 0,
            exact: ExactTypes::new(obj.py()),
            float_text: FloatText::new(),
        };
        walker.walk(obj)?;
        let walked = std::time::Instant::now();
        let doc = walker.builder.finish().map_err(builder_error)?;
        let finished = std::time::Instant::now();
        let text = doc.encode_with(&options);
        let written = std::time::Instant::now();
        drop((doc, text));
        let times = [walked - start, finished - walked, written - finished];
        for (b, t) in best.iter_mut().zip(times) {
            *b = b.min(t.as_secs_f64());
        }
    }
    Ok((best[0], best[1], best[2]))
}

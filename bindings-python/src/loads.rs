//! `loads`: Python objects built straight from the core's parse events.
//!
//! The core reads the text and calls a [`Sink`] for every value; this sink
//! turns each event into the matching Python object, keeping open containers
//! on an explicit stack. No JSON text is produced in between.

use pyo3::exceptions::PySystemError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;
use stc_core::{Failure, JsonStr, Sink};
use std::collections::hash_map::Entry;

use crate::errors::decode_error;
use crate::input::TextInput;
use crate::text::decode_options;

/// Keys longer than this are not memoized: long keys rarely repeat.
const MAX_CACHED_KEY: usize = 64;
/// Preallocate at most this many slots for an announced array length.
const MAX_PREALLOC: usize = 4096;

/// The `json.loads`-style hooks.
struct Hooks<'py> {
    object_hook: Option<Bound<'py, PyAny>>,
    object_pairs_hook: Option<Bound<'py, PyAny>>,
    parse_float: Option<Bound<'py, PyAny>>,
    parse_int: Option<Bound<'py, PyAny>>,
}

/// An open container and, for objects, the key waiting for its value.
enum Frame<'py> {
    Array(Vec<Bound<'py, PyAny>>),
    Dict(Bound<'py, PyDict>, Option<Bound<'py, PyAny>>),
    /// Members of an object collected for `object_pairs_hook`.
    Pairs(Vec<Bound<'py, PyAny>>, Option<Bound<'py, PyAny>>),
}

struct ObjectBuilder<'py, 'a, 'h> {
    py: Python<'py>,
    hooks: &'h Hooks<'py>,
    stack: Vec<Frame<'py>>,
    root: Option<Bound<'py, PyAny>>,
    /// Key objects by their raw text: objects in arrays repeat their keys, so
    /// each distinct key is decoded and allocated once per call (as `json`'s
    /// own scanner does).
    keys: FxHashMap<&'a str, Bound<'py, PyAny>>,
    /// Keys by their position in the input. Every row of a columnar array
    /// names its cells with the header's column names, i.e. the very same
    /// bytes of the input, so this direct-mapped cache answers those without
    /// hashing the key text.
    recent: [Option<(usize, usize, Bound<'py, PyAny>)>; RECENT_KEYS],
}

/// Slots of [`ObjectBuilder::recent`].
const RECENT_KEYS: usize = 64;

impl<'py, 'a, 'h> ObjectBuilder<'py, 'a, 'h> {
    fn new(py: Python<'py>, hooks: &'h Hooks<'py>) -> Self {
        ObjectBuilder {
            py,
            hooks,
            stack: Vec::new(),
            root: None,
            keys: FxHashMap::default(),
            recent: [const { None }; RECENT_KEYS],
        }
    }

    /// Puts a finished value into the innermost container (or makes it the root).
    fn put(&mut self, value: Bound<'py, PyAny>) -> PyResult<()> {
        match self.stack.last_mut() {
            None => {
                self.root = Some(value);
                Ok(())
            }
            Some(Frame::Array(items)) => {
                items.push(value);
                Ok(())
            }
            Some(Frame::Dict(dict, key)) => match key.take() {
                Some(key) => dict.set_item(key, value),
                None => Err(missing_key()),
            },
            Some(Frame::Pairs(pairs, key)) => match key.take() {
                Some(key) => {
                    pairs.push(PyTuple::new(self.py, [key, value])?.into_any());
                    Ok(())
                }
                None => Err(missing_key()),
            },
        }
    }

    fn make_string(&self, s: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
        make_string(self.py, s)
    }

    fn number_object(&self, lexeme: &str) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        // Integer lexemes become exact Python ints; the others are floats.
        let integer = !lexeme.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
        if integer {
            if let Some(hook) = &self.hooks.parse_int {
                return hook.call1((lexeme,));
            }
            // Up to 18 characters always fit an i64; longer ones go through
            // Python's own arbitrary-precision parser.
            if lexeme.len() <= 18 {
                if let Ok(v) = lexeme.parse::<i64>() {
                    return Ok(v.into_pyobject(py)?.into_any());
                }
            }
            return py.get_type::<PyInt>().call1((lexeme,));
        }
        if let Some(hook) = &self.hooks.parse_float {
            return hook.call1((lexeme,));
        }
        match lexeme.parse::<f64>() {
            Ok(v) => Ok(PyFloat::new(py, v).into_any()),
            Err(_) => py.get_type::<PyFloat>().call1((lexeme,)),
        }
    }

    fn close_object(&mut self) -> PyResult<()> {
        let value = match self.stack.pop() {
            Some(Frame::Dict(dict, _)) => match &self.hooks.object_hook {
                Some(hook) => hook.call1((dict,))?,
                None => dict.into_any(),
            },
            Some(Frame::Pairs(pairs, _)) => {
                let list = PyList::new(self.py, pairs)?;
                match &self.hooks.object_pairs_hook {
                    Some(hook) => hook.call1((list,))?,
                    None => list.into_any(),
                }
            }
            _ => return Err(PySystemError::new_err("stc: end of object without an open object")),
        };
        self.put(value)
    }

    fn close_array(&mut self) -> PyResult<()> {
        match self.stack.pop() {
            Some(Frame::Array(items)) => {
                let list = PyList::new(self.py, items)?.into_any();
                self.put(list)
            }
            _ => Err(PySystemError::new_err("stc: end of array without an open array")),
        }
    }

    fn set_key(&mut self, key: JsonStr<'a>) -> PyResult<()> {
        let raw = key.raw();
        let address = raw.as_ptr() as usize;
        // Distinct keys start at least two bytes apart (a key, then ':' or ',').
        let slot = (address >> 1) % RECENT_KEYS;
        let object = match &self.recent[slot] {
            Some((a, len, k)) if *a == address && *len == raw.len() => k.clone(),
            _ => {
                let k = if raw.len() > MAX_CACHED_KEY {
                    self.make_string(key)?
                } else {
                    // One hash per key, whether it is found or added.
                    let py = self.py;
                    match self.keys.entry(raw) {
                        Entry::Occupied(found) => found.get().clone(),
                        Entry::Vacant(slot) => slot.insert(make_string(py, key)?).clone(),
                    }
                };
                self.recent[slot] = Some((address, raw.len(), k.clone()));
                k
            }
        };
        match self.stack.last_mut() {
            Some(Frame::Dict(_, slot) | Frame::Pairs(_, slot)) => {
                *slot = Some(object);
                Ok(())
            }
            _ => Err(PySystemError::new_err("stc: key outside an object")),
        }
    }
}

/// A Python `str` from a string body.
fn make_string<'py>(py: Python<'py>, s: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
    if !s.has_escapes() {
        return Ok(PyString::new(py, s.raw()).into_any());
    }
    match s.to_str() {
        Some(text) => Ok(PyString::new(py, &text).into_any()),
        // A lone surrogate: Python strings hold it as json.loads does.
        None => {
            let bytes: Vec<u8> = s.to_utf16().iter().flat_map(|u| u.to_le_bytes()).collect();
            PyBytes::new(py, &bytes).call_method1("decode", ("utf-16-le", "surrogatepass"))
        }
    }
}

fn missing_key() -> PyErr {
    PySystemError::new_err("stc: object member without a key")
}

/// The builder as a sink whose error is the Python exception itself: what a
/// hook (or an allocation) raises comes back from the parser unchanged, as
/// [`Failure::Sink`].
impl<'py, 'a, 'h> Sink<'a, PyErr> for ObjectBuilder<'py, 'a, 'h> {
    fn null(&mut self) -> PyResult<()> {
        self.put(self.py.None().into_bound(self.py))
    }

    fn boolean(&mut self, value: bool) -> PyResult<()> {
        self.put(PyBool::new(self.py, value).to_owned().into_any())
    }

    fn number(&mut self, lexeme: &'a str) -> PyResult<()> {
        let value = self.number_object(lexeme)?;
        self.put(value)
    }

    fn string(&mut self, value: JsonStr<'a>) -> PyResult<()> {
        let value = self.make_string(value)?;
        self.put(value)
    }

    fn begin_array(&mut self, len: Option<usize>) -> PyResult<()> {
        let capacity = len.unwrap_or(0).min(MAX_PREALLOC);
        self.stack.push(Frame::Array(Vec::with_capacity(capacity)));
        Ok(())
    }

    fn end_array(&mut self) -> PyResult<()> {
        self.close_array()
    }

    fn begin_object(&mut self, len: Option<usize>) -> PyResult<()> {
        let frame = if self.hooks.object_pairs_hook.is_some() {
            Frame::Pairs(Vec::with_capacity(len.unwrap_or(0).min(MAX_PREALLOC)), None)
        } else {
            Frame::Dict(PyDict::new(self.py), None)
        };
        self.stack.push(frame);
        Ok(())
    }

    fn key(&mut self, key: JsonStr<'a>) -> PyResult<()> {
        self.set_key(key)
    }

    fn end_object(&mut self) -> PyResult<()> {
        self.close_object()
    }
}

/// Parses STC (or plain JSON) text to Python objects, like json.loads.
#[pyfunction]
#[pyo3(
    signature = (s, *, object_hook = None, parse_float = None, parse_int = None, object_pairs_hook = None, max_depth = None, version = None),
    text_signature = "(s, *, object_hook=None, parse_float=None, parse_int=None, object_pairs_hook=None, max_depth=None, version=1)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn loads<'py>(
    py: Python<'py>,
    s: &Bound<'py, PyAny>,
    object_hook: Option<Bound<'py, PyAny>>,
    parse_float: Option<Bound<'py, PyAny>>,
    parse_int: Option<Bound<'py, PyAny>>,
    object_pairs_hook: Option<Bound<'py, PyAny>>,
    max_depth: Option<usize>,
    version: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = decode_options(max_depth, version.as_ref())?;
    let input = TextInput::new(s, "the STC text")?;
    let text = input.text(s)?;
    let hooks = Hooks { object_hook, object_pairs_hook, parse_float, parse_int };
    let mut builder = ObjectBuilder::new(py, &hooks);
    match stc_core::parse_stc_to(text, &options, &mut builder) {
        Ok(()) => builder.root.take().ok_or_else(|| PySystemError::new_err("stc: the parser produced no value")),
        Err(Failure::Input(e)) => Err(decode_error(py, &e, s, input.bytes())),
        // A hook (or an allocation) raised: that exception, as it is.
        Err(Failure::Sink(py_err)) => Err(py_err),
    }
}

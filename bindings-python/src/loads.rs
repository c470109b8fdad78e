//! `loads`: Python objects built straight from the core's parse events.
//!
//! The core reads the text and calls a [`Sink`] for every value; this sink
//! turns each event into the matching Python object, keeping open containers
//! on an explicit stack. No JSON text is produced in between.

use pyo3::exceptions::PySystemError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyTuple};
use stc_core::{Failure, JsonStr, Number, Sink};
use std::sync::{Mutex, TryLockError};

use crate::errors::decode_error;
use crate::input::TextInput;
use crate::pyobj::{new_float, new_int, new_str};
use crate::text::decode_options;

/// Keys longer than this are not memoized: long keys rarely repeat (and a
/// slot with its key's bytes is one cache line).
const MAX_CACHED_KEY: usize = 55;
/// Slots of the key cache (a power of two).
const KEY_SLOTS: usize = 1024;

/// A memoized key: its text as written (escapes included) and its `str`,
/// in one cache line (the lookup reads nothing else).
#[repr(C, align(64))]
struct CachedKey {
    object: Py<PyAny>,
    len: u8,
    raw: [u8; MAX_CACHED_KEY],
}

/// The key cache: direct-mapped by a hash of the key's text.
type KeySlots = Box<[Option<CachedKey>]>;

/// The key cache kept between calls, as orjson keeps its own: API responses
/// repeat the same keys from one document to the next (`amazon_cellphones`
/// is 793 of them), so each key `str` is made once, not once per call. It
/// holds at most [`KEY_SLOTS`] strings of at most [`MAX_CACHED_KEY`] bytes.
/// A call that finds it taken (another thread, or `loads` called again from
/// a hook) uses a cache of its own.
static KEY_CACHE: Mutex<Option<KeySlots>> = Mutex::new(None);

fn new_key_slots() -> KeySlots {
    (0..KEY_SLOTS).map(|_| None).collect()
}

/// The `json.loads`-style hooks.
struct Hooks<'py> {
    object_hook: Option<Bound<'py, PyAny>>,
    object_pairs_hook: Option<Bound<'py, PyAny>>,
    parse_float: Option<Bound<'py, PyAny>>,
    parse_int: Option<Bound<'py, PyAny>>,
}

/// An open container and, for objects, the key waiting for its value.
enum Frame<'py> {
    /// An array whose items are `values[start..]`.
    Array(usize),
    Dict(Bound<'py, PyDict>, Option<Bound<'py, PyAny>>),
    /// An object for `object_pairs_hook`: its `(key, value)` tuples are
    /// `values[start..]`.
    Pairs(usize, Option<Bound<'py, PyAny>>),
}

struct ObjectBuilder<'py, 'h, 'k> {
    py: Python<'py>,
    hooks: &'h Hooks<'py>,
    stack: Vec<Frame<'py>>,
    /// The finished items of every open array, innermost last: one vector
    /// for the whole call instead of one per array.
    values: Vec<Bound<'py, PyAny>>,
    root: Option<Bound<'py, PyAny>>,
    /// Key objects by their raw text: objects in arrays repeat their keys, so
    /// each distinct key is decoded and allocated once (as `json`'s own
    /// scanner does per call, and orjson across calls).
    keys: &'k mut [Option<CachedKey>],
}

impl<'py, 'h, 'k> ObjectBuilder<'py, 'h, 'k> {
    fn new(py: Python<'py>, hooks: &'h Hooks<'py>, keys: &'k mut [Option<CachedKey>]) -> Self {
        // Room for a small document's nesting and items from the start (a
        // call that grows these from nothing reallocates several times).
        ObjectBuilder { py, hooks, stack: Vec::with_capacity(16), values: Vec::with_capacity(64), root: None, keys }
    }

    /// Puts a finished value into the innermost container (or makes it the root).
    #[inline]
    fn put(&mut self, value: Bound<'py, PyAny>) -> PyResult<()> {
        match self.stack.last_mut() {
            Some(Frame::Array(_)) => {
                self.values.push(value);
                Ok(())
            }
            Some(Frame::Dict(dict, key)) => match key.take() {
                Some(key) => dict.set_item(key, value),
                None => Err(missing_key()),
            },
            None => {
                self.root = Some(value);
                Ok(())
            }
            Some(Frame::Pairs(_, key)) => match key.take() {
                Some(key) => {
                    let pair = PyTuple::new(self.py, [key, value])?.into_any();
                    self.values.push(pair);
                    Ok(())
                }
                None => Err(missing_key()),
            },
        }
    }

    /// The Python object of a number the reader scanned: an `int` for an
    /// integer lexeme (exact: beyond `i64` through `int(lexeme)`), a `float`
    /// otherwise, each from the parts the reader found ([`Number::as_i64`],
    /// [`Number::as_f64`]: the digits without the grammar checks, no second
    /// scan here). The hooks get the lexeme, as `json.loads` gives it.
    #[inline(always)]
    fn number_object(&self, n: Number<'_>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        if n.is_integer() {
            if self.hooks.parse_int.is_none() {
                if let Some(v) = n.as_i64() {
                    return new_int(py, v);
                }
            }
            return self.int_object(n.lexeme());
        }
        match &self.hooks.parse_float {
            None => Ok(new_float(py, n.as_f64())),
            Some(hook) => hook.call1((n.lexeme(),)),
        }
    }

    /// An integer given to `parse_int`, or beyond `i64` (Python's own
    /// arbitrary-precision parser).
    #[cold]
    #[inline(never)]
    fn int_object(&self, lexeme: &str) -> PyResult<Bound<'py, PyAny>> {
        match &self.hooks.parse_int {
            Some(hook) => hook.call1((lexeme,)),
            None => self.py.get_type::<PyInt>().call1((lexeme,)),
        }
    }

    fn close_object(&mut self) -> PyResult<()> {
        let value = match self.stack.pop() {
            Some(Frame::Dict(dict, _)) => match &self.hooks.object_hook {
                Some(hook) => hook.call1((dict,))?,
                None => dict.into_any(),
            },
            Some(Frame::Pairs(start, _)) => {
                let list = PyList::new(self.py, self.values.drain(start..))?;
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
            Some(Frame::Array(start)) => {
                // No Python code runs while the list is filled (pyo3 makes it
                // with PyList_New and sets every slot before returning it).
                let list = PyList::new(self.py, self.values.drain(start..))?.into_any();
                self.put(list)
            }
            _ => Err(PySystemError::new_err("stc: end of array without an open array")),
        }
    }

    fn key_object(&mut self, key: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
        let raw = key.raw().as_bytes();
        if raw.len() > MAX_CACHED_KEY {
            return make_string(self.py, key);
        }
        // Two slots a key may take, side by side (two cache lines): two
        // keys whose hashes meet both stay.
        let first = key_slot(raw);
        for i in [first, first ^ 1] {
            if let Some(cached) = &self.keys[i] {
                if same_bytes(cached.raw.get(..usize::from(cached.len)).unwrap_or_default(), raw) {
                    return Ok(cached.object.bind(self.py).clone());
                }
            }
        }
        let object = make_string(self.py, key)?;
        let mut bytes = [0u8; MAX_CACHED_KEY];
        bytes[..raw.len()].copy_from_slice(raw);
        // The new key takes the first slot; the one it held moves to the
        // second, pushing out the one there (the older of the two).
        if self.keys[first].is_some() {
            self.keys.swap(first, first ^ 1);
        }
        // `raw.len()` is at most MAX_CACHED_KEY, below 256.
        self.keys[first] = Some(CachedKey { object: object.clone().unbind(), len: raw.len() as u8, raw: bytes });
        Ok(object)
    }

    fn set_key(&mut self, key: JsonStr<'_>) -> PyResult<()> {
        let object = self.key_object(key)?;
        match self.stack.last_mut() {
            Some(Frame::Dict(_, slot) | Frame::Pairs(_, slot)) => {
                *slot = Some(object);
                Ok(())
            }
            _ => Err(PySystemError::new_err("stc: key outside an object")),
        }
    }
}

/// The key cache's slot for a key of at most [`MAX_CACHED_KEY`] bytes: its
/// length and first, middle and last eight bytes (all of a key of up to 16,
/// which most keys are) multiplied into the top bits, a few instructions
/// where a hash of every byte took a loop. Two keys that differ only
/// elsewhere share a slot and take turns in it (the bytes are compared on
/// every hit).
#[inline(always)]
fn key_slot(b: &[u8]) -> usize {
    let n = b.len();
    let (x, y, z) = if n >= 8 {
        (word8(b, 0), word8(b, n - 8), if n > 16 { word8(b, n / 2 - 4) } else { 0 })
    } else if n >= 4 {
        (u64::from(word4(b, 0)), u64::from(word4(b, n - 4)), 0)
    } else {
        let mut w = [0u8; 4];
        w[..n].copy_from_slice(b);
        (u64::from(u32::from_le_bytes(w)), 0, 0)
    };
    let h = (x ^ y.rotate_left(21) ^ z.rotate_left(42) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> (64 - KEY_SLOTS.trailing_zeros())) as usize
}

/// `a == b` for short slices, inline (the library call costs more than the
/// comparison of a key of a few bytes): eight bytes at a time, the last
/// eight (or four) overlapping the ones before, so no byte loop.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word8(a, i) != word8(b, i) {
                return false;
            }
            i += 8;
        }
        word8(a, n - 8) == word8(b, n - 8)
    } else if n >= 4 {
        word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4)
    } else {
        a == b
    }
}

/// The eight bytes of `b` from `i` as a word (0 past the end).
#[inline(always)]
fn word8(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 8).map_or(0, |w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
}

/// The four bytes of `b` from `i` as a word (0 past the end).
#[inline(always)]
fn word4(b: &[u8], i: usize) -> u32 {
    b.get(i..i + 4).map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// A Python `str` from a string body.
fn make_string<'py>(py: Python<'py>, s: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
    if !s.has_escapes() {
        return new_str(py, s.raw());
    }
    match s.to_str() {
        Some(text) => new_str(py, &text),
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
impl<'py, 'a, 'h, 'k> Sink<'a, PyErr> for ObjectBuilder<'py, 'h, 'k> {
    fn null(&mut self) -> PyResult<()> {
        self.put(self.py.None().into_bound(self.py))
    }

    fn boolean(&mut self, value: bool) -> PyResult<()> {
        self.put(PyBool::new(self.py, value).to_owned().into_any())
    }

    /// Only for producers other than the readers (which call
    /// [`number_parts`](Sink::number_parts)): the same object from the lexeme.
    fn number(&mut self, lexeme: &'a str) -> PyResult<()> {
        let n = Number::new(lexeme).ok_or_else(|| PySystemError::new_err("stc: not a JSON number"))?;
        self.number_parts(n)
    }

    #[inline(always)]
    fn number_parts(&mut self, n: Number<'a>) -> PyResult<()> {
        let value = self.number_object(n)?;
        self.put(value)
    }

    fn string(&mut self, value: JsonStr<'a>) -> PyResult<()> {
        let value = make_string(self.py, value)?;
        self.put(value)
    }

    fn begin_array(&mut self, len: Option<usize>) -> PyResult<()> {
        // The core checked a declared count against the input's length.
        if let Some(n) = len {
            self.values.reserve(n);
        }
        self.stack.push(Frame::Array(self.values.len()));
        Ok(())
    }

    fn end_array(&mut self) -> PyResult<()> {
        self.close_array()
    }

    fn begin_object(&mut self, len: Option<usize>) -> PyResult<()> {
        let frame = if self.hooks.object_pairs_hook.is_some() {
            self.values.reserve(len.unwrap_or(0));
            Frame::Pairs(self.values.len(), None)
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
    let mut shared = match KEY_CACHE.try_lock() {
        Ok(guard) => Some(guard),
        // A panic while it was held cannot leave a slot half-written.
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    let mut own = None;
    let keys = match shared.as_deref_mut() {
        Some(slots) => slots.get_or_insert_with(new_key_slots),
        None => own.insert(new_key_slots()),
    };
    let mut builder = ObjectBuilder::new(py, &hooks, keys);
    let parsed = stc_core::parse_stc_to(text, &options, &mut builder);
    let root = builder.root.take();
    drop(builder);
    drop(shared);
    match parsed {
        Ok(()) => root.ok_or_else(|| PySystemError::new_err("stc: the parser produced no value")),
        Err(Failure::Input(e)) => Err(decode_error(py, &e, s, input.bytes())),
        // A hook (or an allocation) raised: that exception, as it is.
        Err(Failure::Sink(py_err)) => Err(py_err),
    }
}

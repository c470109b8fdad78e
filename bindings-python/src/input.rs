//! Turning the Python objects callers pass as text (`str`, `bytes`,
//! `bytearray`) into UTF-8 for the core.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::decode_error;

/// A text argument: a `str` read in place, or bytes that should be UTF-8.
pub(crate) enum TextInput<'py> {
    /// A `str` without lone surrogates: CPython's UTF-8 form of it, borrowed
    /// (no copy for ASCII text; computed once and cached by the `str` object
    /// otherwise, as `orjson` relies on).
    Str(Bound<'py, PyString>),
    /// `bytes`, a copy of a `bytearray`, or a `str` holding lone surrogates
    /// encoded with `surrogatepass` (bytes that are not UTF-8, so the core
    /// reports `invalid_utf8` at the first surrogate instead of the binding
    /// inventing an error of its own).
    Bytes(Bound<'py, PyBytes>),
}

impl<'py> TextInput<'py> {
    /// Reads a `str`, `bytes` or `bytearray` argument.
    pub(crate) fn new(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(s) = obj.cast::<PyString>() {
            if s.to_str().is_ok() {
                return Ok(TextInput::Str(s.clone()));
            }
            let bytes = obj.call_method1("encode", ("utf-8", "surrogatepass"))?.cast_into::<PyBytes>()?;
            return Ok(TextInput::Bytes(bytes));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(TextInput::Bytes(b.clone()));
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            return Ok(TextInput::Bytes(PyBytes::new(obj.py(), &b.to_vec())));
        }
        Err(PyTypeError::new_err(format!(
            "{what} must be str, bytes or bytearray, not {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
        )))
    }

    /// The raw bytes (UTF-8 for a `str`).
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            // `new` checked that the string has a UTF-8 form.
            TextInput::Str(s) => s.to_str().map(str::as_bytes).unwrap_or_default(),
            TextInput::Bytes(b) => b.as_bytes(),
        }
    }

    /// The text, or the core's `invalid_utf8` error as `STCDecodeError`
    /// (with `doc` as the document).
    pub(crate) fn text(&self, doc: &Bound<'_, PyAny>) -> PyResult<&str> {
        match self {
            TextInput::Str(s) => s.to_str(),
            // The core owns the UTF-8 error (kind, offset, message).
            TextInput::Bytes(b) => {
                let bytes = b.as_bytes();
                stc_core::from_utf8(bytes).map_err(|e| decode_error(doc.py(), &e, doc, bytes))
            }
        }
    }
}

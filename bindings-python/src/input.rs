//! Turning the Python objects callers pass as text (`str`, `bytes`,
//! `bytearray`) into UTF-8 for the core.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::decode_error;

/// The UTF-8 bytes of a text argument, and whether they are known to be UTF-8.
pub(crate) struct TextInput<'py> {
    bytes: Bound<'py, PyBytes>,
    /// True when CPython's strict UTF-8 encoder produced `bytes`.
    valid_utf8: bool,
}

impl<'py> TextInput<'py> {
    /// Reads a `str`, `bytes` or `bytearray` argument.
    ///
    /// A `str` is encoded to UTF-8 (one copy: the abi3 API of Python 3.9
    /// offers no borrowed view). A `str` holding lone surrogates is encoded
    /// with `surrogatepass`, which yields bytes that are not UTF-8, so the core
    /// reports them as `invalid_utf8` at the first surrogate instead of the
    /// binding inventing an error of its own.
    pub(crate) fn new(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(s) = obj.cast::<PyString>() {
            return match s.encode_utf8() {
                Ok(bytes) => Ok(TextInput { bytes, valid_utf8: true }),
                Err(_) => {
                    let bytes = obj.call_method1("encode", ("utf-8", "surrogatepass"))?.cast_into::<PyBytes>()?;
                    Ok(TextInput { bytes, valid_utf8: false })
                }
            };
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(TextInput { bytes: b.clone(), valid_utf8: false });
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            return Ok(TextInput { bytes: PyBytes::new(obj.py(), &b.to_vec()), valid_utf8: false });
        }
        Err(PyTypeError::new_err(format!(
            "{what} must be str, bytes or bytearray, not {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
        )))
    }

    /// The raw bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.bytes.as_bytes()
    }

    /// The text, or the core's `invalid_utf8` error as `STCDecodeError`
    /// (with `doc` as the document).
    pub(crate) fn text(&self, doc: &Bound<'_, PyAny>) -> PyResult<&str> {
        let bytes = self.bytes();
        if self.valid_utf8 {
            // SAFETY: CPython's strict UTF-8 encoder (`str.encode("utf-8")`,
            // which fails on lone surrogates) only produces valid UTF-8, and
            // `bytes` objects are immutable. Skipping the re-check matters:
            // it costs a few percent of `loads` on non-ASCII documents.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        // The core owns the UTF-8 error (kind, offset, message).
        stc_core::from_utf8(bytes).map_err(|e| decode_error(doc.py(), &e, doc, bytes))
    }
}

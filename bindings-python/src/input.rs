//! Turning the Python objects callers pass as text (`str`, `bytes`,
//! `bytearray`) into UTF-8 bytes for the core.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::decode_error;

/// The UTF-8 bytes of a text argument.
///
/// A `str` is encoded to UTF-8 (one copy: the abi3 API of Python 3.9 offers
/// no borrowed view). A `str` holding lone surrogates is encoded with
/// `surrogatepass`, which yields bytes that are not UTF-8, so the core reports
/// them as `invalid_utf8` at the first surrogate instead of the binding
/// inventing an error of its own.
pub(crate) fn text_bytes<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let py = obj.py();
    if let Ok(s) = obj.cast::<PyString>() {
        return match s.encode_utf8() {
            Ok(bytes) => Ok(bytes),
            Err(_) => Ok(obj
                .call_method1("encode", ("utf-8", "surrogatepass"))?
                .cast_into::<PyBytes>()?),
        };
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.clone());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(PyBytes::new(py, &b.to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str, bytes or bytearray, not {}",
        obj.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".to_string())
    )))
}

/// `bytes` as `&str`, or the core's `invalid_utf8` error as `STCDecodeError`.
pub(crate) fn utf8<'b>(bytes: &'b [u8], doc: &Bound<'_, PyAny>) -> PyResult<&'b str> {
    std::str::from_utf8(bytes).map_err(|_| {
        // The core owns the UTF-8 error (kind, offset, message); asking it to
        // validate gives exactly that error, since UTF-8 is checked first.
        match stc_core::validate_bytes(bytes, &stc_core::Limits::default()) {
            Err(e) => decode_error(doc.py(), &e, doc, bytes),
            Ok(()) => PyValueError::new_err("invalid UTF-8"),
        }
    })
}

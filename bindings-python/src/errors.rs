//! `stc_core::Error` → `stc.STCDecodeError`.
//!
//! The exception class is defined in Python (`stc/_types.py`) so that it can
//! subclass `json.JSONDecodeError`; it is imported once and cached.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

static DECODE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static GATE_RESULT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Builds `STCDecodeError(msg, doc, pos, kind, offset, lineno, colno)`.
///
/// `pos` counts characters like `json.JSONDecodeError.pos`: the characters
/// before the error's byte offset (every byte that does not continue a UTF-8
/// sequence starts one, the same rule the core uses for columns).
pub(crate) fn decode_error(py: Python<'_>, err: &stc_core::Error, doc: &Bound<'_, PyAny>, bytes: &[u8]) -> PyErr {
    let cls = match DECODE_ERROR.import(py, "stc._types", "STCDecodeError") {
        Ok(cls) => cls,
        Err(e) => return e,
    };
    let offset = err.offset().unwrap_or(0).min(bytes.len());
    let pos = bytes[..offset].iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    let args = (err.message(), doc, pos, err.kind().code(), offset, err.line().unwrap_or(0), err.column().unwrap_or(0));
    match cls.call1(args) {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

/// The `stc.GateResult` class.
pub(crate) fn gate_result_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    GATE_RESULT.import(py, "stc._types", "GateResult")
}

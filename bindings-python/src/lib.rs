//! `stc._stc`: the native half of the Python package `stc`.
//!
//! This crate holds no format logic. It converts Python values to and from
//! `stc-core`'s streaming events and builder, and `stc_core::Error` to the
//! Python exception `stc.STCDecodeError`. The pure-Python package
//! (`python/stc/`) re-exports these functions and defines the exception and
//! result classes. `stash` exposes the `stc-stash` crate (truncation with
//! recoverable markers, the SQLite and memory stores).
//!
//! `unsafe` is denied everywhere except in `pyobj` (strings through
//! CPython's full C API, in the shipped build; none with the `abi3` feature),
//! where each block carries a `SAFETY:` comment (enforced by clippy).

#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

use pyo3::prelude::*;
use pyo3::types::PyTuple;

mod dumps;
mod errors;
mod input;
mod loads;
#[allow(unsafe_code)]
mod pyobj;
mod stash;
mod text;

/// Inputs at least this long are processed with the GIL released; below it
/// releasing and re-taking the lock costs more than it lets other threads do.
pub(crate) const DETACH_MIN_BYTES: usize = 8 * 1024;

#[pymodule]
fn _stc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("STC_VERSION", stc_core::VERSION)?;
    m.add("MEDIA_TYPE", stc_core::MEDIA_TYPE)?;
    m.add("MAX_DEPTH_LIMIT", stc_core::MAX_DEPTH_LIMIT)?;
    // The core's lists, for the stubs' checks: every error code, profile and tokenizer name.
    m.add("ERROR_CODES", PyTuple::new(m.py(), stc_core::ErrorKind::CODES)?)?;
    m.add("PROFILES", PyTuple::new(m.py(), stc_core::Profile::NAMES)?)?;
    m.add("TOKENIZERS", PyTuple::new(m.py(), stc_core::Tokenizer::NAMES)?)?;
    m.add("VERSIONS", PyTuple::new(m.py(), stc_core::Version::NAMES)?)?;
    m.add_function(wrap_pyfunction!(loads::loads, m)?)?;
    m.add_function(wrap_pyfunction!(dumps::dumps, m)?)?;
    m.add_function(wrap_pyfunction!(dumps::dumps_split, m)?)?;
    m.add_function(wrap_pyfunction!(text::encode, m)?)?;
    m.add_function(wrap_pyfunction!(text::decode, m)?)?;
    m.add_function(wrap_pyfunction!(text::encode_gated, m)?)?;
    m.add_function(wrap_pyfunction!(text::count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(text::version_number, m)?)?;
    stash::register(m)?;
    Ok(())
}

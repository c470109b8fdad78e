//! The stash: `stc.truncate`, `stc.retrieve` and the store classes
//! `stc.SqliteStash` and `stc.MemoryStash`.
//!
//! Everything here converts types and errors and calls `stc-stash`: what is
//! cut, where markers stand, the keys, the stores and the path policy are all
//! the crate's. Store I/O and truncation run with the GIL released.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};
use stc_stash::{
    Kept, PlanOptions, Recovery, RetrieveError, StashStore, StoreConfig, StoreError, StoreKind, StoreSpec, ToolName,
    TruncateError, TruncateOptions, DEFAULT_CAPACITY, DEFAULT_MEMORY_CAPACITY, DEFAULT_TTL,
};

use crate::errors::decode_error;
use crate::input::TextInput;
use crate::text::{limits, parse_tokenizer, parse_version};

static STASH_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TRUNCATION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OMISSION: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Builds `stc.StashError(message, kind, retryable, key)`.
fn stash_error(py: Python<'_>, message: String, kind: &str, retryable: bool, key: Option<&str>) -> PyErr {
    let cls = match STASH_ERROR.import(py, "stc._types", "StashError") {
        Ok(cls) => cls,
        Err(e) => return e,
    };
    match cls.call1((message, kind, retryable, key)) {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

/// A store failure as `StashError` (kind and hint from `stc-stash`).
fn store_error(py: Python<'_>, e: &StoreError, key: Option<&str>) -> PyErr {
    stash_error(py, e.to_string(), e.kind(), e.is_transient(), key)
}

/// A failed retrieve as `StashError`.
fn retrieve_error(py: Python<'_>, e: &RetrieveError) -> PyErr {
    stash_error(py, e.to_string(), e.kind(), e.retryable(), e.key().map(|k| k.as_str()))
}

/// The store settings, checked by stc-stash (`StoreConfig::new`); a bad value is a `ValueError`.
fn config(ttl: Option<f64>, capacity: Option<usize>, default_capacity: usize) -> PyResult<StoreConfig> {
    StoreConfig::new(ttl, capacity.map(|c| c as f64), default_capacity)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// An open store, or nothing after `close()`.
struct Handle {
    store: Mutex<Option<Arc<dyn StashStore>>>,
    name: &'static str,
}

impl Handle {
    fn new(store: Arc<dyn StashStore>, name: &'static str) -> Handle {
        Handle { store: Mutex::new(Some(store)), name }
    }

    fn get(&self, py: Python<'_>) -> PyResult<Arc<dyn StashStore>> {
        let guard = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        guard.clone().ok_or_else(|| store_error(py, &StoreError::Closed(self.name.to_string()), None))
    }

    fn close(&self) {
        self.store.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    fn describe(&self) -> String {
        match &*self.store.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(s) => s.describe(),
            None => "closed".to_string(),
        }
    }
}

/// The SQLite stash file shared by every `stc` process of the user (and by
/// the `stc retrieve` command).
#[pyclass(frozen, module = "stc", name = "SqliteStash")]
pub(crate) struct SqliteStash {
    handle: Handle,
    path: PathBuf,
}

#[pymethods]
impl SqliteStash {
    #[new]
    #[pyo3(signature = (path = None, *, ttl = None, capacity = None))]
    fn new(py: Python<'_>, path: Option<PathBuf>, ttl: Option<f64>, capacity: Option<usize>) -> PyResult<Self> {
        let config = config(ttl, capacity, DEFAULT_CAPACITY)?;
        let opened = py.detach(|| {
            let spec = StoreSpec::resolve(StoreKind::Sqlite, path.as_deref(), None)?;
            let store = spec.open_with(config)?;
            Ok::<_, StoreError>((spec, store))
        });
        let (spec, store) = opened.map_err(|e| store_error(py, &e, None))?;
        let path = spec.path().map(PathBuf::from).unwrap_or_default();
        Ok(SqliteStash { handle: Handle::new(store, "SqliteStash"), path })
    }

    /// The database file (after the path policy: absolute, canonical directory).
    #[getter]
    fn path(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// The stashed original under `key` (see `stc.retrieve`).
    fn retrieve(&self, py: Python<'_>, key: &str) -> PyResult<String> {
        retrieve_from(py, key, || self.handle.get(py))
    }

    /// Closes the database; later calls raise `StashError` (kind `closed`).
    fn close(&self) {
        self.handle.close();
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let store = self.handle.get(py)?;
        py.detach(|| store.len()).map_err(|e| store_error(py, &e, None))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        self.handle.close();
        false
    }

    fn __repr__(&self) -> String {
        format!("SqliteStash({:?}) <{}>", self.path.display().to_string(), self.handle.describe())
    }
}

/// A stash in this process's memory (tests, one process): other processes
/// cannot read it.
#[pyclass(frozen, module = "stc", name = "MemoryStash")]
pub(crate) struct MemoryStash {
    handle: Handle,
}

#[pymethods]
impl MemoryStash {
    #[new]
    #[pyo3(signature = (*, ttl = None, capacity = None))]
    fn new(py: Python<'_>, ttl: Option<f64>, capacity: Option<usize>) -> PyResult<Self> {
        let store = StoreSpec::Memory
            .open_with(config(ttl, capacity, DEFAULT_MEMORY_CAPACITY)?)
            .map_err(|e| store_error(py, &e, None))?;
        Ok(MemoryStash { handle: Handle::new(store, "MemoryStash") })
    }

    /// The stashed original under `key` (see `stc.retrieve`).
    fn retrieve(&self, py: Python<'_>, key: &str) -> PyResult<String> {
        retrieve_from(py, key, || self.handle.get(py))
    }

    /// Drops the entries; later calls raise `StashError` (kind `closed`).
    fn close(&self) {
        self.handle.close();
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let store = self.handle.get(py)?;
        store.len().map_err(|e| store_error(py, &e, None))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        self.handle.close();
        false
    }

    fn __repr__(&self) -> String {
        format!("MemoryStash() <{}>", self.handle.describe())
    }
}

/// The store behind a `stash=` argument.
fn store_of(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn StashStore>> {
    if let Ok(s) = obj.cast::<SqliteStash>() {
        return s.get().handle.get(py);
    }
    if let Ok(s) = obj.cast::<MemoryStash>() {
        return s.get().handle.get(py);
    }
    Err(PyTypeError::new_err(format!(
        "stash must be stc.SqliteStash, stc.MemoryStash or None, not {}",
        obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
    )))
}

/// Checks the key (before the store is even looked at), then reads it.
fn retrieve_from(py: Python<'_>, key: &str, store: impl FnOnce() -> PyResult<Arc<dyn StashStore>>) -> PyResult<String> {
    let key = stc_stash::parse_key(key).map_err(|e| retrieve_error(py, &e))?;
    let store = store()?;
    py.detach(|| stc_stash::retrieve_text(store.as_ref(), &key)).map_err(|e| retrieve_error(py, &e))
}

/// `stc.retrieve(key, *, stash)`: the exact original stashed under `key`.
#[pyfunction]
#[pyo3(signature = (key, *, stash), text_signature = "(key, *, stash)")]
pub(crate) fn retrieve(py: Python<'_>, key: &str, stash: &Bound<'_, PyAny>) -> PyResult<String> {
    retrieve_from(py, key, || store_of(py, stash))
}

/// `stc.truncate(json_text, *, stash, ...)`: a budget-sized STC rendering
/// whose markers say how to get the omitted parts back.
#[pyfunction]
#[pyo3(
    signature = (json_text, *, stash, budget = None, truncate_arrays_at = None, lossy = false, retrieve_tool = None, tokenizer = String::from("estimate"), max_depth = None, version = None),
    text_signature = "(json_text, *, stash, budget=None, truncate_arrays_at=None, lossy=False, retrieve_tool=None, tokenizer='estimate', max_depth=None, version=1)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn truncate<'py>(
    py: Python<'py>,
    json_text: &Bound<'py, PyAny>,
    stash: Option<&Bound<'py, PyAny>>,
    budget: Option<usize>,
    truncate_arrays_at: Option<usize>,
    lossy: bool,
    retrieve_tool: Option<String>,
    tokenizer: String,
    max_depth: Option<usize>,
    version: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let version = parse_version(version.as_ref())?;
    let mut plan = truncate_arrays_at.map(PlanOptions::with_array_budget).unwrap_or_default();
    plan.recoverable = !lossy;
    if let Some(name) = &retrieve_tool {
        plan.recovery = Recovery::Tool(ToolName::new(name).map_err(PyValueError::new_err)?);
    }
    let store = match stash {
        Some(s) if lossy => {
            return Err(PyValueError::new_err(format!(
                "lossy=True stashes nothing; pass stash=None, not {}",
                s.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
            )))
        }
        Some(s) => Some(store_of(py, s)?),
        None => None,
    };
    let options = TruncateOptions {
        plan,
        token_budget: budget,
        tokenizer: parse_tokenizer(&tokenizer)?,
        limits: limits(max_depth),
        version,
    };
    let input = TextInput::new(json_text, "json_text")?;
    let text = input.text(json_text)?;
    let out = py.detach(|| stc_stash::truncate(text, store.as_deref(), &options)).map_err(|e| match e {
        TruncateError::Input(e) => decode_error(py, &e, json_text, input.bytes()),
        other => stash_error(py, other.to_string(), other.kind(), other.retryable(), None),
    })?;
    let keys: Vec<String> = out.writes.iter().map(|w| w.key.as_str().to_string()).collect();
    let omission = OMISSION.import(py, "stc._types", "Omission")?;
    let omitted = out
        .omissions
        .iter()
        .map(|o| omission.call1((o.unit.name(), (!lossy).then(|| o.key.as_str().to_string()), o.omitted, o.of)))
        .collect::<PyResult<Vec<_>>>()?;
    let cls = TRUNCATION.import(py, "stc._types", "Truncation")?;
    cls.call1((
        out.stc,
        out.json,
        out.kept.is_none(),
        out.kept.map(Kept::code),
        out.tokens,
        out.original_tokens,
        PyTuple::new(py, keys)?,
        PyTuple::new(py, omitted)?,
    ))
}

/// Adds the stash's functions, classes and defaults to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SqliteStash>()?;
    m.add_class::<MemoryStash>()?;
    m.add_function(wrap_pyfunction!(truncate, m)?)?;
    m.add_function(wrap_pyfunction!(retrieve, m)?)?;
    m.add("STASH_DEFAULT_TTL", DEFAULT_TTL.as_secs_f64())?;
    m.add("STASH_DEFAULT_CAPACITY", DEFAULT_CAPACITY)?;
    m.add("MEMORY_STASH_DEFAULT_CAPACITY", DEFAULT_MEMORY_CAPACITY)?;
    Ok(())
}

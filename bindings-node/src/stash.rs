//! The stash: `truncate`, `retrieve` and the store handles behind the
//! JavaScript classes `SqliteStash` and `MemoryStash` (defined in `index.js`).
//!
//! Only conversions: what is cut, the markers, the keys, the stores and the
//! path policy are `stc-stash`'s. Errors are thrown as JavaScript `Error`s
//! with a stable `code`, `retryable` and `key`; `index.js` turns them into
//! `StashError` instances.

use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use stc_stash::{
    PlanOptions, Recovery, RetrieveError, StashStore, StoreConfig, StoreError, StoreKind, StoreSpec, ToolName,
    TruncateError, TruncateOptions, DEFAULT_CAPACITY, DEFAULT_MEMORY_CAPACITY,
};

use crate::errors::{throw, throw_stc};
use crate::input::Input;
use crate::js::{js_string, set_named};
use crate::options::{limits, tokenizer, version};
use crate::{RawEnv, Value};

/// Throws `Error(message)` with `code`, `retryable` and (if known) `key`.
fn throw_stash(env: RawEnv, message: &str, code: &str, retryable: bool, key: Option<&str>) -> Error {
    let build = || -> Result<Value> {
        let code_value = js_string(env, code)?;
        let message = js_string(env, message)?;
        let mut obj = std::ptr::null_mut();
        napi_call!(env, sys::napi_create_error(env, code_value, message, &mut obj));
        let mut flag = std::ptr::null_mut();
        napi_call!(env, sys::napi_get_boolean(env, retryable, &mut flag));
        set_named(env, obj, c"retryable", flag)?;
        if let Some(k) = key {
            set_named(env, obj, c"key", js_string(env, k)?)?;
        }
        Ok(obj)
    };
    throw(env, build())
}

/// A store failure (code and hint from `stc-stash`).
fn throw_store(env: RawEnv, e: &StoreError, key: Option<&str>) -> Error {
    throw_stash(env, &e.to_string(), e.kind(), e.is_transient(), key)
}

/// A failed retrieve.
fn throw_retrieve(env: RawEnv, e: &RetrieveError) -> Error {
    throw_stash(env, &e.to_string(), e.kind(), e.retryable(), e.key().map(|k| k.as_str()))
}

/// Throws `RangeError(message)`: a value of the right type that names nothing
/// valid (a tool name stc-stash refuses), as stc-wasm throws it.
fn range_error(env: RawEnv, message: &str) -> Error {
    let build = || -> Result<Value> {
        let msg = js_string(env, message)?;
        let mut err = std::ptr::null_mut();
        napi_call!(env, sys::napi_create_range_error(env, std::ptr::null_mut(), msg, &mut err));
        Ok(err)
    };
    throw(env, build())
}

pub(crate) fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

/// The store settings, checked by stc-stash (`StoreConfig::new`); a number
/// that is no valid capacity or ttl is a `RangeError`, as in stc-wasm
/// (`index.js` has checked the types).
fn config(env: RawEnv, ttl: Option<f64>, capacity: Option<f64>, default_capacity: usize) -> Result<StoreConfig> {
    StoreConfig::new(ttl, capacity, default_capacity).map_err(|e| range_error(env, &e.to_string()))
}

/// An open store (SQLite or memory), or nothing after `close()`.
#[napi]
pub struct StashHandle {
    store: Mutex<Option<Arc<dyn StashStore>>>,
    path: Option<String>,
    kind: &'static str,
}

impl StashHandle {
    fn new(store: Arc<dyn StashStore>, path: Option<String>, kind: &'static str) -> StashHandle {
        StashHandle { store: Mutex::new(Some(store)), path, kind }
    }

    fn get(&self, env: RawEnv) -> Result<Arc<dyn StashStore>> {
        let guard = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        guard.clone().ok_or_else(|| throw_store(env, &StoreError::Closed(self.kind.to_string()), None))
    }
}

#[napi]
impl StashHandle {
    /// The database file (SQLite), or `null` (memory).
    #[napi(getter)]
    pub fn path(&self) -> Option<String> {
        self.path.clone()
    }

    /// Live entries.
    #[napi]
    pub fn len(&self, env: Env) -> Result<u32> {
        let env = env.raw();
        let store = self.get(env)?;
        store.len().map(|n| n as u32).map_err(|e| throw_store(env, &e, None))
    }

    /// Closes the store; later calls throw `closed`.
    #[napi]
    pub fn close(&self) {
        self.store.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    /// What the store is (for messages and `inspect`).
    #[napi]
    pub fn describe(&self) -> String {
        match &*self.store.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(s) => s.describe(),
            None => format!("closed {}", self.kind),
        }
    }

    /// The original under `key`; the key is checked before the store is read.
    #[napi]
    pub fn retrieve(&self, env: Env, key: String) -> Result<String> {
        let env = env.raw();
        let key = stc_stash::parse_key(&key).map_err(|e| throw_retrieve(env, &e))?;
        let store = self.get(env)?;
        // Like `stc retrieve`: nothing is noted; the same content truncated again is cut as usual.
        stc_stash::retrieve_text(store.as_ref(), &key).map_err(|e| throw_retrieve(env, &e))
    }
}

/// `retrieve(key, {stash})`: the key is checked before the store is even required.
#[napi(js_name = "retrieveKey")]
pub fn retrieve_key(env: Env, key: String, stash: Option<&StashHandle>) -> Result<String> {
    stc_stash::parse_key(&key).map_err(|e| throw_retrieve(env.raw(), &e))?;
    match stash {
        Some(h) => h.retrieve(env, key),
        None => Err(invalid("options.stash must be a SqliteStash or a MemoryStash".to_string())),
    }
}

/// Opens the SQLite stash: `path`, else `$STC_STASH_DB`, else
/// `DATA_DIR/stash.db` (the CLI's path policy).
#[napi(js_name = "openSqliteStash")]
pub fn open_sqlite_stash(
    env: Env,
    path: Option<String>,
    ttl: Option<f64>,
    capacity: Option<f64>,
) -> Result<StashHandle> {
    let env = env.raw();
    let config = config(env, ttl, capacity, DEFAULT_CAPACITY)?;
    let opened = StoreSpec::resolve(StoreKind::Sqlite, path.as_deref().map(std::path::Path::new), None)
        .and_then(|spec| spec.open_with(config).map(|s| (spec, s)));
    let (spec, store) = opened.map_err(|e| throw_store(env, &e, None))?;
    let path = spec.path().map(|p| p.to_string_lossy().into_owned());
    Ok(StashHandle::new(store, path, "SqliteStash"))
}

/// A stash in this process's memory.
#[napi(js_name = "openMemoryStash")]
pub fn open_memory_stash(env: Env, ttl: Option<f64>, capacity: Option<f64>) -> Result<StashHandle> {
    let store = StoreSpec::Memory
        .open_with(config(env.raw(), ttl, capacity, DEFAULT_MEMORY_CAPACITY)?)
        .map_err(|e| throw_store(env.raw(), &e, None))?;
    Ok(StashHandle::new(store, None, "MemoryStash"))
}

/// One part left out.
#[napi(object)]
pub struct OmissionResult {
    #[napi(ts_type = "'records' | 'items' | 'chars'")]
    pub unit: String,
    pub key: Option<String>,
    pub omitted: u32,
    pub of: u32,
}

/// Result of [`truncate_text`].
#[napi(object)]
pub struct TruncationResult {
    pub text: String,
    pub json: String,
    pub truncated: bool,
    pub kept: Option<String>,
    pub tokens: u32,
    pub original_tokens: u32,
    pub keys: Vec<String>,
    pub omissions: Vec<OmissionResult>,
}

/// Budget-sized compact STC with stash markers (see `index.js` `truncate`).
#[napi(js_name = "truncate")]
#[allow(clippy::too_many_arguments)]
pub fn truncate_text(
    env: Env,
    json: Unknown,
    stash: Option<&StashHandle>,
    budget: Option<f64>,
    truncate_arrays_at: Option<f64>,
    lossy: bool,
    retrieve_tool: Option<String>,
    tokenizer_name: Option<String>,
    max_depth: Option<u32>,
    version_number: Option<f64>,
) -> Result<TruncationResult> {
    let env = env.raw();
    let count = |what: &str, v: Option<f64>| -> Result<Option<usize>> {
        match v {
            None => Ok(None),
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 1e15 => Ok(Some(n as usize)),
            Some(n) => Err(invalid(format!("{what} must be a non-negative integer, got {n}"))),
        }
    };
    let mut plan =
        count("truncateArraysAt", truncate_arrays_at)?.map(PlanOptions::with_array_budget).unwrap_or_default();
    plan.recoverable = !lossy;
    if let Some(name) = &retrieve_tool {
        plan.recovery = Recovery::Tool(ToolName::new(name).map_err(|m| range_error(env, &m))?);
    }
    if lossy && stash.is_some() {
        return Err(invalid("lossy: true stashes nothing; pass stash: null".to_string()));
    }
    let store = match stash {
        Some(h) => Some(h.get(env)?),
        None => None,
    };
    // Over Default: stc-stash may add options this call leaves at their defaults.
    #[allow(clippy::needless_update)]
    let options = TruncateOptions {
        plan,
        token_budget: count("budget", budget)?,
        // The core's refusal of a value is a RangeError, as everywhere (InvalidArg is a TypeError here).
        tokenizer: tokenizer(tokenizer_name, stc_core::Tokenizer::Estimate).map_err(|e| range_error(env, &e.reason))?,
        limits: limits(max_depth),
        version: version(version_number).map_err(|e| range_error(env, &e.reason))?,
        ..TruncateOptions::default()
    };
    let input = Input::read(env, json.value().value)?;
    let text = input.as_str().map_err(|e| throw_stc(env, &e, input.text()))?;
    let out = stc_stash::truncate(text, store.as_deref(), &options).map_err(|e| match e {
        TruncateError::Input(e) => throw_stc(env, &e, input.text()),
        other => throw_stash(env, &other.to_string(), other.kind(), other.retryable(), None),
    })?;
    Ok(TruncationResult {
        keys: out.writes.iter().map(|w| w.key.as_str().to_string()).collect(),
        omissions: out
            .omissions
            .iter()
            .map(|o| OmissionResult {
                unit: o.unit.name().to_string(),
                key: (!lossy).then(|| o.key.as_str().to_string()),
                omitted: o.omitted as u32,
                of: o.of as u32,
            })
            .collect(),
        truncated: out.kept.is_none(),
        kept: out.kept.map(|k| k.code().to_string()),
        tokens: out.tokens as u32,
        original_tokens: out.original_tokens as u32,
        text: out.stc,
        json: out.json,
    })
}

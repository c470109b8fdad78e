//! The stash in the browser: `MemoryStash`, `truncate` and `retrieve`, with
//! the shapes of the Node package (`new MemoryStash({ttl, capacity})`,
//! `truncate(json, {stash, budget, truncateArraysAt, lossy, retrieveTool,
//! maxDepth, version})`, `retrieve(key, {stash})`).
//!
//! Only conversions: what is cut, the markers, the keys, the store, the
//! error codes and messages are `stc-stash`'s. The browser has no file
//! system, so the only store is the memory one (entries live as long as the
//! page). WebAssembly has no clock of its own: the store reads
//! `Date.now()`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use js_sys::{Array, Object, Reflect};
use stc_stash::{
    Clock, MemoryStore, PlanOptions, Recovery, RetrieveError, StashStore, StoreConfig, StoreError, ToolName,
    TruncateError, TruncateOptions, DEFAULT_MEMORY_CAPACITY,
};
use wasm_bindgen::prelude::*;

use crate::errors::{js_error, range_error, type_error};
use crate::input::text_arg;
use crate::options::{field, limits_opt, tokenizer_opt};

/// The stash types of both JavaScript packages (one file, `js-shared/stash.d.ts`).
#[wasm_bindgen(typescript_custom_section)]
const TS_STASH_SHARED: &str = include_str!("../../js-shared/stash.d.ts");

/// What only the browser package declares: its error shape and store.
#[wasm_bindgen(typescript_custom_section)]
const TS_STASH: &str = r#"
/** A stash operation failed: an `Error` named `StashError` (`code`, `retryable`, `key`). */
export interface StashError extends Error, StashErrorFields {
  name: 'StashError';
}
/** Options of `truncate`: the browser's only store is `MemoryStash`, its only tokenizer the estimate. */
export interface TruncateOptions extends TruncateOptionsOf<MemoryStash, TokenizerName, StcVersion> {}
"#;

/// `Date.now()`: the only clock a wasm32-unknown-unknown module has.
#[derive(Debug, Clone, Copy)]
struct DateClock;

impl Clock for DateClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now().max(0.0) as u64
    }
}

thread_local! {
    /// The open stores by id: `truncate`/`retrieve` find a `MemoryStash`
    /// passed inside an options object through its id.
    static STORES: RefCell<HashMap<u32, Arc<MemoryStore>>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

/// An `Error` named `StashError` with `code`, `retryable` and `key`.
fn stash_error(message: &str, code: &str, retryable: bool, key: Option<&str>) -> JsValue {
    let err = js_sys::Error::new(message);
    let set = |k: &str, v: JsValue| {
        let _ = Reflect::set(&err, &JsValue::from_str(k), &v);
    };
    set("name", JsValue::from_str("StashError"));
    set("code", JsValue::from_str(code));
    set("retryable", JsValue::from_bool(retryable));
    set("key", key.map_or(JsValue::NULL, JsValue::from_str));
    err.into()
}

fn store_error(e: &StoreError) -> JsValue {
    stash_error(&e.to_string(), e.kind(), e.is_transient(), None)
}

fn retrieve_error(e: &RetrieveError) -> JsValue {
    stash_error(&e.to_string(), e.kind(), e.retryable(), e.key().map(|k| k.as_str()))
}

/// `version`: a number, checked by stc-core's `Version::try_from` (`options::version_opt`).
fn version_number(options: &JsValue) -> Result<stc_core::Version, JsValue> {
    crate::options::version_opt(options)
}

/// A non-negative integer option, or `None`.
fn count_opt(options: &JsValue, name: &str) -> Result<Option<usize>, JsValue> {
    match field(options, name)? {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 1e15 => Ok(Some(n as usize)),
            Some(n) => Err(range_error(&format!("{name} must be a non-negative integer, got {n}"))),
            None => Err(type_error(&format!("{name} must be a number"))),
        },
    }
}

/// A stash in this page's memory: what `truncate` leaves out, under content
/// keys, until the TTL passes or capacity evicts it (oldest writes first).
#[wasm_bindgen]
pub struct MemoryStash {
    id: u32,
}

#[wasm_bindgen]
impl MemoryStash {
    /// `new MemoryStash({ttl, capacity})`: `ttl` in seconds (default 7
    /// days), `capacity` in entries (default 1 000).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "StashOptions")] options: Option<JsValue>,
    ) -> Result<MemoryStash, JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        // The types are checked here; the ranges by stc-stash (`StoreConfig::new`).
        let number = |name: &str| -> Result<Option<f64>, JsValue> {
            match field(&options, name)? {
                None => Ok(None),
                Some(v) => v.as_f64().map(Some).ok_or_else(|| type_error(&format!("{name} must be a number"))),
            }
        };
        let (capacity, ttl) = (number("capacity")?, number("ttl")?);
        let mut config =
            StoreConfig::new(ttl, capacity, DEFAULT_MEMORY_CAPACITY).map_err(|e| range_error(&e.to_string()))?;
        config.clock = Arc::new(DateClock);
        let store = MemoryStore::with_config(config).map_err(|e| store_error(&e))?;
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1).max(1));
            id
        });
        STORES.with(|s| s.borrow_mut().insert(id, Arc::new(store)));
        Ok(MemoryStash { id })
    }

    /// The exact original stashed under `key`; throws `StashError`.
    pub fn retrieve(&self, #[wasm_bindgen(unchecked_param_type = "string")] key: &JsValue) -> Result<String, JsValue> {
        retrieve_in(self.store()?, key)
    }

    /// Live entries.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> Result<u32, JsValue> {
        let n = self.store()?.len().map_err(|e| store_error(&e))?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Drops the entries; later calls throw `StashError` with code `closed`.
    pub fn close(&self) {
        STORES.with(|s| s.borrow_mut().remove(&self.id));
    }

    /// Internal: how `truncate` and `retrieve` find this store in an options object.
    #[wasm_bindgen(getter = __stcStashId, skip_typescript)]
    pub fn stash_id(&self) -> u32 {
        self.id
    }

    fn store(&self) -> Result<Arc<MemoryStore>, JsValue> {
        lookup(self.id).ok_or_else(|| store_error(&StoreError::Closed("MemoryStash".into())))
    }
}

impl Drop for MemoryStash {
    fn drop(&mut self) {
        STORES.with(|s| s.borrow_mut().remove(&self.id));
    }
}

fn lookup(id: u32) -> Option<Arc<MemoryStore>> {
    STORES.with(|s| s.borrow().get(&id).cloned())
}

/// The store of `options.stash`: `Ok(None)` for `null`.
fn stash_opt(options: &JsValue, required: bool) -> Result<Option<Arc<MemoryStore>>, JsValue> {
    let wrong = || type_error("options.stash must be a MemoryStash or null");
    if !options.is_object() {
        return Err(type_error("options must be an object"));
    }
    let v = Reflect::get(options, &JsValue::from_str("stash"))?;
    if v.is_undefined() && required {
        return Err(type_error("options.stash is required: a MemoryStash or null"));
    }
    if v.is_null() || v.is_undefined() {
        return Ok(None);
    }
    if !v.is_object() {
        return Err(wrong());
    }
    let id = Reflect::get(&v, &JsValue::from_str("__stcStashId")).ok().and_then(|id| id.as_f64()).ok_or_else(wrong)?;
    match lookup(id as u32) {
        Some(store) => Ok(Some(store)),
        None => Err(store_error(&StoreError::Closed("MemoryStash".into()))),
    }
}

fn retrieve_in(store: Arc<MemoryStore>, key: &JsValue) -> Result<String, JsValue> {
    let key = key.as_string().ok_or_else(|| type_error("key must be a string"))?;
    let key = stc_stash::parse_key(&key).map_err(|e| retrieve_error(&e))?;
    stc_stash::retrieve_text(store.as_ref(), &key).map_err(|e| retrieve_error(&e))
}

/// `retrieve(key, {stash})`: the exact original stashed under `key`. The key
/// is checked before the store is looked at. Throws `StashError`.
#[wasm_bindgen(js_name = retrieve, skip_jsdoc)]
pub fn retrieve(
    #[wasm_bindgen(unchecked_param_type = "string")] key: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "{ stash: MemoryStash }")] options: &JsValue,
) -> Result<String, JsValue> {
    let text = key.as_string().ok_or_else(|| type_error("key must be a string"))?;
    stc_stash::parse_key(&text).map_err(|e| retrieve_error(&e))?;
    match stash_opt(options, true)? {
        Some(store) => retrieve_in(store, key),
        None => Err(type_error("options.stash must be a MemoryStash")),
    }
}

/// `truncate(json, {stash, budget, truncateArraysAt, lossy, retrieveTool,
/// maxDepth, version})`: budget-sized compact STC whose markers say how to get the
/// omitted parts back. Throws `StcError` for invalid JSON, `StashError` when
/// the store fails, `TypeError`/`RangeError` for bad options.
#[wasm_bindgen(js_name = truncate, unchecked_return_type = "Truncation", skip_jsdoc)]
pub fn truncate(
    #[wasm_bindgen(unchecked_param_type = "Input")] json: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "TruncateOptions")] options: &JsValue,
) -> Result<JsValue, JsValue> {
    let store = stash_opt(options, true)?;
    let lossy = crate::options::bool_opt(options, "lossy")?;
    if lossy && store.is_some() {
        return Err(type_error("lossy: true stashes nothing; pass stash: null"));
    }
    let mut plan = count_opt(options, "truncateArraysAt")?.map(PlanOptions::with_array_budget).unwrap_or_default();
    plan.recoverable = !lossy;
    if let Some(v) = field(options, "retrieveTool")? {
        let name = v.as_string().ok_or_else(|| type_error("retrieveTool must be a string"))?;
        plan.recovery = Recovery::Tool(ToolName::new(&name).map_err(|m| range_error(&m))?);
    }
    // Fields this binding does not set keep their defaults (stc-stash adds options over time).
    #[allow(clippy::needless_update)]
    let topts = TruncateOptions {
        plan,
        token_budget: count_opt(options, "budget")?,
        tokenizer: tokenizer_opt(field(options, "tokenizer")?)?,
        limits: limits_opt(options)?,
        version: version_number(options)?,
        ..TruncateOptions::default()
    };
    let text = text_arg(json, "json")?.into_string()?;
    let store_ref = store.as_deref().map(|s| s as &dyn StashStore);
    let out = stc_stash::truncate(&text, store_ref, &topts).map_err(|e| match e {
        TruncateError::Input(e) => js_error(&e, Some(&text)),
        other => stash_error(&other.to_string(), other.kind(), other.retryable(), None),
    })?;
    let result = Object::new();
    let set = |o: &Object, k: &str, v: JsValue| Reflect::set(o, &JsValue::from_str(k), &v).map(|_| ());
    set(&result, "text", JsValue::from_str(&out.stc))?;
    set(&result, "json", JsValue::from_str(&out.json))?;
    set(&result, "truncated", JsValue::from_bool(out.kept.is_none()))?;
    set(&result, "kept", out.kept.map_or(JsValue::NULL, |k| JsValue::from_str(k.code())))?;
    set(&result, "tokens", JsValue::from_f64(out.tokens as f64))?;
    set(&result, "originalTokens", JsValue::from_f64(out.original_tokens as f64))?;
    let keys: Array = out.writes.iter().map(|w| JsValue::from_str(w.key.as_str())).collect();
    set(&result, "keys", keys.into())?;
    let omissions = Array::new();
    for o in &out.omissions {
        let item = Object::new();
        set(&item, "unit", JsValue::from_str(o.unit.name()))?;
        set(&item, "key", if lossy { JsValue::NULL } else { JsValue::from_str(o.key.as_str()) })?;
        set(&item, "omitted", JsValue::from_f64(o.omitted as f64))?;
        set(&item, "of", JsValue::from_f64(o.of as f64))?;
        omissions.push(&item);
    }
    set(&result, "omissions", omissions.into())?;
    Ok(result.into())
}

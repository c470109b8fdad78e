//! The in-memory store, for tests and a single process.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::key::Key;
use crate::store::{check_payload, Lookup, StashStore, StashWrite, StoreConfig, StoreError, DEFAULT_MEMORY_CAPACITY};

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    /// generation -> key, for FIFO eviction.
    order: BTreeMap<u64, Key>,
    /// The highest generation ever handed out.
    high_water: u64,
}

#[derive(Debug)]
struct Entry {
    payload: Vec<u8>,
    generation: u64,
    expires_at: u64,
}

/// A store in process memory: one lock around a map.
///
/// ```
/// use stc_stash::{Lookup, MemoryStore, StashStore};
/// let store = MemoryStore::new();
/// let write = store.stash(b"[1,2,3]").unwrap();
/// assert_eq!(store.retrieve(&write.key).unwrap(), Lookup::Found(b"[1,2,3]".to_vec()));
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    config: StoreConfig,
    inner: Mutex<Inner>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// A store with the default TTL and [`DEFAULT_MEMORY_CAPACITY`].
    pub fn new() -> MemoryStore {
        MemoryStore { config: StoreConfig::with_capacity(DEFAULT_MEMORY_CAPACITY), inner: Mutex::default() }
    }

    /// A store with the given TTL, capacity and clock.
    pub fn with_config(config: StoreConfig) -> Result<MemoryStore, StoreError> {
        config.check()?;
        Ok(MemoryStore { config, inner: Mutex::default() })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic in another thread cannot leave the map half-updated (every
        // update is a few infallible steps), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    fn remove(&mut self, key: &Key) {
        if let Some(e) = self.entries.remove(key) {
            self.order.remove(&e.generation);
        }
    }
}

impl StashStore for MemoryStore {
    fn stash(&self, payload: &[u8]) -> Result<StashWrite, StoreError> {
        check_payload(payload)?;
        let key = Key::of(payload);
        let now = self.config.clock.now_ms();
        let mut inner = self.lock();
        let generation = inner.high_water.checked_add(1).filter(|g| *g <= i64::MAX as u64);
        let generation = generation.ok_or(StoreError::GenerationExhausted)?;
        inner.high_water = generation;
        let previous_generation = match inner.entries.get(&key) {
            Some(e) if e.expires_at > now => Some(e.generation),
            _ => None,
        };
        inner.remove(&key);
        let expires_at = now.saturating_add(self.config.ttl_ms());
        inner.entries.insert(key, Entry { payload: payload.to_vec(), generation, expires_at });
        inner.order.insert(generation, key);
        // Expired entries go first, then the oldest writes beyond capacity.
        let dead: Vec<Key> = inner.entries.iter().filter(|(_, e)| e.expires_at <= now).map(|(k, _)| *k).collect();
        for k in dead {
            inner.remove(&k);
        }
        while inner.entries.len() > self.config.capacity {
            let Some((_, oldest)) = inner.order.pop_first() else { break };
            inner.entries.remove(&oldest);
        }
        Ok(StashWrite { key, generation, previous_generation })
    }

    fn retrieve(&self, key: &Key) -> Result<Lookup, StoreError> {
        let now = self.config.clock.now_ms();
        let inner = self.lock();
        Ok(match inner.entries.get(key) {
            Some(e) if e.expires_at > now => Lookup::Found(e.payload.clone()),
            Some(_) => Lookup::Expired,
            None => Lookup::Missing,
        })
    }

    fn rollback(&self, key: &Key, generation: u64) -> Result<bool, StoreError> {
        let mut inner = self.lock();
        match inner.entries.get(key) {
            Some(e) if e.generation == generation => {
                inner.remove(key);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn len(&self) -> Result<usize, StoreError> {
        let now = self.config.clock.now_ms();
        Ok(self.lock().entries.values().filter(|e| e.expires_at > now).count())
    }

    fn describe(&self) -> String {
        "memory".to_string()
    }
}

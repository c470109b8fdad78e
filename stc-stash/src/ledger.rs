//! The per-call ledger: commit the stash writes an output references, roll
//! back the rest.

use std::collections::BTreeMap;

use crate::key::Key;
use crate::store::{StashStore, StashWrite, StoreError};

/// The stash writes of one call (one tool response, one `stc encode`),
/// settled once the output that is actually sent is known.
///
/// A key enters the ledger when this call **created** it. A later write of
/// the same key by this call updates the ledger's generation only if the
/// store reports an unbroken chain (`previous_generation` equals the
/// generation the ledger holds); otherwise another process refreshed the
/// entry in between and may have sent a marker for it, so the key leaves
/// the ledger and is never rolled back by this call. A rollback is a
/// compare-and-delete on the generation, so a stale one changes nothing.
///
/// ```
/// use stc_stash::{Ledger, MemoryStore, StashStore};
/// let store = MemoryStore::new();
/// let mut ledger = Ledger::new();
/// let kept = store.stash(b"[1]").unwrap();
/// let dropped = store.stash(b"[2]").unwrap();
/// ledger.record(kept);
/// ledger.record(dropped);
/// let settled = ledger.settle(&store, &[kept.key]).unwrap();
/// assert_eq!(settled.rolled_back, vec![dropped.key]);
/// assert_eq!(store.len().unwrap(), 1);
/// ```
#[derive(Debug, Default, Clone)]
pub struct Ledger {
    owned: BTreeMap<Key, u64>,
}

/// What [`Ledger::settle`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Settlement {
    /// Owned keys the output references: kept.
    pub committed: Vec<Key>,
    /// Owned keys the output does not reference: deleted.
    pub rolled_back: Vec<Key>,
    /// Owned keys whose rollback found a newer generation (another writer
    /// refreshed them): left in place.
    pub skipped: Vec<Key>,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Records a write of this call.
    pub fn record(&mut self, write: StashWrite) {
        match write.previous_generation {
            None => {
                self.owned.insert(write.key, write.generation);
            }
            Some(prev) if self.owned.get(&write.key) == Some(&prev) => {
                self.owned.insert(write.key, write.generation);
            }
            Some(_) => {
                self.owned.remove(&write.key);
            }
        }
    }

    /// The keys this call owns, with the generation it would roll back.
    pub fn owned(&self) -> impl Iterator<Item = (&Key, &u64)> {
        self.owned.iter()
    }

    /// Keeps the owned keys in `referenced` and rolls back the others.
    /// Every rollback is attempted; the first store error is returned.
    pub fn settle(self, store: &dyn StashStore, referenced: &[Key]) -> Result<Settlement, StoreError> {
        let mut s = Settlement::default();
        let mut error = None;
        for (key, generation) in self.owned {
            if referenced.contains(&key) {
                s.committed.push(key);
                continue;
            }
            match store.rollback(&key, generation) {
                Ok(true) => s.rolled_back.push(key),
                Ok(false) => s.skipped.push(key),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(s),
        }
    }

    /// Rolls back every owned key (the output was discarded).
    pub fn rollback(self, store: &dyn StashStore) -> Result<Settlement, StoreError> {
        self.settle(store, &[])
    }
}

//! The stash in the MCP services: which store holds what a truncation left
//! out, which keys a session has shown its client, and the retrieve tool
//! that answers only for those keys.
//!
//! Seed 001 (Stash) is explicit that a stateless retrieve tool accepting any
//! hash is not an authorized one: anyone who can guess or copy a key from
//! elsewhere would read whatever another session stashed. So both `stc mcp`
//! and `stc mcp-proxy` keep a [`Shown`] set per session (the process's one
//! stdio connection) and refuse every other key with a tool error, before the
//! store is read.
//!
//! Retrieved content is handed out exactly as stashed, never re-encoded or
//! truncated: the store notes the retrieval ([`StashStore::mark_retrieved`],
//! which `stc_stash::truncate` respects), and the result carries
//! `_meta: {"stc/retrieved": KEY}`, which `stc mcp-proxy` never rewrites.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use stc_stash::{Key, Lookup, MemoryStore, RedisStore, SqliteStore, StashStore, StoreError};

/// Default name of the retrieve tool.
pub const DEFAULT_RETRIEVE_TOOL: &str = "stc_retrieve";

/// The `_meta` member that marks a tool result as retrieved stash content;
/// `stc mcp-proxy` never rewrites a result that carries it.
pub const RETRIEVED_META: &str = "stc/retrieved";

/// Which stash store to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// An in-memory store that lives as long as the process (one session).
    Memory,
    /// A SQLite file (already checked against the path policy by the caller).
    Sqlite(PathBuf),
    /// A Redis server.
    Redis(String),
}

impl StoreSpec {
    /// Opens the store.
    pub fn open(&self) -> Result<Arc<dyn StashStore>, StoreError> {
        Ok(match self {
            StoreSpec::Memory => Arc::new(MemoryStore::new()),
            StoreSpec::Sqlite(path) => Arc::new(SqliteStore::open(path)?),
            StoreSpec::Redis(url) => Arc::new(RedisStore::open(url)?),
        })
    }
}

/// A store opened on first use and kept open; a failed open is retried on
/// the next use (a Redis server may come up later).
#[derive(Debug)]
pub struct LazyStore {
    spec: StoreSpec,
    store: Mutex<Option<Arc<dyn StashStore>>>,
}

impl LazyStore {
    /// A store that is not opened yet.
    pub fn new(spec: StoreSpec) -> LazyStore {
        LazyStore { spec, store: Mutex::new(None) }
    }

    /// A store that is already open.
    pub fn opened(spec: StoreSpec, store: Arc<dyn StashStore>) -> LazyStore {
        LazyStore { spec, store: Mutex::new(Some(store)) }
    }

    /// Which store this is.
    pub fn spec(&self) -> &StoreSpec {
        &self.spec
    }

    /// The open store, opening it if needed.
    pub fn get(&self) -> Result<Arc<dyn StashStore>, StoreError> {
        let mut guard = self.store.lock().map_err(|_| StoreError::Unavailable("stash store lock poisoned".into()))?;
        if let Some(s) = guard.as_ref() {
            return Ok(s.clone());
        }
        let s = self.spec.open()?;
        *guard = Some(s.clone());
        Ok(s)
    }
}

/// The keys of the markers a session has shown its client.
#[derive(Debug, Clone, Default)]
pub struct Shown(Arc<Mutex<HashSet<Key>>>);

impl Shown {
    /// Notes keys as shown.
    pub fn add(&self, keys: impl IntoIterator<Item = Key>) {
        if let Ok(mut set) = self.0.lock() {
            set.extend(keys);
        }
    }

    /// True if a marker with this key was shown.
    pub fn contains(&self, key: &Key) -> bool {
        self.0.lock().is_ok_and(|set| set.contains(key))
    }

    /// How many keys were shown.
    pub fn len(&self) -> usize {
        self.0.lock().map_or(0, |set| set.len())
    }

    /// True if no key was shown.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Shows at most 64 characters of untrusted text, escaped.
fn shown_text(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    if cut.len() < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// What a retrieve request gets: the payload, or the text of a tool error.
///
/// The key is parsed first (24 lowercase hex), then checked against the keys
/// this session has shown; only then is the store read. A found payload is
/// checked against its key and marked retrieved in the store.
///
/// ```
/// use stc_mcp::stash::{retrieve, LazyStore, Shown, StoreSpec};
/// let store = LazyStore::new(StoreSpec::Memory);
/// let shown = Shown::default();
/// let key = store.get().unwrap().stash(b"[1,2,3]").unwrap().key;
/// assert!(retrieve(&store, &shown, key.as_str(), "stc_retrieve").unwrap_err().contains("not shown"));
/// shown.add([key]);
/// assert_eq!(retrieve(&store, &shown, key.as_str(), "stc_retrieve").unwrap().1, "[1,2,3]");
/// assert!(retrieve(&store, &shown, "../etc/passwd", "stc_retrieve").unwrap_err().contains("invalid key"));
/// ```
pub fn retrieve(store: &LazyStore, shown: &Shown, key_text: &str, tool: &str) -> Result<(Key, String), String> {
    const NO_RETRY: &str = "retrying will not help; re-run the tool call that produced the marker to get fresh data";
    let key = Key::parse(key_text).map_err(|e| format!("invalid key {}: {e}", shown_text(key_text)))?;
    if !shown.contains(&key) {
        return Err(format!(
            "key {key} was not shown in this session: {tool} answers only for the keys of stash markers that this \
             server has sent to this client (a retrieve that accepted any key would hand out what other sessions \
             stashed)"
        ));
    }
    let store = store.get().map_err(|e| store_failure(&e))?;
    match store.retrieve(&key) {
        Ok(Lookup::Found(payload)) => {
            if Key::of(&payload) != key {
                return Err(format!(
                    "the stash entry {key} in {} does not match its key; {NO_RETRY}",
                    store.describe()
                ));
            }
            let text = String::from_utf8(payload)
                .map_err(|_| format!("the stash entry {key} is not UTF-8 text; {NO_RETRY}"))?;
            // From now on the stash never cuts this content again.
            if let Err(e) = store.mark_retrieved(&key) {
                eprintln!("stc: warning: could not note the retrieval of {key} ({e})");
            }
            Ok((key, text))
        }
        Ok(Lookup::Expired) => Err(format!(
            "entry {key} in {} has expired (entries live {} days after their last write); {NO_RETRY}",
            store.describe(),
            stc_stash::DEFAULT_TTL.as_secs() / 86_400
        )),
        Ok(Lookup::Missing) => {
            Err(format!("no entry {key} in {} (evicted, or removed from the store); {NO_RETRY}", store.describe()))
        }
        Err(e) => Err(store_failure(&e)),
    }
}

/// The message for a store failure, saying whether retrying can help.
pub fn store_failure(e: &StoreError) -> String {
    if e.is_transient() {
        format!("{e}; retrying may help once the store is reachable")
    } else {
        format!("{e}; retrying will not help")
    }
}

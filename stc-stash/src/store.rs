//! The store abstraction shared by the memory, SQLite and Redis stores.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SystemClock};
use crate::key::Key;
use crate::retrieve::{MAY_RETRY, NO_RETRY};

/// Default lifetime of an entry: 7 days.
///
/// Agent sessions run for hours and are resumed days later; a short TTL (the
/// 5 minutes of Headroom's CCR) made markers dangle in the middle of long
/// jobs. Entries are small and capacity bounds the total, so a long TTL is cheap.
pub const DEFAULT_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Default capacity of the memory store (entries).
pub const DEFAULT_MEMORY_CAPACITY: usize = 1_000;

/// Default capacity of the SQLite and Redis stores (entries).
pub const DEFAULT_CAPACITY: usize = 10_000;

/// The largest payload a store accepts (64 MiB).
pub const MAX_PAYLOAD: usize = 64 << 20;

/// Lifetime, capacity and clock of a store.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// How long an entry lives after its last write (create or refresh).
    pub ttl: Duration,
    /// How many live entries the store keeps; beyond it the entries written
    /// longest ago (lowest generation) are evicted first (FIFO). At least 1.
    pub capacity: usize,
    /// The time source (the system clock unless a test injects one).
    pub clock: Arc<dyn Clock>,
}

impl StoreConfig {
    /// The defaults: [`DEFAULT_TTL`] and the given capacity, system clock.
    pub fn with_capacity(capacity: usize) -> StoreConfig {
        StoreConfig { ttl: DEFAULT_TTL, capacity: capacity.max(1), clock: Arc::new(SystemClock) }
    }

    pub(crate) fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX / 4).min(u64::MAX / 4)
    }

    /// The configuration a caller's options name, checked: `ttl_seconds` (a
    /// positive number of seconds, default [`DEFAULT_TTL`]) and `capacity` (a
    /// positive integer, default `default_capacity`), system clock. This is
    /// the one check of these options: the bindings pass what their caller
    /// gave, and report the error's message as their own range error.
    ///
    /// ```
    /// use stc_stash::{StoreConfig, DEFAULT_MEMORY_CAPACITY};
    /// let c = StoreConfig::new(Some(60.0), None, DEFAULT_MEMORY_CAPACITY).unwrap();
    /// assert_eq!((c.ttl.as_secs(), c.capacity), (60, DEFAULT_MEMORY_CAPACITY));
    /// let e = StoreConfig::new(None, Some(1.5), 10).unwrap_err();
    /// assert_eq!(e.to_string(), "capacity must be a positive integer, got 1.5");
    /// assert_eq!(e.option(), "capacity");
    /// ```
    pub fn new(
        ttl_seconds: Option<f64>,
        capacity: Option<f64>,
        default_capacity: usize,
    ) -> Result<StoreConfig, ConfigError> {
        let mut config = StoreConfig::with_capacity(default_capacity);
        if let Some(c) = capacity {
            config.capacity = checked_capacity(c)?;
        }
        if let Some(t) = ttl_seconds {
            config.ttl = checked_ttl(t)?;
        }
        Ok(config)
    }

    pub(crate) fn check(&self) -> Result<(), StoreError> {
        if self.capacity == 0 {
            return Err(ConfigError::capacity(0.0).into());
        }
        if self.ttl.is_zero() {
            return Err(ConfigError::ttl(0.0).into());
        }
        Ok(())
    }
}

/// The largest capacity [`StoreConfig::new`] accepts (10^15: every such
/// integer is exact in an `f64`, the number type of the bindings' callers).
pub const MAX_CAPACITY: f64 = 1e15;

fn checked_capacity(c: f64) -> Result<usize, ConfigError> {
    if c >= 1.0 && c.fract() == 0.0 && c <= MAX_CAPACITY {
        Ok(c as usize)
    } else {
        Err(ConfigError::capacity(c))
    }
}

fn checked_ttl(t: f64) -> Result<Duration, ConfigError> {
    Duration::try_from_secs_f64(t).ok().filter(|d| !d.is_zero()).ok_or(ConfigError::ttl(t))
}

/// A store option out of its range: which option, and the one message for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    option: &'static str,
    message: String,
}

impl ConfigError {
    fn capacity(got: f64) -> ConfigError {
        ConfigError { option: "capacity", message: format!("capacity must be a positive integer, got {got}") }
    }

    fn ttl(got: f64) -> ConfigError {
        ConfigError { option: "ttl", message: format!("ttl must be a positive number of seconds, got {got}") }
    }

    /// The option's name (`ttl`, `capacity`).
    pub fn option(&self) -> &'static str {
        self.option
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

impl From<ConfigError> for StoreError {
    fn from(e: ConfigError) -> Self {
        StoreError::Config(e.message)
    }
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig::with_capacity(DEFAULT_CAPACITY)
    }
}

/// What a successful [`StashStore::stash`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StashWrite {
    /// The key of the payload, computed by the store.
    pub key: Key,
    /// The ownership token of this write: store-wide, strictly increasing,
    /// never reused (not after expiry, deletion or eviction either).
    pub generation: u64,
    /// The generation of the live entry this write refreshed, or `None` if
    /// the write created the entry.
    pub previous_generation: Option<u64>,
}

impl StashWrite {
    /// True if this write created the entry (no live entry held the key).
    pub fn created(&self) -> bool {
        self.previous_generation.is_none()
    }
}

/// The result of a lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The payload, exactly as stashed.
    Found(Vec<u8>),
    /// The entry existed but its TTL has passed; it will not come back.
    Expired,
    /// The store has no entry under this key (never stashed, evicted,
    /// rolled back, or expired and purged).
    Missing,
}

/// A store failure.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be reached or answered with an error; retrying may help.
    Unavailable(String),
    /// The stored data is not what this version expects.
    Corrupt(String),
    /// The payload is larger than [`MAX_PAYLOAD`].
    TooLarge(usize),
    /// The generation counter is exhausted; nothing was changed.
    GenerationExhausted,
    /// A configuration or path is invalid.
    Config(String),
    /// The handle was closed by its owner (a binding's `close()`); the
    /// string names the handle (`SqliteStash`).
    Closed(String),
}

impl StoreError {
    /// True if the same call may succeed later (a busy or unreachable store,
    /// a Redis Cluster in the middle of a failover).
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// The stable code of this failure (`unavailable`, `corrupt`,
    /// `too_large`, `exhausted`, `config`, `closed`), as every front end
    /// reports it (Python `StashError.kind`, Node and browser
    /// `StashError.code`, the MCP tools' messages).
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::Unavailable(_) => "unavailable",
            StoreError::Corrupt(_) => "corrupt",
            StoreError::TooLarge(_) => "too_large",
            StoreError::GenerationExhausted => "exhausted",
            StoreError::Config(_) => "config",
            StoreError::Closed(_) => "closed",
        }
    }

    /// Whether retrying may help, in words ([`MAY_RETRY`] or [`NO_RETRY`]);
    /// the [`Display`](fmt::Display) text ends with it.
    pub fn retry_hint(&self) -> &'static str {
        if self.is_transient() {
            MAY_RETRY
        } else {
            NO_RETRY
        }
    }
}

/// The whole message of a failure, ending with whether retrying can help:
/// front ends show it as it is.
impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.what(f)?;
        write!(f, "; {}", self.retry_hint())
    }
}

impl StoreError {
    fn what(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(m) => write!(f, "stash store unavailable: {m}"),
            StoreError::Corrupt(m) => write!(f, "stash store holds unexpected data: {m}"),
            StoreError::TooLarge(n) => {
                write!(f, "payload of {n} bytes is larger than the stash limit of {MAX_PAYLOAD}")
            }
            StoreError::GenerationExhausted => f.write_str("stash generation counter exhausted; nothing was written"),
            StoreError::Config(m) => write!(f, "stash configuration: {m}"),
            StoreError::Closed(name) => write!(f, "this {name} is closed"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A stash store: payloads under content-derived keys, with a TTL and a FIFO capacity.
///
/// The trait is synchronous on purpose: SQLite is a blocking library, a
/// `stc` process does one stash or retrieve at a time, and an async caller
/// (the HTTP gateway, the MCP proxy) runs a call on `spawn_blocking`. A
/// store is shared between threads (`Send + Sync`); each call is atomic.
///
/// Contract (checked by `tests/contract.rs` against every store):
/// - [`stash`](StashStore::stash) computes the key itself, creates the entry
///   or refreshes a live one (new generation, TTL restarted), then evicts
///   expired entries and, beyond capacity, the lowest generations.
/// - Expired entries are never returned; [`len`](StashStore::len) counts
///   live entries only.
/// - [`rollback`](StashStore::rollback) deletes an entry only while it still
///   carries the given generation (compare-and-delete).
/// - Generations increase strictly across the whole store and are never
///   reused, also after expiry, rollback, eviction or reopening.
pub trait StashStore: Send + Sync + fmt::Debug {
    /// Stores `payload` under its key, or refreshes the live entry holding it.
    fn stash(&self, payload: &[u8]) -> Result<StashWrite, StoreError>;

    /// Reads the payload under `key`.
    fn retrieve(&self, key: &Key) -> Result<Lookup, StoreError>;

    /// Deletes the entry under `key` if its generation is still `generation`;
    /// returns whether it did.
    fn rollback(&self, key: &Key, generation: u64) -> Result<bool, StoreError>;

    /// Number of live (unexpired) entries.
    fn len(&self) -> Result<usize, StoreError>;

    /// True if no live entry exists.
    fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len()? == 0)
    }

    /// Which store this is, for messages ("memory", "sqlite PATH", "redis URL").
    fn describe(&self) -> String;
}

pub(crate) fn check_payload(payload: &[u8]) -> Result<(), StoreError> {
    if payload.len() > MAX_PAYLOAD {
        Err(StoreError::TooLarge(payload.len()))
    } else {
        Ok(())
    }
}

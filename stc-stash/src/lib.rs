//! The stash: recoverable truncation of oversized arrays, with memory, SQLite and Redis stores.
//!
//! A large tool response (a 500-record array) costs tokens even as STC. The
//! stash lets a caller send a budget-sized view instead: [`plan`] chooses
//! what to leave out (pure logic), the omitted parts are stored in a
//! [`StashStore`] under a key derived from their content ([`Key`]), and a
//! marker in the output tells the model how to get them back
//! (`stc retrieve KEY`). [`truncate`] does all of it in one call.
//!
//! [`StoreSpec`] turns store options (`memory`, `sqlite[:PATH]`, Redis URLs:
//! one a server, a comma-separated list a Redis Cluster) into an open store,
//! for every front end; [`StoreConfig::new`] checks `ttl` and `capacity`.
//! Every error's text ends with whether retrying can help, and its `kind()`
//! is a stable code.
//!
//! ```
//! use stc_stash::{truncate, MemoryStore, TruncateOptions, references_in};
//! let json = format!("[{}]", (0..100).map(|i| format!(r#"{{"id":{i}}}"#)).collect::<Vec<_>>().join(","));
//! let store = MemoryStore::new();
//! let out = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
//! assert!(out.stc.contains("stc retrieve"));
//! assert_eq!(references_in(&out.stc).len(), 1);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod clock;
mod key;
mod ledger;
mod marker;
mod memory;
#[cfg(unix)]
pub mod paths;
mod plan;
#[cfg(feature = "redis")]
mod redis_store;
mod retrieve;
mod spec;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store;
mod truncate;
mod value;

pub use clock::{Clock, ManualClock, SystemClock};
pub use key::{Key, KeyError, KEY_HEX_LEN};
pub use ledger::{Ledger, Settlement};
pub use marker::{
    contains_marker_member, marker_key, references, references_in, retrieve_command_key, MarkerInfo, MarkerSecret,
    Recovery, Seal, SealError, ToolName, Unit, MARKER_MEMBER, MIN_SECRET_BYTES, SEAL_HEX_LEN,
};
pub use memory::MemoryStore;
pub use plan::{
    is_error_like, plan, plan_with, restore, select_records, Omission, Plan, PlanOptions, RestoreError, MAX_PLAN_DEPTH,
};
#[cfg(feature = "redis")]
pub use redis_store::{RedisStore, DEFAULT_NAMESPACE, REPLICA_WAIT};
pub use retrieve::{parse_key, retrieve, retrieve_text, shown, RetrieveError, MAY_RETRY, NO_RETRY, REFETCH};
pub use spec::{RedisTarget, StoreKind, StoreSpec, DEFAULT_REDIS_URL, REDIS_URL_ENV};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub use store::{
    ConfigError, Lookup, StashStore, StashWrite, StoreConfig, StoreError, DEFAULT_CAPACITY, DEFAULT_MEMORY_CAPACITY,
    DEFAULT_TTL, MAX_CAPACITY, MAX_PAYLOAD,
};
pub use truncate::{truncate, Kept, TruncateError, TruncateOptions, Truncated};
pub use value::Value;

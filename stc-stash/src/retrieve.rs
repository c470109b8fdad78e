//! Retrieving a stashed original by the key of a marker, with the error
//! rules every front end shares (the `stc retrieve` command, the Python,
//! Node and browser bindings): a stable kind code, whether retrying can
//! help, and an escaped preview of an untrusted key.

use std::fmt;

use crate::key::{Key, KeyError};
use crate::store::{Lookup, StashStore, StoreError};

/// The hint of every failure that retrying cannot fix.
pub const NO_RETRY: &str = "retrying will not help";

/// The hint of a miss or an expired entry: the data is gone for good.
pub const REFETCH: &str = "retrying will not help; re-run the tool call that produced the marker to get fresh data";

/// The hint of a transient store failure.
pub const MAY_RETRY: &str = "retrying may help once the store is reachable";

/// At most 64 characters of untrusted text, escaped and quoted, with `…`
/// when cut: safe to put in a message or a log line.
///
/// ```
/// assert_eq!(stc_stash::shown("a\nb"), r#""a\nb""#);
/// assert_eq!(stc_stash::shown(&"x".repeat(100)), format!("\"{}\"…", "x".repeat(64)));
/// ```
pub fn shown(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    if cut.len() < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// Why a retrieve failed. The [`Display`](fmt::Display) text is the whole
/// message, ending with whether retrying can help.
#[derive(Debug)]
#[non_exhaustive]
pub enum RetrieveError {
    /// The key is not 24 lowercase hex characters; no store was read.
    InvalidKey {
        /// The offending text, [`shown`].
        shown: String,
        /// What is wrong with it.
        error: KeyError,
    },
    /// The entry's TTL has passed.
    Expired {
        /// The key.
        key: Key,
        /// The store ([`StashStore::describe`]).
        store: String,
    },
    /// The store has no entry under the key.
    Missing {
        /// The key.
        key: Key,
        /// The store ([`StashStore::describe`]).
        store: String,
    },
    /// The payload found under the key is not the one the key names.
    Mismatch {
        /// The key.
        key: Key,
        /// The store ([`StashStore::describe`]).
        store: String,
    },
    /// The payload is not UTF-8 (only from [`retrieve_text`]).
    NotText {
        /// The key.
        key: Key,
    },
    /// The store failed.
    Store {
        /// The key, when it was valid.
        key: Option<Key>,
        /// The failure.
        error: StoreError,
    },
}

impl RetrieveError {
    /// The stable code: `invalid_key`, `expired`, `not_found`, `corrupt`
    /// (not UTF-8), or the [`StoreError::kind`].
    pub fn kind(&self) -> &'static str {
        match self {
            RetrieveError::InvalidKey { .. } => "invalid_key",
            RetrieveError::Expired { .. } => "expired",
            RetrieveError::Missing { .. } => "not_found",
            RetrieveError::NotText { .. } | RetrieveError::Mismatch { .. } => "corrupt",
            RetrieveError::Store { error, .. } => error.kind(),
        }
    }

    /// True if the same call may succeed later.
    pub fn retryable(&self) -> bool {
        matches!(self, RetrieveError::Store { error, .. } if error.is_transient())
    }

    /// The key the failure is about, when the key was valid.
    pub fn key(&self) -> Option<&Key> {
        match self {
            RetrieveError::InvalidKey { .. } => None,
            RetrieveError::Expired { key, .. }
            | RetrieveError::Missing { key, .. }
            | RetrieveError::Mismatch { key, .. }
            | RetrieveError::NotText { key } => Some(key),
            RetrieveError::Store { key, .. } => key.as_ref(),
        }
    }
}

impl fmt::Display for RetrieveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetrieveError::InvalidKey { shown, error } => write!(f, "invalid key {shown}: {error}; {NO_RETRY}"),
            RetrieveError::Expired { key, store } => write!(f, "entry {key} in {store} has expired; {REFETCH}"),
            RetrieveError::Missing { key, store } => write!(
                f,
                "no entry {key} in {store} (never stashed there, evicted, rolled back, or expired and purged); {REFETCH}"
            ),
            RetrieveError::NotText { key } => write!(f, "entry {key} is not UTF-8 text; {NO_RETRY}"),
            RetrieveError::Mismatch { key, store } => {
                write!(f, "the stash entry {key} in {store} does not match its key; {NO_RETRY}")
            }
            RetrieveError::Store { error, .. } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for RetrieveError {}

/// Parses the key of a marker; an error shows the text escaped ([`shown`]).
pub fn parse_key(text: &str) -> Result<Key, RetrieveError> {
    Key::parse(text).map_err(|error| RetrieveError::InvalidKey { shown: shown(text), error })
}

/// Reads the original under `key`, exactly as stashed (a payload whose
/// hash is not the key is [`RetrieveError::Mismatch`]).
///
/// Nothing is noted in the store: what a retrieve hands out is exempt from
/// truncation only as that one output (a retrieve tool's result carries
/// `_meta: {"stc/retrieved": KEY}`, an adapter recognizes a `stc retrieve KEY`
/// command with [`crate::retrieve_command_key`]). A later read of the same
/// content, by this client or any other, is cut as usual.
pub fn retrieve(store: &dyn StashStore, key: &Key) -> Result<Vec<u8>, RetrieveError> {
    let failed = |error| RetrieveError::Store { key: Some(*key), error };
    match store.retrieve(key).map_err(failed)? {
        Lookup::Found(payload) if Key::of(&payload) == *key => Ok(payload),
        Lookup::Found(_) => Err(RetrieveError::Mismatch { key: *key, store: store.describe() }),
        Lookup::Expired => Err(RetrieveError::Expired { key: *key, store: store.describe() }),
        Lookup::Missing => Err(RetrieveError::Missing { key: *key, store: store.describe() }),
    }
}

/// [`retrieve`] for a text front end: the payload must be UTF-8.
pub fn retrieve_text(store: &dyn StashStore, key: &Key) -> Result<String, RetrieveError> {
    let payload = retrieve(store, key)?;
    String::from_utf8(payload).map_err(|_| RetrieveError::NotText { key: *key })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryStore;

    #[test]
    fn codes_hints_and_messages() {
        let store = MemoryStore::new();
        let e = parse_key("../../etc\u{7}").unwrap_err();
        assert_eq!((e.kind(), e.retryable(), e.key()), ("invalid_key", false, None));
        assert!(e.to_string().contains(r#""../../etc\u{7}""#), "{e}");
        let key = store.stash(b"[1,2]").unwrap().key;
        assert_eq!(retrieve_text(&store, &key).unwrap(), "[1,2]");
        let other = Key::of(b"never");
        let e = retrieve(&store, &other).unwrap_err();
        assert_eq!((e.kind(), e.key()), ("not_found", Some(&other)));
        assert!(e.to_string().ends_with(REFETCH), "{e}");
        let bin = store.stash(&[0xff, 0xfe]).unwrap().key;
        assert_eq!(retrieve_text(&store, &bin).unwrap_err().kind(), "corrupt");
        let e = RetrieveError::Store { key: None, error: StoreError::Unavailable("down".into()) };
        assert!(e.retryable() && e.to_string().ends_with(MAY_RETRY) && e.kind() == "unavailable");
    }
}

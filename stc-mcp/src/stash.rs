//! The stash in the MCP services: which store holds what a truncation left
//! out, how a retrieve tool knows which keys it may answer for, and the
//! host limits that `--budget auto` follows.
//!
//! Seed 001 (Stash) is explicit that a stateless retrieve tool accepting any
//! hash is not an authorized one: anyone who can guess or copy a key from
//! elsewhere would read whatever another session stashed. Two authorities
//! ([`Authority`]) refuse every other key with a tool error, before the store
//! is read:
//! - `stc mcp` keeps a [`Shown`] set per session (its one stdio connection);
//! - `stc mcp-proxy` **seals** the keys its markers write (`KEY.TAG`, a keyed
//!   BLAKE3 MAC bound to the client's identity, [`stc_stash::Seal`]), so it
//!   needs no session state: the MCP revision 2026-07-28 has no sessions, and
//!   several proxy processes that share a store and a secret
//!   ([`marker_secret`]) answer each other's markers.
//!
//! Retrieved content is handed out exactly as stashed, never re-encoded or
//! truncated: the result carries `_meta: {"stc/retrieved": KEY}`, which
//! `stc mcp-proxy` never rewrites. Only that result is exempt: nothing is
//! noted in the store, so a later read of the same content, by this client or
//! any other, is cut as usual.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use stc_stash::{Key, MarkerSecret, Seal, StashStore, StoreError};

/// Default name of the retrieve tool.
pub const DEFAULT_RETRIEVE_TOOL: &str = "stc_retrieve";

/// The `_meta` member that marks a tool result as retrieved stash content;
/// `stc mcp-proxy` never rewrites a result that carries it.
pub const RETRIEVED_META: &str = "stc/retrieved";

/// Which stash store to use: stc-stash's one parser and opener of store options.
pub use stc_stash::StoreSpec;

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

/// Who may retrieve what: the authority a retrieve tool checks a key against
/// before it reads the store.
#[derive(Debug, Clone, Copy)]
pub enum Authority<'a> {
    /// The keys this session has shown (`stc mcp`: one stdio session).
    Shown(&'a Shown),
    /// Sealed keys (`KEY.TAG`) of markers shown to this client by a process
    /// with this secret (`stc mcp-proxy`: no session state).
    Sealed(&'a Seal),
}

/// What a retrieve request gets: the payload, or the text of a tool error.
///
/// The key is checked first against the [`Authority`] (its form, then that it
/// was shown: in the session's set, or by its seal); only then is the store
/// read. A found payload is checked against its key. Nothing is noted in the
/// store.
///
/// ```
/// use stc_mcp::stash::{retrieve, Authority, LazyStore, Shown, StoreSpec};
/// use stc_stash::{MarkerSecret, Seal};
/// let store = LazyStore::new(StoreSpec::Memory);
/// let shown = Shown::default();
/// let key = store.get().unwrap().stash(b"[1,2,3]").unwrap().key;
/// let by_session = Authority::Shown(&shown);
/// assert!(retrieve(&store, by_session, key.as_str(), "stc_retrieve").unwrap_err().contains("not shown"));
/// shown.add([key]);
/// assert_eq!(retrieve(&store, by_session, key.as_str(), "stc_retrieve").unwrap().1, "[1,2,3]");
/// assert!(retrieve(&store, by_session, "../etc/passwd", "stc_retrieve").unwrap_err().contains("invalid key"));
/// // Sealed: the marker's KEY.TAG for this client, nothing else.
/// let seal = Seal::new(MarkerSecret::from_material(b"0123456789abcdef").unwrap(), "client-a");
/// let by_seal = Authority::Sealed(&seal);
/// assert_eq!(retrieve(&store, by_seal, &seal.seal(&key), "stc_retrieve").unwrap().1, "[1,2,3]");
/// assert!(retrieve(&store, by_seal, key.as_str(), "stc_retrieve").unwrap_err().contains("has no seal"));
/// ```
pub fn retrieve(
    store: &LazyStore,
    authority: Authority<'_>,
    key_text: &str,
    tool: &str,
) -> Result<(Key, String), String> {
    let key = match authority {
        Authority::Shown(shown) => {
            let key = stc_stash::parse_key(key_text).map_err(|e| e.to_string())?;
            if !shown.contains(&key) {
                return Err(format!(
                    "key {key} was not shown in this session: {tool} answers only for the keys of stash markers \
                     that this server has sent to this client (a retrieve that accepted any key would hand out \
                     what other sessions stashed)"
                ));
            }
            key
        }
        Authority::Sealed(seal) => seal.open(key_text).map_err(|e| {
            format!("{e}; {tool} answers only for markers this proxy has shown to this client; retrying will not help")
        })?,
    };
    let store = store.get().map_err(|e| e.to_string())?;
    let text = stc_stash::retrieve_text(store.as_ref(), &key).map_err(|e| e.to_string())?;
    Ok((key, text))
}

/// Environment variable with the marker secret (below `--marker-secret-file`).
pub const MARKER_SECRET_ENV: &str = "STC_MARKER_SECRET";

/// The secret that seals markers: the contents of `file` if given, else the
/// value of `env` (`$STC_MARKER_SECRET`) if set, else 32 random bytes from the
/// operating system (markers then hold for this process only). Material must
/// have at least [`stc_stash::MIN_SECRET_BYTES`] bytes.
pub fn marker_secret(file: Option<&Path>, env: Option<&OsStr>) -> Result<MarkerSecret, String> {
    if let Some(path) = file {
        let material =
            std::fs::read(path).map_err(|e| format!("cannot read the marker secret file {}: {e}", path.display()))?;
        return MarkerSecret::from_material(&material).map_err(|e| format!("{}: {e}", path.display()));
    }
    if let Some(value) = env {
        let material = value.as_encoded_bytes();
        return MarkerSecret::from_material(material).map_err(|e| format!("${MARKER_SECRET_ENV}: {e}"));
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("cannot draw a random marker secret: {e}"))?;
    Ok(MarkerSecret::from_random(bytes))
}

/// The `_meta` member of a tool (in `tools/list`) by which a server sets
/// Claude Code's result cap for that tool, in characters.
pub const MAX_RESULT_SIZE_CHARS_META: &str = "anthropic/maxResultSizeChars";

/// Hosts whose tool-result cap is known, by the `clientInfo.name` they send,
/// with that cap in tokens: Claude Code truncates an MCP tool result above
/// 25,000 tokens by default (`MAX_MCP_OUTPUT_TOKENS`).
pub const HOST_RESULT_CAPS: &[(&str, usize)] = &[("claude-code", 25_000)];

/// Hosts that honour [`MAX_RESULT_SIZE_CHARS_META`] (it is Anthropic's key).
const CHAR_CAP_HOSTS: &[&str] = &["claude-code"];

/// Characters per o200k token assumed when a cap in characters becomes a
/// token budget. Measured (`stc-stash/examples/estimate_error.rs`): real
/// mostly-ASCII JSON documents 3.2 to 3.4, placeholder-Latin comment records
/// 4.2 to 4.4, Latin prose 4.75, CJK well under 1. At 5 the text stays inside
/// the cap for all of them; a budget in tokens cannot promise a character
/// count for text with longer tokens.
pub const CHARS_PER_TOKEN: usize = 5;

/// Share of a host's token cap that `--budget auto` uses: the host counts in
/// its own tokenizer, the budget in o200k_base; Claude's tokenizer gives more
/// tokens than o200k_base for the same text, so a tenth is left as margin.
pub const HOST_CAP_SHARE_PERCENT: usize = 90;

/// The token budget `--budget auto` gives one tool result: the tool's
/// [`MAX_RESULT_SIZE_CHARS_META`] (`tool_meta` is the tool's `_meta` from
/// `tools/list`), for a host that honours it, as tokens
/// ([`CHARS_PER_TOKEN`]); else the host's default cap ([`HOST_RESULT_CAPS`],
/// by `client`, the `clientInfo.name`), [`HOST_CAP_SHARE_PERCENT`] of it.
/// `None` when no limit is known (another host, or no identity): nothing is
/// cut for it.
///
/// ```
/// use stc_mcp::stash::auto_budget;
/// use serde_json::json;
/// assert_eq!(auto_budget(Some("claude-code"), None), Some(22_500));
/// assert_eq!(auto_budget(Some("claude-code"), Some(&json!({"anthropic/maxResultSizeChars": 40000}))), Some(8_000));
/// assert_eq!(auto_budget(Some("some-other-host"), Some(&json!({"anthropic/maxResultSizeChars": 40000}))), None);
/// assert_eq!(auto_budget(None, None), None);
/// // A meta value that is not a positive integer is ignored.
/// assert_eq!(auto_budget(Some("claude-code"), Some(&json!({"anthropic/maxResultSizeChars": "big"}))), Some(22_500));
/// ```
pub fn auto_budget(client: Option<&str>, tool_meta: Option<&serde_json::Value>) -> Option<usize> {
    let client = client?;
    let chars = tool_meta
        .and_then(|m| m.get(MAX_RESULT_SIZE_CHARS_META))
        .and_then(serde_json::Value::as_u64)
        .filter(|c| *c > 0 && CHAR_CAP_HOSTS.contains(&client));
    if let Some(chars) = chars {
        let chars = usize::try_from(chars).unwrap_or(usize::MAX);
        return Some((chars / CHARS_PER_TOKEN).max(1));
    }
    let (_, cap) = HOST_RESULT_CAPS.iter().find(|(name, _)| *name == client)?;
    Some(cap * HOST_CAP_SHARE_PERCENT / 100)
}

/// The `_meta` of each tool in a `tools/list` result (the text of the
/// `result` member), by tool name: what [`auto_budget`] reads.
pub fn tool_metas(result: &str) -> Vec<(String, serde_json::Value)> {
    #[derive(serde::Deserialize)]
    struct Tool {
        name: String,
        #[serde(rename = "_meta", default)]
        meta: Option<serde_json::Value>,
    }
    #[derive(serde::Deserialize)]
    struct List {
        #[serde(default)]
        tools: Vec<serde_json::Value>,
    }
    let Ok(list) = serde_json::from_str::<List>(result) else { return Vec::new() };
    list.tools
        .into_iter()
        .filter_map(|t| serde_json::from_value::<Tool>(t).ok())
        .filter_map(|t| Some((t.name, t.meta?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stc_stash::{MarkerSecret, Seal};

    /// Refusals are decided before any store is opened or read: with a store
    /// that cannot be reached, a bad key still gets its own error, never
    /// "unavailable"; only a good seal reaches the store.
    #[test]
    fn sealed_refusals_come_before_the_store() {
        let store = LazyStore::new("redis://127.0.0.1:1/".parse().unwrap());
        let seal = Seal::new(MarkerSecret::from_material(b"0123456789abcdef").unwrap(), "alpha");
        let other = Seal::new(MarkerSecret::from_material(b"0123456789abcdef").unwrap(), "beta");
        let key = Key::of(b"[1]");
        let ask = |text: &str| retrieve(&store, Authority::Sealed(&seal), text, "stc_retrieve").unwrap_err();
        assert!(ask(key.as_str()).contains("has no seal"));
        assert!(ask(&other.seal(&key)).contains("was not shown to this client"));
        assert!(ask(&format!("{key}.0000000000000000")).contains("was not shown to this client"));
        assert!(ask("../../etc/passwd").contains("invalid key"));
        assert!(ask(&format!("{key}.{}", "g".repeat(16))).contains("invalid key"));
        assert!(ask(&seal.seal(&key)).contains("retrying may help"), "the good seal reaches the (unreachable) store");
    }
}

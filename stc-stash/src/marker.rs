//! Markers: the values that stand in the output for what was omitted, and
//! the recovery instruction they carry.
//!
//! A marker is an object whose **first** member is named `stc_stash` and
//! holds an object describing the omission (see the crate README):
//!
//! ```text
//! {"stc_stash":{"omitted":468,"of":500,"unit":"records","kept":"0-27,117,305,499",
//!   "key":"0123456789abcdef01234567",
//!   "retrieve":"468 of 500 records omitted. If needed, run in shell: stc retrieve 0123456789abcdef01234567"},
//!  "items":[...the kept records...]}
//! ```
//!
//! Only the `key` member of such an object is a reference; a bare 24-hex
//! string anywhere else in the data is never taken for one.

use std::fmt;

use stc_core::Limits;

use crate::key::{Key, KEY_HEX_LEN};
use crate::value::Value;

/// Name of the member that makes an object a marker.
pub const MARKER_MEMBER: &str = "stc_stash";

/// A validated tool name: 1 to 64 ASCII letters, digits, `_` or `-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolName(String);

impl ToolName {
    /// Checks a tool name.
    ///
    /// ```
    /// use stc_stash::ToolName;
    /// assert!(ToolName::new("stc_retrieve").is_ok());
    /// assert!(ToolName::new("rm -rf /").is_err());
    /// assert!(ToolName::new("").is_err());
    /// ```
    pub fn new(name: &str) -> Result<ToolName, String> {
        let ok =
            (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if ok {
            Ok(ToolName(name.to_string()))
        } else {
            Err(format!("invalid tool name {name:?}: use 1 to 64 ASCII letters, digits, '_' or '-'"))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Hex characters of a marker seal (8 bytes of a keyed BLAKE3 hash, 64 bits).
pub const SEAL_HEX_LEN: usize = 16;

/// The secret that seals markers ([`Seal`]): 32 bytes derived from the
/// material a deployment supplies (a file, an environment variable) or
/// drawn at random by the process.
///
/// Its `Debug` form never shows the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct MarkerSecret([u8; 32]);

/// The shortest secret material accepted (bytes).
pub const MIN_SECRET_BYTES: usize = 16;

impl MarkerSecret {
    /// Derives the secret from `material` (at least [`MIN_SECRET_BYTES`]
    /// bytes; leading and trailing ASCII whitespace, e.g. a file's final
    /// newline, are ignored). Processes that share a store and must answer
    /// each other's markers use the same material.
    ///
    /// ```
    /// use stc_stash::MarkerSecret;
    /// assert!(MarkerSecret::from_material(b"short").is_err());
    /// assert_eq!(MarkerSecret::from_material(b"0123456789abcdef\n"), MarkerSecret::from_material(b"0123456789abcdef"));
    /// ```
    pub fn from_material(material: &[u8]) -> Result<MarkerSecret, String> {
        let material = material.trim_ascii();
        if material.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "a marker secret needs at least {MIN_SECRET_BYTES} bytes (not counting surrounding whitespace), this \
                 one has {}",
                material.len()
            ));
        }
        Ok(MarkerSecret(blake3::derive_key("stc-stash marker secret v1", material)))
    }

    /// A secret from 32 random bytes (the caller draws them).
    pub fn from_random(bytes: [u8; 32]) -> MarkerSecret {
        MarkerSecret(blake3::derive_key("stc-stash marker secret v1", &bytes))
    }
}

impl fmt::Debug for MarkerSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MarkerSecret(…)")
    }
}

/// Seals the keys of the markers shown to one client, so that a retrieve
/// tool without sessions answers only for markers it (or a process with the
/// same secret) has shown to that client.
///
/// A sealed key is written `KEY.TAG`: the 24 hex characters of the stash
/// key, a dot, and 16 hex characters of
/// `BLAKE3-keyed(secret, "stc-stash marker seal v1" ‖ len(client) ‖ client ‖ KEY)`.
/// The client identity is what the caller knows of the client (for MCP:
/// the `clientInfo` name, from `initialize` or a request's `_meta`).
///
/// ```
/// use stc_stash::{Key, MarkerSecret, Seal, SealError};
/// let secret = MarkerSecret::from_material(b"a shared secret of the proxies").unwrap();
/// let (mine, theirs) = (Seal::new(secret.clone(), "claude-code"), Seal::new(secret, "other-client"));
/// let key = Key::of(b"[1,2,3]");
/// let sealed = mine.seal(&key);
/// assert_eq!(mine.open(&sealed), Ok(key));
/// assert_eq!(theirs.open(&sealed), Err(SealError::Mismatch(key)));
/// assert_eq!(mine.open(key.as_str()), Err(SealError::Unsealed(key)));
/// assert!(matches!(mine.open("../etc"), Err(SealError::Invalid(_))));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Seal {
    secret: MarkerSecret,
    client: String,
}

impl fmt::Debug for Seal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Seal").field("client", &self.client).finish_non_exhaustive()
    }
}

/// Why a sealed key is refused ([`Seal::open`]); decided without any store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealError {
    /// Not `KEY` or `KEY.TAG` in lowercase hex (the text, [`crate::shown`]).
    Invalid(String),
    /// A bare key without a seal (an old-style marker, or a key from elsewhere).
    Unsealed(Key),
    /// The seal does not match: another client's marker, a marker of a
    /// process with another secret, or a forged one.
    Mismatch(Key),
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SealError::Invalid(shown) => write!(
                f,
                "invalid key {shown}: a marker key is 24 lowercase hex characters, a dot and {SEAL_HEX_LEN} more \
                 (KEY.TAG, exactly as the marker writes it)"
            ),
            SealError::Unsealed(key) => write!(
                f,
                "key {key} has no seal: this retrieve tool answers only for sealed keys (KEY.TAG) exactly as its \
                 markers write them, not for bare stash keys"
            ),
            SealError::Mismatch(key) => write!(
                f,
                "key {key} was not shown to this client: its seal does not match (a marker shown to another \
                 client, written by a proxy with another secret, or forged)"
            ),
        }
    }
}

impl std::error::Error for SealError {}

impl Seal {
    /// The seal of markers shown to `client` under `secret`.
    pub fn new(secret: MarkerSecret, client: &str) -> Seal {
        Seal { secret, client: client.to_string() }
    }

    /// The client identity the seal is bound to.
    pub fn client(&self) -> &str {
        &self.client
    }

    fn tag(&self, key: &Key) -> [u8; SEAL_HEX_LEN / 2] {
        let mut h = blake3::Hasher::new_keyed(&self.secret.0);
        h.update(b"stc-stash marker seal v1");
        h.update(&(self.client.len() as u64).to_le_bytes());
        h.update(self.client.as_bytes());
        h.update(key.as_str().as_bytes());
        let mut out = [0u8; SEAL_HEX_LEN / 2];
        out.copy_from_slice(&h.finalize().as_bytes()[..SEAL_HEX_LEN / 2]);
        out
    }

    /// `KEY.TAG` for `key`.
    pub fn seal(&self, key: &Key) -> String {
        let mut out = String::with_capacity(KEY_HEX_LEN + 1 + SEAL_HEX_LEN);
        out.push_str(key.as_str());
        out.push('.');
        for b in self.tag(key) {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }

    /// The stash key of a sealed key shown to this client, or why not.
    pub fn open(&self, text: &str) -> Result<Key, SealError> {
        let (key, tag) = split_sealed(text).ok_or_else(|| SealError::Invalid(crate::shown(text)))?;
        let Some(tag) = tag else { return Err(SealError::Unsealed(key)) };
        let expected = self.tag(&key);
        // Constant time: every byte is compared.
        let mut diff = 0u8;
        for (i, e) in expected.iter().enumerate() {
            let got = u8::from_str_radix(&tag[2 * i..2 * i + 2], 16).unwrap_or(!*e);
            diff |= got ^ e;
        }
        if diff == 0 {
            Ok(key)
        } else {
            Err(SealError::Mismatch(key))
        }
    }
}

/// `KEY` or `KEY.TAG` (lowercase hex, [`KEY_HEX_LEN`] and [`SEAL_HEX_LEN`]
/// characters): the key and the tag, if any.
pub(crate) fn split_sealed(text: &str) -> Option<(Key, Option<&str>)> {
    let (key, tag) = match text.split_once('.') {
        Some((k, t)) => (k, Some(t)),
        None => (text, None),
    };
    let key = Key::parse(key).ok()?;
    match tag {
        Some(t) if t.len() != SEAL_HEX_LEN || !t.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) => None,
        _ => Some((key, tag)),
    }
}

/// How the model can get an omitted part back; written into each marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// No instruction (the host resolves markers itself, or the model cannot).
    None,
    /// A shell command: `stc retrieve KEY`.
    Shell,
    /// A call of the host's registered retrieve tool with `key=KEY`.
    Tool(ToolName),
}

impl Recovery {
    /// The instruction for `key`, or `None` for [`Recovery::None`].
    ///
    /// ```
    /// use stc_stash::{Key, Recovery};
    /// let key = Key::of(b"[1]");
    /// assert_eq!(Recovery::Shell.instruction(&key).unwrap(), format!("If needed, run in shell: stc retrieve {key}"));
    /// ```
    pub fn instruction(&self, key: &Key) -> Option<String> {
        self.instruction_for(key.as_str())
    }

    /// The instruction for a key as the marker writes it (`KEY`, or a
    /// sealed `KEY.TAG`).
    pub fn instruction_for(&self, key: &str) -> Option<String> {
        match self {
            Recovery::None => None,
            Recovery::Shell => Some(format!("If needed, run in shell: stc retrieve {key}")),
            Recovery::Tool(name) => Some(format!("If needed, call tool {} with key={key}", name.as_str())),
        }
    }
}

/// What kind of part a marker stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Records of a record array; the marker wraps the kept records and the
    /// payload is the complete array.
    Records,
    /// A middle window of an array; the marker is an element in its place
    /// and the payload is an array of the omitted elements.
    Items,
    /// A long string; the marker wraps its first characters and the payload
    /// is the complete string (a JSON string).
    Chars,
}

impl Unit {
    /// The name used in markers.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Records => "records",
            Unit::Items => "items",
            Unit::Chars => "chars",
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The description inside a marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerInfo {
    /// How many units were left out.
    pub omitted: usize,
    /// How many units the original had.
    pub of: usize,
    /// Records, items or chars.
    pub unit: Unit,
    /// Which units were kept, as index ranges (`0-27,117,499`).
    pub kept: String,
    /// The stash key, or `None` when the omission is not recoverable.
    pub key: Option<Key>,
}

impl MarkerInfo {
    /// The marker's `stc_stash` object.
    pub(crate) fn to_value(&self, recovery: &Recovery, seal: Option<&Seal>) -> Value<'static> {
        let mut m = vec![
            ("omitted".into(), Value::int(self.omitted)),
            ("of".into(), Value::int(self.of)),
            ("unit".into(), Value::text(self.unit.name())),
            ("kept".into(), Value::text(&self.kept)),
        ];
        let summary = format!("{} of {} {} omitted.", self.omitted, self.of, self.unit);
        match &self.key {
            Some(key) => {
                let written = match seal {
                    Some(seal) => seal.seal(key),
                    None => key.as_str().to_string(),
                };
                m.push(("key".into(), Value::text(&written)));
                if let Some(how) = recovery.instruction_for(&written) {
                    m.push(("retrieve".into(), Value::text(&format!("{summary} {how}"))));
                }
            }
            None => {
                m.push(("recoverable".into(), Value::Bool(false)));
            }
        }
        Value::Object(m)
    }
}

/// Index ranges as text: `[0,1,2,5,7,8]` -> `0-2,5,7-8`.
pub(crate) fn ranges(indices: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < indices.len() {
        let start = indices[i];
        let mut end = start;
        while i + 1 < indices.len() && indices[i + 1] == end + 1 {
            i += 1;
            end += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    out
}

/// The key a marker object refers to: the `key` member (`KEY`, or a sealed
/// `KEY.TAG`, see [`Seal`]) of the object under the first member
/// `stc_stash`. `None` for anything else. The seal is not checked here.
pub fn marker_key(value: &Value<'_>) -> Option<Key> {
    let Value::Object(members) = value else { return None };
    let (name, info) = members.first()?;
    if name != MARKER_MEMBER {
        return None;
    }
    split_sealed(info.get("key")?.as_str()?).map(|(k, _)| k)
}

/// Every stash key referenced by markers in `value`, sorted, without duplicates.
pub fn references(value: &Value<'_>) -> Vec<Key> {
    fn walk(v: &Value<'_>, out: &mut Vec<Key>) {
        if let Some(k) = marker_key(v) {
            out.push(k);
        }
        match v {
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(members) => members.iter().for_each(|(_, i)| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out);
    out.sort();
    out.dedup();
    out
}

/// Every stash key referenced by markers in an STC or JSON text (what an
/// output actually sends), in any STC version this crate reads (the newest
/// reader reads every older version). Text that does not parse references
/// nothing.
///
/// ```
/// use stc_stash::{references_in, Key};
/// let key = Key::of(b"[1]");
/// let out = format!(r#"[1,{{"stc_stash":{{"key":"{key}"}}}},"{key}"]"#);
/// assert_eq!(references_in(&out), vec![key]); // the bare string is not a reference
/// ```
pub fn references_in(text: &str) -> Vec<Key> {
    let options = stc_core::DecodeOptions::default().limits(Limits::default()).version(stc_core::Version::LATEST);
    match Value::parse_stc(text, &options) {
        Ok(v) => references(&v),
        Err(_) => Vec::new(),
    }
}

/// True if any object in `value` has a member named `stc_stash`: such data
/// already went through the stash (or imitates it) and is not truncated again.
pub fn contains_marker_member(value: &Value<'_>) -> bool {
    match value {
        Value::Array(items) => items.iter().any(contains_marker_member),
        Value::Object(members) => members.iter().any(|(k, v)| k == MARKER_MEMBER || contains_marker_member(v)),
        _ => false,
    }
}

/// Recognizes a standalone shell command `stc retrieve KEY` (optionally with
/// `--store`, `--stash-db`/`--db` or `--redis-url` options), the form the
/// markers tell a model to run. An adapter that sees this command succeed
/// knows its output is an already recovered original and must pass it on
/// without compressing it again.
///
/// ```
/// use stc_stash::{retrieve_command_key, Key};
/// let key = Key::of(b"[1]");
/// assert_eq!(retrieve_command_key(&format!("stc retrieve {key}")), Some(key));
/// assert_eq!(retrieve_command_key(&format!("stc retrieve {key}; rm -rf ~")), None);
/// ```
pub fn retrieve_command_key(command: &str) -> Option<Key> {
    let words: Vec<&str> = command.split_ascii_whitespace().collect();
    let (program, rest) = words.split_first()?;
    if !(*program == "stc" || program.ends_with("/stc")) || rest.first() != Some(&"retrieve") {
        return None;
    }
    let mut key = None;
    let mut args = rest[1..].iter();
    while let Some(a) = args.next() {
        match *a {
            "--store" | "--stash-db" | "--db" | "--redis-url" => {
                let v = args.next()?;
                if !v.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-:@".contains(&b)) {
                    return None;
                }
            }
            k if key.is_none() => key = Some(Key::parse(k).ok()?),
            _ => return None,
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(ranges(&[3]), "3");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn only_marker_objects_are_references() {
        let key = Key::of(b"x");
        let json = format!(
            r#"{{"a":"{key}","b":{{"key":"{key}"}},"c":{{"x":1,"stc_stash":{{"key":"{key}"}}}},"d":{{"stc_stash":{{"key":"{}"}}}}}}"#,
            &key.as_str()[..23]
        );
        assert!(references_in(&json).is_empty());
        let json = format!(r#"[{{"stc_stash":{{"key":"{key}"}}}},{{"stc_stash":{{"key":"{key}"}}}}]"#);
        assert_eq!(references_in(&json), vec![key]);
        // Hostile marker keys are not references.
        let upper = key.as_str().to_uppercase();
        for bad in [
            upper.as_str(),
            "'; DROP TABLE stash; --0000",
            "../../../etc/passwd000000",
            "",
            r"0123456789abcdef0123456\u0000",
        ] {
            let json = format!(r#"{{"stc_stash":{{"key":"{bad}"}}}}"#);
            assert!(references_in(&json).is_empty(), "{bad}");
        }
        let json = r#"{"stc_stash":{"key":123456789012345678901234}}"#;
        assert!(references_in(json).is_empty());
    }

    #[test]
    fn retrieve_commands_are_recognized_strictly() {
        let key = Key::of(b"x");
        assert_eq!(retrieve_command_key(&format!("stc retrieve {key}")), Some(key));
        assert_eq!(retrieve_command_key(&format!("/usr/bin/stc retrieve --store redis {key}")), Some(key));
        assert_eq!(retrieve_command_key(&format!("stc retrieve {key} | sh")), None);
        assert_eq!(retrieve_command_key(&format!("stc retrieve {key} {key}")), None);
        assert_eq!(retrieve_command_key(&format!("stc retrieve --db $(evil) {key}")), None);
        assert_eq!(retrieve_command_key(&format!("stc encode {key}")), None);
        assert_eq!(retrieve_command_key("stc retrieve"), None);
    }
}

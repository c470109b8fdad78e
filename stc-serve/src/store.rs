//! Conversations, token totals, and their file on disk.
//!
//! The whole dataset is one JSON file (seed 003:
//! `memory/token_compression_context.json`). It is replaced atomically: the
//! new content goes to a temporary file in the same directory, which is
//! flushed to disk (`fsync`), renamed over the old file, and the directory is
//! flushed too. A crash at any point leaves either the old or the new file,
//! never a mix.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::charset::Charset;

/// Token counts of one text in two forms: raw text and its encoded form.
/// `saved = raw - encoded`, negative when the encoded form costs more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Tokens of the raw text.
    pub raw: u64,
    /// Tokens of the encoded text (base64 or base54).
    pub encoded: u64,
    /// `raw - encoded`; negative when encoding cost tokens.
    pub saved: i64,
}

impl Counts {
    /// Counts with `saved` computed.
    pub fn new(raw: usize, encoded: usize) -> Counts {
        Counts { raw: raw as u64, encoded: encoded as u64, saved: raw as i64 - encoded as i64 }
    }

    fn add(&mut self, other: Counts) {
        self.raw += other.raw;
        self.encoded += other.encoded;
        self.saved += other.saved;
    }
}

/// Running totals (one conversation's, or all conversations').
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Sum over prompts.
    pub prompt: Counts,
    /// Sum over responses.
    pub response: Counts,
    /// Sum over the context as reported after each response.
    pub context: Counts,
    /// `prompt.saved + response.saved + context.saved`.
    pub combined_saved: i64,
}

impl Totals {
    /// Adds one prompt's counts.
    pub fn add_prompt(&mut self, c: Counts) {
        self.prompt.add(c);
        self.combined_saved += c.saved;
    }

    /// Adds one response's counts and the context's after it.
    pub fn add_response(&mut self, response: Counts, context: Counts) {
        self.response.add(response);
        self.context.add(context);
        self.combined_saved += response.saved + context.saved;
    }
}

/// The `**show savings**` / `**show total**` flags of a prompt, applied to
/// the next response of its conversation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    /// `**show savings**` was in the prompt.
    pub show_savings: bool,
    /// `**show total**` was in the prompt.
    pub show_total: bool,
}

impl Flags {
    /// Either flag is set.
    pub fn any(self) -> bool {
        self.show_savings || self.show_total
    }
}

/// Who said a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A prompt.
    User,
    /// A decoded response.
    Assistant,
}

/// One prompt or response text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Who said it.
    pub role: Role,
    /// The text (prompt with the flags stripped, or decoded response).
    pub text: String,
}

/// One conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conversation {
    /// Canonical encoding name (see [`Charset::name`]).
    pub encoding: String,
    /// Language label, stored and echoed.
    pub language: String,
    /// Prompts and responses, oldest first.
    pub turns: Vec<Turn>,
    /// Flags waiting for the next response.
    #[serde(default)]
    pub pending: Flags,
    /// Counts of the latest prompt (reported again in the savings object).
    #[serde(default)]
    pub last_prompt: Counts,
    /// This conversation's running totals.
    #[serde(default)]
    pub totals: Totals,
}

impl Conversation {
    /// A conversation with no turns.
    pub fn new(charset: Charset, language: String) -> Conversation {
        Conversation {
            encoding: charset.name().to_owned(),
            language,
            turns: Vec::new(),
            pending: Flags::default(),
            last_prompt: Counts::default(),
            totals: Totals::default(),
        }
    }

    /// The conversation's encoding.
    pub fn charset(&self) -> Charset {
        Charset::from_name(&self.encoding).unwrap_or(Charset::Utf8)
    }

    /// The context text: one `user: …` or `assistant: …` entry per turn,
    /// joined by newlines (what `context_b64` encodes).
    pub fn context_text(&self) -> String {
        let mut out = String::with_capacity(self.context_len());
        for (i, t) in self.turns.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(match t.role {
                Role::User => "user: ",
                Role::Assistant => "assistant: ",
            });
            out.push_str(&t.text);
        }
        out
    }

    /// Length in bytes (UTF-8) of [`context_text`](Self::context_text).
    pub fn context_len(&self) -> usize {
        self.turns.iter().map(|t| t.text.len() + 12).sum()
    }
}

/// Everything the service remembers.
#[derive(Debug, Default)]
pub struct State {
    /// Conversations by id.
    pub conversations: BTreeMap<String, Conversation>,
    /// Totals over all conversations (reset ones included).
    pub totals: Totals,
    /// Bumped on every change; the saver writes when it moved.
    pub generation: u64,
    /// Set once the final save has been taken: no more changes are accepted.
    pub shutting_down: bool,
}

const FORMAT: &str = "stc-serve-context";
const VERSION: u32 = 1;

#[derive(Serialize)]
struct FileOut<'a> {
    format: &'a str,
    version: u32,
    totals: &'a Totals,
    conversations: &'a BTreeMap<String, Conversation>,
}

#[derive(Deserialize)]
struct FileIn {
    format: String,
    version: u32,
    #[serde(default)]
    totals: Totals,
    conversations: BTreeMap<String, Conversation>,
}

impl State {
    /// The file content for this state.
    pub fn to_file_bytes(&self) -> Vec<u8> {
        let file =
            FileOut { format: FORMAT, version: VERSION, totals: &self.totals, conversations: &self.conversations };
        let mut bytes = serde_json::to_vec(&file).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// Parses a file written by [`to_file_bytes`](Self::to_file_bytes).
    pub fn from_file_bytes(bytes: &[u8]) -> Result<State, String> {
        let file: FileIn = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if file.format != FORMAT {
            return Err(format!("format is {:?}, expected {FORMAT:?}", file.format));
        }
        if file.version != VERSION {
            return Err(format!("version {} is not supported (this build reads version {VERSION})", file.version));
        }
        for (id, c) in &file.conversations {
            if Charset::from_name(&c.encoding).is_none() {
                return Err(format!("conversation {id:?} has unknown encoding {:?}", c.encoding));
            }
        }
        Ok(State { conversations: file.conversations, totals: file.totals, generation: 0, shutting_down: false })
    }
}

/// Why the context file could not be loaded.
#[derive(Debug)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "context file {} cannot be loaded: {}; the service will not start over it \
             (move it aside to start with an empty context, or fix it)",
            self.path.display(),
            self.reason
        )
    }
}

impl std::error::Error for LoadError {}

/// Loads the state from `path`; a missing file is an empty state, anything
/// else that is not a valid context file is an error.
pub fn load(path: &Path) -> Result<State, LoadError> {
    match fs::read(path) {
        Ok(bytes) => State::from_file_bytes(&bytes).map_err(|reason| LoadError { path: path.to_owned(), reason }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(State::default()),
        Err(e) => Err(LoadError { path: path.to_owned(), reason: e.to_string() }),
    }
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes` atomically (temporary file in the same
/// directory, fsync, rename, fsync of the directory).
pub fn save_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "context".into());
    let tmp = dir.join(format!(".{name}.tmp-{}-{}", std::process::id(), TMP_COUNTER.fetch_add(1, Ordering::Relaxed)));
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // The rename is durable only once the directory entry is.
        File::open(&dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        let mut s = State::default();
        let mut c = Conversation::new(Charset::Latin1, "fr".into());
        c.turns.push(Turn { role: Role::User, text: "Bonjour é".into() });
        c.turns.push(Turn { role: Role::Assistant, text: "Salut".into() });
        c.pending.show_total = true;
        c.totals.add_prompt(Counts::new(3, 5));
        s.totals = c.totals;
        s.conversations.insert("abc".into(), c);
        s
    }

    #[test]
    fn file_round_trips() {
        let s = sample();
        let back = State::from_file_bytes(&s.to_file_bytes()).unwrap();
        assert_eq!(back.conversations, s.conversations);
        assert_eq!(back.totals, s.totals);
        assert_eq!(back.conversations["abc"].context_text(), "user: Bonjour é\nassistant: Salut");
        assert_eq!(back.conversations["abc"].totals.prompt.saved, -2);
    }

    #[test]
    fn corrupt_files_are_refused_with_a_reason() {
        assert!(State::from_file_bytes(b"{\"format\":").unwrap_err().contains("line 1"));
        assert!(State::from_file_bytes(b"[]").is_err());
        let wrong = br#"{"format":"other","version":1,"conversations":{}}"#;
        assert!(State::from_file_bytes(wrong).unwrap_err().contains("format"));
        let future = br#"{"format":"stc-serve-context","version":9,"conversations":{}}"#;
        assert!(State::from_file_bytes(future).unwrap_err().contains("version 9"));
    }

    #[test]
    fn save_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("stc-serve-store-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let path = dir.join("sub").join("ctx.json");
        assert!(load(&path).unwrap().conversations.is_empty());
        save_atomic(&path, &sample().to_file_bytes()).unwrap();
        save_atomic(&path, &sample().to_file_bytes()).unwrap();
        assert_eq!(load(&path).unwrap().conversations.len(), 1);
        let names: Vec<_> = fs::read_dir(dir.join("sub")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("ctx.json")]);
        fs::write(&path, b"{\"format\":\"stc-serve-context\",\"version\":1,\"conv").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(err.contains("ctx.json") && err.contains("move it aside"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}

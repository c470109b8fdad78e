//! The local NDJSON TCP service of STC (`stc serve --tcp`) and its
//! native-messaging host (`stc native-host`).
//!
//! The service speaks the line protocol of seed 003 ("Token Compression
//! Protocol"): one JSON object per line in, one per line out, with the actions
//! `ping`, `prompt`, `response`, `context_get` and `context_reset`, plus
//! `encode` and `decode` for STC through `stc-core`. Prompts come back as
//! base64 of the text in the conversation's encoding; responses arrive as
//! [`base54`]. Token figures are counted with o200k_base and reported as they
//! are, negative when the encoded form costs more (base64 usually does).
//! Conversations persist in one JSON file, replaced atomically.
//!
//! This crate is a library: [`Server`] runs inside the caller's tokio
//! runtime and stops when told to ([`Server::shutdown`]); the process
//! concerns (the runtime, the signals, the `listening on ADDR` line) belong
//! to the `stc` binary. It logs through `tracing`. [`native_host::run`] is
//! blocking I/O and needs no runtime.
//!
//! ```no_run
//! # async fn example() -> Result<(), stc_serve::Error> {
//! let config = stc_serve::Config::default(); // 127.0.0.1:7543
//! let server = stc_serve::Server::start(config).await?;
//! println!("listening on {}", server.local_addr());
//! // ... until the caller decides to stop:
//! server.shutdown().await // the final save
//! # }
//! ```
#![forbid(unsafe_code)]

pub mod base54;
pub mod charset;
pub mod lines;
pub mod native_host;
pub mod protocol;
mod server;
pub mod store;

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use server::Server;

/// The seed's default address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7543";
/// The seed's context file, relative to the working directory.
pub const DEFAULT_CONTEXT_FILE: &str = "memory/token_compression_context.json";

/// Settings of the service.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (port 0: any free port).
    pub addr: SocketAddr,
    /// Accept a non-loopback `addr`. Off by default: the context holds whole
    /// conversations and the protocol has no authentication.
    pub allow_remote: bool,
    /// The context file; `None` keeps conversations in memory only.
    pub context_file: Option<PathBuf>,
    /// How often a changed context is saved.
    pub save_interval: Duration,
    /// Longest request line in bytes, without its newline.
    pub max_line_bytes: usize,
    /// Most connections served at once; more get `too_many_connections`.
    pub max_connections: usize,
    /// A connection silent this long gets `idle_timeout` and is closed; also
    /// bounds how long a reply may wait for a client that does not read.
    pub idle_timeout: Duration,
    /// Largest context of one conversation, in bytes of UTF-8 text.
    pub max_context_bytes: usize,
    /// Longest `payload_b54`, in characters.
    pub max_payload_chars: usize,
    /// Most conversations held at once; a prompt that would start one more
    /// gets `too_many_conversations`. With `max_context_bytes` this bounds
    /// the memory and the context file.
    pub max_conversations: usize,
}

impl Default for Config {
    fn default() -> Self {
        let limits = protocol::ProtocolLimits::default();
        Config {
            addr: DEFAULT_ADDR.parse().unwrap_or(SocketAddr::from(([127, 0, 0, 1], 7543))),
            allow_remote: false,
            context_file: Some(PathBuf::from(DEFAULT_CONTEXT_FILE)),
            save_interval: Duration::from_secs(2),
            max_line_bytes: 1024 * 1024,
            max_connections: 256,
            idle_timeout: Duration::from_secs(300),
            max_context_bytes: limits.max_context_bytes,
            max_payload_chars: limits.max_payload_chars,
            max_conversations: limits.max_conversations,
        }
    }
}

impl Config {
    fn protocol_limits(&self) -> protocol::ProtocolLimits {
        protocol::ProtocolLimits {
            max_context_bytes: self.max_context_bytes,
            max_payload_chars: self.max_payload_chars,
            max_conversations: self.max_conversations,
        }
    }

    /// Checks values the service cannot run with (zero intervals or limits).
    fn check(&self) -> Result<(), Error> {
        let bad = |what: &str| Err(Error::Config(format!("{what} must be positive")));
        if self.save_interval.is_zero() {
            return bad("the save interval");
        }
        if self.idle_timeout.is_zero() {
            return bad("the idle timeout");
        }
        if self.max_line_bytes == 0 || self.max_context_bytes == 0 || self.max_payload_chars == 0 {
            return bad("every size limit");
        }
        if self.max_connections == 0 || self.max_conversations == 0 {
            return bad("every count limit");
        }
        if self.max_connections > MAX_CONNECTIONS_LIMIT {
            return Err(Error::Config(format!("at most {MAX_CONNECTIONS_LIMIT} connections")));
        }
        Ok(())
    }
}

/// The largest accepted `max_connections`.
pub const MAX_CONNECTIONS_LIMIT: usize = 1_000_000;

/// Why the service could not start or stop cleanly.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A non-loopback address without `allow_remote`.
    RemoteRefused(SocketAddr),
    /// A setting the service cannot run with.
    Config(String),
    /// The address could not be bound.
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The context file exists but is not a valid context file.
    Load(store::LoadError),
    /// The context file could not be written.
    Save {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Any other I/O failure.
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::RemoteRefused(a) => write!(
                f,
                "refusing to listen on non-loopback address {a}: the protocol has no authentication \
                 and the context holds whole conversations (pass --allow-remote to do it anyway)"
            ),
            Error::Config(what) => write!(f, "invalid setting: {what}"),
            Error::Bind { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
            Error::Load(e) => e.fmt(f),
            Error::Save { path, source } => write!(f, "cannot save context file {}: {source}", path.display()),
            Error::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

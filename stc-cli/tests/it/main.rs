//! The `stc` binary from the outside, one test binary: each module drives
//! the real binary (and, where it needs them, real peers: stc-http's Python
//! upstream, the MCP SDKs' clients and servers, redis-server, openssl) as a
//! user or a client would. Helpers used by more than one module live in
//! [`support`]. `tests/fleet` (HAProxy in front of `stc proxy`) is a binary
//! of its own.
//!
//! - [`cli`], [`lines`], [`streaming`], [`version`]: `encode`, `decode`,
//!   `check`, `stats` on files, stdin and NDJSON streams.
//! - [`options`]: every surface reports the core's kind and message for the
//!   same bad option values.
//! - [`conformance_run`]: the conformance runner against this binary.
//! - [`proxy`]: `stc proxy` in front of stc-http's test upstream.
//! - [`serve`]: `stc serve` (context file, signals, native host).
//! - [`stash`]: `encode --budget` and `retrieve` across processes.
//! - [`services_v2`]: STC version 2 through proxy, `stc mcp` and mcp-proxy.
//! - [`mcp`]: `stc mcp` and `stc mcp-proxy` with real MCP peers.

#[path = "../../../stc-http/tests/support/certs.rs"]
mod certs;
#[path = "../../../stc-http/tests/support/samples.rs"]
mod samples;
mod support;

mod cli;
mod conformance_run;
mod lines;
mod mcp;
mod options;
mod proxy;
mod serve;
mod services_v2;
mod stash;
mod streaming;
mod version;

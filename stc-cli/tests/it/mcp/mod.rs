//! `stc mcp` and `stc mcp-proxy` as processes, one test binary: what the
//! `stc` binary adds to stc-mcp (whose own tests run the library in-process,
//! stc-mcp/tests/it). Each module drives the real binary with real peers:
//! [`stdio`] (rmcp's client and raw pipes, the FastMCP fixture), [`sdk`] (the
//! official Python and TypeScript SDKs' clients and servers), [`http`]
//! (Streamable HTTP: flags, the bridge process, https, drain, logs,
//! environment) and [`stash`] (markers and retrieve across sessions and
//! processes). Needs the venvs and npm packages of scripts/prereqs/30-mcp.sh.

mod http;
#[path = "../../../../stc-mcp/tests/support/peers.rs"]
mod peers;
mod sdk;
mod stash;
mod stdio;

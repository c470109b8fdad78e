//! `stc mcp` and `stc mcp-proxy` as processes, one test binary: what the
//! `stc` binary adds to stc-mcp (whose own tests run the library in-process,
//! stc-mcp/tests/it). Each module drives the real binary with real peers:
//! [`stdio`] (rmcp's client and raw pipes, the FastMCP fixture), [`sdk`] (the
//! official Python and TypeScript SDKs' clients and servers), [`http`]
//! (Streamable HTTP: flags, the bridge process, https, drain, logs,
//! environment) and [`stash`] (markers and retrieve across sessions and
//! processes). Needs the venvs and npm packages of scripts/prereqs/30-mcp.sh.

mod http;
mod sdk;
mod stash;
mod stdio;

/// The `stc` binary under test.
fn stc() -> &'static str {
    env!("CARGO_BIN_EXE_stc")
}

/// The workspace root.
fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The Python of the venv with the `mcp` SDK 1.x (`STC_MCP_PYTHON` overrides).
fn python() -> std::path::PathBuf {
    let p = match std::env::var_os("STC_MCP_PYTHON") {
        Some(p) => std::path::PathBuf::from(p),
        None => root().join("target/mcp-venv/bin/python"),
    };
    assert!(p.exists(), "{} is missing: run `bash scripts/prereqs/30-mcp.sh` first", p.display());
    p
}

//! `stc mcp` and `stc mcp-proxy`: MCP services over stdio (stc-mcp).
//! A thin front-end: the work is done by the `stc-mcp` crate.

use std::process::ExitCode;

/// Arguments of `stc mcp`.
#[derive(clap::Args)]
pub struct McpArgs {}

/// Arguments of `stc mcp-proxy`.
#[derive(clap::Args)]
pub struct McpProxyArgs {}

/// Runs `stc mcp` until the client closes stdin.
pub fn run_server(_args: McpArgs) -> ExitCode {
    eprintln!("stc mcp: not built yet");
    ExitCode::FAILURE
}

/// Runs `stc mcp-proxy` until the client or the child ends.
pub fn run_proxy(_args: McpProxyArgs) -> ExitCode {
    eprintln!("stc mcp-proxy: not built yet");
    ExitCode::FAILURE
}

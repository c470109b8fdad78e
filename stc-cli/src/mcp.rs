//! `stc mcp` and `stc mcp-proxy`: MCP services over stdio (stc-mcp).
//! A thin front-end: the work is done by the `stc-mcp` crate.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use stc_core::{GateOptions, Limits};
use stc_mcp::{ProxyOptions, RewriteOptions, ServerOptions};

use crate::{ProfileArg, TokenizerArg};

/// Arguments of `stc mcp`.
#[derive(clap::Args)]
#[command(after_help = "Speaks MCP (JSON-RPC, one message per line) on stdin/stdout; logs go to stderr.\n\
    Tools: stc_encode (JSON -> STC, gated), stc_decode (STC -> JSON), stc_estimate (bytes and tokens).\n\
    Client configuration: {\"command\": \"stc\", \"args\": [\"mcp\"]}")]
pub struct McpArgs {
    /// Deepest nesting of arrays and objects accepted in tool arguments.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    max_depth: usize,
    /// Longest request line accepted; longer ones get a JSON-RPC error (-32600).
    #[arg(long, default_value_t = ServerOptions::default().max_message_bytes, value_name = "BYTES")]
    max_message_bytes: usize,
}

/// Arguments of `stc mcp-proxy`.
#[derive(clap::Args)]
#[command(after_help = "Example client configuration:\n  \
    {\"command\": \"stc\", \"args\": [\"mcp-proxy\", \"--\", \"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]}\n\n\
    Messages pass through byte for byte except: JSON text blocks of tools/call results become gated STC, and the\n\
    initialize result's instructions get a paragraph that explains STC. Lines that are not JSON-RPC pass through\n\
    unchanged. When the server exits, requests still waiting get a JSON-RPC error (-32000) and the proxy exits.")]
pub struct McpProxyArgs {
    /// Re-encode only the results of this tool (repeatable; all tools when absent).
    #[arg(long = "include-tool", value_name = "NAME")]
    include_tools: Vec<String>,
    /// Never re-encode the results of this tool (repeatable).
    #[arg(long = "exclude-tool", value_name = "NAME")]
    exclude_tools: Vec<String>,
    /// Leave text blocks shorter than this many bytes as they are.
    #[arg(long, default_value_t = RewriteOptions::default().min_bytes, value_name = "BYTES")]
    min_bytes: usize,
    /// Leave text blocks longer than this many bytes as they are.
    #[arg(long, default_value_t = RewriteOptions::default().max_bytes, value_name = "BYTES")]
    max_bytes: usize,
    /// STC whitespace style.
    #[arg(long, value_enum, default_value_t = ProfileArg::Compact)]
    profile: ProfileArg,
    /// The fraction of tokens STC must save to replace a JSON text (0 to 1).
    #[arg(long, default_value_t = GateOptions::default().min_saving, value_name = "FRACTION")]
    min_saving: f64,
    /// How the gate counts tokens.
    #[arg(long, value_enum, default_value_t = TokenizerArg::Estimate)]
    tokenizer: TokenizerArg,
    /// Where the gate keeps JSON, send it minified rather than as the server wrote it.
    #[arg(long)]
    minify: bool,
    /// Deepest nesting of arrays and objects parsed in a text block.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    max_depth: usize,
    /// Messages (lines) longer than this are forwarded in parts without being inspected.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES")]
    max_message_bytes: usize,
    /// Seconds the server may take to exit once the client has closed stdin, before it is killed.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    shutdown_grace: f64,
    /// The MCP server to run, and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// Runs `stc mcp` until the client closes stdin.
pub fn run_server(args: McpArgs) -> ExitCode {
    let options =
        ServerOptions { limits: Limits { max_depth: args.max_depth }, max_message_bytes: args.max_message_bytes };
    match stc_mcp::serve_stdio(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stc mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `stc mcp-proxy` until the client or the child ends.
pub fn run_proxy(args: McpProxyArgs) -> ExitCode {
    if !(0.0..=1.0).contains(&args.min_saving) {
        eprintln!("stc mcp-proxy: --min-saving must be between 0 and 1");
        return ExitCode::FAILURE;
    }
    if !(args.shutdown_grace.is_finite() && args.shutdown_grace >= 0.0) {
        eprintln!("stc mcp-proxy: --shutdown-grace must be a number of seconds");
        return ExitCode::FAILURE;
    }
    let mut command = args.command.into_iter();
    let Some(program) = command.next() else {
        eprintln!("stc mcp-proxy: missing the server command after --");
        return ExitCode::FAILURE;
    };
    let mut options = ProxyOptions::new(program, command.collect());
    options.rewrite = RewriteOptions {
        min_bytes: args.min_bytes,
        max_bytes: args.max_bytes,
        profile: args.profile.into(),
        gate: GateOptions { min_saving: args.min_saving, tokenizer: args.tokenizer.into() },
        limits: Limits { max_depth: args.max_depth },
        minify_json: args.minify,
    };
    options.include_tools = args.include_tools;
    options.exclude_tools = args.exclude_tools;
    options.max_message_bytes = args.max_message_bytes;
    options.shutdown_grace = Duration::from_secs_f64(args.shutdown_grace);
    match stc_mcp::proxy::run(options) {
        Ok(exit) => {
            let failed = exit.child_status.is_some_and(|s| !s.success());
            if exit.orphaned_requests > 0 || (failed && !exit.client_closed) {
                let status = exit.child_status.map_or_else(|| "unknown status".to_string(), |s| s.to_string());
                eprintln!(
                    "stc mcp-proxy: the MCP server exited ({status}); {} request(s) got an error",
                    exit.orphaned_requests
                );
            }
            if failed && !exit.client_closed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("stc mcp-proxy: {e}");
            ExitCode::FAILURE
        }
    }
}

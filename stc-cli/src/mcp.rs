//! `stc mcp` and `stc mcp-proxy`: MCP services over stdio (stc-mcp).
//! A thin front-end: the work is done by the `stc-mcp` crate.

use clap::builder::TypedValueParser as _;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use stc_core::{GateOptions, Limits, MinSaving, Profile, Tokenizer, Version};
use stc_mcp::engine::Structured;
use stc_mcp::proxy::StashOptions;
use stc_mcp::stash::DEFAULT_RETRIEVE_TOOL;
use stc_mcp::{ProxyOptions, RewriteOptions, ServerOptions};
use stc_stash::{PlanOptions, ToolName, TruncateOptions};

use crate::args;

/// Arguments of `stc mcp`.
#[derive(clap::Args)]
#[command(after_help = "Speaks MCP (JSON-RPC, one message per line) on stdin/stdout; logs go to stderr.\n\
    Tools: stc_encode (JSON -> STC, gated; optional token budget with the stash), stc_retrieve (what a stash\n\
    marker this server sent stands for), stc_decode (STC -> JSON), stc_estimate (bytes and tokens).\n\
    Client configuration: {\"command\": \"stc\", \"args\": [\"mcp\"]}")]
pub struct McpArgs {
    /// Deepest nesting of arrays and objects accepted in tool arguments.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N", env = "STC_MCP_MAX_DEPTH")]
    max_depth: usize,
    /// Longest request line accepted; longer ones get a JSON-RPC error (-32600).
    #[arg(long, default_value_t = ServerOptions::default().max_message_bytes, value_name = "BYTES",
          env = "STC_MCP_MAX_MESSAGE_BYTES")]
    max_message_bytes: usize,
    #[command(flatten)]
    store: crate::retrieve::StoreArgs,
    /// STC version the tools write, read and measure when a call gives none: 2 (column groups,
    /// absent cells `~`, keyed tables; the instructions explain them), or 1.
    #[arg(long, default_value = "2", value_parser = args::version(), value_name = "VERSION",
          env = "STC_MCP_STC_VERSION")]
    stc_version: Version,
    #[command(flatten)]
    log: crate::runtime::LogArgs,
}

/// `--budget` of `stc mcp-proxy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// A number of tokens.
    Tokens(usize),
    /// The host's limit, where one is known (`stc_mcp::stash::auto_budget`).
    Auto,
}

fn parse_budget(text: &str) -> Result<Budget, String> {
    match text {
        "auto" => Ok(Budget::Auto),
        n => n.parse().map(Budget::Tokens).map_err(|_| format!("{n:?} is neither a number of tokens nor auto")),
    }
}

/// Arguments of `stc mcp-proxy`.
#[derive(clap::Args)]
#[command(after_help = "Example client configuration:\n  \
    {\"command\": \"stc\", \"args\": [\"mcp-proxy\", \"--\", \"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]}\n\n\
    Messages pass through byte for byte except: JSON text blocks of tools/call results become gated STC (minified\n\
    JSON where STC does not save enough; --keep-json-text keeps the server's text there), and the initialize\n\
    result's instructions get a paragraph that explains STC. With --budget or --truncate-arrays-at, long arrays\n\
    are cut first (stashed; markers name the retrieve tool) and the retrieve tool is added to tools/list; the proxy\n\
    answers it itself, only for markers it has shown. Lines that are not JSON-RPC pass through unchanged. When\n\
    the server exits, requests still waiting get a JSON-RPC error (-32000) and the proxy exits.")]
pub struct McpProxyArgs {
    /// Re-encode only the results of this tool (repeatable; all tools when absent).
    #[arg(long = "include-tool", value_name = "NAME", env = "STC_MCP_PROXY_INCLUDE_TOOLS", value_delimiter = ',')]
    include_tools: Vec<String>,
    /// Never re-encode the results of this tool (repeatable).
    #[arg(long = "exclude-tool", value_name = "NAME", env = "STC_MCP_PROXY_EXCLUDE_TOOLS", value_delimiter = ',')]
    exclude_tools: Vec<String>,
    /// Leave text blocks shorter than this many bytes as they are.
    #[arg(long, default_value_t = RewriteOptions::default().min_bytes, value_name = "BYTES", env = "STC_MCP_PROXY_MIN_BYTES")]
    min_bytes: usize,
    /// Leave text blocks longer than this many bytes as they are.
    #[arg(long, default_value_t = RewriteOptions::default().max_bytes, value_name = "BYTES", env = "STC_MCP_PROXY_MAX_BYTES")]
    max_bytes: usize,
    /// STC whitespace style.
    #[arg(long, default_value_t = Profile::Compact, value_parser = args::profile(), env = "STC_MCP_PROXY_PROFILE")]
    profile: Profile,
    /// The fraction of tokens STC must save to replace a JSON text (0 to 1).
    #[arg(long, default_value_t = MinSaving::default(), value_name = "FRACTION", value_parser = args::min_saving,
          env = "STC_MCP_PROXY_MIN_SAVING")]
    min_saving: MinSaving,
    /// How the gate counts tokens.
    #[arg(long, default_value_t = Tokenizer::Estimate, value_parser = args::tokenizer(), env = "STC_MCP_PROXY_TOKENIZER")]
    tokenizer: Tokenizer,
    /// STC version of the re-encoded text blocks: 2 (column groups, absent cells `~`, keyed
    /// tables, bare (unquoted) strings; the primer added to the instructions explains them), or 1.
    /// Budgets are measured in this version.
    #[arg(long, default_value = "2", value_parser = args::version(), value_name = "VERSION",
          env = "STC_MCP_PROXY_STC_VERSION")]
    stc_version: Version,
    /// What to do with `structuredContent`: `auto` drops it, and carries its data as STC text,
    /// for hosts that show the model only `structuredContent` (Claude Code, VS Code: by the
    /// client's name), and keeps it for others; `text` does that for every client; `keep`
    /// never touches it. Where it is dropped, `tools/list` loses the tools' `outputSchema`.
    #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(["auto", "keep", "text"]).map(|s| s.parse::<Structured>().expect("checked")), value_name = "POLICY", env = "STC_MCP_PROXY_STRUCTURED")]
    structured: Structured,
    /// Merge a result of several JSON text blocks (the Python SDK sends a list as one block per
    /// element) into one block holding their array, where that takes fewer tokens: true or false.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL", env = "STC_MCP_PROXY_MERGE_BLOCKS")]
    merge_blocks: bool,
    /// Where the gate keeps JSON, leave the text exactly as the server wrote it
    /// (default: send the gate's minified JSON).
    #[arg(long, env = "STC_MCP_PROXY_KEEP_JSON_TEXT", value_parser = clap::builder::BoolishValueParser::new())]
    keep_json_text: bool,
    /// Accepted for compatibility: minified JSON where the gate keeps JSON is the default now.
    #[arg(long, hide = true, conflicts_with = "keep_json_text")]
    minify: bool,
    /// Truncate JSON text blocks until the text sent has at most TOKENS tokens, counted exactly
    /// in o200k_base (cl100k_base with --tokenizer cl100k_base); what is cut is stashed and the
    /// retrieve tool is added to the server's tools. A block that cannot be cut that far is
    /// reported in its _meta["dev.stc/budget"] and on stderr. `auto`: follow the host's limit
    /// where one is known (Claude Code: 90% of its 25,000-token cap, or a tool's
    /// _meta["anthropic/maxResultSizeChars"] at 5 characters a token); other hosts are not cut.
    #[arg(long, value_name = "TOKENS|auto", value_parser = parse_budget, env = "STC_MCP_PROXY_BUDGET")]
    budget: Option<Budget>,
    /// Keep at most N records of a record array (and N head + N/4 tail elements of other
    /// arrays) in JSON text blocks; what is cut is stashed and the retrieve tool is added.
    #[arg(long, value_name = "N", env = "STC_MCP_PROXY_TRUNCATE_ARRAYS_AT")]
    truncate_arrays_at: Option<usize>,
    /// Name of the retrieve tool added with --budget/--truncate-arrays-at (1-64 letters, digits, `_`, `-`).
    #[arg(long, default_value = DEFAULT_RETRIEVE_TOOL, value_name = "NAME", env = "STC_MCP_PROXY_RETRIEVE_TOOL")]
    retrieve_tool: String,
    #[command(flatten)]
    store: crate::retrieve::StoreArgs,
    /// File whose contents (at least 16 bytes) seal the keys of the proxy's markers, so that
    /// proxies sharing a store and this secret answer each other's markers. Default:
    /// $STC_MARKER_SECRET, else a random secret of this process.
    #[arg(long, value_name = "PATH", env = "STC_MARKER_SECRET_FILE")]
    marker_secret_file: Option<PathBuf>,
    /// Deepest nesting of arrays and objects parsed in a text block.
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N", env = "STC_MCP_PROXY_MAX_DEPTH")]
    max_depth: usize,
    /// Append the savings ledger to FILE as JSON lines: one per tool call (tool, tokens in and
    /// out in the --tokenizer's count, blocks rewritten, truncations, retrieves), a summary at exit.
    #[arg(long, value_name = "FILE", env = "STC_MCP_PROXY_STATS")]
    stats: Option<PathBuf>,
    /// No one-line ledger summary on stderr at exit.
    #[arg(long, env = "STC_MCP_PROXY_QUIET", value_parser = clap::builder::BoolishValueParser::new())]
    quiet: bool,
    /// Messages (lines) longer than this are forwarded in parts without being inspected.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_name = "BYTES", env = "STC_MCP_PROXY_MAX_MESSAGE_BYTES")]
    max_message_bytes: usize,
    /// Over stdio: seconds the server may take to exit once the client has closed stdin, before
    /// it is killed [default: 5]. With --listen: seconds the requests in flight get to finish
    /// after SIGTERM or Ctrl-C (/readyz says 503 and no connection is accepted meanwhile); the
    /// server then gets 5 s to exit [default: 30, as `stc proxy`].
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds, env = "STC_MCP_PROXY_SHUTDOWN_GRACE")]
    shutdown_grace: Option<f64>,
    #[command(flatten)]
    http: Box<crate::mcp_http::McpHttpArgs>,
    #[command(flatten)]
    log: crate::runtime::LogArgs,
    /// The MCP server to run, and its arguments (not with --upstream).
    #[arg(last = true, required_unless_present_any = ["upstream", "bridge"], value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// Runs `stc mcp` until the client closes stdin.
pub fn run_server(args: McpArgs) -> ExitCode {
    let stash = match args.store.spec() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("stc mcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = ServerOptions {
        limits: Limits::default().max_depth(args.max_depth),
        max_message_bytes: args.max_message_bytes,
        stash: Some(stash),
        version: args.stc_version,
    };
    args.log.init();
    let served = crate::runtime::block_on_detached(stc_mcp::serve_stdio(options))
        .map_err(|e| format!("cannot start the runtime: {e}"))
        .and_then(|r| r.map_err(|e| e.to_string()));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stc mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `stc mcp-proxy` until the client or the child ends.
pub fn run_proxy(args: McpProxyArgs) -> ExitCode {
    args.log.init();
    let http = args.http;
    if let Some(code) = crate::mcp_http::run_bridge(&http, args.max_message_bytes) {
        return code;
    }
    let command = match crate::mcp_http::command(&http, args.command, args.max_message_bytes) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("stc mcp-proxy: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut command = command.into_iter();
    let Some(program) = command.next() else {
        eprintln!("stc mcp-proxy: missing the server command after --");
        return ExitCode::FAILURE;
    };
    let mut options = ProxyOptions::new(program, command.collect());
    options.engine.rewrite = RewriteOptions {
        min_bytes: args.min_bytes,
        max_bytes: args.max_bytes,
        profile: args.profile,
        gate: GateOptions::default().min_saving(args.min_saving).tokenizer(args.tokenizer),
        limits: Limits::default().max_depth(args.max_depth),
        keep_json_text: args.keep_json_text,
        merge_blocks: args.merge_blocks,
        version: args.stc_version,
    };
    if args.budget.is_some() || args.truncate_arrays_at.is_some() {
        let tool = match ToolName::new(&args.retrieve_tool) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("stc mcp-proxy: --retrieve-tool: {e}");
                return ExitCode::FAILURE;
            }
        };
        let store = match args.store.spec() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("stc mcp-proxy: {e}");
                return ExitCode::FAILURE;
            }
        };
        let secret = match stc_mcp::stash::marker_secret(
            args.marker_secret_file.as_deref(),
            std::env::var_os(stc_mcp::stash::MARKER_SECRET_ENV).as_deref(),
        ) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("stc mcp-proxy: {e}");
                return ExitCode::FAILURE;
            }
        };
        let plan = args.truncate_arrays_at.map(PlanOptions::with_array_budget).unwrap_or_default();
        // A budget holds in an exact tokenizer: the estimate's is o200k_base.
        let tokenizer = match options.engine.rewrite.gate.tokenizer {
            stc_core::Tokenizer::Estimate => stc_core::Tokenizer::O200kBase,
            exact => exact,
        };
        let truncate = TruncateOptions {
            plan,
            token_budget: match args.budget {
                Some(Budget::Tokens(n)) => Some(n),
                _ => None,
            },
            tokenizer,
            limits: options.engine.rewrite.limits,
            version: args.stc_version,
        };
        let auto_budget = args.budget == Some(Budget::Auto);
        options.engine.stash = Some(StashOptions { store, truncate, tool, secret, auto_budget });
    }
    options.engine.structured = args.structured;
    options.engine.include_tools = args.include_tools;
    options.engine.exclude_tools = args.exclude_tools;
    options.max_message_bytes = args.max_message_bytes;
    let grace = args.shutdown_grace.map(Duration::from_secs_f64);
    if !http.listens() {
        options.shutdown_grace = grace.unwrap_or(options.shutdown_grace);
    }
    options.stats_file = args.stats;
    let quiet = args.quiet;
    let json_logs = args.log.log_format == crate::runtime::LogFormat::Json;
    match crate::mcp_http::run(&http, options, grace) {
        Ok(exit) => {
            if !quiet {
                // With JSON logs, stderr stays one JSON object a line.
                if json_logs {
                    tracing::info!(summary = exit.ledger.summary(), "ledger");
                } else {
                    eprintln!("{}", exit.ledger.summary());
                }
            }
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

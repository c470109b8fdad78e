//! `stc`: encode JSON as STC, decode STC to JSON, check STC, and measure what
//! STC saves. All format work is done by `stc-core`; this file only parses
//! the command line and dispatches: the codec commands (`encode`, `decode`,
//! `check`) are in `codec.rs`, their `--lines` mode in `lines.rs`, `stats` in
//! `stats.rs`, and every option the core defines is parsed by `args.rs`. The
//! services (`proxy`, `mcp`, `mcp-proxy`, `serve`, `native-host`, `retrieve`)
//! each live in a module of their own over a library crate of their own.
//!
//! On invalid input every command exits with status 1, prints
//! `FILE:LINE:COLUMN: message` on stderr and nothing on stdout. With
//! `--lines` (NDJSON streams) the output of the lines before a bad one has
//! already been written when the error is reported.

use std::io::Write;
use std::process::ExitCode;

mod args;
mod codec;
mod config;
mod lines;
mod mcp;
mod mcp_http;
mod proxy;
mod retrieve;
#[allow(dead_code)] // used by the services as they move their process concerns here
mod runtime;
mod serve;
mod stats;

use clap::{Parser, Subcommand};
use codec::{DecodeArgs, EncodeArgs, ErrorFormat, Failure};
use stats::StatsArgs;

#[derive(Parser)]
#[command(
    name = "stc",
    version,
    about = "STC: a token-efficient, lossless text encoding of JSON",
    long_about = "STC: a token-efficient, lossless text encoding of JSON.\n\n\
        Every JSON text is valid STC. `stc encode` turns JSON into STC, `stc decode` \
        turns STC (or JSON) back into minified JSON with exact number lexemes, key \
        order and duplicate keys."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Read the services' options from this TOML file (a table per
    /// subcommand, keyed by long flag names; see stc-cli/README.md). The
    /// command line and the environment take precedence over it.
    #[arg(long, global = true, value_name = "FILE", env = config::CONFIG_ENV)]
    config: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Codec(CodecCommand),
    /// Reverse proxy: serve an upstream JSON API as STC to clients that ask for it.
    Proxy(proxy::ProxyArgs),
    /// MCP server over stdio with the stc_encode, stc_decode and stc_estimate tools.
    Mcp(mcp::McpArgs),
    /// Wrap a stdio MCP server and re-encode its JSON tool results as STC.
    McpProxy(mcp::McpProxyArgs),
    /// The local NDJSON TCP service (prompt, response, context, encode, decode).
    Serve(serve::ServeArgs),
    /// Browser native-messaging host that bridges to `stc serve`.
    NativeHost(serve::NativeHostArgs),
    /// Print what the stash holds under a key.
    Retrieve(retrieve::RetrieveArgs),
}

/// The codec commands: read input, write one output, report the first error.
#[derive(Subcommand)]
enum CodecCommand {
    /// Encode JSON as STC.
    Encode(EncodeArgs),
    /// Decode STC (or JSON) to minified JSON.
    Decode(DecodeArgs),
    /// Check that the input is valid STC; report the first error.
    Check(DecodeArgs),
    /// Bytes and tokens of a JSON document as pretty JSON, minified JSON and STC.
    Stats(StatsArgs),
}

impl CodecCommand {
    /// The command's `--error-format`.
    fn error_format(&self) -> ErrorFormat {
        match self {
            CodecCommand::Encode(a) => a.input.error_format,
            CodecCommand::Decode(a) | CodecCommand::Check(a) => a.input.error_format,
            CodecCommand::Stats(a) => a.error_format,
        }
    }
}

/// Runs one codec command: its output, or the failure to report.
fn run(command: CodecCommand) -> Result<String, Failure> {
    match command {
        CodecCommand::Encode(args) => codec::encode(&args),
        CodecCommand::Decode(args) => codec::decode(&args),
        CodecCommand::Check(args) => codec::check(&args),
        CodecCommand::Stats(args) => stats::stats(&args),
    }
}

fn main() -> ExitCode {
    // Services own their output and exit status; the codec commands share `run`.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Err(message) = config::apply(&argv, &<Cli as clap::CommandFactory>::command()) {
        eprintln!("stc: {message}");
        return ExitCode::from(2);
    }
    let command = match Cli::parse_from(argv).command {
        Command::Codec(command) => command,
        Command::Proxy(args) => return proxy::run(args),
        Command::Mcp(args) => return mcp::run_server(args),
        Command::McpProxy(args) => return mcp::run_proxy(args),
        Command::Serve(args) => return serve::run_serve(args),
        Command::NativeHost(args) => return serve::run_native_host(args),
        Command::Retrieve(args) => return retrieve::run(args),
    };
    let error_format = command.error_format();
    match run(command) {
        Ok(output) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`stc decode big | head`) is not an error worth a message.
            let _ = stdout.write_all(output.as_bytes()).and_then(|_| stdout.flush());
            if retrieve::over_budget() {
                // `stc encode --budget`: the output is written, but it is over the budget.
                return ExitCode::from(retrieve::OVER_BUDGET_EXIT);
            }
            ExitCode::SUCCESS
        }
        Err(f) if error_format == ErrorFormat::Json => {
            let text = |t: &str| format!("\"{}\"", stc_core::JsonStr::escape(t));
            let number = |n: Option<usize>| n.map_or_else(|| "null".to_string(), |n| n.to_string());
            eprintln!(
                "{{\"origin\":{},\"kind\":{},\"offset\":{},\"line\":{},\"column\":{},\"message\":{}}}",
                text(&f.origin),
                f.kind.map_or_else(|| "null".to_string(), text),
                number(f.offset),
                number((f.line > 0).then_some(f.line)),
                number((f.column > 0).then_some(f.column)),
                text(&f.message)
            );
            ExitCode::FAILURE
        }
        Err(f) => {
            if f.line == 0 {
                eprintln!("{}: {}", f.origin, f.message);
            } else {
                eprintln!("{}:{}:{}: {}", f.origin, f.line, f.column, f.message);
            }
            ExitCode::FAILURE
        }
    }
}

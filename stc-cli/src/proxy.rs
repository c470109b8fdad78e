//! `stc proxy`: a reverse proxy that serves STC to clients that ask for it (stc-http).
//! A thin front-end: the work is done by `stc_http::proxy`.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use stc_core::{GateOptions, Limits, MinSaving, Profile, Tokenizer, Version};
use stc_http::proxy::ProxyConfig;
use stc_http::StcConfig;

/// Arguments of `stc proxy`.
#[derive(clap::Args)]
#[command(after_help = "Clients ask for STC with `Accept: application/stc+json` (answered with \
    Content-Type: application/stc+json) or `Accept-Encoding: stc` (answered with Content-Encoding: stc). \
    `Accept: application/stc+json; version=2` asks for STC version 2 (answered with \
    Content-Type: application/stc+json; version=2 and X-STC-Version: 2, up to --max-stc-version). \
    Everyone else gets the upstream's bytes unchanged. One line per request is logged on stderr; \
    the bound address is printed on stdout.")]
pub struct ProxyArgs {
    /// Address to listen on (port 0 picks a free port, printed on start).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    listen: SocketAddr,
    /// Base URL of the upstream JSON API, http:// or https://.
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// A PEM file of CA certificates to trust for an https:// upstream, on top of the system's roots.
    #[arg(long, value_name = "FILE")]
    upstream_ca: Option<std::path::PathBuf>,
    /// Allow a --listen address that is not loopback.
    #[arg(long)]
    allow_remote: bool,
    /// Largest JSON body encoded, in bytes; larger bodies stream through unchanged.
    #[arg(long, default_value_t = StcConfig::default().max_body, value_name = "BYTES")]
    max_body: usize,
    /// The fraction of tokens STC must save, else the original JSON is sent (0 to 1).
    #[arg(long, default_value_t = MinSaving::default(), value_name = "FRACTION", value_parser = crate::args::min_saving)]
    min_saving: MinSaving,
    /// How the gate counts tokens: estimate, o200k_base or cl100k_base.
    #[arg(long, default_value = "estimate", value_parser = crate::args::tokenizer(), value_name = "NAME")]
    tokenizer: Tokenizer,
    /// Seconds to wait for a TCP connection to the upstream.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = crate::args::seconds)]
    connect_timeout: f64,
    /// Seconds to wait for the upstream's response headers.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = crate::args::seconds)]
    response_timeout: f64,
    /// Seconds to wait for the next chunk of an upstream response body.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = crate::args::seconds)]
    body_timeout: f64,
    /// Seconds in-flight requests get to finish after SIGTERM or Ctrl-C.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS", value_parser = crate::args::seconds)]
    shutdown_grace: f64,
    /// Most client connections served at once; more wait until one closes.
    #[arg(long, default_value_t = 1024, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Deepest nesting of upstream JSON that is encoded (deeper bodies pass through).
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N")]
    max_depth: usize,
    /// Newest STC version sent: 2 sends version 2 to clients that ask for it
    /// (`Accept: application/stc+json; version=2`); 1 sends them version 1, which they read too.
    #[arg(long, default_value = "2", value_parser = crate::args::version(), value_name = "VERSION")]
    max_stc_version: Version,
}

/// Runs `stc proxy` until SIGTERM or Ctrl-C; exit status 1 with a message when it cannot start.
pub fn run(args: ProxyArgs) -> ExitCode {
    let upstream = match args.upstream.parse() {
        Ok(u) => u,
        Err(e) => {
            eprintln!("stc proxy: --upstream {:?}: {e}", args.upstream);
            return ExitCode::FAILURE;
        }
    };
    let mut config = ProxyConfig::new(args.listen, upstream);
    config.allow_remote = args.allow_remote;
    config.upstream_ca = args.upstream_ca;
    config.connect_timeout = Duration::from_secs_f64(args.connect_timeout);
    config.response_timeout = Duration::from_secs_f64(args.response_timeout);
    config.body_timeout = Duration::from_secs_f64(args.body_timeout);
    config.max_connections = args.max_connections as usize;
    config.shutdown_grace = Duration::from_secs_f64(args.shutdown_grace);
    config.stc = StcConfig {
        max_body: args.max_body,
        gate: GateOptions::default().min_saving(args.min_saving).tokenizer(args.tokenizer),
        profile: Profile::Compact,
        limits: Limits::default().max_depth(args.max_depth),
        max_version: args.max_stc_version,
    };
    match stc_http::proxy::run(config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stc proxy: {e}");
            ExitCode::FAILURE
        }
    }
}

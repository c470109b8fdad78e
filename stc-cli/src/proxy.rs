//! `stc proxy`: a reverse proxy that serves STC to clients that ask for it
//! (stc-http). This module owns the process: the flags (each also from an
//! `STC_PROXY_*` environment variable), the log subscriber, the runtime, the
//! shutdown signal and the banner; `stc_http::proxy` does the serving.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use stc_core::{GateOptions, Limits, Profile, Tokenizer, Version};
use stc_http::proxy::{Proxy, ProxyConfig};
use stc_http::StcConfig;

use crate::runtime::{block_on, shutdown_signal, LogArgs};

/// Arguments of `stc proxy`.
#[derive(clap::Args)]
#[command(after_help = "Clients ask for STC with `Accept: application/stc+json` (answered with \
    Content-Type: application/stc+json) or `Accept-Encoding: stc` (answered with Content-Encoding: stc). \
    `Accept: application/stc+json; version=2` asks for STC version 2 (answered with \
    Content-Type: application/stc+json; version=2 and X-STC-Version: 2, up to --max-stc-version). \
    Everyone else gets the upstream's bytes unchanged. GET /healthz (alive) and GET /readyz (upstream \
    reachable, not draining) are answered by the proxy itself (--health-prefix moves them). \
    One line per request is logged on stderr (--log-format json for JSON); the bound address is \
    printed on stdout. Every option can also be set by the environment variable shown.")]
pub struct ProxyArgs {
    /// Address to listen on (port 0 picks a free port, printed on start).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR", env = "STC_PROXY_LISTEN")]
    listen: SocketAddr,
    /// Base URL of the upstream JSON API, http:// or https://.
    #[arg(long, value_name = "URL", env = "STC_PROXY_UPSTREAM")]
    upstream: String,
    /// A PEM file of CA certificates to trust for an https:// upstream, on top of the system's roots.
    #[arg(long, value_name = "FILE", env = "STC_PROXY_UPSTREAM_CA")]
    upstream_ca: Option<std::path::PathBuf>,
    /// Allow a --listen address that is not loopback.
    #[arg(long, env = "STC_PROXY_ALLOW_REMOTE")]
    allow_remote: bool,
    /// Largest JSON body encoded, in bytes; larger bodies stream through unchanged.
    #[arg(long, default_value_t = StcConfig::default().max_body, value_name = "BYTES", env = "STC_PROXY_MAX_BODY")]
    max_body: usize,
    /// The fraction of tokens STC must save, else minified JSON is sent (0 to 1).
    #[arg(long, default_value_t = GateOptions::default().min_saving, value_name = "FRACTION",
          value_parser = parse_fraction, env = "STC_PROXY_MIN_SAVING")]
    min_saving: f64,
    /// How the gate counts tokens: estimate, o200k_base or cl100k_base.
    #[arg(long, default_value = "estimate", value_parser = parse_tokenizer, value_name = "NAME",
          env = "STC_PROXY_TOKENIZER")]
    tokenizer: Tokenizer,
    /// Seconds to wait for a TCP connection to the upstream.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = parse_seconds,
          env = "STC_PROXY_CONNECT_TIMEOUT")]
    connect_timeout: f64,
    /// Seconds to wait for the upstream's response headers (then 504).
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = parse_seconds,
          env = "STC_PROXY_RESPONSE_TIMEOUT")]
    response_timeout: f64,
    /// Seconds to wait for the next chunk of an upstream response body.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = parse_seconds,
          env = "STC_PROXY_BODY_TIMEOUT")]
    body_timeout: f64,
    /// Seconds in-flight requests get to finish after SIGTERM or Ctrl-C.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS", value_parser = parse_seconds,
          env = "STC_PROXY_SHUTDOWN_GRACE")]
    shutdown_grace: f64,
    /// Most client connections served at once; more wait until one closes.
    #[arg(long, default_value_t = 1024, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          env = "STC_PROXY_MAX_CONNECTIONS")]
    max_connections: u32,
    /// Deepest nesting of upstream JSON that is encoded (deeper bodies pass through).
    #[arg(long, default_value_t = Limits::default().max_depth, value_name = "N", env = "STC_PROXY_MAX_DEPTH")]
    max_depth: usize,
    /// Newest STC version sent: 2 sends version 2 to clients that ask for it
    /// (`Accept: application/stc+json; version=2`); 1 sends them version 1, which they read too.
    #[arg(long, default_value = "2", value_parser = crate::mcp::parse_version, value_name = "VERSION",
          env = "STC_PROXY_MAX_STC_VERSION")]
    max_stc_version: Version,
    /// Path prefix of the health probes: PREFIX/healthz and PREFIX/readyz
    /// (default: /healthz and /readyz), for an upstream that uses those paths.
    #[arg(long, default_value = "", value_name = "PATH", env = "STC_PROXY_HEALTH_PREFIX")]
    health_prefix: String,
    #[command(flatten)]
    log: LogArgs,
}

fn parse_tokenizer(name: &str) -> Result<Tokenizer, String> {
    name.parse::<Tokenizer>().map_err(|e| e.to_string())
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("{text:?} is not a fraction between 0 and 1")),
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("{text:?} is not a number of seconds between 0 and 86400")),
    }
}

impl ProxyArgs {
    /// The library's settings from these flags, checked.
    fn proxy(self) -> Result<Proxy, String> {
        let upstream = self.upstream.parse().map_err(|e| format!("--upstream {:?}: {e}", self.upstream))?;
        let mut config = ProxyConfig::new(self.listen, upstream);
        config.allow_remote = self.allow_remote;
        config.upstream_ca = self.upstream_ca;
        config.connect_timeout = Duration::from_secs_f64(self.connect_timeout);
        config.response_timeout = Duration::from_secs_f64(self.response_timeout);
        config.body_timeout = Duration::from_secs_f64(self.body_timeout);
        config.max_connections = self.max_connections as usize;
        config.shutdown_grace = Duration::from_secs_f64(self.shutdown_grace);
        config.health_prefix = self.health_prefix;
        config.stc = StcConfig {
            max_body: self.max_body,
            gate: GateOptions::default().min_saving(self.min_saving).tokenizer(self.tokenizer),
            profile: Profile::Compact,
            limits: Limits::default().max_depth(self.max_depth),
            max_version: self.max_stc_version,
        };
        Proxy::new(config).map_err(|e| e.to_string())
    }
}

/// Runs `stc proxy` until SIGTERM or Ctrl-C; exit status 1 with a message when it cannot start.
pub fn run(args: ProxyArgs) -> ExitCode {
    args.log.init();
    let result = args.proxy().and_then(|proxy| block_on(serve(proxy)).map_err(|e| e.to_string())?);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stc proxy: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Binds, announces the address on stdout, and serves until the shutdown signal.
async fn serve(proxy: Proxy) -> Result<(), String> {
    let shutdown = shutdown_signal().map_err(|e| e.to_string())?;
    let (listen, upstream) = (proxy.config().listen, proxy.config().upstream.clone());
    let listener =
        tokio::net::TcpListener::bind(listen).await.map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "stc proxy: listening on http://{addr} (upstream {upstream})");
        let _ = out.flush();
    }
    proxy.serve(listener, shutdown).await.map_err(|e| e.to_string())
}

//! `stc serve` and `stc native-host`: the local NDJSON TCP service and its
//! browser native-messaging bridge (stc-serve).
//! A thin front-end: the work is done by the `stc-serve` crate.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use stc_serve::native_host::HostConfig;
use stc_serve::Config;

/// Arguments of `stc serve`.
#[derive(clap::Args)]
#[command(after_help = "One JSON object per line in, one per line out (seed 003's protocol): actions ping, \
    prompt, response, context_get, context_reset, encode, decode. The bound address is printed on stdout \
    as `listening on ADDR`; logs go to stderr. SIGTERM or Ctrl-C saves the context and stops. \
    See stc-serve/README.md for the protocol reference.")]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = stc_serve::DEFAULT_ADDR, value_name = "ADDR", value_parser = parse_addr, env = "STC_SERVE_ADDR")]
    tcp: SocketAddr,
    /// Allow a --tcp address that is not loopback (the protocol has no authentication).
    #[arg(long, env = "STC_SERVE_ALLOW_REMOTE", value_parser = clap::builder::BoolishValueParser::new())]
    allow_remote: bool,
    /// The conversations file, loaded on start and saved atomically.
    #[arg(long, default_value = stc_serve::DEFAULT_CONTEXT_FILE, value_name = "PATH", env = "STC_SERVE_CONTEXT_FILE")]
    context_file: PathBuf,
    /// Keep conversations in memory only (no context file).
    #[arg(long, conflicts_with = "context_file", env = "STC_SERVE_NO_PERSIST", value_parser = clap::builder::BoolishValueParser::new())]
    no_persist: bool,
    /// Seconds between saves of a changed context.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS", value_parser = crate::args::seconds, env = "STC_SERVE_SAVE_INTERVAL")]
    save_interval: f64,
    /// Longest request line, in bytes.
    #[arg(long, default_value_t = Config::default().max_line_bytes, value_name = "BYTES", value_parser = parse_positive, env = "STC_SERVE_MAX_LINE_BYTES")]
    max_line_bytes: usize,
    /// Most connections at once; more are told `too_many_connections` and closed.
    #[arg(long, default_value_t = Config::default().max_connections, value_name = "N", value_parser = parse_positive, env = "STC_SERVE_MAX_CONNECTIONS")]
    max_connections: usize,
    /// Seconds a connection may stay silent before `idle_timeout` closes it.
    #[arg(long, default_value_t = 300.0, value_name = "SECONDS", value_parser = crate::args::seconds, env = "STC_SERVE_IDLE_TIMEOUT")]
    idle_timeout: f64,
    /// Largest context of one conversation, in bytes of text.
    #[arg(long, default_value_t = Config::default().max_context_bytes, value_name = "BYTES", value_parser = parse_positive, env = "STC_SERVE_MAX_CONTEXT_BYTES")]
    max_context_bytes: usize,
    /// Longest payload_b54 of a response, in characters.
    #[arg(long, default_value_t = Config::default().max_payload_chars, value_name = "CHARS", value_parser = parse_positive, env = "STC_SERVE_MAX_PAYLOAD_CHARS")]
    max_payload_chars: usize,
    /// Most conversations held at once; more get `too_many_conversations`.
    #[arg(long, default_value_t = Config::default().max_conversations, value_name = "N", value_parser = parse_positive, env = "STC_SERVE_MAX_CONVERSATIONS")]
    max_conversations: usize,
    #[command(flatten)]
    log: crate::runtime::LogArgs,
}

/// Arguments of `stc native-host`.
#[derive(clap::Args)]
#[command(after_help = "Browsers start the host with arguments of their own (the extension's origin, \
    the manifest path); they are accepted and ignored. The service address can also be set with \
    STC_SERVE_ADDR, since a manifest cannot pass options: point the manifest's `path` at a small \
    script that runs `stc native-host`. See stc-serve/README.md for the manifests.")]
pub struct NativeHostArgs {
    /// Address of `stc serve` [default: $STC_SERVE_ADDR, else 127.0.0.1:7543].
    #[arg(long, value_name = "ADDR")]
    service: Option<String>,
    /// Seconds to wait for the service to connect and answer.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = crate::args::seconds,
          env = "STC_NATIVE_HOST_TIMEOUT")]
    timeout: f64,
    /// Largest message from the browser, in bytes; longer ones get `message_too_large`.
    #[arg(long, default_value_t = HostConfig::default().max_message_bytes, value_name = "BYTES", value_parser = parse_positive,
          env = "STC_NATIVE_HOST_MAX_MESSAGE_BYTES")]
    max_message_bytes: usize,
    /// What the browser passes (origin, manifest path, parent window); ignored.
    #[arg(hide = true, trailing_var_arg = true, allow_hyphen_values = true)]
    browser_args: Vec<String>,
}

fn parse_addr(s: &str) -> Result<SocketAddr, String> {
    let mut addrs = s.to_socket_addrs().map_err(|e| format!("{s:?} is not a host:port address ({e})"))?;
    addrs.next().ok_or_else(|| format!("{s:?} resolves to no address"))
}

fn parse_positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!("{s:?} is not a positive integer")),
    }
}

/// Runs `stc serve` until SIGTERM or Ctrl-C.
pub fn run_serve(args: ServeArgs) -> ExitCode {
    let config = Config {
        addr: args.tcp,
        allow_remote: args.allow_remote,
        context_file: (!args.no_persist).then_some(args.context_file),
        save_interval: Duration::from_secs_f64(args.save_interval),
        max_line_bytes: args.max_line_bytes,
        max_connections: args.max_connections,
        idle_timeout: Duration::from_secs_f64(args.idle_timeout),
        max_context_bytes: args.max_context_bytes,
        max_payload_chars: args.max_payload_chars,
        max_conversations: args.max_conversations,
    };
    args.log.init();
    match crate::runtime::block_on(serve(config)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("stc serve: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("stc serve: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves until SIGTERM, SIGHUP or SIGINT, then saves and returns. Prints
/// `listening on ADDR` on stdout once it accepts connections.
async fn serve(config: Config) -> Result<(), stc_serve::Error> {
    // Installed before anything else, so a signal that arrives while the
    // service starts (or right after the address is printed) still ends
    // in a graceful stop with a final save.
    let signal = crate::runtime::shutdown_or_hangup_signal().map_err(stc_serve::Error::Io)?;
    let file = config.context_file.clone();
    let server = stc_serve::Server::start(config).await?;
    match &file {
        Some(p) => tracing::info!("context file {}", p.display()),
        None => tracing::info!("context in memory only (--no-persist)"),
    }
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on {}", server.local_addr());
        let _ = out.flush();
    }
    let signal = signal.await;
    tracing::info!("{signal}, saving and stopping");
    server.shutdown().await
}

/// Runs `stc native-host` until the browser closes stdin.
pub fn run_native_host(args: NativeHostArgs) -> ExitCode {
    let service = args
        .service
        .or_else(|| std::env::var("STC_SERVE_ADDR").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| stc_serve::DEFAULT_ADDR.to_owned());
    let config = HostConfig {
        service,
        timeout: Duration::from_secs_f64(args.timeout),
        max_message_bytes: args.max_message_bytes,
    };
    match stc_serve::native_host::run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stc native-host: {e}");
            ExitCode::FAILURE
        }
    }
}

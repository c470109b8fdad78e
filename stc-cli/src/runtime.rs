//! What a long-running `stc` service needs from its process, in one place:
//! the tokio runtime, the shutdown signal and the log subscriber. The
//! service crates (stc-http, stc-mcp, stc-serve) are libraries: they take a
//! listener, a configuration and a shutdown future, log through `tracing`,
//! and never build a runtime, install a handler or print a banner.

use std::future::Future;

/// How log lines are written to standard error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per event (for log collectors).
    Json,
}

/// Installs the process's `tracing` subscriber: events at `INFO` and above
/// (or as `RUST_LOG` says) to standard error, without colours.
pub fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    // A second call (tests, or two services in one process) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// Runs `future` to completion on a multi-threaded runtime built for it.
pub fn block_on<T>(future: impl Future<Output = T>) -> std::io::Result<T> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    Ok(runtime.block_on(future))
}

/// Like [`block_on`], but does not wait for the runtime's blocking tasks at
/// the end: for services on stdio, whose read of standard input (on a
/// blocking thread) may never complete once the service is done.
pub fn block_on_detached<T>(future: impl Future<Output = T>) -> std::io::Result<T> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let out = runtime.block_on(future);
    runtime.shutdown_background();
    Ok(out)
}

/// Completes on SIGTERM or SIGINT (Ctrl-C elsewhere). The handlers are
/// installed when this is called, so call it before announcing the address:
/// a signal sent as soon as the service is up is then never fatal. Must be
/// called inside the runtime.
pub fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    let signal = stop_signal(false)?;
    Ok(async move {
        signal.await;
    })
}

/// [`shutdown_signal`] plus SIGHUP (the terminal closed), for services that
/// save state on the way out; the future names the signal that came.
pub fn shutdown_or_hangup_signal() -> std::io::Result<impl Future<Output = &'static str>> {
    stop_signal(true)
}

fn stop_signal(hangup: bool) -> std::io::Result<impl Future<Output = &'static str>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut hup = if hangup { Some(signal(SignalKind::hangup())?) } else { None };
        Ok(async move {
            let hup = async {
                match &mut hup {
                    Some(h) => h.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = interrupt.recv() => "SIGINT",
                _ = hup => "SIGHUP",
            }
        })
    }
    #[cfg(not(unix))]
    {
        let _ = hangup;
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        })
    }
}

/// The logging flags every service takes (`#[command(flatten)]` them).
#[derive(Clone, Debug, clap::Args)]
pub struct LogArgs {
    /// How log lines on standard error are written: `text`, or `json`
    /// (one object per line, for log collectors).
    #[arg(long, value_enum, default_value_t, env = "STC_LOG_FORMAT")]
    pub log_format: LogFormat,
}

impl LogArgs {
    /// Installs the subscriber these flags ask for.
    pub fn init(&self) {
        init_logging(self.log_format);
    }
}

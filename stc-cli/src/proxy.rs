//! `stc proxy`: a reverse proxy that serves STC to clients that ask for it (stc-http).
//! A thin front-end: the work is done by the library crate named below.

use std::process::ExitCode;

/// Arguments of `stc proxy`.
#[derive(clap::Args)]
pub struct ProxyArgs {}

/// Runs `stc proxy` until it ends; the exit status says how.
pub fn run(_args: ProxyArgs) -> ExitCode {
    eprintln!("stc proxy: not built yet");
    ExitCode::FAILURE
}

//! `stc serve` and `stc native-host`: the local NDJSON TCP service and its
//! browser native-messaging bridge (stc-serve).
//! A thin front-end: the work is done by the `stc-serve` crate.

use std::process::ExitCode;

/// Arguments of `stc serve`.
#[derive(clap::Args)]
pub struct ServeArgs {}

/// Arguments of `stc native-host`.
#[derive(clap::Args)]
pub struct NativeHostArgs {}

/// Runs `stc serve` until SIGTERM or Ctrl-C.
pub fn run_serve(_args: ServeArgs) -> ExitCode {
    eprintln!("stc serve: not built yet");
    ExitCode::FAILURE
}

/// Runs `stc native-host` until the browser closes stdin.
pub fn run_native_host(_args: NativeHostArgs) -> ExitCode {
    eprintln!("stc native-host: not built yet");
    ExitCode::FAILURE
}

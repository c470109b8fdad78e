//! `stc retrieve`: print what the stash holds under a key (stc-stash).
//! A thin front-end: the work is done by the library crate named below.

use std::process::ExitCode;

/// Arguments of `stc retrieve`.
#[derive(clap::Args)]
pub struct RetrieveArgs {}

/// Runs `stc retrieve` until it ends; the exit status says how.
pub fn run(_args: RetrieveArgs) -> ExitCode {
    eprintln!("stc retrieve: not built yet");
    ExitCode::FAILURE
}

//! `stc-conformance-run`: the STC conformance corpus against any program
//! (see `conformance/RUNNER.md` and [`stc_conformance::runner`]).
//!
//! ```text
//! stc-conformance-run --decoder 'stc decode --max-depth {max_depth}' \
//!                     --encoder 'stc encode --profile {profile} --max-depth {max_depth}'
//! ```
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use stc_conformance::runner::{run, Args};

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args, &mut std::io::stdout().lock()) {
        Ok(summary) => ExitCode::from(summary.exit_code()),
        Err(message) => {
            eprintln!("stc-conformance-run: {message}");
            ExitCode::from(2)
        }
    }
}

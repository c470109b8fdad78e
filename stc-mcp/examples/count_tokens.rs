//! Prints the o200k_base token count of each file given, one `COUNT PATH` per
//! line (used by `bench/services/mcp-proxy.sh`).
//!
//! ```sh
//! cargo run --release -p stc-mcp --example count_tokens -- a.json b.stc
//! ```
#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        match std::fs::read(&path) {
            Ok(bytes) => match std::str::from_utf8(&bytes) {
                Ok(text) => println!("{} {path}", stc_core::Tokenizer::O200kBase.count(text)),
                Err(e) => {
                    eprintln!("{path}: not UTF-8: {e}");
                    failed = true;
                }
            },
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

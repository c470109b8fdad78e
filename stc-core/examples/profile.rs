//! One encode or decode of one file, for instruction counts under callgrind:
//!
//! ```text
//! cargo build --release -p stc-core --example profile
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/profile encode FILE
//! ```
//!
//! `encode` reads the JSON file and encodes it as STC; `decode` does the same
//! and then decodes that STC back to JSON, so the count of `decode` minus the
//! count of `encode` is the cost of decoding.
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, path] = args.as_slice() else {
        eprintln!("usage: profile encode|decode FILE");
        std::process::exit(2);
    };
    let json = match std::fs::read_to_string(path) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let run = || -> Result<usize, stc_core::Error> {
        let stc = stc_core::encode(&json, &Default::default())?;
        Ok(match mode.as_str() {
            "encode" => stc.len(),
            "decode" => stc_core::decode(black_box(&stc))?.len(),
            other => {
                eprintln!("unknown mode {other}");
                std::process::exit(2);
            }
        })
    };
    match run() {
        Ok(n) => println!("{n}"),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}

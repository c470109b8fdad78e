//! One operation on one file, for instruction counts under callgrind (which
//! are repeatable on a busy machine, unlike wall-clock times):
//!
//! ```text
//! cargo build --release -p stc-core --example profile
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/profile MODE FILE
//! ```
//!
//! Modes, each on the JSON file `FILE`:
//! * `parse`: read it into a `Document`;
//! * `encode`: `stc_core::encode` it (read + STC writer);
//! * `decode`: encode it, then decode that STC back to JSON, so
//!   `decode - encode` is the cost of decoding;
//! * `latin1`: encode it, then `decode_latin1_into` (Node's `parse`), so
//!   `latin1 - encode` is the cost of the one-byte decode;
//! * `to_json`, `pretty`: read it, then write the document as minified or
//!   indented JSON (minus `parse`: the cost of the JSON writers over a tape).
use std::hint::black_box;

use stc_core::{Document, Limits};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, path] = args.as_slice() else {
        eprintln!("usage: profile parse|encode|decode|latin1|to_json|pretty FILE");
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
        Ok(match mode.as_str() {
            "parse" => black_box(Document::parse_json(&json, &Limits::default())?).node_count(),
            "encode" => stc_core::encode_with(&json, &Default::default())?.len(),
            "decode" => stc_core::decode(black_box(&stc_core::encode_with(&json, &Default::default())?))?.len(),
            "latin1" => {
                let stc = stc_core::encode_with(&json, &Default::default())?;
                let mut out = Vec::new();
                stc_core::decode_latin1_into(black_box(&stc), &stc_core::DecodeOptions::default(), &mut out)?;
                out.len()
            }
            "to_json" => Document::parse_json(&json, &Limits::default())?.to_json().len(),
            "pretty" => Document::parse_json(&json, &Limits::default())?.to_json_pretty().len(),
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

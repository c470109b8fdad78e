//! One encode of one file, for instruction counts under callgrind (repeatable
//! on a busy machine, unlike wall-clock times), against serde_json's parse and
//! write of the same text (the issue-16 speed target):
//!
//! ```text
//! cargo build --release -p stc-core --example encode_cost
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/encode_cost MODE FILE
//! ```
//!
//! Modes: `v1`, `v2` (`stc_core::encode_with`, compact, that version),
//! `v1-readable`, `serde` (serde_json: `Value`, then minified JSON) and
//! `parse` (only the tape, so `v1 - parse` is the encoder's own cost).
use std::hint::black_box;

use stc_core::{Document, EncodeOptions, Limits, Profile, Version};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, path] = args.as_slice() else {
        eprintln!("usage: encode_cost v1|v2|v1-readable|serde|parse FILE");
        std::process::exit(2);
    };
    let json = match std::fs::read_to_string(path) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let options = |version, profile| EncodeOptions::default().version(version).profile(profile);
    let result = match mode.as_str() {
        "v1" => stc_core::encode_with(&json, &options(Version::V1, Profile::Compact)).map(|s| s.len()),
        "v2" => stc_core::encode_with(&json, &options(Version::V2, Profile::Compact)).map(|s| s.len()),
        "v1-readable" => stc_core::encode_with(&json, &options(Version::V1, Profile::Readable)).map(|s| s.len()),
        "parse" => Document::parse_json(&json, &Limits::default()).map(|d| black_box(d).node_count()),
        "serde" => match serde_json::from_str::<serde_json::Value>(&json) {
            Ok(value) => Ok(serde_json::to_string(black_box(&value)).map_or(0, |s| s.len())),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        },
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    };
    match result {
        Ok(n) => println!("{n}"),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}

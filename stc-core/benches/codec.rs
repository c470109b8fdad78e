//! Encode and decode throughput on the shared corpus, side by side with
//! serde_json parsing the same text into a `Value` and writing it back.
//!
//! Run from the repository root:
//!
//! ```text
//! cargo bench -p stc-core --bench codec
//! cargo bench -p stc-core --bench codec -- twitter     # one document
//! ```
//!
//! The corpus is read in place from `../shared/corpus` next to the
//! repository (override with `STC_CORPUS=/path/to/dir`). Each group holds one
//! document and five functions:
//!
//! * `encode/stc`: JSON text (as stored) -> STC compact (`stc_core::encode`).
//! * `encode/stc_v2`: the same at version 2 (`EncodeOptions::version`).
//! * `encode/serde_json`: the same JSON text -> `Value` -> minified JSON.
//! * `decode/stc`: the STC compact text -> minified JSON (`stc_core::decode`).
//! * `decode/serde_json`: the minified JSON of the same content -> `Value` ->
//!   minified JSON.
//!
//! Throughput is reported in bytes of each function's input. The codec's
//! targets: decode at least as fast as serde_json's parse+write, encode at
//! least 0.8 of it. `bench/run.sh` turns the results into `bench/REPORT.md`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stc_core::{decode, encode_with, EncodeOptions, Version};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("STC_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

/// The corpus' `.json` documents, sorted by name. (`.ndjson` holds many
/// documents per file and is measured by `bench/` instead.)
fn corpus() -> Vec<(String, String)> {
    let dir = corpus_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("codec bench: no corpus at {} (set STC_CORPUS); nothing to measure", dir.display());
        return Vec::new();
    };
    let mut docs: Vec<(String, String)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, text)
        })
        .collect();
    docs.sort();
    docs
}

fn serde_roundtrip(text: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    serde_json::to_string(&value).unwrap()
}

fn codec(c: &mut Criterion) {
    let options = EncodeOptions::default();
    let v2 = EncodeOptions::default().version(Version::V2);
    for (name, json) in corpus() {
        let stc = encode_with(&json, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let minified = decode(&stc).unwrap();
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(json.len() as u64));
        group.bench_function("encode/stc", |b| b.iter(|| encode_with(black_box(&json), &options).unwrap()));
        group.bench_function("encode/stc_v2", |b| b.iter(|| encode_with(black_box(&json), &v2).unwrap()));
        group.bench_function("encode/serde_json", |b| b.iter(|| serde_roundtrip(black_box(&json))));
        group.throughput(Throughput::Bytes(stc.len() as u64));
        group.bench_function("decode/stc", |b| b.iter(|| decode(black_box(&stc)).unwrap()));
        group.throughput(Throughput::Bytes(minified.len() as u64));
        group.bench_function("decode/serde_json", |b| b.iter(|| serde_roundtrip(black_box(&minified))));
        group.finish();
    }
}

fn config() -> Criterion {
    // Short runs: 14 documents x 5 functions on a shared 2-core machine.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .noise_threshold(0.03)
}

criterion_group! {
    name = benches;
    config = config();
    targets = codec
}
criterion_main!(benches);

//! What the integration tests share: the corpus as they read it, and the
//! one-byte JSON oracle of the Latin-1 tests.
//!
//! The corpus is read in place from `../shared/corpus` (next to the
//! repository); set `STC_CORPUS` to read it from elsewhere.

use std::path::PathBuf;

pub mod reference;

/// Where the corpus is: `STC_CORPUS`, or `../shared/corpus`.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("STC_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

/// The corpus files whose extension is `ext`, sorted by name, as (file name, text).
fn files(ext: &str) -> Vec<(String, String)> {
    let dir = corpus_dir();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

/// Every `.json` file of the corpus, as (file name, text).
pub fn json_files() -> Vec<(String, String)> {
    let docs = files("json");
    assert!(docs.len() >= 10, "expected the shared corpus in {}", corpus_dir().display());
    docs
}

/// Every JSON document: each `.json` file, and each line of the `.ndjson`
/// files (named `file:line`), sorted by file name.
pub fn documents() -> Vec<(String, String)> {
    let mut docs = json_files();
    for (name, text) in files("ndjson") {
        for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            docs.push((format!("{name}:{}", i + 1), line.to_string()));
        }
    }
    docs.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(docs.len() >= 14, "expected the shared corpus, found {} documents", docs.len());
    docs
}

/// The one-byte form of the JSON text `json` that `decode_latin1_into`
/// writes: every character up to U+00FF as one byte, every other as
/// `\uXXXX` escapes (a surrogate pair beyond U+FFFF), written here
/// independently of stc-core.
pub fn latin1(json: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for c in json.chars() {
        if (c as u32) < 0x100 {
            out.push(c as u32 as u8);
        } else {
            for unit in c.encode_utf16(&mut [0u16; 2]) {
                out.extend_from_slice(format!("\\u{:04x}", unit).as_bytes());
            }
        }
    }
    out
}

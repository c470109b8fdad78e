//! Every document of the shared corpus round-trips exactly, in both profiles.
//!
//! The corpus is read in place from `../shared/corpus` (next to the
//! repository); set `STC_CORPUS` to read it from elsewhere.

use std::path::PathBuf;

use stc_core::{decode, encode_with, EncodeOptions, Profile};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("STC_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

/// Every JSON document: each `.json` file, and each line of `.ndjson` files.
fn documents() -> Vec<(String, String)> {
    let dir = corpus_dir();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut docs = Vec::new();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => docs.push((name, text)),
            Some("ndjson") => {
                for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
                    docs.push((format!("{name}:{}", i + 1), line.to_string()));
                }
            }
            _ => {}
        }
    }
    assert!(docs.len() >= 14, "expected the shared corpus, found {} documents", docs.len());
    docs
}

#[test]
fn corpus_round_trips_exactly() {
    for (name, json) in documents() {
        let canonical = decode(&json).unwrap_or_else(|e| panic!("{name}: JSON is not STC: {e}"));
        // An independent reader agrees that the canonical form is the same value.
        let original: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(&canonical).unwrap(), original, "{name}");
        for profile in [Profile::Compact, Profile::Readable] {
            let stc = encode_with(&json, &EncodeOptions::default().profile(profile)).unwrap();
            let back = decode(&stc).unwrap();
            assert!(back == canonical, "{name} ({profile:?}) does not round-trip");
            // Deterministic: a second run gives the same bytes.
            assert_eq!(encode_with(&json, &EncodeOptions::default().profile(profile)).unwrap(), stc, "{name}");
        }
    }
}

#[test]
fn corpus_twitter_keeps_big_ids_and_lexemes() {
    let json = std::fs::read_to_string(corpus_dir().join("twitter.json")).unwrap();
    let stc = encode_with(&json, &EncodeOptions::default()).unwrap();
    // 18-digit ids are kept as written (a float would round them).
    assert!(stc.contains("id:505874924095815681"));
    assert!(decode(&stc).unwrap().contains("\"id\":505874924095815681"));
}

//! Every document of the shared corpus round-trips exactly, in both profiles.
//!
//! The corpus is read in place (see `support/mod.rs`).

use stc_core::{decode, encode_with, EncodeOptions, Profile};

use crate::support::{corpus_dir, documents};

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

//! `truncate` with `TruncateOptions::version`: the output is measured and
//! written in the version asked for, decodes in that version to the output
//! JSON, and its markers are found by `references_in` whatever the version.

use stc_core::{DecodeOptions, ErrorKind, Tokenizer, Version};
use stc_stash::{references_in, truncate, MemoryStore, TruncateOptions};

use crate::common::resolve;
use crate::samples::optional_records;

fn decode(stc: &str, version: Version) -> Result<String, stc_core::Error> {
    stc_core::decode_with(stc, &DecodeOptions::default().version(version))
}

#[test]
fn the_default_version_is_1() {
    assert_eq!(TruncateOptions::default().version, Version::V1);
}

#[test]
fn a_version_2_truncation_decodes_in_version_2_and_keeps_its_markers() {
    for json in [optional_records(500), optional_records(60)] {
        for budget in [None, Some(400)] {
            let store = MemoryStore::new();
            let options = TruncateOptions { version: Version::V2, token_budget: budget, ..TruncateOptions::default() };
            let out = truncate(&json, Some(&store), &options).unwrap();
            let case = format!("{} bytes, budget {budget:?}, kept {:?}", json.len(), out.kept);
            // The STC text is version 2 and stands for the output JSON.
            assert_eq!(decode(&out.stc, Version::V2).unwrap(), out.json, "{case}");
            assert_eq!(out.tokens, Tokenizer::Estimate.count(&out.stc), "{case}: tokens are the v2 text's");
            if let Some(b) = budget {
                if out.kept.is_none() {
                    assert!(out.tokens <= b, "{case}: {} tokens", out.tokens);
                }
            }
            // Every marker is found in the v2 text, and the original comes back.
            let keys: Vec<_> = out.writes.iter().map(|w| w.key).collect();
            assert_eq!(references_in(&out.stc), keys, "{case}");
            assert_eq!(resolve(&store, &out.json), stc_core::decode(&json).unwrap(), "{case}");
        }
    }
}

#[test]
fn version_1_and_version_2_cut_the_same_way_without_a_budget() {
    // The plan does not depend on the version; only the measured text does.
    let json = optional_records(500);
    let v1 = truncate(&json, Some(&MemoryStore::new()), &TruncateOptions::default()).unwrap();
    let options = TruncateOptions { version: Version::V2, ..TruncateOptions::default() };
    let v2 = truncate(&json, Some(&MemoryStore::new()), &options).unwrap();
    assert_eq!(v1.json, v2.json);
    assert_eq!(decode(&v1.stc, Version::V1).unwrap(), v1.json);
    assert_eq!(decode(&v2.stc, Version::V2).unwrap(), v2.json);
    assert!(v2.tokens <= v1.tokens, "v2 {} tokens, v1 {}", v2.tokens, v1.tokens);
}

/// The v2 encoder (stc-core 431ba80) uses a version 2 construct where it pays.
#[test]
fn a_version_2_truncation_uses_absent_cells_and_costs_fewer_tokens() {
    let json = optional_records(500);
    let store = MemoryStore::new();
    let v1 = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
    let options = TruncateOptions { version: Version::V2, ..TruncateOptions::default() };
    let v2 = truncate(&json, Some(&store), &options).unwrap();
    assert!(v2.stc.contains('~'), "no absent cell: {:.300}", v2.stc);
    assert!(v2.original_tokens < v1.original_tokens, "v2 {} vs v1 {}", v2.original_tokens, v1.original_tokens);
    // A version 1 reader refuses it at the first v2 construct; the markers are still found.
    assert_eq!(decode(&v2.stc, Version::V1).unwrap_err().kind(), ErrorKind::NewerVersion);
    assert_eq!(references_in(&v2.stc), v2.writes.iter().map(|w| w.key).collect::<Vec<_>>());
}

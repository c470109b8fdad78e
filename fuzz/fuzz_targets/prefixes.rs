//! Every proper prefix of an encoder output whose top-level value is an
//! array or object fails to decode (spec 3.12): JSON built from the
//! fuzzer's bytes is encoded in both versions and profiles, then cut at
//! every character boundary; each cut text must give a syntax error inside
//! it, never a value.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{Category, DecodeOptions, EncodeOptions, Profile, Version};

fuzz_target!(|data: &[u8]| {
    // Any JSON text among the input's bytes (most are not: the decode and
    // roundtrip targets' seeds reach the writer's paths).
    let Ok(json) = std::str::from_utf8(data) else { return };
    for version in [Version::V1, Version::V2] {
        for profile in [Profile::Compact, Profile::Readable] {
            let Ok(stc) = stc_core::encode_with(json, &EncodeOptions::default().version(version).profile(profile))
            else {
                return;
            };
            if !matches!(stc.as_bytes().first(), Some(b'[' | b'{' | b'(')) {
                return;
            }
            let options = DecodeOptions::default().version(version);
            for (n, _) in stc.char_indices().skip(1) {
                match stc_core::decode_with(&stc[..n], &options) {
                    Ok(value) => panic!("prefix {:?} of {stc:?} decodes to {value}", &stc[..n]),
                    Err(e) => {
                        assert_eq!(e.category(), Category::Syntax, "{e}");
                        assert!(e.offset().is_some_and(|o| o <= n), "{e}");
                    }
                }
            }
        }
    }
});

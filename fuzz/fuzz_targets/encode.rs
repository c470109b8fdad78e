//! Any bytes through the JSON reader and the STC writer, both profiles and
//! both versions:
//! never a panic; an error's offset lies inside the input; the STC decodes
//! to the minified input and re-encodes to itself (spec §6).
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{DecodeOptions, EncodeOptions, Limits, Profile, Version};

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    for (profile, version) in VARIANTS {
        let options = encode_options(profile, limits).version(version);
        let read = DecodeOptions::default().limits(limits).version(version);
        match stc_core::encode_bytes_with(data, &options) {
            Ok(stc) => {
                let minified =
                    stc_core::decode_bytes_with(data, &limits).expect("JSON the encoder took decodes as STC");
                let back = stc_core::decode_bytes_with(stc.as_bytes(), &read).expect("encoder output decodes");
                assert_eq!(back, minified, "lossless: decode(encode(x)) must be minify(x)");
                let again = stc_core::encode_with(&back, &options).expect("minified JSON encodes");
                assert_eq!(again, stc, "idempotent: encode(decode(encode(x))) must be encode(x)");
            }
            Err(e) => assert!(
                e.offset().is_some_and(|o| o <= data.len()),
                "offset {:?} past the input ({} bytes)",
                e.offset(),
                data.len()
            ),
        }
    }
});

/// Both profiles, in both versions.
const VARIANTS: [(Profile, Version); 4] = [
    (Profile::Compact, Version::V1),
    (Profile::Readable, Version::V1),
    (Profile::Compact, Version::V2),
    (Profile::Readable, Version::V2),
];

/// Field by field, so that this builds whether or not stc-core's option
/// structs are `#[non_exhaustive]` (with or without builder methods).
#[allow(clippy::field_reassign_with_default)]
fn encode_options(profile: Profile, limits: Limits) -> EncodeOptions {
    let mut options = EncodeOptions::default();
    options.profile = profile;
    options.limits = limits;
    options
}

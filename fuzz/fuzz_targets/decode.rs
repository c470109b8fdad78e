//! Any bytes through the STC reader: never a panic; an error's offset lies
//! inside the input; a success is canonical minified JSON (strict JSON that
//! decodes to itself) and validation agrees with decoding, in both versions;
//! a version-2 reader gives the same JSON as a version-1 reader wherever the
//! latter succeeds, and where only version 2 succeeds version 1 failed with
//! `newer_version` (never another value).
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{DecodeOptions, ErrorKind, Limits, Validate, Version};

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    let v1 = check(data, &DecodeOptions::default().limits(limits).version(Version::V1));
    let v2 = check(data, &DecodeOptions::default().limits(limits).version(Version::V2));
    match (&v1, &v2) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "versions 1 and 2 read different values"),
        (Ok(_), Err(e)) => panic!("version 2 rejects what version 1 reads: {e}"),
        (Err(e), Ok(_)) => assert_eq!(e.kind(), ErrorKind::NewerVersion, "only v2 reads it, yet v1 said {e}"),
        (Err(_), Err(_)) => {}
    }
});

/// One version: decode and validate agree, offsets lie inside the input, a
/// success is canonical strict JSON.
fn check(data: &[u8], options: &DecodeOptions) -> Result<String, stc_core::Error> {
    let limits = options.limits;
    let decoded = stc_core::decode_bytes_with(data, options);
    let validated = stc_core::validate_bytes_with(data, options);
    match decoded {
        Ok(json) => {
            assert!(validated.is_ok(), "decode accepts what validate rejects: {validated:?}");
            stc_core::parse_json(&json, &limits, &mut Validate).expect("decode output is strict JSON");
            let again = stc_core::decode_bytes_with(json.as_bytes(), &limits).expect("decode output decodes");
            assert_eq!(again, json, "decode output is not canonical");
            Ok(json)
        }
        Err(e) => {
            assert!(
                e.offset().is_some_and(|o| o <= data.len()),
                "offset {:?} past the input ({} bytes)",
                e.offset(),
                data.len()
            );
            let v = validated.expect_err("validate accepts what decode rejects");
            assert_eq!((v.kind(), v.offset()), (e.kind(), e.offset()), "validate and decode disagree");
            Err(e)
        }
    }
}

//! Any bytes through the STC reader: never a panic; an error's offset lies
//! inside the input; a success is canonical minified JSON (strict JSON that
//! decodes to itself) and validation agrees with decoding.
#![no_main]
#![forbid(unsafe_code)]

use libfuzzer_sys::fuzz_target;
use stc_core::{Limits, Validate};

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    let decoded = stc_core::decode_bytes_with(data, &limits);
    let validated = stc_core::validate_bytes_with(data, &limits);
    match decoded {
        Ok(json) => {
            assert!(validated.is_ok(), "decode accepts what validate rejects: {validated:?}");
            stc_core::parse_json(&json, &limits, &mut Validate).expect("decode output is strict JSON");
            let again = stc_core::decode_bytes_with(json.as_bytes(), &limits).expect("decode output decodes");
            assert_eq!(again, json, "decode output is not canonical");
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
        }
    }
});

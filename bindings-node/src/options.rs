//! The options as stc-core's types. The JavaScript layer checks their types
//! only; their values are the core's to check (`FromStr`, `Version::try_from`,
//! `MinSaving::try_from`): a refusal is an `InvalidArg` error with the core's
//! message, which the JavaScript layer throws as a `RangeError`.

use napi::bindgen_prelude::*;
use stc_core::{DecodeOptions, EncodeOptions, Limits, MinSaving, Profile, Tokenizer, Version};

/// The core's refusal of an option value.
fn invalid(e: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, e.to_string())
}

pub(crate) fn limits(max_depth: Option<u32>) -> Limits {
    Limits::default().max_depth(max_depth.map_or(Limits::default().max_depth, |d| d as usize))
}

pub(crate) fn profile(name: Option<String>) -> Result<Profile> {
    match name {
        None => Ok(Profile::Compact),
        Some(n) => n.parse::<Profile>().map_err(invalid),
    }
}

pub(crate) fn tokenizer(name: Option<String>, default: Tokenizer) -> Result<Tokenizer> {
    match name {
        None => Ok(default),
        Some(n) => n.parse::<Tokenizer>().map_err(invalid),
    }
}

/// The STC version, a number (1 or 2) checked by the core; default version 1.
pub(crate) fn version(number: Option<f64>) -> Result<Version> {
    number.map_or(Ok(Version::default()), |n| Version::try_from(n).map_err(invalid))
}

/// The gate's `minSaving`, a number from 0 to 1 checked by the core; default 0.05.
pub(crate) fn min_saving(fraction: Option<f64>) -> Result<MinSaving> {
    fraction.map_or(Ok(MinSaving::default()), |m| MinSaving::try_from(m).map_err(invalid))
}

/// The options of the reading functions.
pub(crate) fn decode_options(max_depth: Option<u32>, version_number: Option<f64>) -> Result<DecodeOptions> {
    Ok(DecodeOptions::default().limits(limits(max_depth)).version(version(version_number)?))
}

/// The options of the writing functions.
pub(crate) fn encode_options(
    profile_name: Option<String>,
    max_depth: Option<u32>,
    version_number: Option<f64>,
) -> Result<EncodeOptions> {
    Ok(EncodeOptions::default()
        .profile(profile(profile_name)?)
        .limits(limits(max_depth))
        .version(version(version_number)?))
}

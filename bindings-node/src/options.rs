//! The options the JavaScript layer has checked, as stc-core's types.

use napi::bindgen_prelude::*;
use stc_core::{DecodeOptions, EncodeOptions, Limits, Profile, Tokenizer, Version};

pub(crate) fn limits(max_depth: Option<u32>) -> Limits {
    Limits::default().max_depth(max_depth.map_or(Limits::default().max_depth, |d| d as usize))
}

pub(crate) fn profile(name: Option<String>) -> Result<Profile> {
    match name {
        None => Ok(Profile::Compact),
        Some(n) => n.parse::<Profile>().map_err(|e| Error::new(Status::InvalidArg, e.to_string())),
    }
}

pub(crate) fn tokenizer(name: Option<String>, default: Tokenizer) -> Result<Tokenizer> {
    match name {
        None => Ok(default),
        Some(n) => n.parse::<Tokenizer>().map_err(|e| Error::new(Status::InvalidArg, e.to_string())),
    }
}

/// The STC version (1 or 2, the JavaScript layer checked it against
/// [`Version::NAMES`]); default version 1.
pub(crate) fn version(number: Option<u32>) -> Result<Version> {
    match number {
        None => Ok(Version::default()),
        Some(n) => n.to_string().parse::<Version>().map_err(|e| Error::new(Status::InvalidArg, e.to_string())),
    }
}

/// The options of the reading functions.
pub(crate) fn decode_options(max_depth: Option<u32>, version_number: Option<u32>) -> Result<DecodeOptions> {
    Ok(DecodeOptions::default().limits(limits(max_depth)).version(version(version_number)?))
}

/// The options of the writing functions.
pub(crate) fn encode_options(
    profile_name: Option<String>,
    max_depth: Option<u32>,
    version_number: Option<u32>,
) -> Result<EncodeOptions> {
    Ok(EncodeOptions::default()
        .profile(profile(profile_name)?)
        .limits(limits(max_depth))
        .version(version(version_number)?))
}

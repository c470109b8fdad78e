//! The options the JavaScript layer has checked, as stc-core's types.

use napi::bindgen_prelude::*;
use stc_core::{Limits, Profile, Tokenizer};

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

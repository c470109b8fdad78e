//! The value parsers of every `stc` option that stc-core defines: a
//! [`Profile`], [`Tokenizer`] or [`Version`] by name, a [`MinSaving`]
//! fraction, a number of [`Seconds`]. Each one calls the core's `FromStr`, so
//! a bad value gets the core's message (the same as in the MCP tools,
//! `stc serve` and the bindings) and `--help` lists the names the core
//! accepts. No subcommand parses these options any other way.

use std::ffi::OsStr;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

use clap::builder::{PossibleValue, TypedValueParser};
use stc_core::{MinSaving, Profile, Seconds, Tokenizer, Version};

/// A clap value parser over the core's `FromStr` for a type with a list of
/// names: errors carry the core's message, `--help` shows the names.
#[derive(Clone)]
pub(crate) struct Named<T> {
    names: &'static [&'static str],
    of: PhantomData<fn() -> T>,
}

impl<T> TypedValueParser for Named<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: Display,
{
    type Value = T;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<T, clap::Error> {
        let parse = |text: &str| text.parse::<T>().map_err(|e| e.to_string());
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(PossibleValue::new)))
    }
}

/// `--profile`: `compact` or `readable`.
pub(crate) fn profile() -> Named<Profile> {
    Named { names: Profile::NAMES, of: PhantomData }
}

/// `--tokenizer`: `estimate`, `o200k_base` or `cl100k_base`.
pub(crate) fn tokenizer() -> Named<Tokenizer> {
    Named { names: Tokenizer::NAMES, of: PhantomData }
}

/// `--stc-version`, `--max-stc-version`: `1` or `2`.
pub(crate) fn version() -> Named<Version> {
    Named { names: Version::NAMES, of: PhantomData }
}

/// `--min-saving`: a fraction from 0 to 1.
pub(crate) fn min_saving(text: &str) -> Result<MinSaving, String> {
    text.parse::<MinSaving>().map_err(|e| e.to_string())
}

/// Every option in seconds (timeouts, intervals, grace periods): above 0, at
/// most a day. The services keep the number as `f64`.
pub(crate) fn seconds(text: &str) -> Result<f64, String> {
    text.parse::<Seconds>().map(Seconds::get).map_err(|e| e.to_string())
}

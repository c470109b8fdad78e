//! Options: output profile and the limits no input can break.

/// Resource limits applied while reading any input.
///
/// ```
/// let strict = stc_core::Limits { max_depth: 16 };
/// assert!(stc_core::validate_with("[[[1]]]", &strict).is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of arrays and objects accepted (default 128). The
    /// top-level container is depth 1; a columnar array's rows count as one
    /// level below the array. Values above [`MAX_DEPTH_LIMIT`] are clamped.
    ///
    /// [`MAX_DEPTH_LIMIT`]: crate::MAX_DEPTH_LIMIT
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: 128 }
    }
}

/// The whitespace style of encoder output. Both profiles choose the same
/// structure (unquoted keys, compact and columnar arrays); they differ only in
/// optional whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// No optional whitespace: `{a:1,b[2]:1,2}`. Spends fewer tokens on the
    /// benchmark corpus, so it is the default.
    #[default]
    Compact,
    /// The spacing of ADR-066's examples: `{a: 1, b[2]: 1,2}`.
    Readable,
}

impl Profile {
    /// The profile's name as used by the CLI and the bindings.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Compact => "compact",
            Profile::Readable => "readable",
        }
    }

    /// Parses `"compact"` or `"readable"`.
    ///
    /// ```
    /// assert_eq!(stc_core::Profile::from_name("readable"), Some(stc_core::Profile::Readable));
    /// assert_eq!(stc_core::Profile::from_name("fancy"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "compact" => Some(Profile::Compact),
            "readable" => Some(Profile::Readable),
            _ => None,
        }
    }
}

/// Options of [`encode`](crate::encode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EncodeOptions {
    /// Output whitespace style.
    pub profile: Profile,
    /// Limits applied while reading the JSON input.
    pub limits: Limits,
}

impl EncodeOptions {
    /// Options with the given profile and default limits.
    pub fn profile(profile: Profile) -> Self {
        EncodeOptions { profile, ..Default::default() }
    }
}

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
    /// Every profile's name, in declaration order: what [`FromStr`](std::str::FromStr) accepts.
    pub const NAMES: &'static [&'static str] = &["compact", "readable"];

    /// The profile's name as used by the CLI and the bindings (also its
    /// `Display` form); no allocation.
    pub const fn name(self) -> &'static str {
        match self {
            Profile::Compact => "compact",
            Profile::Readable => "readable",
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses `"compact"` or `"readable"`; the error lists the valid names.
///
/// ```
/// use stc_core::Profile;
/// assert_eq!("readable".parse::<Profile>(), Ok(Profile::Readable));
/// let err = "fancy".parse::<Profile>().unwrap_err();
/// assert_eq!(err.to_string(), r#"unknown profile "fancy" (expected one of: compact, readable)"#);
/// ```
impl std::str::FromStr for Profile {
    type Err = crate::ParseNameError;

    fn from_str(name: &str) -> Result<Profile, Self::Err> {
        match name {
            "compact" => Ok(Profile::Compact),
            "readable" => Ok(Profile::Readable),
            _ => Err(crate::ParseNameError::new("profile", name, Profile::NAMES)),
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

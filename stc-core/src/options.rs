//! Options: output profile and the limits no input can break.
//!
//! Every option struct is `#[non_exhaustive]` (fields may be added without
//! breaking callers) and is built from `Default` with by-value setters named
//! like the fields: `EncodeOptions::default().profile(Profile::Readable).max_depth(64)`.
//! Fields stay public for reading and assignment.

/// Resource limits applied while reading any input: the options of
/// [`decode_with`](crate::decode_with) and [`validate_with`](crate::validate_with)
/// (decoding has no other knob, so it takes `Limits` directly).
///
/// ```
/// let strict = stc_core::Limits::default().max_depth(16);
/// assert!(stc_core::validate_with("[[[1]]]", &strict).is_ok());
/// ```
#[non_exhaustive]
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

impl Limits {
    /// Sets [`max_depth`](Limits::max_depth).
    #[must_use]
    pub fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
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

/// Options of [`encode_with`](crate::encode_with).
///
/// ```
/// use stc_core::{EncodeOptions, Profile};
/// let options = EncodeOptions::default().profile(Profile::Readable).max_depth(64);
/// assert_eq!((options.profile, options.limits.max_depth), (Profile::Readable, 64));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EncodeOptions {
    /// Output whitespace style.
    pub profile: Profile,
    /// Limits applied while reading the JSON input.
    pub limits: Limits,
}

impl EncodeOptions {
    /// Sets [`profile`](EncodeOptions::profile).
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Sets [`limits`](EncodeOptions::limits).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets `limits.max_depth`.
    #[must_use]
    pub fn max_depth(mut self, max_depth: usize) -> Self {
        self.limits.max_depth = max_depth;
        self
    }
}

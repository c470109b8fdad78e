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
    /// level below the array.
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

/// The STC version a text is written in or read as.
///
/// Version 2 adds column groups, absent cells (`~`) and keyed tables; a
/// version 2 reader reads every version 1 text. A version 1 reader given a
/// version 2 construct fails with [`ErrorKind::NewerVersion`](crate::ErrorKind::NewerVersion)
/// at its first byte. The default is version 1 for both directions.
///
/// ```
/// use stc_core::Version;
/// assert_eq!("2".parse::<Version>(), Ok(Version::V2));
/// assert_eq!((Version::default(), Version::V2.as_u8(), Version::V2.to_string()), (Version::V1, 2, "2".to_string()));
/// let err = "3".parse::<Version>().unwrap_err();
/// assert_eq!(err.to_string(), r#"unknown version "3" (expected one of: 1, 2)"#);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Version {
    /// STC version 1: identifier keys, compact and columnar arrays.
    #[default]
    V1,
    /// STC version 2: version 1 plus column groups, `~` absent cells and keyed tables.
    V2,
}

impl Version {
    /// Every version's name, in declaration order: what [`FromStr`](std::str::FromStr) accepts.
    pub const NAMES: &'static [&'static str] = &["1", "2"];

    /// The newest version this crate reads and writes.
    pub const LATEST: Version = Version::V2;

    /// The version number (`1` or `2`).
    pub const fn as_u8(self) -> u8 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
        }
    }

    /// The version's name (`"1"` or `"2"`, also its `Display` form); no allocation.
    pub const fn name(self) -> &'static str {
        match self {
            Version::V1 => "1",
            Version::V2 => "2",
        }
    }

    /// The version numbered `n`, if there is one.
    pub const fn from_u8(n: u8) -> Option<Version> {
        match n {
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            _ => None,
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses `"1"` or `"2"`; the error lists the valid names. This is the
/// version given as text: a CLI flag (`--stc-version 2`), an HTTP media-type
/// parameter or header (`version=2`, `X-STC-Version: 2`).
impl std::str::FromStr for Version {
    type Err = crate::ParseNameError;

    fn from_str(name: &str) -> Result<Version, Self::Err> {
        match name {
            "1" => Ok(Version::V1),
            "2" => Ok(Version::V2),
            _ => Err(crate::ParseNameError::new("version", name, Version::NAMES)),
        }
    }
}

/// The version given as a number, where options are typed values (JSON
/// requests of `stc serve` and the MCP tools, Python's `version=`, JavaScript's
/// `version:`): the integer 1 or 2, also written `2.0` since JSON and
/// JavaScript have one number type. A string (`"2"`) is not a version
/// number: a binding refuses it as the wrong type; text is for text
/// surfaces ([`FromStr`](std::str::FromStr)). Any other number is the same
/// [`ParseNameError`](crate::ParseNameError) as its text would be.
///
/// ```
/// use stc_core::Version;
/// assert_eq!(Version::try_from(2.0), Ok(Version::V2));
/// assert_eq!(Version::try_from(2.5).unwrap_err().to_string(), r#"unknown version "2.5" (expected one of: 1, 2)"#);
/// ```
impl TryFrom<f64> for Version {
    type Error = crate::ParseNameError;

    fn try_from(number: f64) -> Result<Version, Self::Error> {
        if number == 1.0 {
            Ok(Version::V1)
        } else if number == 2.0 {
            Ok(Version::V2)
        } else {
            Err(crate::ParseNameError::new("version", &number.to_string(), Version::NAMES))
        }
    }
}

/// The version given as an integer (see `TryFrom<f64>`): 1 or 2.
impl TryFrom<i64> for Version {
    type Error = crate::ParseNameError;

    fn try_from(number: i64) -> Result<Version, Self::Error> {
        match number {
            1 => Ok(Version::V1),
            2 => Ok(Version::V2),
            _ => Err(crate::ParseNameError::new("version", &number.to_string(), Version::NAMES)),
        }
    }
}

/// A duration option given in seconds: every timeout, interval and grace
/// period of the services (`--connect-timeout`, `--idle-timeout`,
/// `--save-interval`, `--shutdown-grace`, …). A number above 0 and at most
/// [`Seconds::MAX`] (one day), fractions allowed; anything else is an
/// [`OptionError`](crate::OptionError) with one message.
///
/// ```
/// use stc_core::Seconds;
/// use std::time::Duration;
/// assert_eq!("0.25".parse::<Seconds>().map(Seconds::duration), Ok(Duration::from_millis(250)));
/// assert_eq!(
///     "0".parse::<Seconds>().unwrap_err().to_string(),
///     "invalid seconds 0 (expected a number of seconds above 0 and at most 86400)"
/// );
/// assert!(Seconds::try_from(86_401.0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Seconds(f64);

impl Seconds {
    /// The longest duration accepted: 86,400 seconds, one day.
    pub const MAX: f64 = 86_400.0;
    const EXPECTED: &'static str = "a number of seconds above 0 and at most 86400";

    /// The number of seconds.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// As a [`Duration`](std::time::Duration).
    pub fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.0)
    }
}

impl TryFrom<f64> for Seconds {
    type Error = crate::OptionError;

    fn try_from(seconds: f64) -> Result<Seconds, Self::Error> {
        let within = seconds > 0.0 && seconds <= Seconds::MAX;
        crate::OptionError::bounded("seconds", seconds, within, Seconds::EXPECTED).map(Seconds)
    }
}

/// Parses a decimal number of seconds (`30`, `0.5`); the bounds as `TryFrom<f64>`.
impl std::str::FromStr for Seconds {
    type Err = crate::OptionError;

    fn from_str(text: &str) -> Result<Seconds, Self::Err> {
        Seconds::try_from(crate::OptionError::number_in("seconds", text, Seconds::EXPECTED)?)
    }
}

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Options of [`decode_with`](crate::decode_with), [`validate_with`](crate::validate_with)
/// and [`parse_stc`](crate::parse_stc): the [`Limits`] and the STC [`Version`]
/// to read.
///
/// Those functions take `&impl` [`AsDecodeOptions`]: `&DecodeOptions`, or
/// `&Limits` as before (version 1). An untyped `&Default::default()` no
/// longer infers; write `&Limits::default()` or `&DecodeOptions::default()`.
///
/// ```
/// use stc_core::{decode_with, DecodeOptions, Limits, Version};
/// let v2 = DecodeOptions::default().version(Version::V2).max_depth(16);
/// assert_eq!(decode_with("([1]{a}: 1)", &v2)?, r#"[{"a":1}]"#);
/// assert_eq!(decode_with("([1]{a}: 1)", &Limits::default())?, r#"[{"a":1}]"#);
/// # Ok::<(), stc_core::Error>(())
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeOptions {
    /// Limits applied while reading.
    pub limits: Limits,
    /// The STC version to read (default [`Version::V1`]).
    pub version: Version,
}

impl DecodeOptions {
    /// Sets [`limits`](DecodeOptions::limits).
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

    /// Sets [`version`](DecodeOptions::version).
    #[must_use]
    pub fn version(mut self, version: Version) -> Self {
        self.version = version;
        self
    }
}

impl From<Limits> for DecodeOptions {
    fn from(limits: Limits) -> Self {
        DecodeOptions { limits, version: Version::V1 }
    }
}

/// What the reading functions ([`decode_with`](crate::decode_with),
/// [`validate_with`](crate::validate_with), [`parse_stc`](crate::parse_stc),
/// their `_bytes` siblings) take by reference: a [`DecodeOptions`], or
/// [`Limits`] alone (read as version 1, as before versions existed).
pub trait AsDecodeOptions {
    /// The options to read with.
    fn as_decode_options(&self) -> DecodeOptions;
}

impl AsDecodeOptions for DecodeOptions {
    fn as_decode_options(&self) -> DecodeOptions {
        *self
    }
}

impl AsDecodeOptions for Limits {
    fn as_decode_options(&self) -> DecodeOptions {
        DecodeOptions::from(*self)
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
    /// The STC version to write (default [`Version::V1`]): version 2 output
    /// needs a version 2 reader.
    pub version: Version,
    /// Which encoder techniques may be used (all by default). For
    /// benchmarks only: see [`Techniques`].
    #[doc(hidden)]
    pub techniques: Techniques,
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

    /// Sets [`version`](EncodeOptions::version).
    #[must_use]
    pub fn version(mut self, version: Version) -> Self {
        self.version = version;
        self
    }

    /// Sets the encoder techniques that may be used. For benchmarks only:
    /// see [`Techniques`].
    #[doc(hidden)]
    #[must_use]
    pub fn techniques(mut self, techniques: Techniques) -> Self {
        self.techniques = techniques;
        self
    }
}

/// The encoder's techniques, each of which can be switched off to measure
/// what it saves (`stc-bench techniques`, the report's "What each technique
/// saves"). **For benchmarks**: output with any technique off is valid STC
/// but not the reference output (which every binding and the conformance
/// corpus expect), so nothing else should turn one off. Every field is
/// `true` by default; version 2 techniques matter only when writing
/// version 2.
///
/// ```
/// use stc_core::{encode_with, EncodeOptions, Techniques};
/// let json = r#"[{"a":1},{"a":2}]"#;
/// let flat = Techniques::default().set("tables", false).unwrap();
/// assert_eq!(encode_with(json, &EncodeOptions::default().techniques(flat))?, "[{a:1},{a:2}]");
/// assert_eq!(encode_with(json, &EncodeOptions::default())?, "([2]{a}:1/2)");
/// # Ok::<(), stc_core::Error>(())
/// ```
#[doc(hidden)]
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Techniques {
    /// v1: table cells may be containers (nested objects, arrays, tables);
    /// off, an array is a table only if every cell is a scalar (or `~`).
    pub nested_cells: bool,
    /// v1: the compact form `[N]: a,b` for an array of scalars, wherever it
    /// is cheaper (off: plain `[a,b]`).
    pub compact_arrays: bool,
    /// v1: tables `[N]{cols}: rows` for arrays of objects (off: no array is
    /// a table).
    pub tables: bool,
    /// v1: the compact form for an array holding containers (arrays of
    /// arrays, of objects that are not a table) wherever it is cheaper (off:
    /// such an array is plain or a table).
    pub arrays_of_arrays: bool,
    /// v2: column groups `user{id,name}` (off: objects stay cells).
    pub column_groups: bool,
    /// v2: absent cells `~` (off: every row of a table has every column).
    pub absent_cells: bool,
    /// v2: keyed tables `{N}{cols}: key:cells` for objects of objects.
    pub keyed_tables: bool,
    /// v2: qualifying string values written without quotes.
    pub bare_strings: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Techniques {
            nested_cells: true,
            compact_arrays: true,
            tables: true,
            arrays_of_arrays: true,
            column_groups: true,
            absent_cells: true,
            keyed_tables: true,
            bare_strings: true,
        }
    }
}

impl Techniques {
    /// Every technique's name, version 1's first: what [`set`](Techniques::set) accepts.
    pub const NAMES: &'static [&'static str] = &[
        "nested_cells",
        "compact_arrays",
        "tables",
        "arrays_of_arrays",
        "column_groups",
        "absent_cells",
        "keyed_tables",
        "bare_strings",
    ];

    /// The techniques with the one named `name` switched on or off; `None`
    /// for an unknown name.
    #[must_use]
    pub fn set(mut self, name: &str, on: bool) -> Option<Self> {
        let field = match name {
            "nested_cells" => &mut self.nested_cells,
            "compact_arrays" => &mut self.compact_arrays,
            "tables" => &mut self.tables,
            "arrays_of_arrays" => &mut self.arrays_of_arrays,
            "column_groups" => &mut self.column_groups,
            "absent_cells" => &mut self.absent_cells,
            "keyed_tables" => &mut self.keyed_tables,
            "bare_strings" => &mut self.bare_strings,
            _ => return None,
        };
        *field = on;
        Some(self)
    }

    /// Whether the technique is a version 2 construct (it changes nothing
    /// when writing version 1).
    pub fn is_v2(name: &str) -> bool {
        matches!(name, "column_groups" | "absent_cells" | "keyed_tables" | "bare_strings")
    }
}

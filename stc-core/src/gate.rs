//! The do-no-harm gate: STC only when it really spends fewer tokens.
//!
//! STC does not always beat minified JSON (number-heavy and deeply nested
//! documents gain little, and array headers cost tokens). The gate encodes,
//! counts the tokens of both texts, and returns STC only when it saves at
//! least a chosen fraction; otherwise it returns minified JSON, which is valid
//! STC too, so a client decodes either without knowing which it got.
//!
//! This module holds the policy only (tokenizers, settings, the rule); it
//! knows nothing of documents. The texts come from the two writers:
//! [`Document::encode_gated`](crate::Document::encode_gated) and
//! [`encode_gated`](crate::encode_gated) call [`GateOptions::choose`].

/// How tokens are counted.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Tokenizer {
    /// A fast arithmetic estimate of o200k_base counts (no tables, no
    /// allocation). Its error against o200k_base is measured in `bench/`.
    #[default]
    Estimate,
    /// OpenAI's o200k_base BPE (GPT-4o and later), exact.
    #[cfg(feature = "bpe")]
    O200kBase,
    /// OpenAI's cl100k_base BPE (GPT-4, GPT-3.5), exact.
    #[cfg(feature = "bpe")]
    Cl100kBase,
}

impl Tokenizer {
    /// The names of the tokenizers compiled in, in declaration order: what
    /// [`FromStr`](std::str::FromStr) accepts (`estimate`; `o200k_base` and
    /// `cl100k_base` with the `bpe` feature).
    #[cfg(not(feature = "bpe"))]
    pub const NAMES: &'static [&'static str] = &["estimate"];
    /// The names of the tokenizers compiled in, in declaration order: what
    /// [`FromStr`](std::str::FromStr) accepts (`estimate`; `o200k_base` and
    /// `cl100k_base` with the `bpe` feature).
    #[cfg(feature = "bpe")]
    pub const NAMES: &'static [&'static str] = &["estimate", "o200k_base", "cl100k_base"];

    /// The tokenizer's name: `estimate`, `o200k_base` or `cl100k_base` (also
    /// its `Display` form); no allocation.
    pub const fn name(self) -> &'static str {
        match self {
            Tokenizer::Estimate => "estimate",
            #[cfg(feature = "bpe")]
            Tokenizer::O200kBase => "o200k_base",
            #[cfg(feature = "bpe")]
            Tokenizer::Cl100kBase => "cl100k_base",
        }
    }

    /// Number of tokens of `text`.
    ///
    /// ```
    /// let n = stc_core::Tokenizer::Estimate.count(r#"{"id":1,"name":"users"}"#);
    /// assert!(n > 5 && n < 15);
    /// ```
    pub fn count(self, text: &str) -> usize {
        match self {
            Tokenizer::Estimate => crate::estimate::estimate_tokens(text),
            #[cfg(feature = "bpe")]
            Tokenizer::O200kBase => bpe_openai::o200k_base().count(text),
            #[cfg(feature = "bpe")]
            Tokenizer::Cl100kBase => bpe_openai::cl100k_base().count(text),
        }
    }
}

impl std::fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Looks a tokenizer up by [`name`](Tokenizer::name); unknown names and
/// tokenizers not compiled in (the exact BPE tables need the `bpe` feature)
/// are errors listing [`Tokenizer::NAMES`].
///
/// ```
/// use stc_core::Tokenizer;
/// assert_eq!("estimate".parse::<Tokenizer>(), Ok(Tokenizer::Estimate));
/// let err = "p50k".parse::<Tokenizer>().unwrap_err();
/// assert!(err.to_string().starts_with(r#"unknown tokenizer "p50k" (expected one of: estimate"#));
/// ```
impl std::str::FromStr for Tokenizer {
    type Err = crate::ParseNameError;

    fn from_str(name: &str) -> Result<Tokenizer, Self::Err> {
        match name {
            "estimate" => Ok(Tokenizer::Estimate),
            #[cfg(feature = "bpe")]
            "o200k_base" => Ok(Tokenizer::O200kBase),
            #[cfg(feature = "bpe")]
            "cl100k_base" => Ok(Tokenizer::Cl100kBase),
            _ => Err(crate::ParseNameError::new("tokenizer", name, Tokenizer::NAMES)),
        }
    }
}

/// Settings of the gate, built like every option struct:
/// `GateOptions::default().min_saving(0.1).tokenizer(Tokenizer::Estimate)`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateOptions {
    /// The fraction of minified JSON's tokens STC must save to be chosen:
    /// STC is returned only if `stc_tokens <= json_tokens * (1 - min_saving)`
    /// and `stc_tokens < json_tokens`. Default 0.05, which also absorbs the
    /// estimator's error. A value given by a user goes through [`MinSaving`]
    /// (an error outside 0 to 1); a value set here in code outside 0..=1 is
    /// clamped, and NaN counts as 0.
    pub min_saving: f64,
    /// How tokens are counted.
    pub tokenizer: Tokenizer,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions { min_saving: 0.05, tokenizer: Tokenizer::Estimate }
    }
}

/// The gate's [`min_saving`](GateOptions::min_saving) as a user gives it: a
/// fraction from 0 to 1 (both included). Outside that, NaN, or a text that
/// is not a number, it is an [`OptionError`](crate::OptionError) with one
/// message on every surface (the CLI's `--min-saving`, the MCP tool's and
/// `stc serve`'s `min_saving`, every binding's `min_saving`/`minSaving`).
///
/// ```
/// use stc_core::{GateOptions, MinSaving};
/// let gate = GateOptions::default().min_saving(MinSaving::try_from(0.1)?);
/// assert_eq!(gate.min_saving, 0.1);
/// assert_eq!("1.5".parse::<MinSaving>().unwrap_err().to_string(), "invalid min_saving 1.5 (expected a number from 0 to 1)");
/// assert_eq!(MinSaving::default().get(), 0.05);
/// # Ok::<(), stc_core::OptionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct MinSaving(f64);

impl MinSaving {
    const EXPECTED: &'static str = "a number from 0 to 1";

    /// The fraction.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// [`TryFrom<f64>`] for a caller that writes a refused number itself:
    /// `shown` is called only on a refusal and must give `fraction` as
    /// Rust's `Display` writes it (`2`, `-0.5`, `NaN`), so that the message
    /// is the same. For a WebAssembly build, where `core::fmt`'s float
    /// printing would otherwise be in the module for this message alone.
    ///
    /// ```
    /// use stc_core::MinSaving;
    /// let err = MinSaving::try_from_shown(2.0, || "2".to_string()).unwrap_err();
    /// assert_eq!(err, MinSaving::try_from(2.0).unwrap_err());
    /// assert_eq!(MinSaving::try_from_shown(0.5, || unreachable!())?.get(), 0.5);
    /// # Ok::<(), stc_core::OptionError>(())
    /// ```
    pub fn try_from_shown(fraction: f64, shown: impl FnOnce() -> String) -> Result<MinSaving, crate::OptionError> {
        let within = (0.0..=1.0).contains(&fraction);
        crate::OptionError::bounded_shown("min_saving", fraction, within, MinSaving::EXPECTED, shown).map(MinSaving)
    }
}

impl Default for MinSaving {
    /// 0.05, the gate's default.
    fn default() -> Self {
        MinSaving(0.05)
    }
}

impl TryFrom<f64> for MinSaving {
    type Error = crate::OptionError;

    fn try_from(fraction: f64) -> Result<MinSaving, Self::Error> {
        MinSaving::try_from_shown(fraction, || fraction.to_string())
    }
}

/// Parses a decimal fraction (`0.1`); the bounds as `TryFrom<f64>`.
impl std::str::FromStr for MinSaving {
    type Err = crate::OptionError;

    fn from_str(text: &str) -> Result<MinSaving, Self::Err> {
        MinSaving::try_from(crate::OptionError::number_in("min_saving", text, MinSaving::EXPECTED)?)
    }
}

impl std::fmt::Display for MinSaving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<MinSaving> for f64 {
    fn from(m: MinSaving) -> f64 {
        m.0
    }
}

/// Which text the gate returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chosen {
    /// The STC encoding.
    Stc,
    /// Minified JSON (also valid STC).
    Json,
}

impl Chosen {
    /// Both names, in declaration order: what [`FromStr`](std::str::FromStr) accepts.
    pub const NAMES: &'static [&'static str] = &["stc", "json"];

    /// `"stc"` or `"json"` (also the `Display` form); no allocation.
    pub const fn name(self) -> &'static str {
        match self {
            Chosen::Stc => "stc",
            Chosen::Json => "json",
        }
    }
}

impl std::fmt::Display for Chosen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses `"stc"` or `"json"` (e.g. the `X-STC-Chosen` header).
impl std::str::FromStr for Chosen {
    type Err = crate::ParseNameError;

    fn from_str(name: &str) -> Result<Chosen, Self::Err> {
        match name {
            "stc" => Ok(Chosen::Stc),
            "json" => Ok(Chosen::Json),
            _ => Err(crate::ParseNameError::new("choice", name, Chosen::NAMES)),
        }
    }
}

/// The gate's answer: the text to send and the counts behind the choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gated {
    /// The text to send: STC or minified JSON.
    pub text: String,
    /// Which of the two `text` is.
    pub chosen: Chosen,
    /// Tokens of minified JSON.
    pub json_tokens: usize,
    /// Tokens of the STC encoding.
    pub stc_tokens: usize,
}

/// The error of [`encode_gated_with_counter`](crate::encode_gated_with_counter):
/// the JSON input was refused, or the caller's token counter failed (its error
/// comes back unchanged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateError<E> {
    /// The input is not JSON within the limits (nothing was counted).
    Codec(crate::Error),
    /// The first error the token counter returned.
    Counter(E),
}

impl<E: std::fmt::Display> std::fmt::Display for GateError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GateError::Codec(err) => err.fmt(f),
            GateError::Counter(err) => write!(f, "token counter failed: {err}"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for GateError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GateError::Codec(err) => Some(err),
            GateError::Counter(err) => Some(err),
        }
    }
}

impl GateOptions {
    /// Sets [`min_saving`](GateOptions::min_saving): a checked [`MinSaving`],
    /// or an `f64` written in code (clamped to 0..=1 when the gate runs).
    #[must_use]
    pub fn min_saving(mut self, min_saving: impl Into<f64>) -> Self {
        self.min_saving = min_saving.into();
        self
    }

    /// Sets [`tokenizer`](GateOptions::tokenizer).
    #[must_use]
    pub fn tokenizer(mut self, tokenizer: Tokenizer) -> Self {
        self.tokenizer = tokenizer;
        self
    }

    /// The gate's rule: `stc` if it saves at least `min_saving` of the tokens
    /// of `minified` (and at least one token), else `minified`.
    pub(crate) fn choose(&self, stc: String, minified: String) -> Gated {
        let json_tokens = self.tokenizer.count(&minified);
        let stc_tokens = self.tokenizer.count(&stc);
        self.decide(stc, minified, json_tokens, stc_tokens)
    }

    /// [`choose`](Self::choose) with the caller's token counter instead of
    /// [`tokenizer`](GateOptions::tokenizer): it counts minified JSON first,
    /// then the STC text; its first error is returned unchanged.
    pub(crate) fn choose_counted<E>(
        &self,
        stc: String,
        minified: String,
        mut counter: impl FnMut(&str) -> Result<usize, E>,
    ) -> Result<Gated, E> {
        let json_tokens = counter(&minified)?;
        let stc_tokens = counter(&stc)?;
        Ok(self.decide(stc, minified, json_tokens, stc_tokens))
    }

    fn decide(&self, stc: String, minified: String, json_tokens: usize, stc_tokens: usize) -> Gated {
        let min_saving = if self.min_saving.is_nan() { 0.0 } else { self.min_saving.clamp(0.0, 1.0) };
        let budget = json_tokens as f64 * (1.0 - min_saving);
        let (text, chosen) = if stc_tokens < json_tokens && (stc_tokens as f64) <= budget {
            (stc, Chosen::Stc)
        } else {
            (minified, Chosen::Json)
        };
        Gated { text, chosen, json_tokens, stc_tokens }
    }
}

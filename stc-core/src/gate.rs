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
    /// The tokenizer's name: `estimate`, `o200k_base` or `cl100k_base`.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Estimate => "estimate",
            #[cfg(feature = "bpe")]
            Tokenizer::O200kBase => "o200k_base",
            #[cfg(feature = "bpe")]
            Tokenizer::Cl100kBase => "cl100k_base",
        }
    }

    /// Looks a tokenizer up by [`name`](Tokenizer::name); `None` if unknown or
    /// not compiled in (the exact BPE tables need the `bpe` feature).
    ///
    /// ```
    /// assert_eq!(stc_core::Tokenizer::from_name("estimate"), Some(stc_core::Tokenizer::Estimate));
    /// assert_eq!(stc_core::Tokenizer::from_name("p50k"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        match name {
            "estimate" => Some(Tokenizer::Estimate),
            #[cfg(feature = "bpe")]
            "o200k_base" => Some(Tokenizer::O200kBase),
            #[cfg(feature = "bpe")]
            "cl100k_base" => Some(Tokenizer::Cl100kBase),
            _ => None,
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

/// Settings of the gate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateOptions {
    /// The fraction of minified JSON's tokens STC must save to be chosen:
    /// STC is returned only if `stc_tokens <= json_tokens * (1 - min_saving)`
    /// and `stc_tokens < json_tokens`. Default 0.05, which also absorbs the
    /// estimator's error. Clamped to 0..=1.
    pub min_saving: f64,
    /// How tokens are counted.
    pub tokenizer: Tokenizer,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions { min_saving: 0.05, tokenizer: Tokenizer::Estimate }
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
    /// `"stc"` or `"json"`.
    pub fn name(self) -> &'static str {
        match self {
            Chosen::Stc => "stc",
            Chosen::Json => "json",
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

impl GateOptions {
    /// The gate's rule: `stc` if it saves at least `min_saving` of the tokens
    /// of `minified` (and at least one token), else `minified`.
    pub(crate) fn choose(&self, stc: String, minified: String) -> Gated {
        let json_tokens = self.tokenizer.count(&minified);
        let stc_tokens = self.tokenizer.count(&stc);
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

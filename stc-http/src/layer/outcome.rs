//! What the layer did with one response: [`StcOutcome`] and its [`Action`].

use std::time::Duration;

use stc_core::Version;

use crate::negotiate::{Negotiated, Signal};

/// What the layer did with one response. [`StcLayer`](crate::StcLayer) puts
/// it in the response's extensions so that a server can log it; the proxy
/// gets it returned with the response.
#[derive(Debug, Clone, PartialEq)]
pub struct StcOutcome {
    /// What happened.
    pub action: Action,
    /// How the client asked for STC (`None`: it did not, or not for this media type).
    pub signal: Option<Signal>,
    /// The STC version negotiated (`None` when `signal` is); the body is in
    /// it only when `action` is [`Action::Encoded`].
    pub version: Option<Version>,
    /// Bytes of the upstream body, when it was read whole.
    pub bytes_in: Option<usize>,
    /// Bytes of the body sent, when known.
    pub bytes_out: Option<usize>,
    /// Tokens of minified JSON and of STC (by the gate's tokenizer), when counted.
    pub tokens: Option<(usize, usize)>,
    /// Time spent parsing, encoding and counting.
    pub elapsed: Duration,
}

impl StcOutcome {
    /// An outcome with nothing measured.
    pub(crate) fn new(action: Action, negotiated: Option<Negotiated>) -> StcOutcome {
        StcOutcome {
            action,
            signal: negotiated.map(|n| n.signal),
            version: negotiated.map(|n| n.version),
            bytes_in: None,
            bytes_out: None,
            tokens: None,
            elapsed: Duration::ZERO,
        }
    }

    /// This outcome with `bytes_out` set.
    pub(crate) fn sent(self, bytes_out: Option<usize>) -> StcOutcome {
        StcOutcome { bytes_out, ..self }
    }
}

/// What the layer did with a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Action {
    /// Sent as STC.
    Encoded,
    /// The gate found STC would not save enough tokens: the JSON was sent
    /// minified (the gate compares STC with minified JSON).
    GateKeptJson,
    /// The body was not valid JSON (or beyond the parser's limits): sent unchanged.
    InvalidJson,
    /// Longer than [`StcConfig::max_body`](crate::StcConfig::max_body): streamed unchanged.
    TooLarge,
    /// Not a candidate (not JSON, not asked for, HEAD, 204/206/304, already
    /// encoded, a range): streamed unchanged.
    Untouched,
}

impl Action {
    /// A short name for logs: `stc`, `gate-json`, `invalid-json`, `too-large`, `untouched`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Encoded => "stc",
            Action::GateKeptJson => "gate-json",
            Action::InvalidJson => "invalid-json",
            Action::TooLarge => "too-large",
            Action::Untouched => "untouched",
        }
    }
}

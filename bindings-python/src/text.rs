//! The text functions: `encode`, `decode`, `encode_gated`, `count_tokens`.
//!
//! Each one hands UTF-8 bytes to the core and releases the GIL while the core
//! works on a large input; nothing here looks at the format.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stc_core::{EncodeOptions, GateOptions, Limits, Profile, Tokenizer};

use crate::errors::{decode_error, gate_result_type};
use crate::input::TextInput;
use crate::DETACH_MIN_BYTES;

/// Runs `f` with the GIL released when the input is large enough to be worth it.
pub(crate) fn run_detached<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= DETACH_MIN_BYTES {
        py.detach(f)
    } else {
        f()
    }
}

pub(crate) fn parse_profile(name: &str) -> PyResult<Profile> {
    name.parse::<Profile>().map_err(|e| PyValueError::new_err(e.to_string()))
}

pub(crate) fn limits(max_depth: Option<usize>) -> Limits {
    max_depth.map_or_else(Limits::default, |max_depth| Limits::default().max_depth(max_depth))
}

pub(crate) fn parse_tokenizer(name: &str) -> PyResult<Tokenizer> {
    name.parse::<Tokenizer>().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Encodes JSON text (str or UTF-8 bytes) as STC text.
/// Raises STCDecodeError if the input is not strict JSON.
#[pyfunction]
#[pyo3(
    signature = (json_text, *, profile = String::from("compact"), max_depth = None),
    text_signature = "(json_text, *, profile='compact', max_depth=None)"
)]
pub(crate) fn encode(
    py: Python<'_>,
    json_text: &Bound<'_, PyAny>,
    profile: String,
    max_depth: Option<usize>,
) -> PyResult<String> {
    let options = EncodeOptions::default().profile(parse_profile(&profile)?).limits(limits(max_depth));
    let input = TextInput::new(json_text, "json_text")?;
    let text = input.text(json_text)?;
    run_detached(py, text.len(), || stc_core::encode_with(text, &options))
        .map_err(|e| decode_error(py, &e, json_text, input.bytes()))
}

/// Decodes STC (or plain JSON) text to minified JSON text, losslessly:
/// number lexemes, key order and duplicate keys are kept.
/// Raises STCDecodeError on invalid input.
#[pyfunction]
#[pyo3(signature = (stc_text, *, max_depth = None), text_signature = "(stc_text, *, max_depth=None)")]
pub(crate) fn decode(py: Python<'_>, stc_text: &Bound<'_, PyAny>, max_depth: Option<usize>) -> PyResult<String> {
    let limits = limits(max_depth);
    let input = TextInput::new(stc_text, "stc_text")?;
    let text = input.text(stc_text)?;
    run_detached(py, text.len(), || stc_core::decode_with(text, &limits))
        .map_err(|e| decode_error(py, &e, stc_text, input.bytes()))
}

/// The do-no-harm gate: STC if it saves at least `min_saving` of the tokens
/// of minified JSON, else minified JSON (which is valid STC too).
/// Returns a GateResult(text, chosen, json_tokens, stc_tokens).
#[pyfunction]
#[pyo3(
    signature = (json_text, *, profile = String::from("compact"), min_saving = 0.05, tokenizer = String::from("estimate"), max_depth = None),
    text_signature = "(json_text, *, profile='compact', min_saving=0.05, tokenizer='estimate', max_depth=None)"
)]
pub(crate) fn encode_gated<'py>(
    py: Python<'py>,
    json_text: &Bound<'py, PyAny>,
    profile: String,
    min_saving: f64,
    tokenizer: String,
    max_depth: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = EncodeOptions::default().profile(parse_profile(&profile)?).limits(limits(max_depth));
    let gate = GateOptions::default().min_saving(min_saving).tokenizer(parse_tokenizer(&tokenizer)?);
    let input = TextInput::new(json_text, "json_text")?;
    let text = input.text(json_text)?;
    let gated = run_detached(py, text.len(), || stc_core::encode_gated(text, &options, &gate))
        .map_err(|e| decode_error(py, &e, json_text, input.bytes()))?;
    gate_result_type(py)?.call1((gated.text, gated.chosen.name(), gated.json_tokens, gated.stc_tokens))
}

/// Number of tokens of `text` with "o200k_base" or "cl100k_base" (exact
/// OpenAI BPE, built in) or "estimate" (the gate's fast estimate).
#[pyfunction]
#[pyo3(
    signature = (text, tokenizer = String::from("o200k_base")),
    text_signature = "(text, tokenizer='o200k_base')"
)]
pub(crate) fn count_tokens(py: Python<'_>, text: &Bound<'_, PyAny>, tokenizer: String) -> PyResult<usize> {
    let tokenizer = parse_tokenizer(&tokenizer)?;
    let input = TextInput::new(text, "text")?;
    let text = input.text(text)?;
    // The first use of a BPE tokenizer builds its tables: always worth detaching.
    Ok(py.detach(|| tokenizer.count(text)))
}

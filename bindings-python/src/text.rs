//! The text functions: `encode`, `decode`, `encode_gated`, `count_tokens`.
//!
//! Each one hands UTF-8 bytes to the core and releases the GIL while the core
//! works on a large input; nothing here looks at the format.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
use stc_core::{DecodeOptions, EncodeOptions, GateError, GateOptions, Limits, MinSaving, Profile, Tokenizer, Version};

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

/// The `version` keyword: the number 1 or 2 (an int, or a float such as
/// `2.0`, as JSON and JavaScript give it); absent is 1. The core's
/// `Version::try_from` decides, with its message (`ValueError`). A string is
/// the wrong type (`TypeError`): text names a version only where the surface
/// is text (`_version`, for headers), one rule with every other binding.
pub(crate) fn parse_version(version: Option<&Bound<'_, PyAny>>) -> PyResult<Version> {
    let Some(v) = version else {
        return Ok(Version::default());
    };
    let parsed = if v.is_instance_of::<PyBool>() {
        None
    } else if v.is_instance_of::<PyInt>() {
        Some(match v.extract::<i64>() {
            Ok(n) => Version::try_from(n),
            Err(_) => v.str()?.to_cow()?.parse::<Version>(),
        })
    } else if v.is_instance_of::<PyFloat>() {
        Some(Version::try_from(v.extract::<f64>()?))
    } else {
        None
    };
    match parsed {
        Some(version) => version.map_err(|e| PyValueError::new_err(e.to_string())),
        None => Err(PyTypeError::new_err(format!("version must be a number (1 or 2), not {}", type_name(v)))),
    }
}

/// The reading options of `decode` and `loads`.
pub(crate) fn decode_options(max_depth: Option<usize>, version: Option<&Bound<'_, PyAny>>) -> PyResult<DecodeOptions> {
    Ok(DecodeOptions::default().limits(limits(max_depth)).version(parse_version(version)?))
}

/// `_version(v)`: the version number `v` names, checked by the core (for
/// `stc.http`, which reads versions from headers: a string there is the
/// header's text, parsed by the core's `FromStr`; a number as `version=`).
#[pyfunction]
#[pyo3(name = "_version")]
pub(crate) fn version_number(version: &Bound<'_, PyAny>) -> PyResult<u8> {
    if let Ok(text) = version.cast::<PyString>() {
        let parsed = text.to_cow()?.parse::<Version>();
        return parsed.map(Version::as_u8).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    Ok(parse_version(Some(version))?.as_u8())
}

/// The `min_saving` keyword, checked by the core's `MinSaving` (`ValueError`
/// with its message outside 0 to 1).
pub(crate) fn parse_min_saving(min_saving: f64) -> PyResult<MinSaving> {
    MinSaving::try_from(min_saving).map_err(|e| PyValueError::new_err(e.to_string()))
}

pub(crate) fn parse_tokenizer(name: &str) -> PyResult<Tokenizer> {
    name.parse::<Tokenizer>().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The options of `encode` and `encode_gated`.
fn encode_options(
    profile: &str,
    max_depth: Option<usize>,
    version: Option<&Bound<'_, PyAny>>,
) -> PyResult<EncodeOptions> {
    Ok(EncodeOptions::default()
        .profile(parse_profile(profile)?)
        .limits(limits(max_depth))
        .version(parse_version(version)?))
}

/// Encodes JSON text (str or UTF-8 bytes) as STC text.
/// Raises STCDecodeError if the input is not strict JSON.
#[pyfunction]
#[pyo3(
    signature = (json_text, *, profile = String::from("compact"), max_depth = None, version = None),
    text_signature = "(json_text, *, profile='compact', max_depth=None, version=1)"
)]
pub(crate) fn encode(
    py: Python<'_>,
    json_text: &Bound<'_, PyAny>,
    profile: String,
    max_depth: Option<usize>,
    version: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let options = encode_options(&profile, max_depth, version.as_ref())?;
    let input = TextInput::new(json_text, "json_text")?;
    let text = input.text(json_text)?;
    run_detached(py, text.len(), || stc_core::encode_with(text, &options))
        .map_err(|e| decode_error(py, &e, json_text, input.bytes()))
}

/// Decodes STC (or plain JSON) text to minified JSON text, losslessly:
/// number lexemes, key order and duplicate keys are kept.
/// Raises STCDecodeError on invalid input.
#[pyfunction]
#[pyo3(
    signature = (stc_text, *, max_depth = None, version = None),
    text_signature = "(stc_text, *, max_depth=None, version=1)"
)]
pub(crate) fn decode(
    py: Python<'_>,
    stc_text: &Bound<'_, PyAny>,
    max_depth: Option<usize>,
    version: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let options = decode_options(max_depth, version.as_ref())?;
    let input = TextInput::new(stc_text, "stc_text")?;
    let text = input.text(stc_text)?;
    run_detached(py, text.len(), || stc_core::decode_with(text, &options))
        .map_err(|e| decode_error(py, &e, stc_text, input.bytes()))
}

/// How the gate and `count_tokens` count tokens: a built-in tokenizer by
/// name, or the caller's callable.
enum Counter<'py> {
    Builtin(Tokenizer),
    /// `f(text)` returns a count (`int`) or the tokens (anything with a
    /// length, e.g. tiktoken's `encode` returns a list of token ids).
    Callable(Bound<'py, PyAny>),
}

impl<'py> Counter<'py> {
    fn new(tokenizer: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(name) = tokenizer.cast::<PyString>() {
            return Ok(Counter::Builtin(parse_tokenizer(name.to_cow()?.as_ref())?));
        }
        if tokenizer.is_callable() {
            return Ok(Counter::Callable(tokenizer.clone()));
        }
        Err(PyTypeError::new_err(format!(
            "tokenizer must be a tokenizer name or a callable counting the tokens of a str, not {}",
            type_name(tokenizer)
        )))
    }

    /// Calls the caller's counter on `text`; its exception comes back as it is.
    fn call(f: &Bound<'py, PyAny>, text: &str) -> PyResult<usize> {
        let result = f.call1((text,))?;
        // A str has a length too, but a counter returning text is a mistake.
        if result.is_instance_of::<PyBool>() || result.is_instance_of::<PyString>() {
            return Err(counter_result_error(&result));
        }
        if result.is_instance_of::<PyInt>() {
            return result.extract::<usize>().map_err(|_| {
                PyValueError::new_err(format!("the token counter returned {result}; a count is an int >= 0"))
            });
        }
        result.len().map_err(|_| counter_result_error(&result))
    }
}

fn counter_result_error(result: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "the token counter must return an int or a sized sequence of tokens (like tiktoken's encode), not {}",
        type_name(result)
    ))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
}

/// The do-no-harm gate: STC if it saves at least `min_saving` of the tokens
/// of minified JSON, else minified JSON (which is valid STC too).
/// `tokenizer` is a tokenizer name or a callable `str -> int | Sized`.
/// Returns a GateResult(text, chosen, json_tokens, stc_tokens).
#[pyfunction]
#[pyo3(
    signature = (json_text, *, profile = String::from("compact"), min_saving = 0.05, tokenizer = None, max_depth = None, version = None),
    text_signature = "(json_text, *, profile='compact', min_saving=0.05, tokenizer='estimate', max_depth=None, version=1)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_gated<'py>(
    py: Python<'py>,
    json_text: &Bound<'py, PyAny>,
    profile: String,
    min_saving: f64,
    tokenizer: Option<Bound<'py, PyAny>>,
    max_depth: Option<usize>,
    version: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = encode_options(&profile, max_depth, version.as_ref())?;
    let min_saving = parse_min_saving(min_saving)?;
    let counter = match &tokenizer {
        Some(t) => Counter::new(t)?,
        None => Counter::Builtin(Tokenizer::default()),
    };
    let input = TextInput::new(json_text, "json_text")?;
    let text = input.text(json_text)?;
    let gated = match counter {
        Counter::Builtin(tokenizer) => {
            let gate = GateOptions::default().min_saving(min_saving).tokenizer(tokenizer);
            run_detached(py, text.len(), || stc_core::encode_gated(text, &options, &gate))
                .map_err(|e| decode_error(py, &e, json_text, input.bytes()))?
        }
        Counter::Callable(f) => {
            // The counter is Python code: the GIL stays held.
            let gate = GateOptions::default().min_saving(min_saving);
            stc_core::encode_gated_with_counter(text, &options, &gate, |t| Counter::call(&f, t)).map_err(
                |e| match e {
                    GateError::Codec(e) => decode_error(py, &e, json_text, input.bytes()),
                    GateError::Counter(e) => e,
                },
            )?
        }
    };
    gate_result_type(py)?.call1((gated.text, gated.chosen.name(), gated.json_tokens, gated.stc_tokens))
}

/// Number of tokens of `text`: "estimate" (the gate's fast estimate of
/// o200k_base) or the caller's counter, a callable `str -> int | Sized`
/// (e.g. `tiktoken.get_encoding("o200k_base").encode`).
#[pyfunction]
#[pyo3(signature = (text, tokenizer = None), text_signature = "(text, tokenizer='estimate')")]
pub(crate) fn count_tokens(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    tokenizer: Option<Bound<'_, PyAny>>,
) -> PyResult<usize> {
    let counter = match &tokenizer {
        Some(t) => Counter::new(t)?,
        None => Counter::Builtin(Tokenizer::default()),
    };
    let input = TextInput::new(text, "text")?;
    let text = input.text(text)?;
    match counter {
        Counter::Builtin(tokenizer) => Ok(run_detached(py, text.len(), || tokenizer.count(text))),
        Counter::Callable(f) => Counter::call(&f, text),
    }
}

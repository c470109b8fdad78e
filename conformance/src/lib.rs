//! The STC conformance corpus, read and run against the Rust reference.
//!
//! The corpus is data (`conformance/cases/<category>/<topic>.json`, described in
//! `conformance/README.md` and `conformance/schema.json`); this crate holds
//! what the Rust harness (`tests/corpus.rs`) and the updater
//! (`src/bin/bless.rs`) share: reading case files, checking their structure,
//! writing them back in their one canonical layout, expanding the seeds of
//! `conformance/seeds/` into the case files they generate (the one
//! implementation of that rule), running a case through `stc-core` and
//! explaining a failure.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use stc_core::{DecodeOptions, EncodeOptions, Error, Limits, Profile, Version};

pub mod runner;

/// The five categories of cases, in the order the README lists them.
pub const CATEGORIES: [&str; 5] = ["encode", "decode", "roundtrip", "invalid", "json-invalid"];

/// Error kind codes a case may expect: every [`stc_core::ErrorKind::ALL`]
/// code an input text can cause (categories `syntax` and `limit`; not `data`,
/// a misused `DocumentBuilder` or serde error, nor `aborted`, a `Sink` that asked to stop).
pub fn error_kinds() -> Vec<&'static str> {
    stc_core::ErrorKind::ALL
        .into_iter()
        .filter(|k| matches!(k.category(), stc_core::Category::Syntax | stc_core::Category::Limit))
        .map(|k| k.code())
        .collect()
}

/// The sections of `spec/README.md` a case may cite, parsed from its
/// numbered headings ([`spec_sections`]); empty when the spec cannot be read
/// (then every case's `spec` is reported, and `coverage::spec-sections` says why).
pub fn sections() -> &'static [String] {
    static SECTIONS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SECTIONS.get_or_init(|| repo_file("../spec/README.md").map(|t| spec_sections(&t)).unwrap_or_default())
}

/// One case file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// Path of the JSON Schema, relative to the file (`../schema.json`).
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// One of [`CATEGORIES`].
    pub category: String,
    /// What the file's cases are about.
    pub description: String,
    /// The cases, in file order.
    pub cases: Vec<Case>,
}

/// One case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique across the corpus.
    pub name: String,
    /// The section of the spec the case exercises.
    pub spec: String,
    /// Why the case exists or what it shows.
    #[serde(default)]
    pub note: Option<String>,
    /// Profile and limits.
    #[serde(default)]
    pub options: Option<Options>,
    /// Input text.
    #[serde(default)]
    pub input: Option<String>,
    /// Input bytes in hex, for input that is not UTF-8.
    #[serde(default)]
    pub input_hex: Option<String>,
    /// Expected output text (encode, decode, roundtrip).
    #[serde(default)]
    pub expected: Option<String>,
    /// Expected failure (invalid, json-invalid).
    #[serde(default)]
    pub error: Option<ExpectedError>,
    /// Makes the case a seed: it stands for the family of every proper
    /// prefix of its (valid, ASCII) input (invalid, json-invalid). Seeds live
    /// in `seeds/<category>/<topic>.json` only; `bless` writes their families
    /// ([`Case::expand`]) into `cases/<category>/<topic>.json` ([`generated_file`]).
    #[serde(default)]
    pub prefixes: Option<Prefixes>,
}

/// `prefixes` of a seed case: input[..n] for every n below the input's
/// length is a case named `<name>-<n, 3 digits>` that fails with `kind` at
/// offset n, unless n lies in one of the `except` ranges.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prefixes {
    /// Error kind code of a prefix cut short (`unexpected_end`), at its end.
    pub kind: String,
    /// Prefix lengths that fail with another error.
    #[serde(default)]
    pub except: Vec<PrefixException>,
}

/// Prefix lengths `from..=to` of a family that fail with `error`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrefixException {
    /// First prefix length of the range.
    pub from: usize,
    /// Last prefix length of the range (inclusive).
    pub to: usize,
    /// The error of these prefixes.
    pub error: ExpectedError,
}

impl CaseFile {
    /// The file's cases with every seed replaced by the family it stands for,
    /// in file order: what runners run.
    pub fn expanded(&self) -> Vec<Case> {
        self.cases.iter().flat_map(Case::expand).collect()
    }
}

impl Case {
    /// The case itself, or, for a seed, the cases of its family.
    pub fn expand(&self) -> Vec<Case> {
        let Some(family) = &self.prefixes else {
            return vec![self.clone()];
        };
        let input = self.input.as_deref().unwrap_or_default();
        (0..input.len())
            .filter(|n| input.is_char_boundary(*n))
            .map(|n| {
                let error = family
                    .except
                    .iter()
                    .find(|x| x.from <= n && n <= x.to)
                    .map_or_else(|| ExpectedError { kind: family.kind.clone(), offset: n }, |x| x.error.clone());
                Case {
                    name: format!("{}-{n:03}", self.name),
                    input: Some(input[..n].to_string()),
                    input_hex: None,
                    expected: None,
                    error: Some(error),
                    prefixes: None,
                    // The seed's note is about the family, in the seed file.
                    note: None,
                    ..self.clone()
                }
            })
            .collect()
    }
}

/// `options` of a case.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// `compact` (default) or `readable`.
    #[serde(default)]
    pub profile: Option<String>,
    /// Depth limit for every operation of the case (default 128).
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// STC version of every operation of the case (1 or 2; default 1).
    #[serde(default)]
    pub version: Option<u8>,
}

/// `error` of a case.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedError {
    /// Error kind code.
    pub kind: String,
    /// UTF-8 byte offset, 0-based.
    pub offset: usize,
}

/// The directory holding the case files.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// The directory holding the seed files (`seeds/<category>/<topic>.json`):
/// case files whose seeds `bless` expands into the case file of the same
/// name under [`cases_dir`].
pub fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds")
}

/// The case file a seed file generates: `cases/<category>/<topic>.json` for
/// `seeds/<category>/<topic>.json`.
pub fn generated_path(seed_path: &Path) -> PathBuf {
    let mut path = cases_dir();
    if let Some(category) = seed_path.parent().and_then(|p| p.file_name()) {
        path.push(category);
    }
    path.push(seed_path.file_name().unwrap_or_default());
    path
}

/// The seed file that generates the case file at `case_path`, if there is one.
pub fn seed_of(case_path: &Path) -> Option<PathBuf> {
    let category = case_path.parent().and_then(|p| p.file_name())?;
    let seed = seeds_dir().join(category).join(case_path.file_name()?);
    seed.is_file().then_some(seed)
}

/// The case file a seed file generates, as [`format_file`] writes it: the
/// same cases in the same order, each seed replaced by its family; the
/// description says where it comes from. Every runner reads the generated
/// file and none expands seeds.
pub fn generated_file(seed_path: &Path, seeds: &CaseFile) -> CaseFile {
    let source = display_path(seed_path);
    CaseFile {
        description: format!("{} [generated by bless from {source}: edit that file]", seeds.description),
        cases: seeds.expanded(),
        ..seeds.clone()
    }
}

/// Every case file under `dir`: the `*.json` files of its subdirectories
/// (one per category, `cases/<category>/<topic>.json`) and any `*.json`
/// directly in `dir` (which [`placement_problem`] then reports), sorted by path.
pub fn case_paths(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            for inner in std::fs::read_dir(&path)? {
                let inner = inner?.path();
                if inner.extension().is_some_and(|e| e == "json") {
                    paths.push(inner);
                }
            }
        } else if path.extension().is_some_and(|e| e == "json") {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}

/// The file name without `.json`: the file's topic.
pub fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Why a case file is in the wrong place: it must lie in the directory named
/// for its category (`cases/invalid/truncated.json` holds `invalid` cases).
pub fn placement_problem(path: &Path, file: &CaseFile) -> Option<String> {
    let parent = path.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
    if parent.as_deref() == Some(file.category.as_str()) {
        None
    } else {
        Some(format!(
            "a {:?} file must be in cases/{}/, not in {}",
            file.category,
            file.category,
            parent.map_or_else(|| "the root".to_string(), |p| format!("{p}/"))
        ))
    }
}

/// Reads and parses one case file.
pub fn read_file(path: &Path) -> Result<(String, CaseFile), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = serde_json::from_str(&text).map_err(|e| format!("{} is not a valid case file: {e}", path.display()))?;
    Ok((text, file))
}

fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    matches!(b.first(), Some(b'a'..=b'z' | b'0'..=b'9'))
        && b.iter().all(|c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

/// The rules of `schema.json` plus the ones a schema cannot say: every
/// problem of a parsed case file (`cases/`, which holds no seeds), one message each.
pub fn structure_problems(file: &CaseFile) -> Vec<String> {
    problems_of(file, false)
}

/// [`structure_problems`] of a seed file (`seeds/`): the same rules, and
/// seeds are welcome.
pub fn seed_file_problems(file: &CaseFile) -> Vec<String> {
    problems_of(file, true)
}

fn problems_of(file: &CaseFile, seeds: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let category = file.category.as_str();
    if !CATEGORIES.contains(&category) {
        problems.push(format!("unknown category {category:?}; expected one of {CATEGORIES:?}"));
    }
    if file.description.trim().is_empty() {
        problems.push("empty description".into());
    }
    if file.cases.is_empty() {
        problems.push("no cases".into());
    }
    let wants_output = matches!(category, "encode" | "decode" | "roundtrip");
    for case in &file.cases {
        let mut p = |msg: String| problems.push(format!("case {:?}: {msg}", case.name));
        if !is_name(&case.name) {
            p("name must be kebab-case: [a-z0-9][a-z0-9-]*".into());
        }
        if !sections().contains(&case.spec) {
            p(format!("spec {:?} is not a section of spec/README.md ({:?})", case.spec, sections()));
        }
        if let Some(note) = &case.note {
            if note.trim().is_empty() {
                p("empty note".into());
            }
        }
        match (&case.input, &case.input_hex) {
            (Some(_), Some(_)) => p("has both input and input_hex".into()),
            (None, None) => p("has neither input nor input_hex".into()),
            (None, Some(hex)) => match decode_hex(hex) {
                Err(e) => p(e),
                Ok(bytes) if std::str::from_utf8(&bytes).is_ok() => {
                    p("input_hex is valid UTF-8: write it as input (input_hex is only for bytes that are not UTF-8)"
                        .into())
                }
                Ok(_) => {}
            },
            (Some(_), None) => {}
        }
        if let Some(options) = &case.options {
            if let Some(profile) = &options.profile {
                if let Err(e) = profile.parse::<Profile>() {
                    p(e.to_string());
                } else if category != "encode" {
                    p("options.profile applies to encode cases only (roundtrip runs both profiles)".into());
                }
            }
            if let Some(v) = options.version {
                if Version::from_u8(v).is_none() {
                    p(format!("options.version must be 1 or 2, not {v}"));
                }
            }
            if options.profile.is_none() && options.max_depth.is_none() && options.version.is_none() {
                p("empty options object".into());
            }
        }
        if let Some(family) = &case.prefixes {
            if !seeds {
                p("a seed (prefixes) belongs in seeds/<category>/, which bless expands into cases/".into());
                continue;
            }
            problems.extend(
                seed_problems(category, case, family).into_iter().map(|m| format!("case {:?}: {m}", case.name)),
            );
            continue;
        }
        if wants_output {
            if case.expected.is_none() {
                p(format!("{category} cases need \"expected\""));
            }
            if case.error.is_some() {
                p(format!("{category} cases cannot have \"error\""));
            }
        } else {
            if case.error.is_none() {
                p(format!("{category} cases need \"error\""));
            }
            if case.expected.is_some() {
                p(format!("{category} cases cannot have \"expected\""));
            }
            if let Some(error) = &case.error {
                if !error_kinds().contains(&error.kind.as_str()) {
                    p(format!("unknown error kind {:?}; expected one of {:?}", error.kind, error_kinds()));
                }
            }
        }
    }
    problems
}

/// What is wrong with a seed of a prefix family.
fn seed_problems(category: &str, case: &Case, family: &Prefixes) -> Vec<String> {
    let mut problems = Vec::new();
    if !matches!(category, "invalid" | "json-invalid") {
        problems.push(format!("prefixes apply to invalid and json-invalid cases, not {category}"));
    }
    if case.expected.is_some() || case.error.is_some() {
        problems.push("a seed (prefixes) has neither expected nor error: its family's errors are in prefixes".into());
    }
    let Some(input) = &case.input else {
        problems.push("a seed (prefixes) needs input (text)".into());
        return problems;
    };
    if !input.is_ascii() {
        problems.push("a seed's input must be ASCII, so that byte, character and UTF-16 prefixes agree".into());
    }
    for kind in std::iter::once(&family.kind).chain(family.except.iter().map(|x| &x.error.kind)) {
        if !error_kinds().contains(&kind.as_str()) {
            problems.push(format!("unknown error kind {kind:?}; expected one of {:?}", error_kinds()));
        }
    }
    for x in &family.except {
        if x.from > x.to || x.to >= input.len() {
            problems.push(format!("except range {}..={} is not within 0..{}", x.from, x.to, input.len()));
        }
    }
    // The whole input must be valid: only then is every proper prefix a truncation.
    let limits = case.limits();
    let version = case.version();
    let whole = match category {
        "invalid" => decode_with(input.as_bytes(), limits, version),
        _ => encode_with(input.as_bytes(), Profile::Compact, limits, version),
    };
    if let Outcome::Failed { .. } = whole {
        problems.push(format!("a seed's whole input must be valid, but it gives {}", whole.show()));
    }
    problems
}

/// Decodes lowercase hex pairs.
pub fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    let pairs = hex.as_bytes().chunks_exact(2);
    if !pairs.remainder().is_empty() {
        return Err("input_hex has an odd number of digits".into());
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err(format!("input_hex holds {:?}; use lowercase hex digits", c as char)),
    };
    pairs.map(|pair| Ok(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

impl Case {
    /// The input bytes.
    pub fn input_bytes(&self) -> Vec<u8> {
        match (&self.input, &self.input_hex) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(hex)) => decode_hex(hex).unwrap_or_default(),
            (None, None) => Vec::new(),
        }
    }

    /// The limits of every operation of the case.
    pub fn limits(&self) -> Limits {
        match self.options.as_ref().and_then(|o| o.max_depth) {
            Some(max_depth) => Limits::default().max_depth(max_depth),
            None => Limits::default(),
        }
    }

    /// The STC version of every operation of the case (1 unless the case says otherwise).
    pub fn version(&self) -> Version {
        self.options.as_ref().and_then(|o| o.version).and_then(Version::from_u8).unwrap_or_default()
    }

    /// The encode profile (compact unless the case says otherwise).
    pub fn profile(&self) -> Profile {
        self.options
            .as_ref()
            .and_then(|o| o.profile.as_deref())
            .and_then(|name| name.parse::<Profile>().ok())
            .unwrap_or(Profile::Compact)
    }
}

// ---- running -----------------------------------------------------------------

/// What an operation produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Output text.
    Text(String),
    /// A failure.
    Failed {
        /// Kind code.
        kind: String,
        /// Byte offset.
        offset: usize,
        /// Display of the error (message and line/column).
        message: String,
    },
}

impl Outcome {
    fn of(r: Result<String, Error>) -> Outcome {
        match r {
            Ok(text) => Outcome::Text(text),
            Err(e) => Outcome::Failed {
                kind: e.kind().code().to_string(),
                offset: e.offset().unwrap_or(0),
                message: e.to_string(),
            },
        }
    }

    fn show(&self) -> String {
        match self {
            Outcome::Text(t) => format!("output {}", quote(t)),
            Outcome::Failed { kind, offset, message } => format!("error {kind} at byte {offset} ({message})"),
        }
    }
}

/// A JSON string literal of `s`, so that spaces, newlines and control
/// characters are visible in failure messages.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn encode_with(input: &[u8], profile: Profile, limits: Limits, version: Version) -> Outcome {
    let options = EncodeOptions::default().profile(profile).limits(limits).version(version);
    Outcome::of(stc_core::encode_bytes_with(input, &options))
}

fn decode_options(limits: Limits, version: Version) -> DecodeOptions {
    DecodeOptions::default().limits(limits).version(version)
}

fn decode_with(input: &[u8], limits: Limits, version: Version) -> Outcome {
    Outcome::of(stc_core::decode_bytes_with(input, &decode_options(limits, version)))
}

/// The operations a case of `category` runs, as (description, outcome).
pub fn run(category: &str, case: &Case) -> Vec<(String, Outcome)> {
    let input = case.input_bytes();
    let limits = case.limits();
    let version = case.version();
    match category {
        "encode" => {
            let profile = case.profile();
            vec![(format!("encode(input, {})", profile.name()), encode_with(&input, profile, limits, version))]
        }
        "decode" | "invalid" => vec![("decode(input)".to_string(), decode_with(&input, limits, version))],
        "json-invalid" => {
            vec![("encode(input, compact)".to_string(), encode_with(&input, Profile::Compact, limits, version))]
        }
        "roundtrip" => [Profile::Compact, Profile::Readable]
            .into_iter()
            .map(|profile| {
                let outcome = match encode_with(&input, profile, limits, version) {
                    Outcome::Text(stc) => decode_with(stc.as_bytes(), limits, version),
                    failed => failed,
                };
                (format!("decode(encode(input, {}))", profile.name()), outcome)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Byte offset of the first difference of two texts.
fn first_difference(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Runs one case against the reference. `Err` holds a failure report naming
/// the case, its file, input, expected and actual result.
pub fn check(file: &Path, category: &str, case: &Case) -> Result<(), String> {
    let mut failures = Vec::new();
    let want = match (&case.expected, &case.error) {
        (Some(text), _) => Outcome::Text(text.clone()),
        (None, Some(e)) => Outcome::Failed { kind: e.kind.clone(), offset: e.offset, message: String::new() },
        (None, None) => return Err(report(file, category, case, &["case has neither expected nor error".into()])),
    };
    for (operation, got) in run(category, case) {
        let ok = match (&want, &got) {
            (Outcome::Text(a), Outcome::Text(b)) => a == b,
            (Outcome::Failed { kind: k1, offset: o1, .. }, Outcome::Failed { kind: k2, offset: o2, .. }) => {
                k1 == k2 && o1 == o2
            }
            _ => false,
        };
        if !ok {
            let mut msg = format!("operation: {operation}\nexpected:  ");
            match &want {
                Outcome::Text(t) => msg.push_str(&format!("output {}", quote(t))),
                Outcome::Failed { kind, offset, .. } => msg.push_str(&format!("error {kind} at byte {offset}")),
            }
            let _ = write!(msg, "\nactual:    {}", got.show());
            if let (Outcome::Text(a), Outcome::Text(b)) = (&want, &got) {
                let at = first_difference(a, b);
                let _ = write!(msg, "\n           first difference at byte {at}");
            }
            failures.push(msg);
        }
    }
    if failures.is_empty() {
        failures.extend(reference_checks(category, case));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(report(file, category, case, &failures))
    }
}

/// Properties the Rust reference must also have on every case (not part of
/// the binding contract), from spec §6: encoder output decodes back to its
/// input and re-encodes to itself, decoder output is strict, canonical
/// minified JSON (decoding it again changes nothing), and validation reports
/// the same error as decoding.
fn reference_checks(category: &str, case: &Case) -> Vec<String> {
    let input = case.input_bytes();
    let limits = case.limits();
    let version = case.version();
    let mut problems = Vec::new();
    match category {
        "encode" => {
            let original = decode_with(&input, limits, version);
            let back = case.expected.as_deref().map(|e| decode_with(e.as_bytes(), limits, version));
            if back.as_ref() != Some(&original) {
                problems.push(format!(
                    "lossless: decode(expected) must equal decode(input) (the minified input)\ndecode(input):    {}\ndecode(expected): {}",
                    original.show(),
                    back.map_or_else(|| "-".into(), |b| b.show())
                ));
            } else if let (Some(expected), Outcome::Text(json)) = (&case.expected, &original) {
                // Spec §6.4: encode(decode(encode(x))) == encode(x).
                let again = encode_with(json.as_bytes(), case.profile(), limits, version);
                if again != Outcome::Text(expected.clone()) {
                    problems.push(format!(
                        "idempotent: encode(decode(expected)) must equal expected\nencode(decode(expected)): {}",
                        again.show()
                    ));
                }
            }
        }
        "decode" | "roundtrip" => {
            if let Some(expected) = &case.expected {
                let mut validate = stc_core::Validate;
                if let Err(e) = stc_core::parse_json(expected, &limits, &mut validate) {
                    problems.push(format!("expected output is not strict JSON: {e}"));
                }
                let again = decode_with(expected.as_bytes(), limits, version);
                if again != Outcome::Text(expected.clone()) {
                    problems.push(format!("expected output is not canonical: decode(expected) gives {}", again.show()));
                }
            }
        }
        "invalid" => {
            let validated = match stc_core::validate_bytes_with(&input, &decode_options(limits, version)) {
                Ok(()) => Outcome::Text(String::new()),
                Err(e) => Outcome::of(Err(e)),
            };
            let decoded = decode_with(&input, limits, version);
            if validated != decoded {
                problems.push(format!(
                    "validate and decode disagree\nvalidate: {}\ndecode:   {}",
                    validated.show(),
                    decoded.show()
                ));
            }
        }
        _ => {}
    }
    problems
}

fn report(file: &Path, category: &str, case: &Case, failures: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "case:      {category}::{}::{}", stem(file), case.name);
    let _ = writeln!(out, "file:      {}", display_path(file));
    let _ = writeln!(out, "spec:      section {}", case.spec);
    if let Some(note) = &case.note {
        let _ = writeln!(out, "note:      {note}");
    }
    if let Some(options) = &case.options {
        let _ = writeln!(
            out,
            "options:   profile={:?} max_depth={:?} version={:?}",
            options.profile, options.max_depth, options.version
        );
    }
    match (&case.input, &case.input_hex) {
        (Some(text), _) => {
            let _ = writeln!(out, "input:     {}", quote(text));
        }
        (None, Some(hex)) => {
            let _ = writeln!(out, "input_hex: {hex}");
        }
        _ => {}
    }
    for f in failures {
        let _ = writeln!(out, "{f}");
    }
    out
}

/// A path relative to the repository root when possible.
pub fn display_path(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("."));
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

// ---- blessing ------------------------------------------------------------------

/// The expectation the reference gives a case, or why it cannot be blessed
/// (the input succeeds where the category needs a failure, or the reverse).
pub fn blessed(category: &str, case: &Case) -> Result<Case, String> {
    let input = case.input_bytes();
    let limits = case.limits();
    let version = case.version();
    let mut new = case.clone();
    let outcome = match category {
        // The canonical minified JSON of the input, read through the
        // decoder's JSON path (independent of the encoder it is compared to).
        "roundtrip" => match std::str::from_utf8(&input) {
            Ok(text) => {
                let mut strict = stc_core::Validate;
                match stc_core::parse_json(text, &limits, &mut strict) {
                    Ok(()) => decode_with(&input, limits, version),
                    Err(e) => Outcome::of(Err(e)),
                }
            }
            Err(_) => decode_with(&input, limits, version),
        },
        _ => run(category, case).into_iter().next().map(|(_, o)| o).ok_or("unknown category")?,
    };
    match (category, outcome) {
        ("encode" | "decode" | "roundtrip", Outcome::Text(text)) => new.expected = Some(text),
        ("invalid" | "json-invalid", Outcome::Failed { kind, offset, .. }) => {
            new.error = Some(ExpectedError { kind, offset })
        }
        (_, other) => {
            return Err(format!("the reference gives {} where a {category} case needs the other outcome", other.show()))
        }
    }
    Ok(new)
}

// ---- the canonical layout --------------------------------------------------------

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn error_json(error: &ExpectedError) -> String {
    format!("{{ \"kind\": {}, \"offset\": {} }}", json_str(&error.kind), error.offset)
}

/// Writes a case file in its one layout: 2-space indent, one case per
/// object, keys in the order name, spec, note, options, input/input_hex,
/// expected/error; `options` and `error` on one line.
pub fn format_file(file: &CaseFile) -> String {
    let mut out = String::from("{\n");
    if let Some(schema) = &file.schema {
        let _ = writeln!(out, "  \"$schema\": {},", json_str(schema));
    }
    let _ = writeln!(out, "  \"category\": {},", json_str(&file.category));
    let _ = writeln!(out, "  \"description\": {},", json_str(&file.description));
    out.push_str("  \"cases\": [\n");
    for (i, case) in file.cases.iter().enumerate() {
        let mut fields =
            vec![format!("\"name\": {}", json_str(&case.name)), format!("\"spec\": {}", json_str(&case.spec))];
        if let Some(note) = &case.note {
            fields.push(format!("\"note\": {}", json_str(note)));
        }
        if let Some(options) = &case.options {
            let mut parts = Vec::new();
            if let Some(profile) = &options.profile {
                parts.push(format!("\"profile\": {}", json_str(profile)));
            }
            if let Some(max_depth) = options.max_depth {
                parts.push(format!("\"max_depth\": {max_depth}"));
            }
            if let Some(version) = options.version {
                parts.push(format!("\"version\": {version}"));
            }
            fields.push(format!("\"options\": {{ {} }}", parts.join(", ")));
        }
        if let Some(input) = &case.input {
            fields.push(format!("\"input\": {}", json_str(input)));
        }
        if let Some(hex) = &case.input_hex {
            fields.push(format!("\"input_hex\": {}", json_str(hex)));
        }
        if let Some(expected) = &case.expected {
            fields.push(format!("\"expected\": {}", json_str(expected)));
        }
        if let Some(error) = &case.error {
            fields.push(format!("\"error\": {}", error_json(error)));
        }
        if let Some(family) = &case.prefixes {
            let except: Vec<String> = family
                .except
                .iter()
                .map(|x| format!("{{ \"from\": {}, \"to\": {}, \"error\": {} }}", x.from, x.to, error_json(&x.error)))
                .collect();
            fields.push(format!(
                "\"prefixes\": {{ \"kind\": {}, \"except\": [{}] }}",
                json_str(&family.kind),
                except.join(", ")
            ));
        }
        out.push_str("    {\n");
        for (j, field) in fields.iter().enumerate() {
            out.push_str("      ");
            out.push_str(field);
            out.push_str(if j + 1 < fields.len() { ",\n" } else { "\n" });
        }
        out.push_str(if i + 1 < file.cases.len() { "    },\n" } else { "    }\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

// ---- coverage ------------------------------------------------------------------

/// Sections of the spec that need no cases, with the reason (also in the
/// README): they are measurements and protocol, not codec behaviour.
pub const SECTIONS_WITHOUT_CASES: [(&str, &str); 7] = [
    ("4.4", "an informative algorithm: its order of checks is what the cases of 4.3 test"),
    ("7.1", "HTTP negotiation: tested by stc-http/tests/layer.rs"),
    ("7.2", "HTTP response selection: tested by stc-http/tests/layer.rs"),
    ("7.3", "HTTP response headers: tested by stc-http/tests/layer.rs"),
    ("7.4", "HTTP compression: tested by stc-http/tests/layer.rs and proxy.rs"),
    ("7.5", "media type registration: no codec behaviour"),
    ("8", "security considerations: the limits they rely on are the cases of 4.2"),
];

fn repo_file(relative: &str) -> Result<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Section numbers of `spec/README.md`'s headings (`## 3. Syntax`, `### 3.1 …`).
pub fn spec_sections(readme: &str) -> Vec<String> {
    readme
        .lines()
        .filter_map(|line| line.strip_prefix("## ").or_else(|| line.strip_prefix("### ")))
        .filter_map(|title| title.split_whitespace().next())
        .map(|number| number.trim_end_matches('.').to_string())
        .filter(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .collect()
}

/// Every case cites a section heading of the spec, and every section (or
/// one of its subsections) has cases, except [`SECTIONS_WITHOUT_CASES`].
pub fn check_spec_sections(cited: &[(String, String)]) -> Result<(), String> {
    let sections = spec_sections(&repo_file("../spec/README.md")?);
    if sections.is_empty() {
        return Err("spec/README.md has no numbered section headings".into());
    }
    let mut problems = Vec::new();
    for (name, spec) in cited {
        if !sections.contains(spec) {
            problems.push(format!("case {name:?} cites section {spec}, which spec/README.md does not have"));
        }
    }
    for section in &sections {
        let prefix = format!("{section}.");
        let covered = cited.iter().any(|(_, s)| s == section || s.starts_with(&prefix));
        if !covered && !SECTIONS_WITHOUT_CASES.iter().any(|(s, _)| s == section) {
            problems.push(format!("section {section} of spec/README.md has no case"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The error kinds `schema.json` allows (`$defs.error.properties.kind.enum`)
/// are exactly [`error_kinds`], in the same order.
pub fn check_schema_error_kinds() -> Result<(), String> {
    let schema: serde_json::Value =
        serde_json::from_str(&repo_file("schema.json")?).map_err(|e| format!("schema.json is not JSON: {e}"))?;
    let listed: Vec<&str> = schema
        .pointer("/$defs/error/properties/kind/enum")
        .and_then(|v| v.as_array())
        .ok_or("schema.json has no $defs.error.properties.kind.enum")?
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    if listed == error_kinds() {
        Ok(())
    } else {
        Err(format!("schema.json lists error kinds {listed:?}; stc_core gives {:?}", error_kinds()))
    }
}

/// Rule names defined in an ABNF text (`name = …` or `name =/ …` at the
/// start of a line).
pub fn abnf_rules(abnf: &str) -> Vec<String> {
    let mut rules: Vec<String> = Vec::new();
    for line in abnf.lines() {
        let name: String = line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        if name.is_empty() || !line[name.len()..].trim_start().starts_with('=') {
            continue;
        }
        if !rules.contains(&name) {
            rules.push(name);
        }
    }
    rules
}

/// Every rule of `spec/stc.abnf` has a row in the coverage table of
/// `conformance/README.md` (`` | `rule` | case, case; case | ``), naming
/// at least one case, and every case named there exists.
pub fn check_abnf_rules(case_names: &[String]) -> Result<(), String> {
    let rules = abnf_rules(&repo_file("../spec/stc.abnf")?);
    if rules.is_empty() {
        return Err("spec/stc.abnf defines no rules".into());
    }
    let readme = repo_file("README.md")?;
    let mut table: Vec<(String, Vec<String>)> = Vec::new();
    let rows = readme
        .lines()
        .skip_while(|line| !line.starts_with("| ABNF rule | cases |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'));
    for line in rows {
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((rule, cells)) = rest.split_once("` |") else {
            continue;
        };
        let names = cells
            .trim_end_matches('|')
            .split([',', ';'])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        table.push((rule.to_string(), names));
    }
    let mut problems = Vec::new();
    for rule in &rules {
        match table.iter().find(|(r, _)| r == rule) {
            None => {
                problems.push(format!("ABNF rule {rule} has no row in the coverage table of conformance/README.md"))
            }
            Some((_, names)) if names.is_empty() => problems.push(format!("ABNF rule {rule} lists no case")),
            Some((_, names)) => {
                for name in names {
                    if !case_names.contains(name) {
                        problems.push(format!("the row of ABNF rule {rule} names {name:?}, which is not a case"));
                    }
                }
            }
        }
    }
    for (rule, _) in &table {
        if !rules.contains(rule) {
            problems.push(format!("the coverage table names {rule:?}, which is not a rule of spec/stc.abnf"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(input: &str, except: Vec<PrefixException>) -> Case {
        Case {
            name: "p".into(),
            spec: "4.3".into(),
            note: None,
            options: None,
            input: Some(input.into()),
            input_hex: None,
            expected: None,
            error: None,
            prefixes: Some(Prefixes { kind: "unexpected_end".into(), except }),
        }
    }

    fn err(kind: &str, offset: usize) -> ExpectedError {
        ExpectedError { kind: kind.into(), offset }
    }

    #[test]
    fn a_seed_expands_to_every_proper_prefix_with_its_exceptions() {
        let x = PrefixException { from: 5, to: 6, error: err("count_too_large", 1) };
        let cases = seed("[2]: 1,2", vec![x]).expand();
        assert_eq!(cases.len(), 8);
        assert_eq!(cases[0].name, "p-000");
        assert_eq!(cases[0].input.as_deref(), Some(""));
        assert_eq!(cases[3].error, Some(err("unexpected_end", 3)));
        assert_eq!(cases[5].error, Some(err("count_too_large", 1)));
        assert_eq!(cases[6].error, Some(err("count_too_large", 1)));
        assert_eq!(cases[7].input.as_deref(), Some("[2]: 1,"));
        assert!(cases.iter().all(|c| c.prefixes.is_none()));
    }

    #[test]
    fn a_seed_must_be_valid_ascii_with_ranges_inside_it() {
        assert!(seed_problems(
            "invalid",
            &seed("[1,2]", vec![]),
            &Prefixes { kind: "unexpected_end".into(), except: vec![] }
        )
        .is_empty());
        let bad = |c: &Case, category: &str| seed_problems(category, c, c.prefixes.as_ref().unwrap());
        assert!(bad(&seed("[1,", vec![]), "invalid").iter().any(|p| p.contains("must be valid")));
        assert!(bad(&seed("[\"é\"]", vec![]), "invalid").iter().any(|p| p.contains("ASCII")));
        assert!(bad(&seed("{\"a\": 1}", vec![]), "json-invalid").is_empty());
        assert!(bad(&seed("[1]", vec![]), "decode").iter().any(|p| p.contains("not decode")));
        let x = PrefixException { from: 2, to: 9, error: err("unexpected_end", 0) };
        assert!(bad(&seed("[1]", vec![x]), "invalid").iter().any(|p| p.contains("not within")));
    }
}

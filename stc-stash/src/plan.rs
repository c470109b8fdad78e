//! Truncation planning: pure logic, no I/O.
//!
//! [`plan`] walks a [`Value`] and decides what to leave out: record arrays
//! are reduced to a budget of representative records (the complete array is
//! the payload), other long arrays keep a head and a tail (the middle window
//! is the payload), long strings keep their first characters (the complete
//! string is the payload). Each omission is replaced by a marker in the
//! output. The caller stashes the payloads (see [`crate::truncate`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use stc_core::{Abort, JsonStr, JsonWriter, Limits, Sink, MAX_DEPTH_LIMIT};

use crate::key::Key;
use crate::marker::{contains_marker_member, marker_key, ranges, MarkerInfo, Recovery, Seal, Unit, MARKER_MEMBER};
use crate::value::{body_chars, body_prefix, Value};

/// What [`plan`] may leave out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanOptions {
    /// Records kept of a record array (an array of at least
    /// `record_budget + 1` objects). At least 2 (the first and the last),
    /// except in the last steps of a token budget: 1 keeps only the first
    /// record, 0 cuts the array whole (its marker shows no record).
    pub record_budget: usize,
    /// Elements kept at the start of any other array longer than `head + tail`
    /// (`head` and `tail` both 0: the whole array is cut, one marker remains).
    pub head: usize,
    /// Elements kept at the end of such an array.
    pub tail: usize,
    /// Strings longer than this many characters are cut (`None`: never).
    pub long_string_chars: Option<usize>,
    /// Characters kept of a cut string.
    pub string_head_chars: usize,
    /// The instruction written into each marker.
    pub recovery: Recovery,
    /// True (the default): markers carry the stash key, so the payloads must
    /// be stashed. False: an explicitly lossy truncation; markers say
    /// `"recoverable":false` and carry no key.
    pub recoverable: bool,
    /// An array part is left out only if its JSON has at least this many
    /// bytes: a marker costs about 250 bytes (60 tokens), so cutting less
    /// would make the output longer.
    pub min_omitted_bytes: usize,
    /// Seal the keys the markers write (`KEY.TAG`, bound to one client; see
    /// [`Seal`]). `None` (the default): bare keys, for `stc retrieve` and
    /// stores the reader may read directly.
    pub seal: Option<Seal>,
}

impl Default for PlanOptions {
    /// 32 records; 32 head and 8 tail elements; strings over 4096
    /// characters keep 512; shell recovery; recoverable; at least 250
    /// bytes left out per array cut.
    fn default() -> Self {
        PlanOptions {
            record_budget: 32,
            head: 32,
            tail: 8,
            long_string_chars: Some(4096),
            string_head_chars: 512,
            recovery: Recovery::Shell,
            recoverable: true,
            min_omitted_bytes: 250,
            seal: None,
        }
    }
}

impl PlanOptions {
    /// Options for an array budget of `n` elements: `n` records, or `n`
    /// head and `n / 4` tail elements (at least 1 each).
    pub fn with_array_budget(n: usize) -> PlanOptions {
        let n = n.max(2);
        PlanOptions { record_budget: n, head: n, tail: (n / 4).max(1), ..PlanOptions::default() }
    }
}

/// One part left out of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omission {
    /// The key of `payload` (what the store will compute).
    pub key: Key,
    /// Minified JSON: the complete record array, the array of omitted
    /// elements, or the complete string.
    pub payload: String,
    /// What was omitted.
    pub unit: Unit,
    /// How many units were left out.
    pub omitted: usize,
    /// How many units the original had.
    pub of: usize,
}

/// The result of [`plan`]: the output value and what it leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan<'a> {
    /// The value to send, with markers in place of the omissions.
    pub output: Value<'a>,
    /// The omissions, in document order (payloads may repeat).
    pub omissions: Vec<Omission>,
}

/// Plans the truncation of `input`.
///
/// Data that already contains a member named `stc_stash` (an earlier
/// output, or retrieved data that imitates one) is left as it is, so that
/// markers never chain.
///
/// ```
/// use stc_stash::{plan, PlanOptions, Value};
/// let json = format!("[{}]", (1000..1100).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
/// let input = Value::parse_json(&json, &Default::default()).unwrap();
/// let p = plan(&input, &PlanOptions::default());
/// assert_eq!(p.omissions.len(), 1);
/// assert_eq!(p.omissions[0].omitted, 60); // 32 head + 8 tail kept
/// ```
pub fn plan<'a>(input: &Value<'a>, options: &PlanOptions) -> Plan<'a> {
    plan_with(input, options, &mut |_| false)
}

/// Like [`plan`], but a part whose payload key `never_cut` accepts is kept
/// whole (its children may still be cut): for a caller that must leave
/// known content visible.
pub fn plan_with<'a>(input: &Value<'a>, options: &PlanOptions, never_cut: &mut dyn FnMut(&Key) -> bool) -> Plan<'a> {
    if contains_marker_member(input) {
        return Plan { output: input.clone(), omissions: Vec::new() };
    }
    let mut ctx = Ctx { options, omissions: Vec::new(), never_cut, depth: 0 };
    let output = ctx.walk(input);
    Plan { output, omissions: ctx.omissions }
}

struct Ctx<'o> {
    options: &'o PlanOptions,
    omissions: Vec<Omission>,
    never_cut: &'o mut dyn FnMut(&Key) -> bool,
    /// Nesting depth of the value being walked.
    depth: usize,
}

/// Values nested deeper than this are copied as they are, never cut: real
/// responses are far shallower, and it bounds the stack the walk needs.
pub const MAX_PLAN_DEPTH: usize = 128;

/// A string is cut only if at least this many characters are left out.
pub const MIN_STRING_OMISSION: usize = 512;

impl Ctx<'_> {
    fn marker<'a>(&self, info: MarkerInfo, extra: Option<(&'static str, Value<'a>)>) -> Value<'a> {
        let mut members =
            vec![(Cow::Borrowed(MARKER_MEMBER), info.to_value(&self.options.recovery, self.options.seal.as_ref()))];
        if let Some((k, v)) = extra {
            members.push((Cow::Borrowed(k), v));
        }
        Value::Object(members)
    }

    /// The key of `payload`, or `None` if it must not be cut.
    fn may_cut(&mut self, payload: &str) -> Option<Key> {
        let key = Key::of(payload.as_bytes());
        (!(self.never_cut)(&key)).then_some(key)
    }

    fn omit(
        &mut self,
        key: Key,
        payload: String,
        unit: Unit,
        (omitted, of): (usize, usize),
        kept: String,
    ) -> MarkerInfo {
        self.omissions.push(Omission { key, payload, unit, omitted, of });
        MarkerInfo { omitted, of, unit, kept, key: self.options.recoverable.then_some(key) }
    }

    fn walk<'a>(&mut self, v: &Value<'a>) -> Value<'a> {
        if self.depth >= MAX_PLAN_DEPTH {
            return v.clone();
        }
        self.depth += 1;
        let out = self.walk_inner(v);
        self.depth -= 1;
        out
    }

    fn walk_inner<'a>(&mut self, v: &Value<'a>) -> Value<'a> {
        let options = self.options;
        match v {
            Value::Array(items) => {
                let n = items.len();
                let budget = options.record_budget;
                if n > budget && items.iter().all(|i| matches!(i, Value::Object(_))) {
                    let kept = match budget {
                        0 => Vec::new(),
                        1 => vec![0],
                        b => select_records(items, b),
                    };
                    let payload = v.to_json();
                    // Bytes of the records left out (commas included).
                    let kept_bytes: usize = kept.iter().map(|&i| items[i].to_json().len() + 1).sum();
                    let omitted_bytes = payload.len().saturating_sub(kept_bytes + 1);
                    if omitted_bytes >= options.min_omitted_bytes {
                        if let Some(key) = self.may_cut(&payload) {
                            let info = self.omit(key, payload, Unit::Records, (n - kept.len(), n), ranges(&kept));
                            let records = kept.iter().map(|&i| self.walk(&items[i])).collect();
                            return self.marker(info, Some(("items", Value::Array(records))));
                        }
                    }
                    // Too little to leave out: keep it whole.
                    return Value::Array(items.iter().map(|i| self.walk(i)).collect());
                }
                let (head, tail) = (options.head, options.tail);
                if n > head + tail {
                    let payload = Value::Array(items[head..n - tail].to_vec()).to_json();
                    let cut =
                        if payload.len() >= options.min_omitted_bytes + 2 { self.may_cut(&payload) } else { None };
                    if let Some(key) = cut {
                        let kept: Vec<usize> = (0..head).chain(n - tail..n).collect();
                        let info = self.omit(key, payload, Unit::Items, (n - head - tail, n), ranges(&kept));
                        let mut result: Vec<Value<'a>> = items[..head].iter().map(|i| self.walk(i)).collect();
                        result.push(self.marker(info, None));
                        result.extend(items[n - tail..].iter().map(|i| self.walk(i)));
                        return Value::Array(result);
                    }
                }
                Value::Array(items.iter().map(|i| self.walk(i)).collect())
            }
            Value::Object(members) => Value::Object(members.iter().map(|(k, v)| (k.clone(), self.walk(v))).collect()),
            Value::String(s) => match options.long_string_chars {
                Some(limit) if body_chars(s) > limit => {
                    let keep = options.string_head_chars.min(limit);
                    let total = body_chars(s);
                    if total - keep < MIN_STRING_OMISSION {
                        // A marker costs about 60 tokens: cutting less would not pay.
                        return v.clone();
                    }
                    let payload = v.to_json();
                    let Some(key) = self.may_cut(&payload) else { return v.clone() };
                    let head = body_prefix(s, keep).to_string();
                    let kept = if keep == 0 { String::new() } else { format!("0-{}", keep - 1) };
                    let info = self.omit(key, payload, Unit::Chars, (total - keep, total), kept);
                    self.marker(info, Some(("head", Value::String(Cow::Owned(head)))))
                }
                _ => v.clone(),
            },
            _ => v.clone(),
        }
    }
}

/// Chooses which records of a record array to keep: at most `budget` (at
/// least 2) indices, in order. First and last always; then error-like
/// records, structural anomalies and numeric outliers (each category capped
/// so that the head is still shown); the rest of the budget goes to the
/// records after the first.
///
/// ```
/// use stc_stash::{select_records, Value};
/// let json = format!("[{}]", (0..50).map(|i| if i == 20 { r#"{"id":20,"status":"error"}"#.to_string() } else { format!(r#"{{"id":{i},"status":"ok"}}"#) }).collect::<Vec<_>>().join(","));
/// let records = match Value::parse_json(&json, &Default::default()).unwrap() { Value::Array(a) => a, _ => unreachable!() };
/// let kept = select_records(&records, 8);
/// assert_eq!(kept, vec![0, 1, 2, 3, 4, 5, 20, 49]);
/// ```
pub fn select_records(records: &[Value<'_>], budget: usize) -> Vec<usize> {
    let n = records.len();
    let budget = budget.max(2);
    if n <= budget {
        return (0..n).collect();
    }
    let mut chosen = BTreeSet::from([0, n - 1]);
    let categories = [
        ((0..n).filter(|&i| is_error_like(&records[i])).collect::<Vec<_>>(), budget / 2),
        (anomalies(records), budget / 4),
        (outliers(records), budget / 4),
    ];
    for (candidates, cap) in categories {
        let mut taken = 0;
        for i in candidates {
            if taken >= cap || chosen.len() >= budget {
                break;
            }
            if chosen.insert(i) {
                taken += 1;
            }
        }
    }
    let mut i = 1;
    while chosen.len() < budget && i < n {
        chosen.insert(i);
        i += 1;
    }
    chosen.into_iter().collect()
}

const ERROR_FIELDS: &[&str] = &[
    "error",
    "errors",
    "err",
    "exception",
    "failure",
    "fault",
    "stacktrace",
    "stack_trace",
    "traceback",
    "error_message",
    "errormessage",
    "error_code",
    "errorcode",
];
const STATUS_FIELDS: &[&str] =
    &["status", "state", "level", "severity", "outcome", "result", "conclusion", "log_level", "loglevel"];
const STATUS_WORDS: &[&str] = &[
    "error",
    "fail",
    "fatal",
    "critical",
    "exception",
    "panic",
    "crash",
    "timeout",
    "timed out",
    "denied",
    "invalid",
    "abort",
    "reject",
];
const CODE_FIELDS: &[&str] = &["status", "status_code", "statuscode", "http_status", "httpstatus", "code"];
const SUCCESS_FIELDS: &[&str] = &["ok", "success", "succeeded", "passed"];

/// True if a record looks like an error: an error field with content, a
/// status word such as "failed", an HTTP status 400-599, or `ok: false`.
pub fn is_error_like(record: &Value<'_>) -> bool {
    let Value::Object(members) = record else { return false };
    members.iter().any(|(k, v)| {
        let k = k.to_ascii_lowercase();
        let k = k.as_str();
        (ERROR_FIELDS.contains(&k) && is_truthy(v))
            || (STATUS_FIELDS.contains(&k)
                && v.as_str().is_some_and(|s| {
                    let s = s.to_ascii_lowercase();
                    STATUS_WORDS.iter().any(|w| s.contains(w))
                }))
            || (CODE_FIELDS.contains(&k)
                && matches!(v, Value::Number(n) if n.parse::<u32>().is_ok_and(|c| (400..=599).contains(&c))))
            || (SUCCESS_FIELDS.contains(&k) && *v == Value::Bool(false))
    })
}

fn is_truthy(v: &Value<'_>) -> bool {
    match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
        _ => true,
    }
}

fn type_name(v: &Value<'_>) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// Records whose set of keys differs from the most common one, or with a
/// value whose type (null aside) is rare for its key; rarest first. Empty
/// when no key set is shared by at least half of the records.
fn anomalies(records: &[Value<'_>]) -> Vec<usize> {
    let n = records.len();
    let signature = |r: &Value<'_>| -> Vec<String> {
        let Value::Object(m) = r else { return Vec::new() };
        let set: BTreeSet<String> = m.iter().map(|(k, _)| k.to_string()).collect();
        set.into_iter().collect()
    };
    let sigs: Vec<Vec<String>> = records.iter().map(signature).collect();
    let mut counts: HashMap<&Vec<String>, usize> = HashMap::new();
    for s in &sigs {
        *counts.entry(s).or_default() += 1;
    }
    let Some((_, &mode_count)) = counts.iter().max_by_key(|(_, c)| **c) else { return Vec::new() };
    if mode_count * 2 < n {
        return Vec::new();
    }
    // Per key: how often each non-null type occurs.
    let mut types: HashMap<&str, [usize; 6]> = HashMap::new();
    for r in records {
        if let Value::Object(m) = r {
            for (k, v) in m {
                types.entry(k.as_ref()).or_default()[type_name(v) as usize] += 1;
            }
        }
    }
    let mut scored: Vec<(usize, usize)> = Vec::new(); // (rarity count, index)
    for (i, r) in records.iter().enumerate() {
        let mut rarity = usize::MAX;
        let sig_count = counts[&sigs[i]];
        if sig_count != mode_count || sig_count * 2 < n {
            rarity = sig_count;
        }
        if let Value::Object(m) = r {
            for (k, v) in m {
                let t = type_name(v) as usize;
                if t == 0 {
                    continue;
                }
                let counts = &types[k.as_ref()];
                let total: usize = counts[1..].iter().sum();
                if counts[t] * 10 < total {
                    rarity = rarity.min(counts[t]);
                }
            }
        }
        if rarity != usize::MAX {
            scored.push((rarity, i));
        }
    }
    scored.sort();
    scored.into_iter().map(|(_, i)| i).collect()
}

/// Records with a numeric value far from its key's median (modified
/// z-score above 3.5, by the median absolute deviation), most extreme first.
fn outliers(records: &[Value<'_>]) -> Vec<usize> {
    let n = records.len();
    let mut columns: BTreeMap<&str, Vec<(usize, f64)>> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        if let Value::Object(m) = r {
            for (k, v) in m {
                if let Value::Number(lexeme) = v {
                    if let Ok(x) = lexeme.parse::<f64>() {
                        if x.is_finite() {
                            columns.entry(k.as_ref()).or_default().push((i, x));
                        }
                    }
                }
            }
        }
    }
    let mut best: HashMap<usize, f64> = HashMap::new();
    for values in columns.values() {
        if values.len() * 2 < n {
            continue;
        }
        let median = median(values.iter().map(|(_, x)| *x).collect());
        let mad = median_abs(values, median);
        for &(i, x) in values {
            let score = if mad > 0.0 {
                (x - median).abs() / (1.4826 * mad)
            } else if x != median {
                // Nearly all values equal: any other value stands out.
                3.5 + (x - median).abs() / (median.abs() + 1.0)
            } else {
                0.0
            };
            if score > 3.5 {
                let e = best.entry(i).or_insert(0.0);
                *e = e.max(score);
            }
        }
    }
    let mut scored: Vec<(usize, f64)> = best.into_iter().collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(i, _)| i).collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn median_abs(values: &[(usize, f64)], m: f64) -> f64 {
    median(values.iter().map(|(_, x)| (x - m).abs()).collect())
}

/// Why [`restore`] could not rebuild the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreError {
    /// A marker's payload is not available (missing, expired, or the
    /// omission was not recoverable).
    Unavailable(Option<Key>),
    /// A payload does not have the shape its marker announces.
    BadPayload(Key),
    /// The output holds a string or key body that is not valid JSON (only a
    /// hand-built [`Value`] can).
    InvalidOutput,
}

impl std::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RestoreError::Unavailable(Some(k)) => write!(f, "the stash has no payload for {k}"),
            RestoreError::Unavailable(None) => f.write_str("an omission was not recoverable (lossy truncation)"),
            RestoreError::InvalidOutput => f.write_str("the output holds a string that is not valid JSON"),
            RestoreError::BadPayload(k) => write!(f, "the payload of {k} does not fit its marker"),
        }
    }
}

impl std::error::Error for RestoreError {}

/// Rebuilds the original JSON (canonical, minified) from an output and its
/// payloads: each records or chars marker is replaced by its payload, each
/// items marker by the elements of its payload.
///
/// ```
/// use std::collections::HashMap;
/// use stc_stash::{plan, restore, PlanOptions, Value};
/// let json = format!("[{}]", (1000..1100).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
/// let p = plan(&Value::parse_json(&json, &Default::default()).unwrap(), &PlanOptions::default());
/// let payloads: HashMap<_, _> = p.omissions.iter().map(|o| (o.key, o.payload.clone())).collect();
/// assert_eq!(restore(&p.output, &mut |k| payloads.get(k).cloned()).unwrap(), json);
/// ```
pub fn restore(output: &Value<'_>, fetch: &mut dyn FnMut(&Key) -> Option<String>) -> Result<String, RestoreError> {
    let mut out = JsonWriter::with_capacity(256);
    restore_into(output, fetch, &mut out, 0)?;
    Ok(out.into_string())
}

/// Writes the JSON `payload` of `key` through `out`; with `elements_only`
/// the payload must be a non-empty array and only its elements are written.
fn splice(payload: &str, key: Key, elements_only: bool, out: &mut JsonWriter) -> Result<(), RestoreError> {
    /// Forwards to the writer, leaving out the brackets of the top-level array.
    struct Elements<'w> {
        out: &'w mut JsonWriter,
        depth: usize,
        elements: usize,
    }
    impl<'a> Sink<'a> for Elements<'_> {
        fn null(&mut self) -> Result<(), Abort> {
            self.top()?;
            self.out.null()
        }
        fn boolean(&mut self, value: bool) -> Result<(), Abort> {
            self.top()?;
            self.out.boolean(value)
        }
        fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
            self.top()?;
            self.out.number(lexeme)
        }
        fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
            self.top()?;
            self.out.string(value)
        }
        fn begin_array(&mut self, len: Option<usize>) -> Result<(), Abort> {
            self.depth += 1;
            if self.depth == 1 {
                return Ok(());
            }
            self.top_container()?;
            self.out.begin_array(len)
        }
        fn end_array(&mut self) -> Result<(), Abort> {
            self.depth -= 1;
            if self.depth == 0 {
                return Ok(());
            }
            self.out.end_array()
        }
        fn begin_object(&mut self, len: Option<usize>) -> Result<(), Abort> {
            if self.depth == 0 {
                return Err(Abort);
            }
            self.depth += 1;
            self.top_container()?;
            self.out.begin_object(len)
        }
        fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
            self.out.key(key)
        }
        fn end_object(&mut self) -> Result<(), Abort> {
            self.depth -= 1;
            self.out.end_object()
        }
    }
    impl Elements<'_> {
        /// A scalar: only inside the top-level array.
        fn top(&mut self) -> Result<(), Abort> {
            match self.depth {
                0 => Err(Abort),
                1 => {
                    self.elements += 1;
                    Ok(())
                }
                _ => Ok(()),
            }
        }
        /// A container just opened (depth already counts it).
        fn top_container(&mut self) -> Result<(), Abort> {
            if self.depth == 2 {
                self.elements += 1;
            }
            Ok(())
        }
    }

    let mut limits = Limits::default();
    limits.max_depth = MAX_DEPTH_LIMIT;
    let bad = |_| RestoreError::BadPayload(key);
    if elements_only {
        let mut sink = Elements { out, depth: 0, elements: 0 };
        stc_core::parse_json(payload, &limits, &mut sink).map_err(bad)?;
        if sink.elements == 0 {
            return Err(RestoreError::BadPayload(key));
        }
        Ok(())
    } else {
        stc_core::parse_json(payload, &limits, out).map_err(bad)
    }
}

fn marker_unit<'v>(v: &'v Value<'_>) -> Option<&'v str> {
    match v {
        Value::Object(m) if m.first().is_some_and(|(k, _)| k == MARKER_MEMBER) => m[0].1.get("unit")?.as_str(),
        _ => None,
    }
}

fn fetch_marker(v: &Value<'_>, fetch: &mut dyn FnMut(&Key) -> Option<String>) -> Result<(Key, String), RestoreError> {
    let key = marker_key(v).ok_or(RestoreError::Unavailable(None))?;
    let payload = fetch(&key).ok_or(RestoreError::Unavailable(Some(key)))?;
    if Key::of(payload.as_bytes()) != key {
        return Err(RestoreError::BadPayload(key));
    }
    Ok((key, payload))
}

fn restore_into(
    v: &Value<'_>,
    fetch: &mut dyn FnMut(&Key) -> Option<String>,
    out: &mut JsonWriter,
    depth: usize,
) -> Result<(), RestoreError> {
    if depth > MAX_PLAN_DEPTH {
        // The planner never puts a marker this deep.
        return v.replay(out).map_err(|_| RestoreError::InvalidOutput);
    }
    match (v, marker_unit(v)) {
        (_, Some("records" | "chars")) => {
            let (key, payload) = fetch_marker(v, fetch)?;
            splice(&payload, key, false, out)?;
        }
        (Value::Array(items), _) => {
            out.begin_array(Some(items.len())).map_err(|_| RestoreError::InvalidOutput)?;
            for item in items {
                if marker_unit(item) == Some("items") {
                    let (key, payload) = fetch_marker(item, fetch)?;
                    splice(&payload, key, true, out)?;
                } else {
                    restore_into(item, fetch, out, depth + 1)?;
                }
            }
            out.end_array().map_err(|_| RestoreError::InvalidOutput)?;
        }
        (Value::Object(members), _) => {
            out.begin_object(Some(members.len())).map_err(|_| RestoreError::InvalidOutput)?;
            for (k, item) in members {
                let k = JsonStr::from_escaped(k).ok_or(RestoreError::InvalidOutput)?;
                out.key(k).map_err(|_| RestoreError::InvalidOutput)?;
                restore_into(item, fetch, out, depth + 1)?;
            }
            out.end_object().map_err(|_| RestoreError::InvalidOutput)?;
        }
        _ => v.replay(out).map_err(|_| RestoreError::InvalidOutput)?,
    }
    Ok(())
}

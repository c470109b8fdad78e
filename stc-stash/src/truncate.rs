//! Planning plus stashing: what a caller with a store runs on a response.

use stc_core::{EncodeOptions, Limits, Profile, Tokenizer, Version};

use crate::key::Key;
use crate::ledger::{Ledger, Settlement};
use crate::marker::references;
use crate::plan::{plan, Omission, Plan, PlanOptions};
use crate::retrieve::NO_RETRY;

use crate::store::{StashStore, StashWrite, StoreError};
use crate::value::Value;

/// How [`truncate`] works.
#[derive(Debug, Clone)]
pub struct TruncateOptions {
    /// What may be left out (budgets, recovery instruction, lossy or not).
    pub plan: PlanOptions,
    /// If set, the array and string budgets are halved (down to 2 records,
    /// 1 head and 1 tail element, strings over 1024 characters keeping 128),
    /// then only the first record or element is kept, then arrays are cut bare (no record or element kept, strings over 576 characters
    /// keeping 64), until the compact STC output (in
    /// [`version`](TruncateOptions::version)) has at most this many tokens
    /// counted by [`tokenizer`](TruncateOptions::tokenizer), or nothing more
    /// can be cut. A budget that cannot be met is reported in
    /// [`Truncated::over_budget`], never silently.
    pub token_budget: Option<usize>,
    /// How tokens are counted: the tokenizer the budget is in. The default is
    /// the estimate (no tables, for the browser build); a front end with
    /// exact counts (`stc encode`, `stc mcp-proxy`) passes
    /// `Tokenizer::O200kBase` (stc-core's `bpe` feature), so that the budget holds in o200k tokens.
    pub tokenizer: Tokenizer,
    /// Reader limits.
    pub limits: Limits,
    /// The STC version the output is measured (and [`Truncated::stc`]
    /// written) in (default [`Version::V1`]). Pass the version the caller
    /// will encode [`Truncated::json`] in, so that the budget counts the
    /// tokens the reader gets.
    pub version: Version,
}

impl Default for TruncateOptions {
    fn default() -> Self {
        TruncateOptions {
            plan: PlanOptions::default(),
            token_budget: None,
            tokenizer: Tokenizer::Estimate,
            limits: Limits::default(),
            version: Version::V1,
        }
    }
}

/// Why the output is the original.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Nothing is long enough to cut.
    NothingToCut,
    /// A recoverable truncation was asked for but no store is attached:
    /// nothing is truncated silently.
    NoStore,
    /// The input already contains markers (`stc_stash` members).
    HasMarkers,
    /// The truncated output would not have fewer tokens.
    NoSaving,
}

impl Kept {
    /// The stable code the bindings report (`nothing_to_cut`, `no_store`,
    /// `has_markers`, `no_saving`).
    pub fn code(self) -> &'static str {
        match self {
            Kept::NothingToCut => "nothing_to_cut",
            Kept::NoStore => "no_store",
            Kept::HasMarkers => "has_markers",
            Kept::NoSaving => "no_saving",
        }
    }
}

/// The result of [`truncate`].
#[derive(Debug, Clone)]
pub struct Truncated {
    /// The output as minified JSON (the original's canonical form if nothing was cut).
    pub json: String,
    /// The output as compact STC, in [`TruncateOptions::version`].
    pub stc: String,
    /// Tokens of `stc`.
    pub tokens: usize,
    /// Tokens of the original as compact STC (in the same version).
    pub original_tokens: usize,
    /// `None` if the output is truncated, else why not.
    pub kept: Option<Kept>,
    /// What the output leaves out.
    pub omissions: Vec<Omission>,
    /// The stash writes the output's markers rely on (empty when lossy).
    pub writes: Vec<StashWrite>,
    /// With a [token budget](TruncateOptions::token_budget) that the output
    /// does not meet (`tokens` is above it: nothing more can be cut, or
    /// nothing could be cut at all, e.g. one object of many small members):
    /// by how many tokens. `None` when the budget is met or none was given.
    pub over_budget: Option<usize>,
}

impl Truncated {
    /// Rolls back this call's writes when the caller discards the output
    /// after all (e.g. its own final arbitration sends something else).
    /// Entries this call only refreshed, or that another writer refreshed
    /// since, stay: their markers may be in someone else's output.
    pub fn rollback(&self, store: &dyn StashStore) -> Result<Settlement, StoreError> {
        let mut ledger = Ledger::new();
        for w in &self.writes {
            ledger.record(*w);
        }
        ledger.rollback(store)
    }
}

/// Why [`truncate`] failed; nothing it wrote stays in the store.
#[derive(Debug)]
pub enum TruncateError {
    /// The input is not valid JSON.
    Input(stc_core::Error),
    /// The store failed.
    Store(StoreError),
    /// The store returned another key than the payload's hash.
    KeyMismatch {
        /// The key of the payload.
        expected: Key,
        /// The key the store reported.
        got: Key,
    },
}

impl std::fmt::Display for TruncateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TruncateError::Input(e) => write!(f, "{e}"),
            TruncateError::Store(e) => write!(f, "{e}"),
            TruncateError::KeyMismatch { expected, got } => {
                write!(f, "the stash store returned key {got} for a payload whose key is {expected}; {NO_RETRY}")
            }
        }
    }
}

impl TruncateError {
    /// The stable code of a store-side failure: the [`StoreError::kind`], or
    /// `store` for a key mismatch; `invalid_input` for bad JSON (which the
    /// bindings report as their decode error instead).
    pub fn kind(&self) -> &'static str {
        match self {
            TruncateError::Input(_) => "invalid_input",
            TruncateError::Store(e) => e.kind(),
            TruncateError::KeyMismatch { .. } => "store",
        }
    }

    /// True if the same call may succeed later.
    pub fn retryable(&self) -> bool {
        matches!(self, TruncateError::Store(e) if e.is_transient())
    }
}

impl std::error::Error for TruncateError {}

impl From<StoreError> for TruncateError {
    fn from(e: StoreError) -> Self {
        TruncateError::Store(e)
    }
}

/// The next, tighter plan of a budget search: halving down to the floor (2
/// records, 1 + 1 elements, strings over 1024 characters keeping 128), then
/// the first record or element only, then one bare step (arrays cut whole:
/// no record, head or tail kept; strings over 576 characters keeping 64),
/// then `None`.
fn shrink(p: &PlanOptions) -> Option<PlanOptions> {
    let bare = PlanOptions {
        record_budget: 0,
        head: 0,
        tail: 0,
        long_string_chars: p.long_string_chars.map(|_| 576),
        string_head_chars: 64,
        ..p.clone()
    };
    match p.record_budget {
        0 => return None,
        1 => return Some(bare),
        _ => {}
    }
    let next = PlanOptions {
        record_budget: (p.record_budget / 2).max(2),
        head: (p.head / 2).max(1),
        tail: (p.tail / 2).max(1),
        long_string_chars: p.long_string_chars.map(|n| (n / 2).max(1024)),
        string_head_chars: (p.string_head_chars / 2).max(128),
        ..p.clone()
    };
    if next != *p {
        Some(next)
    } else {
        Some(PlanOptions { record_budget: 1, head: 1, tail: 0, ..next })
    }
}

/// Truncates a JSON response and stashes what it leaves out.
///
/// With `options.plan.recoverable` (the default) and no store, nothing is
/// truncated. Each payload is stashed once; the writes go through a
/// [`Ledger`] that keeps exactly the keys the final output references, and
/// a failed write rolls back the ones before it.
///
/// ```
/// use stc_stash::{truncate, Lookup, MemoryStore, StashStore, TruncateOptions};
/// let json = format!("[{}]", (0..500).map(|i| format!(r#"{{"id":{i},"name":"user{i}"}}"#)).collect::<Vec<_>>().join(","));
/// let store = MemoryStore::new();
/// let out = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
/// assert!(out.tokens < out.original_tokens / 5);
/// assert_eq!(store.retrieve(&out.writes[0].key).unwrap(), Lookup::Found(json.into_bytes()));
/// ```
pub fn truncate(
    json: &str,
    store: Option<&dyn StashStore>,
    options: &TruncateOptions,
) -> Result<Truncated, TruncateError> {
    let input = Value::parse_json(json, &options.limits).map_err(TruncateError::Input)?;
    let original = input.to_json();
    let tokens_of = |json: &str| -> (String, usize) {
        let encode = EncodeOptions::default().profile(Profile::Compact).limits(options.limits).version(options.version);
        let stc = stc_core::encode_with(json, &encode).unwrap_or_else(|_| json.to_string());
        let n = options.tokenizer.count(&stc);
        (stc, n)
    };
    let (original_stc, original_tokens) = tokens_of(&original);
    let over = |tokens: usize| options.token_budget.and_then(|b| tokens.checked_sub(b)).filter(|n| *n > 0);
    let unchanged = |why: Kept| Truncated {
        json: original.clone(),
        stc: original_stc.clone(),
        tokens: original_tokens,
        original_tokens,
        kept: Some(why),
        omissions: Vec::new(),
        writes: Vec::new(),
        over_budget: over(original_tokens),
    };
    if crate::marker::contains_marker_member(&input) {
        return Ok(unchanged(Kept::HasMarkers));
    }
    if options.plan.recoverable && store.is_none() {
        return Ok(unchanged(Kept::NoStore));
    }
    // What a retrieve hands out is exempt as that one output only (its
    // front end does not pass it here); content is never exempt as such, so
    // one client's retrieve cannot turn truncation off for everyone.
    let mut plan_options = options.plan.clone();
    let (mut chosen, mut chosen_json, (mut stc, mut tokens)) = candidate(&input, &plan_options, &tokens_of);
    if let Some(budget) = options.token_budget {
        // Smaller budgets usually cut more, but not always (more markers):
        // keep the candidate with the fewest tokens.
        while tokens > budget {
            let Some(next) = shrink(&plan_options) else { break };
            plan_options = next;
            let c = candidate(&input, &plan_options, &tokens_of);
            if c.2 .1 < tokens {
                (chosen, chosen_json, (stc, tokens)) = c;
            }
        }
    }
    if chosen.omissions.is_empty() {
        return Ok(unchanged(Kept::NothingToCut));
    }
    if tokens >= original_tokens {
        return Ok(unchanged(Kept::NoSaving));
    }
    let mut writes = Vec::new();
    if options.plan.recoverable {
        let Some(store) = store else { return Ok(unchanged(Kept::NoStore)) };
        let mut ledger = Ledger::new();
        for o in &chosen.omissions {
            if writes.iter().any(|w: &StashWrite| w.key == o.key) {
                continue;
            }
            let result = store.stash(o.payload.as_bytes()).map_err(TruncateError::Store).and_then(|w| {
                if w.key == o.key {
                    Ok(w)
                } else {
                    Err(TruncateError::KeyMismatch { expected: o.key, got: w.key })
                }
            });
            match result {
                Ok(w) => {
                    ledger.record(w);
                    writes.push(w);
                }
                Err(e) => {
                    // Best effort: the write error is the one to report.
                    let _ = ledger.rollback(store);
                    return Err(e);
                }
            }
        }
        ledger.settle(store, &references(&chosen.output))?;
    }
    Ok(Truncated {
        json: chosen_json,
        stc,
        tokens,
        original_tokens,
        kept: None,
        omissions: chosen.omissions,
        writes,
        over_budget: over(tokens),
    })
}

fn candidate<'a>(
    input: &Value<'a>,
    options: &PlanOptions,
    tokens_of: &dyn Fn(&str) -> (String, usize),
) -> (Plan<'a>, String, (String, usize)) {
    let p = plan(input, options);
    let json = p.output.to_json();
    let measured = tokens_of(&json);
    (p, json, measured)
}

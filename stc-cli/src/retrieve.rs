//! `stc retrieve KEY`: print what the stash holds under a key, and the
//! stash options of `stc encode` (`--budget`, `--truncate-arrays-at`).
//! A thin front-end: the work is done by `stc-stash`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use stc_stash::{
    truncate as stash_truncate, Kept, PlanOptions, Recovery, StoreError, StoreKind, StoreSpec, ToolName, TruncateError,
    TruncateOptions,
};

/// Where the stash is: the options of `stc encode`, `stc retrieve`, `stc mcp`
/// and `stc mcp-proxy`. stc-stash's `StoreSpec` resolves them (environment
/// variables, defaults, path policy, Redis Cluster lists) and opens the store.
#[derive(clap::Args)]
pub struct StoreArgs {
    /// Stash store: sqlite (the file shared by all `stc` processes of the user), redis (a server,
    /// or a Redis Cluster), or memory (this process only: `stc mcp` and `stc mcp-proxy`).
    #[arg(long, default_value = "sqlite", value_name = "STORE",
          value_parser = store_kind(), env = "STC_STASH_STORE")]
    store: StoreKind,
    /// SQLite database file. Default: $STC_STASH_DB, else DATA_DIR/stash.db where DATA_DIR is
    /// $STC_DATA_DIR or ~/.local/share/stc. Must be absolute and inside your home or DATA_DIR.
    #[arg(long, visible_alias = "db", value_name = "PATH")]
    stash_db: Option<PathBuf>,
    /// Redis URL for --store redis; several URLs separated by commas are the nodes of a Redis
    /// Cluster. Default: $STC_REDIS_URL (the same form), else redis://127.0.0.1:6379/.
    #[arg(long, value_name = "URL[,URL...]", env = "STC_REDIS_URL", hide_env_values = true)]
    redis_url: Option<String>,
}

/// `--store`: the names stc-stash's `StoreKind` reads (listed in `--help`).
fn store_kind() -> impl clap::builder::TypedValueParser<Value = StoreKind> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(StoreKind::NAMES).try_map(|s| s.parse::<StoreKind>())
}

impl StoreArgs {
    /// The store the options name, after the environment and the path policy.
    pub fn spec(&self) -> Result<StoreSpec, StoreError> {
        StoreSpec::resolve(self.store, self.stash_db.as_deref(), self.redis_url.as_deref())
    }

    /// The spec of a store that must outlive this process (`stc encode`, `stc retrieve`).
    fn shared_spec(&self) -> Result<StoreSpec, StoreError> {
        if self.store == StoreKind::Memory {
            return Err(StoreError::Config(
                "--store memory lives only as long as this process, so no `stc retrieve` could read it: \
                 use sqlite or redis"
                    .into(),
            ));
        }
        self.spec()
    }
}

/// Arguments of `stc retrieve`.
#[derive(clap::Args)]
#[command(after_help = "Prints the stashed original byte for byte (no newline is added). \
    Exit status 0 when found; 1 when the key is malformed, unknown or expired \
    (the message says whether retrying can help).")]
pub struct RetrieveArgs {
    /// The 24 lowercase hex characters from a marker (`"key":"..."` or `stc retrieve KEY`).
    key: String,
    #[command(flatten)]
    store: StoreArgs,
}

/// Runs `stc retrieve` until it ends; the exit status says how.
pub fn run(args: RetrieveArgs) -> ExitCode {
    let fail = |message: String| {
        eprintln!("stc retrieve: {message}");
        ExitCode::FAILURE
    };
    // The key is checked before any store is opened or read.
    let key = match stc_stash::parse_key(&args.key) {
        Ok(k) => k,
        Err(e) => return fail(e.to_string()),
    };
    let spec = match args.store.shared_spec() {
        Ok(StoreSpec::Sqlite(p)) if !p.exists() => {
            return fail(format!(
                "no entry {key}: the stash database {} does not exist; {}",
                p.display(),
                stc_stash::REFETCH
            ))
        }
        Ok(spec) => spec,
        Err(e) => return fail(e.to_string()),
    };
    let store = match spec.open() {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    // Nothing is noted in the store: only this output is the retrieved original;
    // the same content read again (by anyone) is cut as usual.
    match stc_stash::retrieve(store.as_ref(), &key) {
        Ok(payload) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(&payload).and_then(|_| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => fail(format!("cannot write the payload: {e}")),
            }
        }
        Err(e) => fail(e.to_string()),
    }
}

/// The stash options of `stc encode`.
#[derive(clap::Args)]
pub struct EncodeStashArgs {
    /// Truncate until the output has at most TOKENS tokens, counted exactly in o200k_base:
    /// arrays and long strings are cut, what is cut is stashed and the output says
    /// how to get it back (`stc retrieve KEY`). When the output cannot be cut that far, it is
    /// still written, stderr says by how much it is over, and the exit status is 3.
    #[arg(long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// Keep at most N records of a record array (and N head + N/4 tail
    /// elements of other arrays); what is cut is stashed.
    #[arg(long, value_name = "N")]
    truncate_arrays_at: Option<usize>,
    /// With --budget or --truncate-arrays-at: do not stash; the truncation is
    /// lossy and the markers say so.
    #[arg(long)]
    no_stash: bool,
    /// Markers tell the model to call this tool with `key=KEY` instead of
    /// running `stc retrieve KEY` in a shell (1-64 letters, digits, `_`, `-`).
    #[arg(long, value_name = "NAME")]
    retrieve_tool: Option<String>,
    #[command(flatten)]
    store: StoreArgs,
}

/// The exit status of `stc encode --budget` when the output is over the budget.
pub const OVER_BUDGET_EXIT: u8 = 3;

/// The tokenizer a budget is counted in.
pub const BUDGET_TOKENIZER: stc_core::Tokenizer = stc_core::Tokenizer::O200kBase;

static OVER_BUDGET: AtomicBool = AtomicBool::new(false);

/// True once [`check_budget`] found an output over its budget.
pub fn over_budget() -> bool {
    OVER_BUDGET.load(Ordering::SeqCst)
}

impl EncodeStashArgs {
    /// True if a token budget was given.
    pub fn has_budget(&self) -> bool {
        self.budget.is_some()
    }
}

/// Counts the text `stc encode --budget` writes, in [`BUDGET_TOKENIZER`]; if
/// it is over the budget, says so and by how much on stderr and notes it for
/// the exit status ([`OVER_BUDGET_EXIT`]).
pub fn check_budget(args: &EncodeStashArgs, text: &str) {
    let Some(budget) = args.budget else { return };
    let tokens = BUDGET_TOKENIZER.count(text);
    if tokens > budget {
        OVER_BUDGET.store(true, Ordering::SeqCst);
        eprintln!(
            "stc: budget not met: the output has {tokens} {} tokens, {} over the budget of {budget}; nothing more \
             can be cut (only arrays and long strings are cut, and each cut leaves a marker)",
            BUDGET_TOKENIZER.name(),
            tokens - budget
        );
    }
}

/// What [`truncate`] takes from `stc encode`'s settings: the reader limits,
/// and the STC version the output will be written in (the budget counts the
/// tokens of that version). `&Limits` means version 1; `&EncodeOptions`
/// carries both.
pub trait EncodeSettings {
    /// Limits of the JSON reader.
    fn limits(&self) -> stc_core::Limits;
    /// The STC version the caller encodes the result in.
    fn version(&self) -> stc_core::Version;
}

impl EncodeSettings for stc_core::Limits {
    fn limits(&self) -> stc_core::Limits {
        *self
    }

    fn version(&self) -> stc_core::Version {
        stc_core::Version::V1
    }
}

impl EncodeSettings for stc_core::EncodeOptions {
    fn limits(&self) -> stc_core::Limits {
        self.limits
    }

    fn version(&self) -> stc_core::Version {
        self.version
    }
}

/// `stc encode --budget/--truncate-arrays-at`: the truncated JSON to encode
/// instead of the input, or `None` when no truncation was asked for or
/// nothing was cut (the reason goes to stderr). `settings` is the encode's
/// `&EncodeOptions` (limits and version) or `&Limits` (version 1).
pub fn truncate(
    json: &str,
    args: &EncodeStashArgs,
    settings: &impl EncodeSettings,
) -> Result<Option<String>, TruncateError> {
    if args.budget.is_none() && args.truncate_arrays_at.is_none() {
        return Ok(None);
    }
    let mut plan = args.truncate_arrays_at.map(PlanOptions::with_array_budget).unwrap_or_default();
    plan.recoverable = !args.no_stash;
    if let Some(name) = &args.retrieve_tool {
        plan.recovery = Recovery::Tool(ToolName::new(name).map_err(|m| TruncateError::Store(StoreError::Config(m)))?);
    }
    let options = TruncateOptions {
        plan,
        token_budget: args.budget,
        tokenizer: BUDGET_TOKENIZER,
        limits: settings.limits(),
        version: settings.version(),
    };
    let store = if args.no_stash { None } else { Some(args.store.shared_spec()?.open()?) };
    let out = stash_truncate(json, store.as_deref(), &options)?;
    match out.kept {
        Some(why) => {
            let why = match why {
                Kept::NothingToCut => "nothing long enough to cut",
                Kept::NoStore => "no stash store",
                Kept::HasMarkers => "the input already holds stash markers",
                Kept::NoSaving => "cutting would not save tokens",
            };
            eprintln!("stc: not truncated: {why} ({} tokens)", out.original_tokens);
            Ok(None)
        }
        None => {
            let where_ = match &store {
                Some(s) => format!("stashed in {}", s.describe()),
                None => "not stashed (--no-stash)".to_string(),
            };
            eprintln!(
                "stc: truncated {} tokens to {} ({}, compact STC version {}); {} omission(s) {where_}",
                out.original_tokens,
                out.tokens,
                options.tokenizer.name(),
                options.version,
                out.omissions.len()
            );
            Ok(Some(out.json))
        }
    }
}

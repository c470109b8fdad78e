//! `stc mcp`: an MCP server over stdio that exposes the codec as tools.
//!
//! Tools:
//! - `stc_encode`: JSON text → STC, gated by default (minified JSON comes back
//!   when STC would not save enough tokens);
//! - `stc_decode`: STC (or JSON) text → minified JSON;
//! - `stc_estimate`: bytes and tokens of pretty JSON, minified JSON and STC,
//!   counted by the fast estimator and by exact o200k_base.
//!
//! Every tool has a JSON Schema for its input and output. A result carries
//! `structuredContent` (matching the output schema) and one text block: for
//! `stc_encode` and `stc_decode` the text block is the converted text itself
//! (what a model wants to read, without JSON string escaping); for
//! `stc_estimate` it is the structured result serialized as JSON. Invalid user
//! input (JSON or STC that does not parse) is a tool error (`isError: true`)
//! whose text says the error kind, line and column. Arguments that do not fit
//! the input schema (missing, mistyped, unknown) are tool errors too, as the
//! MCP specification (2025-11-25) asks, so that a model can correct its call.
//! A malformed request — a line that is not JSON (`-32700`), JSON that is not
//! an MCP message (`-32600`), an unknown tool (`-32602`) or method (`-32601`)
//! — is a JSON-RPC protocol error (see [`crate::transport`]).
//!
//! The stash: `stc_encode` takes an optional token `budget` and
//! `truncate_arrays_at`; what it leaves out is stashed (`stc_stash::truncate`,
//! in the store of [`ServerOptions::stash`]) and the output carries markers
//! whose instruction is `call tool stc_retrieve with key=KEY`. `stc_retrieve`
//! answers only for keys of markers this server has emitted in this session
//! (see [`crate::stash`]); its results are the stashed originals, never
//! re-encoded or truncated.
//!
//! Versions: `stc_encode`, `stc_decode` and `stc_estimate` take an optional
//! `version` (1 or 2, default [`ServerOptions::version`], 2 unless `stc mcp
//! --stc-version 1`): the STC version written, read or measured.
//! Any other value is a tool error with the core's message. `stc_encode`'s
//! result says the version of its text (`version`); a budget is measured in
//! that version.

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use stc_core::{DecodeOptions, Document, EncodeOptions, GateOptions, Limits, MinSaving, Profile, Tokenizer, Version};
use stc_stash::{references_in, Kept, PlanOptions, Recovery, ToolName, TruncateError, TruncateOptions};
use std::sync::Arc;

use crate::stash::{LazyStore, Shown, StoreSpec, DEFAULT_RETRIEVE_TOOL, RETRIEVED_META};
use crate::transport::LineTransport;

/// Settings of `stc mcp`.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Limits applied to every document the tools parse.
    pub limits: Limits,
    /// Longest request line accepted; longer ones get a `-32600` error.
    pub max_message_bytes: usize,
    /// Where `stc_encode` stashes what a budget leaves out (opened on first
    /// use). `None`: no store, so nothing is truncated (a budget is refused).
    pub stash: Option<StoreSpec>,
    /// The STC version of a tool call without `version` (default 2: the
    /// model reads the output; the instructions carry its primer).
    pub version: Version,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            limits: Limits::default(),
            max_message_bytes: 16 * 1024 * 1024,
            stash: None,
            version: Version::V2,
        }
    }
}

/// The input schema of a name option: a string, one of the core's names
/// (`Profile::NAMES`, `Tokenizer::NAMES`); the value is parsed by the core's
/// `FromStr` when the tool runs, so a bad name gets the core's message.
fn names_schema(names: &[&str]) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": names })
}

fn profile_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    names_schema(Profile::NAMES)
}

fn tokenizer_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    names_schema(Tokenizer::NAMES)
}

/// The input schema of `version`: an integer from the first to the last of
/// `Version::NAMES` (1 to 2), checked by the core's `Version::try_from` when
/// the tool runs.
fn version_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let numbers: Vec<u8> = Version::NAMES.iter().filter_map(|n| n.parse().ok()).collect();
    schemars::json_schema!({ "type": "integer", "minimum": numbers.first(), "maximum": numbers.last() })
}

/// The input schema of `min_saving`: a number from 0 to 1, checked by the
/// core's `MinSaving::try_from` when the tool runs.
fn min_saving_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "number", "minimum": 0, "maximum": 1 })
}

/// Arguments of `stc_encode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EncodeParams {
    /// The JSON text to encode.
    pub json: String,
    /// Output whitespace style: `compact` (the default) or `readable`.
    #[serde(default)]
    #[schemars(schema_with = "profile_schema")]
    pub profile: Option<String>,
    /// Do no harm (default true): return minified JSON instead of STC unless
    /// STC saves at least `min_saving` of the tokens.
    #[serde(default = "default_true")]
    pub gate: bool,
    /// The fraction of tokens STC must save to be chosen, 0 to 1; default 0.05.
    #[serde(default)]
    #[schemars(schema_with = "min_saving_schema")]
    pub min_saving: Option<f64>,
    /// How tokens are counted for the gate and the reported counts: `estimate`
    /// (the default), `o200k_base` or `cl100k_base`.
    #[serde(default)]
    #[schemars(schema_with = "tokenizer_schema")]
    pub tokenizer: Option<String>,
    /// Token budget: cut arrays and long strings until the compact STC has at
    /// most this many tokens. What is cut is stashed; markers in the output
    /// say how much is missing and give the key for `stc_retrieve`.
    #[serde(default)]
    pub budget: Option<usize>,
    /// Keep at most N records of a record array (and N head + N/4 tail
    /// elements of other arrays); what is cut is stashed. At least 2.
    #[serde(default)]
    pub truncate_arrays_at: Option<usize>,
    /// STC version to write: 1 (every STC reader) or 2 (adds column groups,
    /// absent cells `~` and keyed tables; needs a version 2 reader). Default:
    /// the server's, 2 unless it runs with --stc-version 1.
    #[serde(default)]
    #[schemars(schema_with = "version_schema")]
    pub version: Option<f64>,
}

fn default_true() -> bool {
    true
}

/// Result of `stc_encode`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EncodeResult {
    /// The text to send: STC, or minified JSON when the gate chose it.
    pub text: String,
    /// Which form `text` is: `stc` or `json`.
    pub chosen: String,
    /// Tokens of minified JSON.
    pub json_tokens: usize,
    /// Tokens of the STC encoding.
    pub stc_tokens: usize,
    /// The tokenizer behind the counts.
    pub tokenizer: String,
    /// Bytes of the input JSON text.
    pub input_bytes: usize,
    /// Bytes of `text`.
    pub output_bytes: usize,
    /// True if arrays or strings were cut (with `budget` or `truncate_arrays_at`).
    pub truncated: bool,
    /// The stash keys of the markers in `text`; `stc_retrieve` gives each original back.
    pub stash_keys: Vec<String>,
    /// The STC version of `text` (1 or 2): decode it with this version.
    pub version: u8,
}

/// Arguments of `stc_retrieve`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetrieveParams {
    /// The `key` of a stash marker (24 lowercase hex characters) that this server sent.
    pub key: String,
}

/// Result of `stc_retrieve`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RetrieveResult {
    /// The key.
    pub key: String,
    /// The original that the marker stands for (minified JSON), exactly as stashed.
    pub json: String,
    /// Bytes of `json`.
    pub bytes: usize,
}

/// Arguments of `stc_decode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecodeParams {
    /// The STC text to decode (plain JSON is valid STC too).
    pub stc: String,
    /// STC version to read: 1 or 2 (also reads version 1 text). Default: the server's, 2 unless set.
    #[serde(default)]
    #[schemars(schema_with = "version_schema")]
    pub version: Option<f64>,
}

/// Result of `stc_decode`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DecodeResult {
    /// Minified JSON with the exact number lexemes, key order and duplicate keys of the input.
    pub json: String,
    /// Bytes of the input STC text.
    pub input_bytes: usize,
    /// Bytes of `json`.
    pub output_bytes: usize,
}

/// Arguments of `stc_estimate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EstimateParams {
    /// The JSON text to measure.
    pub json: String,
    /// STC whitespace style to measure: `compact` (the default) or `readable`.
    #[serde(default)]
    #[schemars(schema_with = "profile_schema")]
    pub profile: Option<String>,
    /// STC version to measure: 1 or 2. Default: the server's, 2 unless set.
    #[serde(default)]
    #[schemars(schema_with = "version_schema")]
    pub version: Option<f64>,
}

/// Size of one form of a document.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct FormSize {
    /// Bytes (UTF-8).
    pub bytes: usize,
    /// Tokens by the fast table-free estimator.
    pub estimate: usize,
    /// Tokens by OpenAI's o200k_base, exact.
    pub o200k_base: usize,
}

/// Result of `stc_estimate`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EstimateResult {
    /// Two-space indented JSON.
    pub pretty_json: FormSize,
    /// JSON without optional whitespace.
    pub minified_json: FormSize,
    /// The STC encoding in the requested profile.
    pub stc: FormSize,
    /// STC's o200k_base tokens divided by minified JSON's (below 1 saves tokens).
    pub stc_vs_minified: f64,
    /// What the default gate (5%, o200k_base) would send: `stc` or `json`.
    pub gate_choice: String,
}

/// The `stc mcp` service: an rmcp server handler with the codec tools.
#[derive(Debug, Clone)]
pub struct StcServer {
    limits: Limits,
    version: Version,
    store: Option<Arc<LazyStore>>,
    shown: Shown,
}

/// A tool error (`isError: true`) for invalid user input, with kind, line and column.
fn input_error(what: &str, e: &stc_core::Error) -> CallToolResult {
    let text = format!(
        "invalid {what} at line {}, column {} (byte offset {}, kind {}): {}",
        e.line().unwrap_or(0),
        e.column().unwrap_or(0),
        e.offset().unwrap_or(0),
        e.kind().code(),
        e.message()
    );
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// A tool error (`isError: true`) for an option the core refused: its text
/// is the core's message, as on every other surface.
fn option_error(e: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

/// The `version` argument of a tool: `default` when absent, else the core's
/// `Version::try_from` of the number.
fn version_arg(version: Option<f64>, default: Version) -> Result<Version, CallToolResult> {
    version.map_or(Ok(default), |n| Version::try_from(n).map_err(option_error))
}

/// A name argument (`profile`, `tokenizer`): `default` when absent, else the core's `FromStr`.
fn name_arg<T: std::str::FromStr>(name: Option<&str>, default: T) -> Result<T, CallToolResult>
where
    T::Err: std::fmt::Display,
{
    name.map_or(Ok(default), |n| n.parse::<T>().map_err(option_error))
}

/// A successful result: `text` as the text block, `value` as structured content.
fn success<T: Serialize>(text: String, value: &T) -> Result<CallToolResult, ErrorData> {
    let structured = serde_json::to_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    Ok(result)
}

/// Runs a tool's work on the blocking pool: a large document takes
/// milliseconds to parse and encode, and must not stall the protocol loop.
async fn off_thread(
    work: impl FnOnce() -> Result<CallToolResult, ErrorData> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    tokio::task::spawn_blocking(work).await.map_err(|e| ErrorData::internal_error(format!("tool failed: {e}"), None))?
}

fn form_size(text: &str) -> FormSize {
    FormSize {
        bytes: text.len(),
        estimate: Tokenizer::Estimate.count(text),
        o200k_base: Tokenizer::O200kBase.count(text),
    }
}

#[tool_router]
impl StcServer {
    /// A server with the given options.
    pub fn new(options: ServerOptions) -> StcServer {
        StcServer {
            limits: options.limits,
            version: options.version,
            store: options.stash.map(|s| Arc::new(LazyStore::new(s))),
            shown: Shown::default(),
        }
    }

    /// The keys of the markers this server has emitted in this session.
    pub fn shown(&self) -> &Shown {
        &self.shown
    }

    /// Encodes JSON as STC.
    #[tool(
        description = "Encode a JSON text as STC, a token-efficient lossless notation of JSON. Gated by default: \
            returns minified JSON instead when STC would not save at least min_saving (5%) of the tokens. \
            With budget (tokens) or truncate_arrays_at, long arrays and strings are cut and stashed: stash \
            markers in the output say what is missing and how to get it back with stc_retrieve. \
            version 2 writes STC version 2 (column groups, absent cells ~, keyed tables, unquoted strings) for readers that know it. \
            The text block is the encoded text; structured content adds the token counts and the version.",
        output_schema = schema_for_output::<EncodeResult>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    pub async fn stc_encode(&self, Parameters(p): Parameters<EncodeParams>) -> Result<CallToolResult, ErrorData> {
        let limits = self.limits;
        let default_version = self.version;
        let store = self.store.clone();
        let shown = self.shown.clone();
        off_thread(move || {
            let min_saving = match p.min_saving.map(MinSaving::try_from).transpose() {
                Ok(m) => m.unwrap_or_default(),
                Err(e) => return Ok(option_error(e)),
            };
            let tokenizer = match name_arg(p.tokenizer.as_deref(), Tokenizer::Estimate) {
                Ok(t) => t,
                Err(e) => return Ok(e),
            };
            let profile = match name_arg(p.profile.as_deref(), Profile::Compact) {
                Ok(p) => p,
                Err(e) => return Ok(e),
            };
            let version = match version_arg(p.version, default_version) {
                Ok(v) => v,
                Err(e) => return Ok(e),
            };
            let truncated = match truncate(&p, store.as_deref(), tokenizer, limits, version) {
                Ok(t) => t,
                Err(e) => return Ok(e),
            };
            let source = truncated.as_deref().unwrap_or(&p.json);
            let options = EncodeOptions::default().profile(profile).limits(limits).version(version);
            let (text, chosen, json_tokens, stc_tokens) = if p.gate {
                let gate = GateOptions::default().min_saving(min_saving).tokenizer(tokenizer);
                let g = match stc_core::encode_gated(source, &options, &gate) {
                    Ok(g) => g,
                    Err(e) => return Ok(input_error("JSON", &e)),
                };
                (g.text, g.chosen.name(), g.json_tokens, g.stc_tokens)
            } else {
                let doc = match Document::parse_json(source, &limits) {
                    Ok(doc) => doc,
                    Err(e) => return Ok(input_error("JSON", &e)),
                };
                let stc = match stc_core::encode_with(source, &options) {
                    Ok(stc) => stc,
                    Err(e) => return Ok(input_error("JSON", &e)),
                };
                let json_tokens = tokenizer.count(&doc.to_json());
                let stc_tokens = tokenizer.count(&stc);
                (stc, "stc", json_tokens, stc_tokens)
            };
            let result = EncodeResult {
                chosen: chosen.to_string(),
                json_tokens,
                stc_tokens,
                tokenizer: tokenizer.name().to_string(),
                input_bytes: p.json.len(),
                output_bytes: text.len(),
                truncated: truncated.is_some(),
                stash_keys: Vec::new(),
                version: version.as_u8(),
                text: text.clone(),
            };
            let mut result = result;
            if result.truncated {
                let keys = references_in(&text);
                result.stash_keys = keys.iter().map(|k| k.to_string()).collect();
                shown.add(keys);
            }
            success(text, &result)
        })
        .await
    }

    /// Gives back what a stash marker of this server stands for.
    #[tool(
        description = "Get back the original data that a stash marker in an stc_encode result stands for: pass \
            the marker's key. Answers only for markers this server sent in this session. The text block is the \
            original JSON exactly as it was (not re-encoded, not truncated).",
        output_schema = schema_for_output::<RetrieveResult>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    pub async fn stc_retrieve(&self, Parameters(p): Parameters<RetrieveParams>) -> Result<CallToolResult, ErrorData> {
        let store = self.store.clone();
        let shown = self.shown.clone();
        off_thread(move || {
            let Some(store) = store else {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    "this server has no stash store, so it sent no stash markers".to_string(),
                )]));
            };
            match crate::stash::retrieve(&store, crate::stash::Authority::Shown(&shown), &p.key, DEFAULT_RETRIEVE_TOOL)
            {
                Ok((key, json)) => {
                    let result = RetrieveResult { key: key.to_string(), bytes: json.len(), json: json.clone() };
                    let mut r = success(json, &result)?;
                    let mut meta = serde_json::Map::new();
                    meta.insert(RETRIEVED_META.to_string(), serde_json::Value::String(key.to_string()));
                    r.meta = Some(rmcp::model::MetaObject(meta));
                    Ok(r)
                }
                Err(message) => Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
            }
        })
        .await
    }

    /// Decodes STC to JSON.
    #[tool(
        description = "Decode an STC text (or plain JSON) to minified JSON with the exact number lexemes, key order \
            and duplicate keys. Pass version 2 for STC version 2 text (version 1 refuses its constructs with \
            newer_version). The text block is the JSON; structured content adds the sizes.",
        output_schema = schema_for_output::<DecodeResult>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    pub async fn stc_decode(&self, Parameters(p): Parameters<DecodeParams>) -> Result<CallToolResult, ErrorData> {
        let limits = self.limits;
        let default_version = self.version;
        off_thread(move || {
            let version = match version_arg(p.version, default_version) {
                Ok(v) => v,
                Err(e) => return Ok(e),
            };
            match stc_core::decode_with(&p.stc, &DecodeOptions::default().limits(limits).version(version)) {
                Ok(json) => {
                    let result =
                        DecodeResult { input_bytes: p.stc.len(), output_bytes: json.len(), json: json.clone() };
                    success(json, &result)
                }
                Err(e) => Ok(input_error("STC", &e)),
            }
        })
        .await
    }

    /// Measures a JSON text in each form.
    #[tool(
        description = "Count the bytes and tokens of a JSON text as pretty JSON, minified JSON and STC, with the \
            fast estimator and with exact o200k_base, and say what the do-no-harm gate would send.",
        output_schema = schema_for_output::<EstimateResult>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    pub async fn stc_estimate(&self, Parameters(p): Parameters<EstimateParams>) -> Result<CallToolResult, ErrorData> {
        let limits = self.limits;
        let default_version = self.version;
        off_thread(move || {
            let version = match version_arg(p.version, default_version) {
                Ok(v) => v,
                Err(e) => return Ok(e),
            };
            let doc = match Document::parse_json(&p.json, &limits) {
                Ok(doc) => doc,
                Err(e) => return Ok(input_error("JSON", &e)),
            };
            let profile = match name_arg(p.profile.as_deref(), Profile::Compact) {
                Ok(p) => p,
                Err(e) => return Ok(e),
            };
            let options = EncodeOptions::default().profile(profile).limits(limits).version(version);
            let stc = match stc_core::encode_with(&p.json, &options) {
                Ok(stc) => stc,
                Err(e) => return Ok(input_error("JSON", &e)),
            };
            let minified = form_size(&doc.to_json());
            let stc_size = form_size(&stc);
            let gate = GateOptions::default().tokenizer(Tokenizer::O200kBase);
            let result = EstimateResult {
                pretty_json: form_size(&doc.to_json_pretty()),
                stc_vs_minified: if minified.o200k_base == 0 {
                    1.0
                } else {
                    stc_size.o200k_base as f64 / minified.o200k_base as f64
                },
                gate_choice: match stc_core::encode_gated(&p.json, &options, &gate) {
                    Ok(g) => g.chosen.name().to_string(),
                    Err(e) => return Ok(input_error("JSON", &e)),
                },
                minified_json: minified,
                stc: stc_size,
            };
            let text = serde_json::to_string(&result).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            success(text, &result)
        })
        .await
    }
}

/// What `stc mcp` tells the client about itself.
pub const INSTRUCTIONS: &str = "This server converts between JSON and STC. Use stc_encode to turn a JSON text \
into STC (gated: you get minified JSON back when STC would not save tokens; with a token budget, long arrays are \
cut and a stash marker says what is missing), stc_retrieve to get back what a marker stands for, stc_decode to \
turn STC back into exact JSON, and stc_estimate to compare token counts of pretty JSON, minified JSON and STC. \
stc_encode, stc_decode and stc_estimate take version 1 or 2 (STC version 2 adds column groups, absent cells ~, \
keyed tables and unquoted strings).";

#[tool_handler(router = Self::tool_router())]
impl ServerHandler for StcServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("stc", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "{INSTRUCTIONS} Without version they use version {}.\n\n{}",
                self.version,
                crate::primer(self.version)
            ))
    }
}

/// The truncated JSON for `stc_encode` with a budget, `None` when no
/// truncation was asked for or nothing was cut, or a tool error.
fn truncate(
    p: &EncodeParams,
    store: Option<&LazyStore>,
    tokenizer: Tokenizer,
    limits: Limits,
    version: Version,
) -> Result<Option<String>, CallToolResult> {
    let tool_error = |m: String| CallToolResult::error(vec![ContentBlock::text(m)]);
    if p.budget.is_none() && p.truncate_arrays_at.is_none() {
        return Ok(None);
    }
    let Some(store) = store else {
        return Err(tool_error(
            "budget and truncate_arrays_at need a stash store, and this server has none: nothing is truncated \
             silently"
                .into(),
        ));
    };
    let store = store.get().map_err(|e| tool_error(e.to_string()))?;
    let mut plan = p.truncate_arrays_at.map(PlanOptions::with_array_budget).unwrap_or_default();
    plan.recovery = Recovery::Tool(ToolName::new(DEFAULT_RETRIEVE_TOOL).map_err(tool_error)?);
    let options = TruncateOptions { plan, token_budget: p.budget, tokenizer, limits, version };
    match stc_stash::truncate(&p.json, Some(store.as_ref()), &options) {
        Ok(out) => match out.kept {
            None => Ok(Some(out.json)),
            Some(Kept::NothingToCut | Kept::NoSaving | Kept::HasMarkers | Kept::NoStore) => Ok(None),
        },
        Err(TruncateError::Input(e)) => Err(input_error("JSON", &e)),
        Err(TruncateError::Store(e)) => Err(tool_error(e.to_string())),
        Err(e) => Err(tool_error(format!("{e}"))),
    }
}

/// Failure to run the server.
#[derive(Debug)]
pub struct ServeError(String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// Serves the tools over any byte stream pair until the client disconnects.
pub async fn serve<R, W>(options: ServerOptions, input: R, output: W) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let transport = LineTransport::new(input, output, options.max_message_bytes);
    let running = StcServer::new(options).serve(transport).await.map_err(|e| ServeError(format!("initialize: {e}")))?;
    running.waiting().await.map_err(|e| ServeError(e.to_string()))?;
    Ok(())
}

/// Serves the tools on this process's stdin and stdout until the client closes
/// stdin. Call it inside a tokio runtime (stdin is read on a blocking thread:
/// do not wait for the runtime's blocking tasks at exit).
pub async fn serve_stdio(options: ServerOptions) -> Result<(), ServeError> {
    let (input, output) = rmcp::transport::io::stdio_pipes();
    serve(options, input, output).await
}

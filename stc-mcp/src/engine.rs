//! The proxy's per-message logic, independent of any transport.
//!
//! `stc mcp-proxy` over stdio is a thin loop around this module, and an
//! HTTP transport (Streamable HTTP: one JSON-RPC message per POST body or
//! per SSE event) uses the same calls. Nothing here reads or writes bytes on
//! a stream, spawns a process or waits for anything but the stash store.
//!
//! # The three objects
//!
//! - [`Engine`]: the settings ([`EngineOptions`]), the opened stash store and
//!   the counters. One per proxy process; share it (`Arc<Engine>`) between
//!   connections and tasks: every method takes `&self`.
//! - [`Session`]: what the proxy knows about one client connection: the
//!   client's identity from `initialize`, the stash keys shown to it, whether
//!   it has been shown the retrieve tool. One per stdio connection or per
//!   `Mcp-Session-Id`. Without sessions (revision 2026-07-28 over HTTP), use
//!   one [`Session::sessionless`] per request (or one shared by all requests):
//!   every request of that revision carries the client's identity in its
//!   `_meta`, which the engine reads from each request.
//! - [`Pending`]: requests forwarded to the server and not yet answered, as
//!   [`Ticket`]s keyed by JSON-RPC id. Over stdio one map serves the whole
//!   connection; over HTTP keep one per POST (the responses to a POST's
//!   requests come back on that POST's response), so that ids of different
//!   clients never meet.
//!
//! # The calls
//!
//! ```text
//!   client ──message──▶ Engine::from_client(session, message) ─▶ ClientStep
//!                          ├ forward: the bytes to send the server (None: nothing left)
//!                          ├ tickets: insert into a Pending (pending.insert)
//!                          ├ cancelled: ids the client cancelled (pending.cancel)
//!                          └ local: answers the proxy gives itself (LocalAnswer::run)
//!   server ──message──▶ Engine::from_server(session, pending, message) ─▶ Option<String>
//!                          (None: send the server's bytes unchanged)
//! ```
//!
//! A message is one JSON-RPC message or a batch (a JSON array of messages),
//! as text without the line break. Each message is parsed once on this path:
//! one serde pass reads the envelope together with the parts of `params` and
//! `result` the engine looks at (borrowed spans, nothing copied), and each
//! JSON text block of a tool result is parsed once into a
//! [`stc_core::Document`] that the gate encodes. The output is the input with
//! byte spans replaced (a text block's `text`, an `instructions` string, a
//! `tools` array): key order, number lexemes and unknown members stay as the
//! server sent them.
//!
//! # What is changed
//!
//! - Responses to `initialize` (revision 2025-11-25 and older) and to
//!   `server/discover` (2026-07-28): the STC primer ([`crate::primer`]) is
//!   added to `instructions`, exactly alike for both.
//! - Responses to `tools/call` of an encoded tool: JSON text blocks become
//!   gated STC (see [`crate::rewrite`]), optionally truncated with the stash.
//!   Error results, retrieved stash content, results whose `resultType` is
//!   not `complete` (for example `input_required`) and non-text blocks are
//!   untouched.
//! - Responses to `tools/list` (with the stash on): the retrieve tool is
//!   appended to the last page. Every other member of the result
//!   (`ttlMs`, `cacheScope`, `nextCursor`, `_meta`, `resultType`) stays.
//! - `tools/call` requests of the retrieve tool are answered by the proxy
//!   ([`ClientStep::local`]) and never forwarded.
//!
//! Everything else (notifications, requests from the server, malformed
//! lines, per-request `_meta`) passes through byte for byte.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use stc_stash::{MarkerSecret, Recovery, Seal, StashStore, ToolName, TruncateOptions};

use crate::rewrite::{self, AddTool, RewriteOptions, RewriteStats, Truncation};
use crate::stash::{Authority, LazyStore, Shown, StoreSpec, RETRIEVED_META};

/// Truncation with the stash in the proxy.
#[derive(Debug, Clone)]
pub struct StashOptions {
    /// Where what is cut goes (the proxy opens it at start).
    pub store: StoreSpec,
    /// Budgets; the recovery instruction is set to a call of `tool`, and the
    /// version to [`RewriteOptions::version`].
    pub truncate: TruncateOptions,
    /// The name of the retrieve tool the proxy adds.
    pub tool: ToolName,
    /// The secret that seals marker keys (`KEY.TAG`, bound to the client's
    /// identity, [`stc_stash::Seal`]): the retrieve tool needs no session
    /// state, and processes sharing a store and this secret answer each
    /// other's markers ([`crate::stash::marker_secret`]).
    pub secret: MarkerSecret,
    /// `--budget auto`: each result's token budget follows the host's limit
    /// ([`crate::stash::auto_budget`] of the request's client and the tool's
    /// `_meta` in `tools/list`), replacing `truncate.token_budget`; a result
    /// whose whole text fits it is not cut, and a result for a host without a
    /// known limit is not cut.
    pub auto_budget: bool,
}

/// What the proxy does with `structuredContent` (`--structured`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Structured {
    /// Per request, from the client's identity: for the hosts of
    /// [`TEXT_ONLY_HOSTS`] as [`Structured::Text`], for others as
    /// [`Structured::Keep`].
    #[default]
    Auto,
    /// Never touch `structuredContent` or `outputSchema`.
    Keep,
    /// For every client: a tool result's `structuredContent` is dropped and
    /// its data goes into the text as STC
    /// ([`rewrite::text_for_structured`]); `tools/list` results lose their
    /// tools' `outputSchema` ([`rewrite::strip_output_schemas`]), so that no
    /// result breaks a schema the client was given.
    Text,
}

impl std::str::FromStr for Structured {
    type Err = String;
    fn from_str(s: &str) -> Result<Structured, String> {
        match s {
            "auto" => Ok(Structured::Auto),
            "keep" => Ok(Structured::Keep),
            "text" => Ok(Structured::Text),
            _ => Err(format!("unknown structured-content policy {s:?} (auto, keep or text)")),
        }
    }
}

/// Hosts known to show the model only `structuredContent` when a tool result
/// has it (they hand the model `JSON.stringify(structuredContent)` and drop
/// the text blocks), by the `clientInfo.name` they send, with the product
/// they are: under [`Structured::Auto`] their results carry the data as STC
/// text instead.
///
/// - `claude-code`: Claude Code (anthropics/claude-code #55677, #79944);
/// - `Visual Studio Code`, `Visual Studio Code - Insiders`: VS Code's MCP
///   client, which sends the product name (microsoft/vscode #290063).
pub const TEXT_ONLY_HOSTS: &[(&str, &str)] = &[
    ("claude-code", "Claude Code"),
    ("Visual Studio Code", "VS Code"),
    ("Visual Studio Code - Insiders", "VS Code Insiders"),
];

/// True if the client is one of [`TEXT_ONLY_HOSTS`] (exact name).
pub fn reads_only_structured(client: &ClientInfo) -> bool {
    TEXT_ONLY_HOSTS.iter().any(|(name, _)| *name == client.name)
}

/// What the engine does to messages, whatever the transport.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// When and how text blocks become STC.
    pub rewrite: RewriteOptions,
    /// Re-encode only these tools' results (all tools when empty).
    pub include_tools: Vec<String>,
    /// Never re-encode these tools' results.
    pub exclude_tools: Vec<String>,
    /// Truncation with the stash, and the retrieve tool (off when `None`).
    pub stash: Option<StashOptions>,
    /// What is done with `structuredContent` and `outputSchema`.
    pub structured: Structured,
}

impl EngineOptions {
    /// Whether a client gets results without `structuredContent` (and tool
    /// lists without `outputSchema`): always with [`Structured::Text`], for
    /// [`TEXT_ONLY_HOSTS`] with [`Structured::Auto`]. A client that has not
    /// said who it is counts as unknown.
    pub fn text_only(&self, client: Option<&ClientInfo>) -> bool {
        match self.structured {
            Structured::Keep => false,
            Structured::Text => true,
            Structured::Auto => client.is_some_and(reads_only_structured),
        }
    }

    /// Whether results of the tool `name` are re-encoded.
    pub fn encodes_tool(&self, name: &str) -> bool {
        (self.include_tools.is_empty() || self.include_tools.iter().any(|t| t == name))
            && !self.exclude_tools.iter().any(|t| t == name)
    }
}

/// The engine could not start (the stash store did not open).
#[derive(Debug)]
pub struct EngineError(pub String);

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EngineError {}

/// The stash part of the engine: the store and the retrieve tool.
#[derive(Debug)]
struct Stash {
    store: Arc<dyn StashStore>,
    spec: StoreSpec,
    truncate: TruncateOptions,
    tool: ToolName,
    /// The tool's definition, as appended to `tools/list` results.
    definition: String,
    secret: MarkerSecret,
    auto_budget: bool,
    /// Each tool's `_meta` from the last `tools/list` results (for `--budget auto`).
    tool_metas: Mutex<HashMap<String, serde_json::Value>>,
}

impl Stash {
    /// The truncation options for one result of `tool` to `client`: markers
    /// sealed for the client; with `--budget auto`, the host's budget, or
    /// `None` (no cut) when no limit is known.
    fn options_for(&self, client: Option<&ClientInfo>, tool: Option<&str>) -> Option<TruncateOptions> {
        let mut options = self.truncate.clone();
        options.plan.seal = Some(self.seal(client));
        if self.auto_budget {
            let metas = self.tool_metas.lock().ok()?;
            let meta = tool.and_then(|t| metas.get(t));
            options.token_budget = Some(crate::stash::auto_budget(client.map(|c| c.name.as_str()), meta)?);
        }
        Some(options)
    }

    /// The seal of the markers shown to `client` (its `clientInfo` name; an
    /// unnamed client is the empty name).
    fn seal(&self, client: Option<&ClientInfo>) -> Seal {
        Seal::new(self.secret.clone(), client.map_or("", |c| c.name.as_str()))
    }
}

/// The proxy's per-message logic (see the [module documentation](self)).
pub struct Engine {
    options: EngineOptions,
    stash: Option<Stash>,
    stats: Mutex<RewriteStats>,
    ledger: Mutex<std::collections::BTreeMap<String, ToolCounts>>,
    stats_sink: Mutex<Option<Box<dyn std::io::Write + Send>>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("options", &self.options).field("stash", &self.stash).finish_non_exhaustive()
    }
}

/// Who the client is, as it said in `initialize` (`params.clientInfo`) or in
/// a request's `_meta` (`io.modelcontextprotocol/clientInfo`, revision
/// 2026-07-28).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClientInfo {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`, when given.
    pub version: Option<String>,
}

/// What the proxy knows about one client connection (see the
/// [module documentation](self)).
#[derive(Debug, Default)]
pub struct Session {
    client: Mutex<Option<Arc<ClientInfo>>>,
    shown: Shown,
    /// The client has been shown the retrieve tool.
    armed: AtomicBool,
    /// The server has a tool of the retrieve tool's name: no truncation, no interception.
    collided: AtomicBool,
}

impl Session {
    /// A new connection: nothing known yet. Truncation starts once the
    /// client has been shown the retrieve tool in a `tools/list` result.
    pub fn new() -> Session {
        Session::default()
    }

    /// A session for a transport without sessions (2026-07-28 over HTTP):
    /// the client may have listed the tools in another request, so
    /// truncation is on from the start.
    pub fn sessionless() -> Session {
        let s = Session::default();
        s.armed.store(true, Ordering::SeqCst);
        s
    }

    /// The client's identity from its `initialize` request, if any.
    pub fn client(&self) -> Option<Arc<ClientInfo>> {
        self.client.lock().ok().and_then(|c| c.clone())
    }

    /// The stash keys of the markers shown to this client.
    pub fn shown(&self) -> &Shown {
        &self.shown
    }
}

/// What a forwarded request was, so that its response can be treated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `initialize` or `server/discover`: the primer goes into `instructions`.
    Discover,
    /// A `tools/call` whose results are re-encoded.
    Encode,
    /// A `tools/list` (the retrieve tool is appended to its last page).
    ToolsList,
    /// Any other request (including `tools/call` of an excluded tool).
    Other,
}

/// A request forwarded to the server, waiting for its response.
#[derive(Debug, Clone)]
pub struct Ticket {
    id: Box<RawValue>,
    key: String,
    kind: Kind,
    method: String,
    tool: Option<String>,
    client: Option<Arc<ClientInfo>>,
    protocol: Option<String>,
}

impl Ticket {
    /// The request's id, as the client wrote it.
    pub fn id(&self) -> &RawValue {
        &self.id
    }

    /// The canonical form of the id ([`rewrite::id_key`]), the key in [`Pending`].
    pub fn id_key(&self) -> &str {
        &self.key
    }

    /// What the engine does with the response.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    /// The request's method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The tool called, for `tools/call`.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The client's identity: from the request's `_meta`, else from the
    /// session's `initialize`.
    pub fn client(&self) -> Option<&ClientInfo> {
        self.client.as_deref()
    }

    /// The protocol version in the request's `_meta`
    /// (`io.modelcontextprotocol/protocolVersion`, 2026-07-28), if any.
    pub fn protocol(&self) -> Option<&str> {
        self.protocol.as_deref()
    }
}

/// Requests waiting for the server's response, by id (see the
/// [module documentation](self) for which map to use per transport).
#[derive(Debug, Default)]
pub struct Pending(Mutex<HashMap<String, Ticket>>);

impl Pending {
    /// An empty map.
    pub fn new() -> Pending {
        Pending::default()
    }

    /// Notes a forwarded request. A request that reuses the id of one still
    /// pending replaces it.
    pub fn insert(&self, ticket: Ticket) {
        if let Ok(mut p) = self.0.lock() {
            p.insert(ticket.key.clone(), ticket);
        }
    }

    /// Forgets a request (the client cancelled it: it may never be answered).
    pub fn cancel(&self, id_key: &str) {
        if let Ok(mut p) = self.0.lock() {
            p.remove(id_key);
        }
    }

    /// Takes the ticket of the request with this id key, if it is pending.
    pub fn take(&self, id_key: &str) -> Option<Ticket> {
        self.0.lock().ok()?.remove(id_key)
    }

    /// Takes every pending ticket (the server is gone: each needs an error).
    pub fn drain(&self) -> Vec<Ticket> {
        self.0.lock().map(|mut p| p.drain().map(|(_, t)| t).collect()).unwrap_or_default()
    }

    /// How many requests are waiting.
    pub fn len(&self) -> usize {
        self.0.lock().map_or(0, |p| p.len())
    }

    /// True if no request is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What to do with one message from the client ([`Engine::from_client`]).
#[derive(Debug)]
pub struct ClientStep<'a> {
    /// The bytes to send the server (`Cow::Borrowed` when unchanged); `None`
    /// when the proxy answered all of it itself.
    pub forward: Option<Cow<'a, str>>,
    /// The requests in `forward`: put them into the [`Pending`] that will see
    /// their responses.
    pub tickets: Vec<Ticket>,
    /// Id keys of requests the client cancelled (`notifications/cancelled`):
    /// take them out of the [`Pending`] (they may never be answered).
    pub cancelled: Vec<String>,
    /// Requests the proxy answers itself (the retrieve tool): run each and
    /// send its answer to the client.
    pub local: Vec<LocalAnswer>,
}

/// A request the proxy answers itself.
pub struct LocalAnswer {
    id: Box<RawValue>,
    job: Box<dyn FnOnce() -> serde_json::Value + Send>,
}

impl std::fmt::Debug for LocalAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalAnswer").field("id", &self.id.get()).finish_non_exhaustive()
    }
}

impl LocalAnswer {
    /// The id of the request answered.
    pub fn id(&self) -> &RawValue {
        &self.id
    }

    /// Computes the answer, a JSON-RPC response message (no line break).
    /// It may read the stash store: call it off the async runtime's worker
    /// threads (for example in `tokio::task::spawn_blocking`), or use [`LocalAnswer::run`].
    pub fn answer_blocking(self) -> String {
        let result = (self.job)();
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{result}}}", self.id.get())
    }

    /// [`LocalAnswer::answer_blocking`] on tokio's blocking pool.
    pub async fn run(self) -> String {
        let id = self.id.get().to_string();
        tokio::task::spawn_blocking(move || self.answer_blocking()).await.unwrap_or_else(|e| {
            let result = serde_json::json!({"content": [{"type": "text", "text": format!("retrieve failed: {e}")}], "isError": true});
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}")
        })
    }
}

// ---- the views: one serde pass over a message ----

#[derive(Deserialize, Default)]
struct InfoView<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<Cow<'a, str>>,
}

impl InfoView<'_> {
    fn owned(self) -> Option<Arc<ClientInfo>> {
        Some(Arc::new(ClientInfo { name: self.name?.into_owned(), version: self.version.map(Cow::into_owned) }))
    }
}

#[derive(Deserialize, Default)]
struct RequestMetaView<'a> {
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    client_info: Option<InfoView<'a>>,
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct ParamsView<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "requestId", borrow, default)]
    request_id: Option<&'a RawValue>,
    #[serde(rename = "clientInfo", borrow, default)]
    client_info: Option<InfoView<'a>>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<RequestMetaView<'a>>,
}

/// A message from the client, with the parts of `params` the engine uses.
#[derive(Deserialize)]
struct ClientView<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<ParamsView<'a>>,
}

#[derive(Deserialize)]
struct ResultMetaView<'a> {
    #[serde(rename = "stc/retrieved", borrow, default)]
    retrieved: Option<&'a RawValue>,
}

/// A response from the server, with the parts of `result` the engine uses.
#[derive(Deserialize)]
struct ServerView<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    result: Option<ResultView<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// The members of a result the engine looks at (any result type).
#[derive(Deserialize, Default)]
pub(crate) struct ResultView<'a> {
    #[serde(borrow, default)]
    pub(crate) content: Option<Vec<rewrite::BlockView<'a>>>,
    #[serde(rename = "isError", default)]
    pub(crate) is_error: Option<bool>,
    #[serde(rename = "resultType", borrow, default)]
    pub(crate) result_type: Option<Cow<'a, str>>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<ResultMetaView<'a>>,
    #[serde(rename = "structuredContent", borrow, default)]
    structured: Option<&'a RawValue>,
}

impl ResultView<'_> {
    fn retrieved(&self) -> bool {
        self.meta.as_ref().is_some_and(|m| m.retrieved.is_some())
    }
}

/// The first non-blank byte of a message.
fn first_byte(message: &str) -> Option<u8> {
    message.trim_start().as_bytes().first().copied()
}

/// Requests from the client: what one element of a message holds.
enum Seen {
    /// Forward as it is, with these tickets / cancellations.
    Forward(Option<Ticket>, Option<String>),
    /// Answered by the proxy.
    Local(LocalAnswer),
}

impl Engine {
    /// Whether the stash store answers: a read of a key nothing is stored
    /// under (the stores have no check of their own), so a store that is
    /// down or unreachable is an error. `Ok` without a stash. Blocking: call
    /// it off the runtime's workers.
    pub fn store_reachable(&self) -> Result<(), String> {
        let Some(stash) = &self.stash else { return Ok(()) };
        let probe = stc_stash::Key::of(b"stc-mcp readiness probe");
        stash.store.retrieve(&probe).map(|_| ()).map_err(|e| e.to_string())
    }

    /// An engine; opens the stash store when truncation is on.
    pub fn new(options: EngineOptions) -> Result<Engine, EngineError> {
        let stash = match &options.stash {
            Some(s) => {
                let store = s.store.open().map_err(|e| EngineError(format!("cannot open the stash store: {e}")))?;
                let mut truncate = s.truncate.clone();
                truncate.version = options.rewrite.version;
                truncate.plan.recovery = Recovery::Tool(s.tool.clone());
                truncate.plan.recoverable = true;
                Some(Stash {
                    store,
                    spec: s.store.clone(),
                    truncate,
                    definition: retrieve_tool_definition(s.tool.as_str()),
                    tool: s.tool.clone(),
                    secret: s.secret.clone(),
                    auto_budget: s.auto_budget,
                    tool_metas: Mutex::default(),
                })
            }
            None => None,
        };
        Ok(Engine { options, stash, stats: Mutex::default(), ledger: Mutex::default(), stats_sink: Mutex::new(None) })
    }

    /// The settings.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// What was re-encoded so far, over all sessions.
    pub fn stats(&self) -> RewriteStats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }

    /// Treats one message (or batch) from the client: notes the client's
    /// identity from `initialize`, makes [`Ticket`]s for the requests whose
    /// responses the engine must see, and takes out the requests the proxy
    /// answers itself. Malformed input is forwarded unchanged.
    pub fn from_client<'a>(&self, session: &Session, message: &'a str) -> ClientStep<'a> {
        let mut step = ClientStep {
            forward: Some(Cow::Borrowed(message)),
            tickets: Vec::new(),
            cancelled: Vec::new(),
            local: Vec::new(),
        };
        match first_byte(message) {
            Some(b'{') => match self.see_request(session, message) {
                Seen::Forward(ticket, cancelled) => {
                    step.tickets.extend(ticket);
                    step.cancelled.extend(cancelled);
                }
                Seen::Local(answer) => {
                    step.forward = None;
                    step.local.push(answer);
                }
            },
            Some(b'[') => {
                let elements = rewrite::batch_elements(message).unwrap_or_default();
                let mut rest = Vec::with_capacity(elements.len());
                for (_, m) in &elements {
                    match self.see_request(session, m) {
                        Seen::Forward(ticket, cancelled) => {
                            step.tickets.extend(ticket);
                            step.cancelled.extend(cancelled);
                            rest.push(*m);
                        }
                        Seen::Local(answer) => step.local.push(answer),
                    }
                }
                if rest.is_empty() && !elements.is_empty() {
                    step.forward = None;
                } else if rest.len() != elements.len() {
                    step.forward = Some(Cow::Owned(format!("[{}]", rest.join(","))));
                }
            }
            _ => {}
        }
        step
    }

    /// One message of the client's (not a batch).
    fn see_request(&self, session: &Session, message: &str) -> Seen {
        let view = match serde_json::from_str::<ClientView>(message) {
            Ok(v) => v,
            // `params` of an unexpected shape: read the envelope alone.
            Err(_) => match serde_json::from_str::<rewrite::Envelope>(message) {
                Ok(e) => ClientView { id: e.id, method: e.method, params: None },
                Err(_) => return Seen::Forward(None, None),
            },
        };
        let Some(method) = view.method.as_deref() else { return Seen::Forward(None, None) };
        let params = view.params.unwrap_or_default();
        if method == "notifications/cancelled" {
            return Seen::Forward(None, params.request_id.map(rewrite::id_key));
        }
        let Some(id) = view.id else { return Seen::Forward(None, None) };
        let (meta_client, protocol) = match &params.meta {
            Some(m) => (
                m.client_info.as_ref().and_then(|i| {
                    Some(Arc::new(ClientInfo {
                        name: i.name.as_deref()?.to_string(),
                        version: i.version.as_deref().map(str::to_string),
                    }))
                }),
                m.protocol.as_deref().map(str::to_string),
            ),
            None => (None, None),
        };
        let tool = if method == "tools/call" { params.name.as_deref().map(str::to_string) } else { None };
        let kind = match method {
            "initialize" => {
                if let (Some(info), Ok(mut c)) = (params.client_info.and_then(InfoView::owned), session.client.lock()) {
                    *c = Some(info);
                }
                Kind::Discover
            }
            "server/discover" => Kind::Discover,
            "tools/list" if self.stash.is_some() || self.options.structured != Structured::Keep => Kind::ToolsList,
            "tools/call" => {
                if let (Some(stash), Some(name)) = (&self.stash, tool.as_deref()) {
                    if name == stash.tool.as_str() && !session.collided.load(Ordering::SeqCst) {
                        let modern = params.meta.as_ref().is_some_and(|m| m.protocol.is_some());
                        self.add(name, &ToolCounts { calls: 1, retrieves: 1, ..ToolCounts::default() });
                        let client = meta_client.clone().or_else(|| session.client());
                        return Seen::Local(self.retrieve(client.as_deref(), id, params.arguments, modern));
                    }
                }
                match tool.as_deref() {
                    Some(name) if self.options.encodes_tool(name) => Kind::Encode,
                    _ => Kind::Other,
                }
            }
            _ => Kind::Other,
        };
        let client = meta_client.or_else(|| session.client());
        let ticket = Ticket {
            id: id.to_owned(),
            key: rewrite::id_key(id),
            kind,
            method: method.to_string(),
            tool,
            client,
            protocol,
        };
        Seen::Forward(Some(ticket), None)
    }

    /// The proxy's answer to a call of its retrieve tool.
    /// `modern`: the request came with 2026-07-28 `_meta`, so the result
    /// carries `resultType` (required from that revision on).
    /// Only sealed keys of markers shown to `client` (the request's identity,
    /// else the session's) are answered: no session state is needed.
    fn retrieve(
        &self,
        client: Option<&ClientInfo>,
        id: &RawValue,
        arguments: Option<&RawValue>,
        modern: bool,
    ) -> LocalAnswer {
        let stash = self.stash.as_ref().expect("retrieve is intercepted only with a stash");
        let key = retrieve_key(arguments);
        let store = LazyStore::opened(stash.spec.clone(), stash.store.clone());
        let seal = stash.seal(client);
        let tool = stash.tool.as_str().to_string();
        LocalAnswer {
            id: id.to_owned(),
            job: Box::new(move || {
                let outcome = key.and_then(|key| crate::stash::retrieve(&store, Authority::Sealed(&seal), &key, &tool));
                let mut result = match outcome {
                    Ok((key, payload)) => serde_json::json!({
                        "content": [{"type": "text", "text": payload}],
                        "isError": false,
                        "_meta": {RETRIEVED_META: key.as_str()}
                    }),
                    Err(message) => {
                        serde_json::json!({"content": [{"type": "text", "text": message}], "isError": true})
                    }
                };
                if modern {
                    result["resultType"] = "complete".into();
                }
                result
            }),
        }
    }

    /// Treats one message (or batch) from the server: a response whose
    /// request is in `pending` is taken out of it and rewritten as its
    /// request asks. Returns the new message text, or `None` when the
    /// server's bytes go to the client unchanged.
    pub fn from_server(&self, session: &Session, pending: &Pending, message: &str) -> Option<String> {
        match first_byte(message) {
            Some(b'{') => self.treat_response(session, pending, message),
            Some(b'[') => rewrite::map_batch(message, |m| self.treat_response(session, pending, m)),
            _ => None,
        }
    }

    /// One message of the server's (not a batch).
    fn treat_response(&self, session: &Session, pending: &Pending, message: &str) -> Option<String> {
        let view = match serde_json::from_str::<ServerView>(message) {
            Ok(v) => v,
            Err(_) => {
                // A result of an unexpected shape: settle the request, pass the bytes on.
                let e = serde_json::from_str::<rewrite::Envelope>(message).ok()?;
                if e.is_response() {
                    pending.take(&rewrite::id_key(e.id?));
                }
                return None;
            }
        };
        if view.method.is_some() || (view.result.is_none() && view.error.is_none()) {
            return None;
        }
        let ticket = pending.take(&rewrite::id_key(view.id?))?;
        let result = view.result?;
        match ticket.kind {
            Kind::Discover => rewrite::add_instructions_in(message, crate::primer(self.options.rewrite.version)),
            Kind::Encode => {
                let tokens_in = self.result_tokens(&result);
                let done = self.encode_result(session, &ticket, message, result);
                let (new, stats) = match done {
                    Some((new, stats)) => (Some(new), stats),
                    None => (None, RewriteStats::default()),
                };
                let tokens_out = match &new {
                    // Blocks replaced one by one: the counts of the replaced texts tell.
                    Some(_) if stats.tokens_before > 0 => {
                        (tokens_in + stats.tokens_after as u64).saturating_sub(stats.tokens_before as u64)
                    }
                    // A rebuilt result (structured content or merged blocks): count it.
                    Some(new) => serde_json::from_str::<ServerView>(new)
                        .ok()
                        .and_then(|v| v.result)
                        .map_or(tokens_in, |r| self.result_tokens(&r)),
                    None => tokens_in,
                };
                self.record(&ticket, tokens_in, tokens_out, &stats);
                new
            }
            Kind::ToolsList => {
                let stripped = if self.options.text_only(ticket.client()) {
                    rewrite::map_result(message, rewrite::strip_output_schemas)
                } else {
                    None
                };
                let Some(stash) = self.stash.as_ref() else { return stripped };
                if stash.auto_budget {
                    // The tools' result caps (`anthropic/maxResultSizeChars`) for `--budget auto`.
                    if let Some(raw) = serde_json::from_str::<rewrite::Envelope>(message).ok().and_then(|e| e.result) {
                        if let Ok(mut metas) = stash.tool_metas.lock() {
                            metas.extend(crate::stash::tool_metas(raw.get()));
                        }
                    }
                }
                if session.collided.load(Ordering::SeqCst) {
                    return stripped;
                }
                match rewrite::add_tool_in(
                    stripped.as_deref().unwrap_or(message),
                    stash.tool.as_str(),
                    &stash.definition,
                ) {
                    AddTool::Added(new) => {
                        session.armed.store(true, Ordering::SeqCst);
                        Some(new)
                    }
                    AddTool::Collision => {
                        session.collided.store(true, Ordering::SeqCst);
                        tracing::warn!(
                            tool = stash.tool.as_str(),
                            "the server has a tool named {0}; the proxy does not add its own, calls of {0} go to \
                             the server, and truncation is off (choose another name with --retrieve-tool)",
                            stash.tool.as_str()
                        );
                        stripped
                    }
                    AddTool::NotHere => stripped,
                }
            }
            Kind::Other => {
                if ticket.method == "tools/call" {
                    let tokens = self.result_tokens(&result);
                    self.record(&ticket, tokens, tokens, &RewriteStats::default());
                }
                None
            }
        }
    }
}

impl Engine {
    /// The rewrite of a `tools/call` result of an encoded tool, and what it changed.
    fn encode_result(
        &self,
        session: &Session,
        ticket: &Ticket,
        message: &str,
        result: ResultView<'_>,
    ) -> Option<(String, RewriteStats)> {
        if result.is_error == Some(true) || result.retrieved() {
            return None;
        }
        // `input_required` (2026-07-28) and other interim results are not tool output.
        if result.result_type.as_deref().is_some_and(|t| t != "complete") {
            return None;
        }
        // Markers are sealed for the client of this request.
        let sealed = match &self.stash {
            Some(s) if session.armed.load(Ordering::SeqCst) && !session.collided.load(Ordering::SeqCst) => {
                s.options_for(ticket.client(), ticket.tool()).map(|options| (s, options))
            }
            _ => None,
        };
        let truncation = sealed.as_ref().map(|(s, options)| Truncation {
            store: s.store.as_ref(),
            options,
            whole_if_fits: s.auto_budget,
        });
        let options = &self.options.rewrite;
        let (new, stats, keys) = if result.structured.is_some() && self.options.text_only(ticket.client()) {
            let mut out = None;
            let new = rewrite::map_result(message, |r| {
                let (new, s, k) = rewrite::text_for_structured(r, options, truncation)?;
                out = Some((s, k));
                Some(new)
            })?;
            let (s, k) = out?;
            (new, s, k)
        } else {
            let blocks = result.content?;
            let merged = if options.merge_blocks && blocks.len() > 1 {
                let mut out = None;
                rewrite::map_result(message, |r| {
                    let (new, s, k) = rewrite::merge_blocks(r, options, truncation)?;
                    out = Some((s, k));
                    Some(new)
                })
                .zip(out)
            } else {
                None
            };
            match merged {
                Some((new, (s, k))) => (new, s, k),
                None => rewrite::rewrite_blocks(message, blocks, options, truncation)?,
            }
        };
        if let Ok(mut s) = self.stats.lock() {
            s.blocks += stats.blocks;
            s.bytes_before += stats.bytes_before;
            s.bytes_after += stats.bytes_after;
            s.truncated += stats.truncated;
            s.over_budget += stats.over_budget;
        }
        session.shown.add(keys);
        Some((new, stats))
    }

    /// Tokens of what a model may be shown of a tool result: its text
    /// blocks' texts and its `structuredContent` (as JSON text), counted by
    /// the gate's tokenizer ([`RewriteOptions::gate`]).
    fn result_tokens(&self, result: &ResultView<'_>) -> u64 {
        let count = |t: &str| self.options.rewrite.gate.tokenizer.count(t) as u64;
        let mut n = 0;
        for block in result.content.iter().flatten() {
            if let Some(raw) = block.text_raw() {
                if let Ok(text) = serde_json::from_str::<Cow<str>>(raw.get()) {
                    n += count(&text);
                }
            }
        }
        n + result.structured.map_or(0, |s| count(s.get()))
    }

    /// Notes a settled `tools/call` in the ledger (and the stats file).
    fn record(&self, ticket: &Ticket, tokens_in: u64, tokens_out: u64, stats: &RewriteStats) {
        let tool = ticket.tool.clone().unwrap_or_default();
        let delta = ToolCounts {
            calls: 1,
            tokens_in,
            tokens_out,
            blocks_rewritten: stats.blocks as u64,
            truncations: stats.truncated as u64,
            retrieves: 0,
        };
        self.add(&tool, &delta);
    }

    fn add(&self, tool: &str, delta: &ToolCounts) {
        if let Ok(mut l) = self.ledger.lock() {
            l.entry(tool.to_string()).or_default().add(delta);
        }
        if let Ok(mut sink) = self.stats_sink.lock() {
            if let Some(w) = sink.as_mut() {
                let line = serde_json::json!({
                    "event": "call", "tool": tool, "tokenizer": self.options.rewrite.gate.tokenizer.name(),
                    "tokens_in": delta.tokens_in, "tokens_out": delta.tokens_out,
                    "blocks_rewritten": delta.blocks_rewritten, "truncations": delta.truncations,
                    "retrieves": delta.retrieves,
                });
                let _ = writeln!(w, "{line}");
                let _ = w.flush();
            }
        }
    }

    /// The ledger so far: per tool and in total.
    pub fn ledger(&self) -> LedgerSnapshot {
        let tools = self.ledger.lock().map(|l| l.clone()).unwrap_or_default();
        let mut total = ToolCounts::default();
        for c in tools.values() {
            total.add(c);
        }
        LedgerSnapshot { tokenizer: self.options.rewrite.gate.tokenizer.name().to_string(), tools, total }
    }

    /// Writes one JSON line per settled `tools/call` (and retrieve) to `sink`
    /// from now on (`stc mcp-proxy --stats FILE`).
    pub fn set_stats_sink(&self, sink: Box<dyn std::io::Write + Send>) {
        if let Ok(mut s) = self.stats_sink.lock() {
            *s = Some(sink);
        }
    }

    /// Writes the ledger as a last JSON line to the stats sink, if any.
    pub fn finish_stats(&self) {
        let snapshot = self.ledger();
        if let Ok(mut sink) = self.stats_sink.lock() {
            if let Some(w) = sink.as_mut() {
                let line = serde_json::json!({"event": "summary", "ledger": snapshot});
                let _ = writeln!(w, "{line}");
                let _ = w.flush();
            }
        }
    }
}

/// Counters of one tool in the [`LedgerSnapshot`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ToolCounts {
    /// `tools/call` requests answered (by the server, or by the proxy for the retrieve tool).
    pub calls: u64,
    /// Tokens of the results as the server sent them (text blocks and
    /// `structuredContent`), in [`LedgerSnapshot::tokenizer`].
    pub tokens_in: u64,
    /// Tokens of the results as the client got them.
    pub tokens_out: u64,
    /// Text blocks the proxy rewrote.
    pub blocks_rewritten: u64,
    /// Text blocks the stash cut (markers added).
    pub truncations: u64,
    /// Calls of the proxy's retrieve tool.
    pub retrieves: u64,
}

impl ToolCounts {
    fn add(&mut self, d: &ToolCounts) {
        self.calls += d.calls;
        self.tokens_in += d.tokens_in;
        self.tokens_out += d.tokens_out;
        self.blocks_rewritten += d.blocks_rewritten;
        self.truncations += d.truncations;
        self.retrieves += d.retrieves;
    }
}

/// The savings ledger: what [`Engine::ledger`] returns, for `--stats`, the
/// summary line at exit and an HTTP transport's `/metrics`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LedgerSnapshot {
    /// The tokenizer of the token counts: the gate's (`--tokenizer`):
    /// `estimate` (the default, an estimate of o200k_base) or an exact BPE
    /// (`o200k_base`, `cl100k_base`).
    pub tokenizer: String,
    /// Counters per tool name.
    pub tools: std::collections::BTreeMap<String, ToolCounts>,
    /// The sum over all tools.
    pub total: ToolCounts,
}

impl LedgerSnapshot {
    /// The one-line summary `stc mcp-proxy` writes on stderr at exit.
    ///
    /// ```
    /// let s = stc_mcp::engine::LedgerSnapshot::default();
    /// assert!(s.summary().starts_with("stc mcp-proxy: 0 tool calls"));
    /// ```
    pub fn summary(&self) -> String {
        let t = &self.total;
        let saved = t.tokens_in as i64 - t.tokens_out as i64;
        let pct = if t.tokens_in > 0 { 100.0 * saved as f64 / t.tokens_in as f64 } else { 0.0 };
        format!(
            "stc mcp-proxy: {} tool calls, {} -> {} tokens ({} saved, {pct:.1}%, {}), {} blocks rewritten, {} truncated, {} retrieves",
            t.calls, t.tokens_in, t.tokens_out, saved, self.tokenizer, t.blocks_rewritten, t.truncations, t.retrieves
        )
    }
}

/// The JSON-RPC error the client gets for a request the server never
/// answered because it ended (`reason` says how), as message text.
pub fn server_gone_error(id: &RawValue, reason: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32000, "message": format!("stc mcp-proxy: the MCP server exited ({reason}) before answering this request")}
    })
    .to_string()
}

/// The definition of the retrieve tool the proxy adds to `tools/list`.
pub fn retrieve_tool_definition(name: &str) -> String {
    serde_json::json!({
        "name": name,
        "title": "Retrieve stashed data",
        "description": "Get back the original data that a stash marker (an object whose first member is stc_stash) \
            in a tool result stands for: pass the marker's key exactly as written (KEY.TAG). Answers only for \
            markers shown to this client. \
            Returns the original JSON exactly, not re-encoded and not truncated.",
        "inputSchema": {
            "type": "object",
            "properties": {"key": {
                "type": "string",
                "description": "The key of a stash marker, exactly as the marker writes it: 24 lowercase hex \
                    characters, a dot and 16 more."
            }},
            "required": ["key"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
    .to_string()
}

/// The `key` argument of a retrieve call, or the text of a tool error.
fn retrieve_key(arguments: Option<&RawValue>) -> Result<String, String> {
    let usage = "the arguments must be {\"key\": \"<the 24 hex characters of a stash marker's key>\"}";
    let args: serde_json::Map<String, serde_json::Value> = match arguments {
        Some(a) => serde_json::from_str::<Option<_>>(a.get()).map_err(|_| usage.to_string())?.unwrap_or_default(),
        None => Default::default(),
    };
    match (args.get("key"), args.len()) {
        (Some(serde_json::Value::String(k)), 1) => Ok(k.clone()),
        _ => Err(usage.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: usize) -> String {
        let rows: Vec<String> = (0..n).map(|i| format!(r#"{{"id":{i},"name":"user{i}","ok":true}}"#)).collect();
        format!("[{}]", rows.join(","))
    }

    fn call(id: u32, tool: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#)
    }

    fn text_result(id: u32, text: &str) -> String {
        let text = serde_json::to_string(text).unwrap();
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{text}}}]}}}}"#)
    }

    /// An HTTP transport shares them between tasks.
    #[test]
    fn the_engine_types_are_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<Engine>();
        shared::<Session>();
        shared::<Pending>();
        shared::<Ticket>();
        fn sent<T: Send>() {}
        sent::<LocalAnswer>();
    }

    #[test]
    fn a_tool_result_is_rewritten_only_when_its_request_was_seen() {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let (session, pending) = (Session::new(), Pending::new());
        // Unknown id: unchanged.
        assert_eq!(engine.from_server(&session, &pending, &text_result(1, &table(20))), None);
        let request = call(1, "t");
        let step = engine.from_client(&session, &request);
        assert_eq!(step.forward.as_deref(), Some(request.as_str()));
        assert_eq!(step.tickets.len(), 1);
        pending.insert(step.tickets.into_iter().next().unwrap());
        let new = engine.from_server(&session, &pending, &text_result(1, &table(20))).unwrap();
        assert!(new.contains(r#""text":"([20]{id,name,ok}:"#), "{new}");
        assert!(pending.is_empty());
        assert_eq!(engine.stats().blocks, 1);
        // The ledger: tokens of the text as sent and as received.
        let count = |t: &str| stc_core::Tokenizer::Estimate.count(t) as u64;
        let sent: serde_json::Value = serde_json::from_str(&new).unwrap();
        let ledger = engine.ledger();
        let t = ledger.tools["t"];
        assert_eq!((t.calls, t.blocks_rewritten), (1, 1));
        assert_eq!(t.tokens_in, count(&table(20)));
        assert_eq!(t.tokens_out, count(sent["result"]["content"][0]["text"].as_str().unwrap()));
        assert!(t.tokens_out < t.tokens_in);
        assert_eq!(ledger.total, t);
    }

    #[test]
    fn discover_and_initialize_get_the_same_primer_with_client_identity_read() {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let (session, pending) = (Session::new(), Pending::new());
        let init = r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"claude-code","version":"2.1"},"capabilities":{}}}"#;
        for t in engine.from_client(&session, init).tickets {
            pending.insert(t);
        }
        assert_eq!(session.client().unwrap().name, "claude-code");
        let a = engine
            .from_server(&session, &pending, r#"{"jsonrpc":"2.0","id":"a","result":{"instructions":"Own."}}"#)
            .unwrap();
        let discover = r#"{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"Visual Studio Code"}}}}"#;
        let step = engine.from_client(&session, discover);
        assert_eq!(step.tickets[0].client().unwrap().name, "Visual Studio Code");
        assert_eq!(step.tickets[0].protocol(), Some("2026-07-28"));
        pending.insert(step.tickets.into_iter().next().unwrap());
        let b = engine
            .from_server(
                &session,
                &pending,
                r#"{"jsonrpc":"2.0","id":2,"result":{"instructions":"Own.","resultType":"complete","ttlMs":0}}"#,
            )
            .unwrap();
        let (a, b): (serde_json::Value, serde_json::Value) =
            (serde_json::from_str(&a).unwrap(), serde_json::from_str(&b).unwrap());
        assert_eq!(a["result"]["instructions"], b["result"]["instructions"]);
        assert!(a["result"]["instructions"].as_str().unwrap().ends_with(crate::STC_PRIMER));
        assert_eq!(b["result"]["ttlMs"], 0);
    }

    #[test]
    fn interim_error_and_retrieved_results_stay() {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let (session, pending) = (Session::new(), Pending::new());
        let t = serde_json::to_string(&table(20)).unwrap();
        for (i, result) in [
            format!(r#"{{"resultType":"input_required","content":[{{"type":"text","text":{t}}}]}}"#),
            format!(r#"{{"isError":true,"content":[{{"type":"text","text":{t}}}]}}"#),
            format!(r#"{{"_meta":{{"stc/retrieved":"k"}},"content":[{{"type":"text","text":{t}}}]}}"#),
            "5".to_string(),
        ]
        .iter()
        .enumerate()
        {
            for tk in engine.from_client(&session, &call(i as u32, "t")).tickets {
                pending.insert(tk);
            }
            let message = format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{result}}}"#);
            assert_eq!(engine.from_server(&session, &pending, &message), None, "{message}");
        }
        assert!(pending.is_empty());
        // resultType complete is rewritten.
        for tk in engine.from_client(&session, &call(9, "t")).tickets {
            pending.insert(tk);
        }
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":9,"result":{{"resultType":"complete","content":[{{"type":"text","text":{t}}}]}}}}"#
        );
        assert!(engine.from_server(&session, &pending, &message).is_some());
    }

    #[test]
    fn cancellations_and_batches() {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let session = Session::new();
        let step = engine.from_client(
            &session,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\u0061"}}"#,
        );
        assert_eq!(step.cancelled, vec![r#""a""#.to_string()]);
        let batch = format!("[{},{}]", call(1, "a"), call(2, "b"));
        let step = engine.from_client(&session, &batch);
        assert_eq!(step.tickets.len(), 2);
        assert!(matches!(step.forward, Some(Cow::Borrowed(_))));
        // Not JSON: forwarded, nothing tracked.
        let step = engine.from_client(&session, "{oops");
        assert!(step.tickets.is_empty() && step.forward.as_deref() == Some("{oops"));
    }
}

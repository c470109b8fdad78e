//! `stc mcp-proxy`: wraps a stdio MCP server and re-encodes the JSON text
//! blocks of its tool results as gated STC.
//!
//! The proxy works on JSON-RPC messages, one per line (MCP's stdio transport),
//! and passes every line through byte for byte, except:
//! - in the `result` of a response to a `tools/call` request (responses are
//!   matched to requests by id), each `text` content block whose text is a
//!   JSON object or array, within the size bounds, becomes gated STC; the
//!   gate sends minified JSON where STC would not save enough tokens (or
//!   keeps the server's text, with [`RewriteOptions::keep_json_text`]).
//!   `structuredContent`, images, resources, error results (`isError`) and
//!   JSON-RPC errors are never touched. Tools can be included or excluded by
//!   name;
//! - in the `result` of the response to `initialize`, the STC primer
//!   ([`crate::primer`] of [`RewriteOptions::version`]: [`crate::STC_PRIMER`],
//!   or [`crate::STC_PRIMER_V2`] when the proxy writes version 2) is appended
//!   to the server's `instructions` (or set when it has none).
//!
//! **Versions** ([`RewriteOptions::version`], `--stc-version`): text blocks
//! are written in that STC version (default 1); with version 2, truncation
//! budgets are measured in version 2 too. An MCP text block has no media
//! type, so the version is announced only by the primer.
//!
//! Decisions:
//! - **Malformed lines** (not JSON, or not JSON-RPC) are passed through
//!   unchanged in both directions: the proxy is not the protocol's judge, and
//!   the server (or client) answers them as it would without the proxy.
//! - **Batches** (JSON arrays of messages, in MCP 2025-03-26) are handled
//!   element by element in both directions.
//! - **Large messages**: a line longer than `max_message_bytes` is forwarded
//!   in parts without being parsed (so without re-encoding, and a request in
//!   it is not tracked); memory stays bounded.
//! - **Requests from the server** (sampling, roots, elicitation, ping) and
//!   the client's responses to them pass through; their ids live in the other
//!   direction's id space and are not tracked.
//! - **Child exit or crash**: every request still waiting for an answer gets a
//!   JSON-RPC error (code -32000) naming the exit status; then the proxy
//!   closes its stdout and returns. Child stderr is inherited (passed through).
//! - **Client closes stdin**: the child's stdin is closed, the child gets
//!   `shutdown_grace` to exit and is then killed; its remaining output is
//!   still forwarded.
//!
//!
//! **The stash** ([`ProxyOptions::stash`], `--budget`/`--truncate-arrays-at`):
//! - the retrieve tool ([`StashOptions::tool`]) is appended to the last page of
//!   every `tools/list` result; its `tools/call` requests are answered by the
//!   proxy itself, never forwarded, and only for the sealed keys (`KEY.TAG`,
//!   [`stc_stash::Seal`]) of markers shown to this client by a proxy with this
//!   secret ([`StashOptions::secret`]): no session state, so it holds for the
//!   sessionless revision 2026-07-28 and across proxy processes that share a
//!   store and a secret. Bare keys, wrong seals and another client's markers
//!   are tool errors, decided before the store is read. The client's identity
//!   is the `clientInfo` name of `initialize`, or of a request's
//!   `_meta["io.modelcontextprotocol/clientInfo"]`. The answer is the stashed
//!   original with `_meta: {"stc/retrieved": KEY}`, never re-encoded or
//!   truncated (only this answer is exempt: the same content read again is
//!   cut as usual);
//! - with a token budget, the text actually sent is counted in the budget's
//!   tokenizer; a text block over it (nothing more can be cut) is reported in
//!   the result's `_meta["dev.stc/budget"]` and on stderr, never silently;
//! - JSON text blocks are truncated (what is cut is stashed, the markers say
//!   `call tool NAME with key=KEY`) and then gated, but only once the client
//!   has been shown the retrieve tool in a `tools/list` result: a marker must
//!   name a tool the client knows;
//! - if the server itself lists a tool with the retrieve tool's name, the
//!   proxy does not add its own, forwards calls of that name to the server,
//!   turns truncation off for the rest of the session (a marker would name
//!   the server's tool) and says so on stderr;
//! - in a batch, a retrieve call is answered on its own line and the rest of
//!   the batch is forwarded.

use std::collections::HashMap;
use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use stc_stash::{MarkerSecret, Recovery, Seal, StashStore, ToolName, TruncateOptions};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, Notify};

use crate::frame::{LineReader, Piece};
use crate::rewrite::{self, AddTool, Envelope, RewriteOptions, RewriteStats, Truncation};
use crate::stash::{client_identity, Authority, LazyStore, StoreSpec, RETRIEVED_META};

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
    /// identity): processes sharing a store and this secret answer each
    /// other's markers ([`crate::stash::marker_secret`]).
    pub secret: MarkerSecret,
}

/// Settings of `stc mcp-proxy`.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The MCP server to run.
    pub command: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// When and how text blocks become STC.
    pub rewrite: RewriteOptions,
    /// Re-encode only these tools' results (all tools when empty).
    pub include_tools: Vec<String>,
    /// Never re-encode these tools' results.
    pub exclude_tools: Vec<String>,
    /// Lines up to this size are inspected; longer ones are forwarded in parts untouched.
    pub max_message_bytes: usize,
    /// How long the child may take to exit after the client closed stdin.
    pub shutdown_grace: Duration,
    /// Truncation with the stash, and the retrieve tool (off when `None`).
    pub stash: Option<StashOptions>,
}

impl ProxyOptions {
    /// Options with defaults for everything but the command.
    pub fn new(command: impl Into<OsString>, args: Vec<OsString>) -> ProxyOptions {
        ProxyOptions {
            command: command.into(),
            args,
            rewrite: RewriteOptions::default(),
            include_tools: Vec::new(),
            exclude_tools: Vec::new(),
            max_message_bytes: 64 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(5),
            stash: None,
        }
    }

    /// Whether results of the tool `name` are re-encoded.
    pub fn encodes_tool(&self, name: &str) -> bool {
        (self.include_tools.is_empty() || self.include_tools.iter().any(|t| t == name))
            && !self.exclude_tools.iter().any(|t| t == name)
    }
}

/// How the proxy ended.
#[derive(Debug)]
pub struct ProxyExit {
    /// The child's exit status, when it could be collected.
    pub child_status: Option<ExitStatus>,
    /// Whether the client closed its end first (a normal shutdown).
    pub client_closed: bool,
    /// Requests that got an error from the proxy because the child ended.
    pub orphaned_requests: usize,
    /// What was re-encoded.
    pub stats: RewriteStats,
}

/// Failure to run the proxy at all.
#[derive(Debug)]
pub struct ProxyError(String);

impl std::fmt::Display for ProxyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProxyError {}

/// What a request from the client was, so its response can be treated.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Track {
    Initialize,
    /// A `tools/call` whose results are re-encoded.
    Encode,
    /// A `tools/list` (the retrieve tool is appended to its result).
    ToolsList,
    /// Any other request (including `tools/call` of an excluded tool).
    Other,
}

/// The stash state of one proxy session.
#[derive(Debug)]
struct Session {
    store: Arc<dyn StashStore>,
    spec: StoreSpec,
    truncate: TruncateOptions,
    tool: ToolName,
    /// The tool's definition, as appended to `tools/list` results.
    definition: String,
    secret: MarkerSecret,
    /// The client's identity as last stated (`initialize`, or a request's `_meta`).
    client: Mutex<String>,
    /// The client has been shown the retrieve tool.
    armed: AtomicBool,
    /// The server has a tool of the same name: no truncation, no interception.
    collided: AtomicBool,
}

impl Session {
    /// Opens the store; budgets are measured in `version`, the version the
    /// proxy writes.
    fn open(options: &StashOptions, version: stc_core::Version) -> Result<Session, ProxyError> {
        let store = options.store.open().map_err(|e| ProxyError(format!("cannot open the stash store: {e}")))?;
        let mut truncate = options.truncate.clone();
        truncate.version = version;
        truncate.plan.recovery = Recovery::Tool(options.tool.clone());
        truncate.plan.recoverable = true;
        Ok(Session {
            store,
            spec: options.store.clone(),
            truncate,
            definition: retrieve_tool_definition(options.tool.as_str()),
            tool: options.tool.clone(),
            secret: options.secret.clone(),
            client: Mutex::new(String::new()),
            armed: AtomicBool::new(false),
            collided: AtomicBool::new(false),
        })
    }

    /// The truncation options for the current client (markers sealed for
    /// it), when truncation is on.
    fn truncation(&self) -> Option<TruncateOptions> {
        (self.armed.load(Ordering::SeqCst) && !self.collided.load(Ordering::SeqCst)).then(|| {
            let mut options = self.truncate.clone();
            options.plan.seal = Some(self.seal(None));
            options
        })
    }

    /// The seal for `client`, or for the client as last stated.
    fn seal(&self, client: Option<&str>) -> Seal {
        match client {
            Some(c) => Seal::new(self.secret.clone(), c),
            None => Seal::new(self.secret.clone(), &self.client.lock().map(|c| c.clone()).unwrap_or_default()),
        }
    }

    fn note_client(&self, params: Option<&serde_json::value::RawValue>) {
        if let (Some(name), Ok(mut c)) = (client_identity(params), self.client.lock()) {
            *c = name;
        }
    }

    fn intercepts(&self, name: &str) -> bool {
        name == self.tool.as_str() && !self.collided.load(Ordering::SeqCst)
    }
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

/// Requests from the client still waiting for the child's response, by id key.
type Pending = Arc<Mutex<HashMap<String, (Box<serde_json::value::RawValue>, Track)>>>;

/// Runs the proxy on this process's stdin and stdout until the client or the
/// child ends. Builds its own tokio runtime.
pub fn run(options: ProxyOptions) -> Result<ProxyExit, ProxyError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ProxyError(format!("cannot start the runtime: {e}")))?;
    let result = runtime.block_on(async {
        let (input, output) = rmcp::transport::io::stdio_pipes();
        run_with(options, input, output).await
    });
    // A blocking stdin read may still be pending; do not wait for it.
    runtime.shutdown_background();
    result
}

/// Runs the proxy between a client's byte streams and a spawned child.
pub async fn run_with<R, W>(options: ProxyOptions, client_in: R, client_out: W) -> Result<ProxyExit, ProxyError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The store first: a bad store is reported without starting the server.
    let session = match &options.stash {
        Some(s) => Some(Arc::new(Session::open(s, options.rewrite.version)?)),
        None => None,
    };
    let mut child = Command::new(&options.command)
        .args(&options.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ProxyError(format!("cannot start {}: {e}", options.command.to_string_lossy())))?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(ProxyError("the child's stdio pipes are missing".into()));
    };

    let options = Arc::new(options);
    let pending: Pending = Arc::default();
    let client_gone = Arc::new(Notify::new());
    let (to_client, outbox) = mpsc::channel::<Vec<u8>>(64);

    let writer = tokio::spawn(write_client(outbox, client_out, client_gone.clone()));
    let upstream = tokio::spawn(client_to_child(
        options.clone(),
        session.clone(),
        pending.clone(),
        client_in,
        child_in,
        to_client.clone(),
        client_gone.clone(),
    ));

    let mut stats = RewriteStats::default();
    let ctx = Ctx { options: &options, session: session.as_deref(), pending: &pending };
    let (child_status, client_closed, line_open) =
        child_to_client(&ctx, &mut child, child_out, &to_client, &client_gone, &mut stats).await;

    // The child is gone: whoever still waits for an answer gets an error.
    let orphans: Vec<_> = pending.lock().map(|mut p| p.drain().map(|(_, v)| v.0).collect()).unwrap_or_default();
    let status_text = match child_status {
        Some(s) => s.to_string(),
        None => "unknown status".to_string(),
    };
    if line_open && !orphans.is_empty() {
        // The child died in the middle of a line; the errors start on a line of their own.
        let _ = to_client.send(b"\n".to_vec()).await;
    }
    for id in &orphans {
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32000, "message": format!("stc mcp-proxy: the MCP server exited ({status_text}) before answering this request")}
        });
        let mut line = error.to_string().into_bytes();
        line.push(b'\n');
        if to_client.send(line).await.is_err() {
            break;
        }
    }
    // The upstream task holds a sender too; stop it before waiting for the writer.
    upstream.abort();
    let _ = upstream.await;
    drop(to_client);
    let _ = writer.await;
    Ok(ProxyExit { child_status, client_closed, orphaned_requests: orphans.len(), stats })
}

/// Forwards the child's output to the client, rewriting responses, until the
/// child's stdout ends; returns the child's status, whether the client
/// closed first, and whether the last line sent to the client is unfinished.
async fn child_to_client(
    ctx: &Ctx<'_>,
    child: &mut Child,
    child_out: tokio::process::ChildStdout,
    to_client: &mpsc::Sender<Vec<u8>>,
    client_gone: &Notify,
    stats: &mut RewriteStats,
) -> (Option<ExitStatus>, bool, bool) {
    let options = ctx.options;
    let mut line_open = false;
    let mut reader = LineReader::new(child_out, options.max_message_bytes);
    let mut client_closed = false;
    let mut status: Option<ExitStatus> = None;
    // Set once the child must be gone soon: after the client closed, or after the child exited.
    let mut deadline: Option<tokio::time::Instant> = None;
    let mut killed = false;
    loop {
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            piece = reader.next() => {
                let bytes = match piece {
                    Ok(None) | Err(_) => break,
                    Ok(Some(Piece::Line(line))) => treat_child_line(ctx, line, stats),
                    Ok(Some(Piece::Part { bytes, .. })) => bytes,
                };
                line_open = !bytes.ends_with(b"\n");
                if to_client.send(bytes).await.is_err() {
                    // The client's stdout is gone; wind down like a closed stdin.
                    client_closed = true;
                    deadline.get_or_insert_with(|| tokio::time::Instant::now() + options.shutdown_grace);
                }
            }
            _ = client_gone.notified(), if !client_closed => {
                client_closed = true;
                deadline.get_or_insert_with(|| tokio::time::Instant::now() + options.shutdown_grace);
            }
            s = child.wait(), if status.is_none() => {
                status = s.ok();
                // A grandchild may hold the pipe open; do not wait for it forever.
                deadline.get_or_insert_with(|| tokio::time::Instant::now() + options.shutdown_grace);
            }
            _ = sleep => {
                if status.is_none() && !killed {
                    let _ = child.start_kill();
                    killed = true;
                    deadline = Some(tokio::time::Instant::now() + options.shutdown_grace);
                } else {
                    break;
                }
            }
        }
    }
    if status.is_none() {
        status = match tokio::time::timeout(options.shutdown_grace, child.wait()).await {
            Ok(s) => s.ok(),
            Err(_) => {
                let _ = child.start_kill();
                child.wait().await.ok()
            }
        };
    }
    (status, client_closed, line_open)
}

/// What treating a line of the child's output needs.
struct Ctx<'a> {
    options: &'a ProxyOptions,
    session: Option<&'a Session>,
    pending: &'a Pending,
}

/// The bytes to send the client for one whole line of the child's output.
fn treat_child_line(ctx: &Ctx<'_>, mut line: Vec<u8>, stats: &mut RewriteStats) -> Vec<u8> {
    if !line.ends_with(b"\n") {
        line.push(b'\n');
    }
    let Ok(text) = std::str::from_utf8(&line) else { return line };
    let body = text.trim_end_matches(['\n', '\r']);
    let first = body.trim_start().as_bytes().first().copied();
    let new = match first {
        Some(b'{') => treat_response(ctx, body, stats),
        Some(b'[') => rewrite::map_batch(body, |m| treat_response(ctx, m, stats)),
        _ => None,
    };
    match new {
        Some(mut new) => {
            new.push('\n');
            new.into_bytes()
        }
        None => line,
    }
}

/// Settles one message from the child: a response to a tracked request is
/// removed from `pending` and rewritten as its request asks.
fn treat_response(ctx: &Ctx<'_>, message: &str, stats: &mut RewriteStats) -> Option<String> {
    let (options, pending) = (ctx.options, ctx.pending);
    let envelope: Envelope = serde_json::from_str(message).ok()?;
    if !envelope.is_response() {
        return None;
    }
    let key = rewrite::id_key(envelope.id?);
    let (_, track) = pending.lock().ok()?.remove(&key)?;
    envelope.result?;
    match track {
        Track::Initialize => {
            rewrite::map_result(message, |r| rewrite::add_instructions(r, crate::primer(options.rewrite.version)))
        }
        Track::Encode => rewrite::map_result(message, |r| {
            let truncate = ctx.session.and_then(Session::truncation);
            let truncation =
                ctx.session.zip(truncate.as_ref()).map(|(s, o)| Truncation { store: s.store.as_ref(), options: o });
            let (new, s, _keys) = rewrite::rewrite_tool_result_with(r, &options.rewrite, truncation)?;
            stats.blocks += s.blocks;
            stats.bytes_before += s.bytes_before;
            stats.bytes_after += s.bytes_after;
            stats.truncated += s.truncated;
            stats.over_budget += s.over_budget;
            Some(new)
        }),
        Track::ToolsList => {
            let session = ctx.session?;
            if session.collided.load(Ordering::SeqCst) {
                return None;
            }
            rewrite::map_result(message, |r| match rewrite::add_tool(r, session.tool.as_str(), &session.definition) {
                AddTool::Added(new) => {
                    session.armed.store(true, Ordering::SeqCst);
                    Some(new)
                }
                AddTool::Collision => {
                    session.collided.store(true, Ordering::SeqCst);
                    eprintln!(
                        "stc mcp-proxy: the server has a tool named {0}; the proxy does not add its own, calls of {0} \
                         go to the server, and truncation is off (choose another name with --retrieve-tool)",
                        session.tool.as_str()
                    );
                    None
                }
                AddTool::NotHere => None,
            })
        }
        Track::Other => None,
    }
}

/// Records the requests in one message from the client.
fn track_request(options: &ProxyOptions, session: Option<&Session>, pending: &Pending, message: &str) {
    let Ok(envelope) = serde_json::from_str::<Envelope>(message) else { return };
    let Some(method) = envelope.method.as_deref() else { return };
    if method == "notifications/cancelled" {
        // A cancelled request may never be answered; do not answer it with an error later either.
        #[derive(serde::Deserialize)]
        struct Cancelled<'a> {
            #[serde(rename = "requestId", borrow)]
            request_id: Option<&'a serde_json::value::RawValue>,
        }
        let id = envelope.params.and_then(|p| serde_json::from_str::<Cancelled>(p.get()).ok()?.request_id);
        if let (Some(id), Ok(mut p)) = (id, pending.lock()) {
            p.remove(&rewrite::id_key(id));
        }
        return;
    }
    if !envelope.is_request() {
        return;
    }
    if let Some(session) = session {
        session.note_client(envelope.params);
    }
    let Some(id) = envelope.id else { return };
    let track = match method {
        "initialize" => Track::Initialize,
        "tools/list" if session.is_some() => Track::ToolsList,
        "tools/call" => match rewrite::tool_name(envelope.params) {
            Some(name) if options.encodes_tool(&name) => Track::Encode,
            _ => Track::Other,
        },
        _ => Track::Other,
    };
    if let Ok(mut p) = pending.lock() {
        p.insert(rewrite::id_key(id), (id.to_owned(), track));
    }
}

/// Forwards the client's input to the child, tracking requests, until the
/// client closes stdin or the child's stdin breaks; then closes the child's stdin.
async fn client_to_child<R: AsyncRead + Unpin>(
    options: Arc<ProxyOptions>,
    session: Option<Arc<Session>>,
    pending: Pending,
    client_in: R,
    mut child_in: ChildStdin,
    to_client: mpsc::Sender<Vec<u8>>,
    client_gone: Arc<Notify>,
) {
    let mut reader = LineReader::new(client_in, options.max_message_bytes);
    loop {
        let bytes = match reader.next().await {
            Ok(None) | Err(_) => break,
            Ok(Some(Piece::Line(line))) => {
                let Ok(text) = std::str::from_utf8(&line) else {
                    forward(&mut child_in, &line).await;
                    continue;
                };
                let body = text.trim_end_matches(['\n', '\r']);
                let session = session.as_deref();
                match body.trim_start().as_bytes().first() {
                    Some(b'{') => {
                        if let Some(answer) = session.and_then(|s| answer_retrieve(s, body)) {
                            let _ = to_client.send(answer.await).await;
                            continue;
                        }
                        track_request(&options, session, &pending, body);
                        line
                    }
                    Some(b'[') => {
                        let elements = rewrite::batch_elements(body).unwrap_or_default();
                        let mut rest = Vec::new();
                        for (_, m) in &elements {
                            match session.and_then(|s| answer_retrieve(s, m)) {
                                Some(answer) => {
                                    let _ = to_client.send(answer.await).await;
                                }
                                None => {
                                    track_request(&options, session, &pending, m);
                                    rest.push(*m);
                                }
                            }
                        }
                        if rest.len() == elements.len() {
                            line
                        } else if rest.is_empty() {
                            continue;
                        } else {
                            format!("[{}]\n", rest.join(",")).into_bytes()
                        }
                    }
                    _ => line,
                }
            }
            Ok(Some(Piece::Part { bytes, .. })) => bytes,
        };
        if child_in.write_all(&bytes).await.is_err() || child_in.flush().await.is_err() {
            // The child is gone; `child_to_client` sees its stdout end and answers what is pending.
            return;
        }
    }
    drop(child_in);
    client_gone.notify_one();
}

/// Writes bytes to the child (a failure shows up as the child's end).
async fn forward(child_in: &mut ChildStdin, bytes: &[u8]) {
    let _ = child_in.write_all(bytes).await;
    let _ = child_in.flush().await;
}

/// If `message` is a `tools/call` request of the retrieve tool, the answer
/// line the proxy sends instead of forwarding it.
fn answer_retrieve(
    session: &Session,
    message: &str,
) -> Option<impl std::future::Future<Output = Vec<u8>> + Send + 'static> {
    let envelope: Envelope = serde_json::from_str(message).ok()?;
    if envelope.method.as_deref() != Some("tools/call") || !envelope.is_request() {
        return None;
    }
    if !session.intercepts(&rewrite::tool_name(envelope.params)?) {
        return None;
    }
    let id = envelope.id?.get().to_string();
    let key = retrieve_key(envelope.params);
    let store = LazyStore::opened(session.spec.clone(), session.store.clone());
    // The identity this request states (revision 2026-07-28), else the session's.
    let seal = session.seal(client_identity(envelope.params).as_deref());
    let tool = session.tool.as_str().to_string();
    Some(async move {
        let outcome = match key {
            Ok(key) => tokio::task::spawn_blocking(move || {
                crate::stash::retrieve(&store, Authority::Sealed(&seal), &key, &tool)
            })
            .await
            .unwrap_or_else(|e| Err(format!("retrieve failed: {e}"))),
            Err(m) => Err(m),
        };
        let result = match outcome {
            Ok((key, payload)) => serde_json::json!({
                "content": [{"type": "text", "text": payload}],
                "isError": false,
                "_meta": {RETRIEVED_META: key.as_str()}
            }),
            Err(message) => serde_json::json!({"content": [{"type": "text", "text": message}], "isError": true}),
        };
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n").into_bytes()
    })
}

/// The `key` argument of a retrieve call, or the text of a tool error.
fn retrieve_key(params: Option<&serde_json::value::RawValue>) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct Call {
        #[serde(default)]
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    }
    let usage = "the arguments must be {\"key\": \"<the 24 hex characters of a stash marker's key>\"}";
    let call: Call = params.and_then(|p| serde_json::from_str(p.get()).ok()).ok_or_else(|| usage.to_string())?;
    let args = call.arguments.unwrap_or_default();
    match (args.get("key"), args.len()) {
        (Some(serde_json::Value::String(k)), 1) => Ok(k.clone()),
        _ => Err(usage.to_string()),
    }
}

/// Writes what the proxy sends to the client, in order; flushes when idle.
async fn write_client<W: AsyncWrite + Unpin>(
    mut outbox: mpsc::Receiver<Vec<u8>>,
    mut out: W,
    client_gone: Arc<Notify>,
) {
    while let Some(first) = outbox.recv().await {
        let mut next = Some(first);
        let mut ok = true;
        while let Some(bytes) = next.take() {
            ok &= out.write_all(&bytes).await.is_ok();
            next = outbox.try_recv().ok();
        }
        ok &= out.flush().await.is_ok();
        if !ok {
            client_gone.notify_one();
            // Keep draining so the senders never block on a dead client.
            while outbox.recv().await.is_some() {}
            return;
        }
    }
    let _ = out.shutdown().await;
}

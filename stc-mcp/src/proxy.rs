//! `stc mcp-proxy`: wraps a stdio MCP server and re-encodes the JSON text
//! blocks of its tool results as gated STC.
//!
//! This module is the stdio loop: it frames lines, runs the child and
//! answers for it when it ends. What is done to each message is decided by
//! [`crate::engine`], which HTTP transports use too.
//!
//! The proxy works on JSON-RPC messages, one per line (MCP's stdio transport),
//! and passes every line through byte for byte, except:
//! - in the `result` of a response to a `tools/call` request (responses are
//!   matched to requests by id), each `text` content block whose text is a
//!   JSON object or array, within the size bounds, becomes gated STC; the
//!   gate sends minified JSON where STC would not save enough tokens (or
//!   keeps the server's text, with [`crate::RewriteOptions::keep_json_text`]).
//!   Images, resources, error results (`isError`), interim results
//!   (`resultType` other than `complete`) and JSON-RPC errors are never
//!   touched; `structuredContent` only as [`crate::engine::Structured`] says
//!   (for hosts that show the model only it). Tools can be included or
//!   excluded by name;
//! - in the `result` of the response to `initialize` or `server/discover`, the
//!   STC primer ([`crate::primer`] of [`crate::RewriteOptions::version`]:
//!   [`crate::STC_PRIMER`], or [`crate::STC_PRIMER_V2`] when the proxy writes
//!   version 2) is appended to the server's `instructions` (or set when it
//!   has none).
//!
//! **Versions** ([`crate::RewriteOptions::version`], `--stc-version`): text blocks
//! are written in that STC version (the library's default 1; `stc mcp-proxy`'s
//! default 2); truncation budgets are measured in the same version. Each
//! block written as STC names its format and version in its `_meta`
//! ([`crate::rewrite::FORMAT_META`]), and the primer explains it.
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
//! **The stash** ([`EngineOptions::stash`], `--budget`/`--truncate-arrays-at`):
//! - the retrieve tool ([`StashOptions::tool`]) is appended to the last page of
//!   every `tools/list` result; its `tools/call` requests are answered by the
//!   proxy itself, never forwarded, and only for the sealed keys (`KEY.TAG`,
//!   [`stc_stash::Seal`]) of markers shown to this client by a proxy with this
//!   secret ([`StashOptions::secret`]): no session state, so it holds for the
//!   sessionless revision 2026-07-28 and across proxy processes that share a
//!   store and a secret. Bare keys, wrong seals and another client's markers
//!   are tool errors, decided before the store is read. The answer is the
//!   stashed original with `_meta: {"stc/retrieved": KEY}`, never re-encoded
//!   or truncated (only this answer is exempt: the same content read again is
//!   cut as usual);
//! - with a token budget, the text actually sent is counted in the budget's
//!   tokenizer; a text block over it (nothing more can be cut) gets
//!   `_meta["dev.stc/budget"]` and a `tracing` warning, never silently;
//! - JSON text blocks are truncated (what is cut is stashed, the markers say
//!   `call tool NAME with key=KEY.TAG`) and then gated, but only once the client
//!   has been shown the retrieve tool in a `tools/list` result: a marker must
//!   name a tool the client knows;
//! - if the server itself lists a tool with the retrieve tool's name, the
//!   proxy does not add its own, forwards calls of that name to the server,
//!   turns truncation off for the rest of the session (a marker would name
//!   the server's tool) and says so (a `tracing` warning);
//! - in a batch, a retrieve call is answered on its own line and the rest of
//!   the batch is forwarded.

use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// The client's side is gone (its input ended or its output failed): a state
/// that stays set, read by `child_to_client`. A state rather than a `Notify`
/// wake-up: a `Notify` permit was lost under load to a `Notified` future that
/// a `select!` dropped in the same instant; `watch::Receiver::wait_for` looks
/// at the current value first.
struct ClientGone(tokio::sync::watch::Sender<bool>);

impl ClientGone {
    fn new() -> ClientGone {
        ClientGone(tokio::sync::watch::Sender::new(false))
    }

    fn mark(&self) {
        self.0.send_replace(true);
    }

    fn is_marked(&self) -> bool {
        *self.0.borrow()
    }
}

pub use crate::engine::{retrieve_tool_definition, EngineOptions, StashOptions};
use crate::engine::{Engine, Pending, Session};
use crate::frame::{LineReader, Piece};
use crate::rewrite::RewriteStats;

/// Settings of `stc mcp-proxy` over stdio.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The MCP server to run.
    pub command: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// What is done to messages ([`crate::engine`]).
    pub engine: EngineOptions,
    /// Lines up to this size are inspected; longer ones are forwarded in parts untouched.
    pub max_message_bytes: usize,
    /// How long the child may take to exit after the client closed stdin.
    pub shutdown_grace: Duration,
    /// Append the ledger as JSON lines to this file: one line per settled
    /// `tools/call`, one summary line at exit (`--stats`).
    pub stats_file: Option<std::path::PathBuf>,
}

impl ProxyOptions {
    /// Options with defaults for everything but the command.
    pub fn new(command: impl Into<OsString>, args: Vec<OsString>) -> ProxyOptions {
        ProxyOptions {
            command: command.into(),
            args,
            engine: EngineOptions::default(),
            max_message_bytes: 64 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(5),
            stats_file: None,
        }
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
    /// The savings ledger at exit.
    pub ledger: crate::engine::LedgerSnapshot,
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

/// Runs the proxy on this process's stdin and stdout until the client or the
/// child ends. Call it inside a tokio runtime; stdin is read on a blocking
/// thread, so the caller should not wait for that runtime's blocking tasks
/// at exit (`Runtime::shutdown_background`).
pub async fn run(options: ProxyOptions) -> Result<ProxyExit, ProxyError> {
    let (input, output) = rmcp::transport::io::stdio_pipes();
    run_with(options, input, output).await
}

/// Runs the proxy between a client's byte streams and a spawned child.
pub async fn run_with<R, W>(options: ProxyOptions, client_in: R, client_out: W) -> Result<ProxyExit, ProxyError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The store first: a bad store is reported without starting the server.
    let engine = Arc::new(Engine::new(options.engine.clone()).map_err(|e| ProxyError(e.0))?);
    let session = Arc::new(Session::new());
    if let Some(path) = &options.stats_file {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| ProxyError(format!("cannot open the stats file {}: {e}", path.display())))?;
        engine.set_stats_sink(Box::new(file));
    }
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
    let pending = Arc::new(Pending::new());
    let client_gone = Arc::new(ClientGone::new());
    let (to_client, outbox) = mpsc::channel::<Vec<u8>>(64);

    let writer = tokio::spawn(write_client(outbox, client_out, client_gone.clone()));
    let upstream = tokio::spawn(client_to_child(
        Ctx { options: options.clone(), engine: engine.clone(), session: session.clone(), pending: pending.clone() },
        client_in,
        child_in,
        to_client.clone(),
        client_gone.clone(),
    ));

    let ctx = Ctx { options: options.clone(), engine: engine.clone(), session, pending: pending.clone() };
    let (child_status, client_closed, line_open) =
        child_to_client(&ctx, &mut child, child_out, &to_client, &client_gone).await;

    // The child is gone: whoever still waits for an answer gets an error.
    let orphans = pending.drain();
    let status_text = match child_status {
        Some(s) => s.to_string(),
        None => "unknown status".to_string(),
    };
    if line_open && !orphans.is_empty() {
        // The child died in the middle of a line; the errors start on a line of their own.
        let _ = to_client.send(b"\n".to_vec()).await;
    }
    for ticket in &orphans {
        let mut line = crate::engine::server_gone_error(ticket.id(), &status_text).into_bytes();
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
    engine.finish_stats();
    Ok(ProxyExit {
        child_status,
        client_closed,
        orphaned_requests: orphans.len(),
        stats: engine.stats(),
        ledger: engine.ledger(),
    })
}

/// Forwards the child's output to the client, rewriting responses, until the
/// child's stdout ends; returns the child's status, whether the client
/// closed first, and whether the last line sent to the client is unfinished.
async fn child_to_client(
    ctx: &Ctx,
    child: &mut Child,
    child_out: tokio::process::ChildStdout,
    to_client: &mpsc::Sender<Vec<u8>>,
    client_gone: &ClientGone,
) -> (Option<ExitStatus>, bool, bool) {
    let options = &ctx.options;
    let mut line_open = false;
    let mut reader = LineReader::new(child_out, options.max_message_bytes);
    let mut client_closed = false;
    let mut status: Option<ExitStatus> = None;
    // Set once the child must be gone soon: after the client closed, or after the child exited.
    let mut deadline: Option<tokio::time::Instant> = None;
    let mut killed = false;
    // The sender lives in `client_gone` until this returns, so `wait_for` ends only when marked.
    let mut gone = client_gone.0.subscribe();
    loop {
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = async { drop(gone.wait_for(|gone| *gone).await) }, if !client_closed => {
                client_closed = true;
                deadline.get_or_insert_with(|| tokio::time::Instant::now() + options.shutdown_grace);
            }
            piece = reader.next() => {
                let bytes = match piece {
                    Ok(None) | Err(_) => {
                        client_closed |= client_gone.is_marked();
                        break;
                    }
                    Ok(Some(Piece::Line(line))) => treat_child_line(ctx, line),
                    Ok(Some(Piece::Part { bytes, .. })) => bytes,
                };
                line_open = !bytes.ends_with(b"\n");
                if to_client.send(bytes).await.is_err() {
                    // The client's stdout is gone; wind down like a closed stdin.
                    client_closed = true;
                    deadline.get_or_insert_with(|| tokio::time::Instant::now() + options.shutdown_grace);
                }
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

/// What both directions share.
struct Ctx {
    options: Arc<ProxyOptions>,
    engine: Arc<Engine>,
    session: Arc<Session>,
    pending: Arc<Pending>,
}

/// The bytes to send the client for one whole line of the child's output.
fn treat_child_line(ctx: &Ctx, mut line: Vec<u8>) -> Vec<u8> {
    if !line.ends_with(b"\n") {
        line.push(b'\n');
    }
    let Ok(text) = std::str::from_utf8(&line) else { return line };
    let body = text.trim_end_matches(['\n', '\r']);
    match ctx.engine.from_server(&ctx.session, &ctx.pending, body) {
        Some(mut new) => {
            new.push('\n');
            new.into_bytes()
        }
        None => line,
    }
}

/// Forwards the client's input to the child, tracking requests, until the
/// client closes stdin or the child's stdin breaks; then closes the child's stdin.
async fn client_to_child<R: AsyncRead + Unpin>(
    ctx: Ctx,
    client_in: R,
    mut child_in: ChildStdin,
    to_client: mpsc::Sender<Vec<u8>>,
    client_gone: Arc<ClientGone>,
) {
    let mut reader = LineReader::new(client_in, ctx.options.max_message_bytes);
    loop {
        let bytes = match reader.next().await {
            Ok(None) | Err(_) => break,
            Ok(Some(Piece::Line(line))) => {
                let Ok(text) = std::str::from_utf8(&line) else {
                    forward(&mut child_in, &line).await;
                    continue;
                };
                let body = text.trim_end_matches(['\n', '\r']);
                let step = ctx.engine.from_client(&ctx.session, body);
                for id in &step.cancelled {
                    ctx.pending.cancel(id);
                }
                for ticket in step.tickets {
                    ctx.pending.insert(ticket);
                }
                for answer in step.local {
                    let mut reply = answer.run().await.into_bytes();
                    reply.push(b'\n');
                    let _ = to_client.send(reply).await;
                }
                match step.forward {
                    None => continue,
                    Some(std::borrow::Cow::Borrowed(_)) => line,
                    Some(std::borrow::Cow::Owned(new)) => {
                        let mut new = new.into_bytes();
                        new.push(b'\n');
                        new
                    }
                }
            }
            Ok(Some(Piece::Part { bytes, .. })) => bytes,
        };
        if child_in.write_all(&bytes).await.is_err() || child_in.flush().await.is_err() {
            // The child is gone; `child_to_client` sees its stdout end and answers what is pending.
            return;
        }
    }
    // Marked before the child can see the end of its input, so a child that
    // exits on that end is never taken for one that ended first.
    client_gone.mark();
    drop(child_in);
}

/// Writes bytes to the child (a failure shows up as the child's end).
async fn forward(child_in: &mut ChildStdin, bytes: &[u8]) {
    let _ = child_in.write_all(bytes).await;
    let _ = child_in.flush().await;
}

/// Writes what the proxy sends to the client, in order; flushes when idle.
async fn write_client<W: AsyncWrite + Unpin>(
    mut outbox: mpsc::Receiver<Vec<u8>>,
    mut out: W,
    client_gone: Arc<ClientGone>,
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
            client_gone.mark();
            // Keep draining so the senders never block on a dead client.
            while outbox.recv().await.is_some() {}
            return;
        }
    }
    let _ = out.shutdown().await;
}

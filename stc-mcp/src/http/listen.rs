//! `stc mcp-proxy --listen ADDR -- CMD…`: Streamable HTTP clients at `/mcp`
//! around one stdio MCP server.
//!
//! **One child for every client.** Every message goes through the same
//! [`Engine`] as over stdio (STC, primer, `structuredContent` policy, stash,
//! retrieve), with one engine [`Session`] per HTTP session (so the client's
//! identity from its own `initialize`, and the stash markers shown to it, are
//! its own) and one shared sessionless [`Session`] for 2026-07-28 requests
//! (their identity comes with each request's `_meta`). The HTTP side
//! multiplexes its clients onto the child's one stdin and stdout:
//! - **Ids**: each request from an HTTP client is sent to the child under a
//!   fresh integer id of the proxy's own, and a `_meta.progressToken` under
//!   the same fresh integer, so ids and tokens of different clients never
//!   collide (the SDKs use the request id as the progress token). The
//!   response and the progress notifications are routed back to the POST that
//!   asked, with the client's own id and token restored.
//! - **`initialize` (2025-11-25 and older)**: the first one goes to the child;
//!   its result (with the primer) is kept and given to every later session,
//!   with a new `Mcp-Session-Id` each (the engine still sees each session's
//!   `initialize`, for that client's identity). `notifications/initialized` reaches the
//!   child once. A later client that asks for another protocol version still
//!   gets the version the child agreed to first (one child speaks one).
//! - **Sessionless requests (2026-07-28)**: a request without
//!   `Mcp-Session-Id` is served as it comes (`server/discover` and every other
//!   request carry their own `_meta`); an unknown `Mcp-Session-Id` is a `404`.
//! - **Notifications from the child** that belong to no request (list
//!   changes, logs) go to every open `GET /mcp` stream; requests from the
//!   child (sampling, elicitation, roots) are answered with a JSON-RPC error
//!   (-32601): no HTTP client is asked on the child's behalf.
//! - **Responses**: `text/event-stream` when the client accepts it (the
//!   notifications about the request, as they come, then the response),
//!   `application/json` otherwise (the notifications are then dropped).
//!   Client-posted notifications and responses get `202`.
//! - **Safety**: an `Origin` that is not loopback (or given with
//!   `--allow-origin`) is a `403` (DNS rebinding); on a loopback bind a
//!   `Host` that is not loopback is a `403` too; a non-loopback bind needs
//!   `--allow-remote`; bodies over `max_body` are a `413`; a body that is not
//!   one JSON-RPC message is a `400` with a JSON-RPC error; a request left
//!   unanswered for `request_timeout` gets a JSON-RPC error; a client that
//!   goes away cancels its request (`notifications/cancelled` to the child).
//! - **The child's end**: waiting requests get the stdio proxy's JSON-RPC
//!   error (-32000), then the service stops and [`serve`] returns.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::metrics::Metrics;
use super::Error;
use super::{jsonrpc_error, origin_allowed, sse_frame, ChannelBody, Envelope, SESSION_HEADER};
use crate::engine::{Engine, Pending, Session};
use crate::frame::{LineReader, Piece};
use crate::proxy::{ProxyExit, ProxyOptions};

/// Settings of the HTTP side.
#[derive(Debug, Clone)]
pub struct ListenOptions {
    /// Address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Accept a `listen` address that is not loopback.
    pub allow_remote: bool,
    /// Origins accepted besides loopback ones (exact, e.g. `https://app.example`).
    pub allowed_origins: Vec<String>,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Longest wait for the child's response to one request.
    pub request_timeout: Duration,
    /// Serve a remote server instead of a child: each HTTP session gets an
    /// upstream session of its own, and the client's `Authorization`,
    /// `Cookie` and `X-Api-Key` headers are sent with its messages.
    pub upstream: Option<super::upstream::UpstreamOptions>,
    /// After the shutdown future completes, how long requests in flight
    /// (and their SSE answers) get to finish before the connections are
    /// closed.
    pub drain_grace: Duration,
}

impl ListenOptions {
    /// Defaults: 4 MiB bodies, 10 minute requests, 30 s to drain, loopback only.
    pub fn new(listen: SocketAddr) -> ListenOptions {
        ListenOptions {
            listen,
            allow_remote: false,
            allowed_origins: Vec::new(),
            max_body: 4 * 1024 * 1024,
            request_timeout: Duration::from_secs(600),
            upstream: None,
            drain_grace: Duration::from_secs(30),
        }
    }
}

/// Refuses a non-loopback address without `allow_remote`.
pub fn check(options: &ListenOptions) -> Result<(), Error> {
    if !options.listen.ip().is_loopback() && !options.allow_remote {
        return Err(Error::new(format!(
            "refusing to listen on {}: not a loopback address (pass --allow-remote to serve other machines)",
            options.listen
        )));
    }
    Ok(())
}

/// A request waiting for the child's answer.
struct Waiting {
    /// The client's own id (raw JSON).
    id: String,
    /// The client's progress token (raw JSON), when it gave one.
    token: Option<String>,
    session: Option<String>,
    /// The engine's session the request belongs to.
    engine_session: Arc<Session>,
    /// Where its messages go (serialized JSON-RPC, client ids restored).
    tx: mpsc::Sender<Reply>,
}

enum Reply {
    /// A notification about the request.
    Note(String),
    /// The response; the last message.
    Done(String),
}

#[derive(Default)]
struct State {
    next: u64,
    waiting: HashMap<u64, Waiting>,
    /// Open sessions (2025-11-25): the engine's session and the GET streams.
    sessions: HashMap<String, (Arc<Session>, Vec<mpsc::Sender<Bytes>>)>,
    /// The child's `initialize` result (with the primer), once known.
    init_result: Option<String>,
    initialized_sent: bool,
    /// Streams that get notifications of no request when no session has one.
    closed: bool,
}

struct Shared {
    options: ListenOptions,
    state: Mutex<State>,
    /// Lines to the server (the child's stdin, or the upstream's bridges).
    to_proxy: mpsc::Sender<Out>,
    engine: Engine,
    /// Tickets of the requests forwarded (keyed by the proxy's own ids).
    pending: Pending,
    /// The engine's session of requests without `Mcp-Session-Id`.
    sessionless: Arc<Session>,
    /// Requests answered with an error because the child ended.
    orphaned: std::sync::atomic::AtomicUsize,
    /// Held while the first `initialize` is in flight.
    init_lock: tokio::sync::Mutex<()>,
    metrics: Arc<Metrics>,
    /// Set when the shutdown future completed: `/readyz` says 503.
    draining: AtomicBool,
    /// Cleared when the server's output ends (the child exited).
    server_alive: AtomicBool,
}

/// Client headers sent on to a remote server (credentials).
const PASSED_HEADERS: [&str; 3] = ["authorization", "cookie", "x-api-key"];

type Headers = Vec<(http::HeaderName, HeaderValue)>;

/// A line for the server, with the HTTP session it belongs to and the
/// client's credentials (used with a remote server only).
struct Out {
    line: String,
    session: Option<String>,
    headers: Headers,
    /// The HTTP session ended: end the upstream one.
    end: bool,
}

impl Shared {
    async fn send_line(&self, line: String, session: Option<&str>, headers: &Headers) -> bool {
        let out = Out { line, session: session.map(str::to_string), headers: headers.clone(), end: false };
        self.to_proxy.send(out).await.is_ok()
    }
}

/// Binds `options.listen` after [`check`]ing it (the caller then passes the
/// listener to [`serve`]).
pub async fn bind(options: &ListenOptions) -> Result<TcpListener, Error> {
    check(options)?;
    TcpListener::bind(options.listen).await.map_err(|e| Error::new(format!("cannot listen on {}: {e}", options.listen)))
}

/// Serves on `listener` until `shutdown` completes or the child ends.
pub async fn serve(
    listener: TcpListener,
    proxy: ProxyOptions,
    options: ListenOptions,
    shutdown: impl std::future::Future<Output = ()>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<ProxyExit, Error> {
    check(&options)?;
    let addr = listener.local_addr().map_err(|e| Error::new(e.to_string()))?;
    let cap = proxy.max_message_bytes;
    // The store first: a bad store is reported without starting the server.
    let engine = Engine::new(proxy.engine.clone()).map_err(|e| Error::new(e.0))?;
    if let Some(path) = &proxy.stats_file {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::new(format!("cannot open the stats file {}: {e}", path.display())))?;
        engine.set_stats_sink(Box::new(file));
    }
    if let Some(up) = options.upstream.clone() {
        let tls = super::upstream::check(&up)?;
        let client = super::upstream::http_client(tls, up.connect_timeout);
        let (lines_tx, mut lines_rx) = mpsc::channel::<Vec<u8>>(256);
        let (mut write_half, read_half) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            while let Some(line) = lines_rx.recv().await {
                if write_half.write_all(&line).await.is_err() {
                    break;
                }
            }
        });
        let (to_proxy, mut outbox) = mpsc::channel::<Out>(256);
        let (stop_writer, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let writer = tokio::spawn(async move {
            // One bridge (upstream session) per HTTP session; one for sessionless requests.
            let mut bridges: HashMap<Option<String>, Arc<super::upstream::Bridge>> = HashMap::new();
            loop {
                let out = tokio::select! {
                    o = outbox.recv() => match o {
                        Some(o) => o,
                        None => break,
                    },
                    _ = &mut stopped => break,
                };
                if out.end {
                    if let Some(b) = bridges.remove(&out.session) {
                        tokio::spawn(async move { b.end_session(&out.headers).await });
                    }
                    continue;
                }
                let bridge = bridges
                    .entry(out.session.clone())
                    .or_insert_with(|| super::upstream::Bridge::new(client.clone(), up.clone(), lines_tx.clone()))
                    .clone();
                let handshake = out.line.contains("\"initialize\"");
                let task = async move { bridge.post(out.line, &out.headers).await };
                if handshake {
                    task.await;
                } else {
                    tokio::spawn(task);
                }
            }
            for (_, b) in bridges {
                b.end_session(&[]).await;
            }
        });
        return run_service(
            listener,
            addr,
            cap,
            proxy,
            options,
            engine,
            to_proxy,
            writer,
            stop_writer,
            read_half,
            None,
            shutdown,
            on_ready,
        )
        .await;
    }
    let mut child = tokio::process::Command::new(&proxy.command)
        .args(&proxy.args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Error::new(format!("cannot start {}: {e}", proxy.command.to_string_lossy())))?;
    let (Some(mut our_out), Some(our_in)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(Error::new("the child's stdio pipes are missing"));
    };

    let (to_proxy, mut outbox) = mpsc::channel::<Out>(256);
    // Stops the writer at shutdown even while connections still hold senders.
    let (stop_writer, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let writer = tokio::spawn(async move {
        loop {
            let bytes = tokio::select! {
                b = outbox.recv() => match b {
                    Some(b) => b,
                    None => break,
                },
                _ = &mut stopped => break,
            };
            if bytes.end {
                continue;
            }
            let mut line = bytes.line.into_bytes();
            line.push(b'\n');
            if our_out.write_all(&line).await.is_err() {
                break;
            }
            let _ = our_out.flush().await;
        }
        // Closing the child's stdin asks it to exit.
        let _ = our_out.shutdown().await;
        drop(our_out);
    });
    run_service(
        listener,
        addr,
        cap,
        proxy,
        options,
        engine,
        to_proxy,
        writer,
        stop_writer,
        our_in,
        Some(child),
        shutdown,
        on_ready,
    )
    .await
}

/// Serves HTTP with the server reached through `to_proxy` (lines out) and `from_server` (lines back).
#[allow(clippy::too_many_arguments)]
async fn run_service(
    listener: TcpListener,
    addr: SocketAddr,
    cap: usize,
    proxy: ProxyOptions,
    options: ListenOptions,
    engine: Engine,
    to_proxy: mpsc::Sender<Out>,
    writer: tokio::task::JoinHandle<()>,
    stop_writer: tokio::sync::oneshot::Sender<()>,
    from_server: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    mut child: Option<tokio::process::Child>,
    shutdown: impl std::future::Future<Output = ()>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<ProxyExit, Error> {
    let shared = Arc::new(Shared {
        options,
        state: Mutex::new(State::default()),
        to_proxy,
        engine,
        pending: Pending::new(),
        sessionless: Arc::new(Session::sessionless()),
        init_lock: tokio::sync::Mutex::new(()),
        orphaned: Default::default(),
        metrics: Arc::new(Metrics::default()),
        draining: AtomicBool::new(false),
        server_alive: AtomicBool::new(true),
    });
    let reader = tokio::spawn(route_from_child(shared.clone(), from_server, cap));
    on_ready(addr);

    let http = hyper::server::conn::http1::Builder::new();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    let mut reader = reader;
    let mut signalled = false;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _peer)) = accepted else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let shared = shared.clone();
                let conn = http.serve_connection(
                    TokioIo::new(stream),
                    hyper::service::service_fn(move |req| {
                        let shared = shared.clone();
                        async move { Ok::<_, Infallible>(handle(shared, req).await) }
                    }),
                );
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
            _ = &mut reader => break,
            _ = &mut shutdown => {
                signalled = true;
                break;
            }
        }
    }
    // Drain: not ready any more, no new connections; requests in flight
    // (SSE answers included) finish within the grace, idle keep-alive
    // connections close. The GET streams of notifications have no end of
    // their own: they are ended now.
    shared.draining.store(true, Ordering::SeqCst);
    drop(listener);
    if let Ok(mut state) = shared.state.lock() {
        for (_, streams) in state.sessions.values_mut() {
            streams.clear();
        }
    }
    if signalled {
        let in_flight = shared.state.lock().map(|s| s.waiting.len()).unwrap_or(0);
        tracing::info!(in_flight, grace_s = shared.options.drain_grace.as_secs_f64(), "draining");
    }
    if tokio::time::timeout(shared.options.drain_grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("the grace period is over; closing the connections still open");
    }
    // Closing the proxy's input closes the child's stdin: it exits.
    {
        let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.closed = true;
        state.sessions.clear();
    }
    let child_ended = reader.is_finished();
    let stats = shared.engine.stats();
    shared.engine.finish_stats();
    let ledger = shared.engine.ledger();
    let orphaned = shared.orphaned.load(std::sync::atomic::Ordering::SeqCst);
    drop(shared);
    let _ = stop_writer.send(());
    let grace = proxy.shutdown_grace;
    let _ = tokio::time::timeout(grace, writer).await;
    let child_status = match &mut child {
        None => None,
        Some(child) => match tokio::time::timeout(grace, child.wait()).await {
            Ok(s) => s.ok(),
            Err(_) => {
                let _ = child.start_kill();
                child.wait().await.ok()
            }
        },
    };
    reader.abort();
    let _ = &proxy;
    Ok(ProxyExit { child_status, client_closed: !child_ended, orphaned_requests: orphaned, stats, ledger })
}

type Body = Either<Full<Bytes>, ChannelBody>;

fn full(status: StatusCode, content_type: Option<&'static str>, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Either::Left(Full::new(body.into())));
    *r.status_mut() = status;
    if let Some(ct) = content_type {
        r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    r
}

fn rpc_error(status: StatusCode, id: Option<&str>, code: i64, message: &str) -> Response<Body> {
    full(status, Some("application/json"), jsonrpc_error(id, code, message))
}

/// The client's credentials, for a remote server.
fn passed(req: &Request<Incoming>) -> Headers {
    let mut out = Vec::new();
    for name in PASSED_HEADERS {
        for v in req.headers().get_all(name) {
            let mut v = v.clone();
            v.set_sensitive(true);
            out.push((http::HeaderName::from_static(name), v));
        }
    }
    out
}

fn header<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// `X-Request-Id`: taken from the client when it is a plain token, else
/// generated; logged, returned, and sent to an `--upstream` with the request.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// What the access log says of one request besides the HTTP line.
#[derive(Default)]
struct Access {
    /// The JSON-RPC method of a `POST /mcp`.
    rpc_method: Option<String>,
    /// The tool of a `tools/call`.
    tool: Option<String>,
}

/// A client's request id when it is 1 to 128 letters, digits or `-._:`
/// (anything else could forge log lines or headers).
fn client_request_id(req: &Request<Incoming>) -> Option<String> {
    let id = header(req, REQUEST_ID_HEADER)?;
    let ok = (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._:".contains(&b));
    ok.then(|| id.to_string())
}

/// Serves one request and writes its access log event: one `tracing` event
/// per request (`INFO`; `DEBUG` for the health paths a load balancer polls)
/// with the request id, the HTTP method and path, the JSON-RPC method and
/// tool, the status and the time to the response head. Never a header's
/// value (credentials) nor a body.
async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let started = Instant::now();
    let request_id = client_request_id(&req).unwrap_or_else(super::random_id);
    let http_method = req.method().clone();
    let path = req.uri().path().to_string();
    let mut access = Access::default();
    let mut response = route(shared, req, &request_id, &mut access).await;
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    let status = response.status().as_u16();
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    let rpc_method = access.rpc_method.as_deref().unwrap_or("");
    let tool = access.tool.as_deref().unwrap_or("");
    if path == "/healthz" || path == "/readyz" {
        tracing::debug!(request_id, method = %http_method, path, status, duration_ms, "request");
    } else {
        tracing::info!(request_id, method = %http_method, path, rpc_method, tool, status, duration_ms, "request");
    }
    response
}

async fn route(shared: Arc<Shared>, req: Request<Incoming>, request_id: &str, access: &mut Access) -> Response<Body> {
    // For load balancers, which may send any Host: they reveal nothing but readiness.
    if matches!(*req.method(), Method::GET | Method::HEAD) {
        match req.uri().path() {
            "/healthz" => return full(StatusCode::OK, Some("application/json"), "{\"status\":\"alive\"}"),
            "/readyz" => return readiness(&shared).await,
            _ => {}
        }
    }
    // DNS rebinding: a browser page of another origin must not reach a loopback service.
    if let Some(origin) = req.headers().get(ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| origin_allowed(o, &shared.options.allowed_origins));
        if !ok {
            return rpc_error(StatusCode::FORBIDDEN, None, -32000, "Forbidden: Origin not allowed");
        }
    }
    if shared.options.listen.ip().is_loopback() && !shared.options.allow_remote {
        let ok = header(&req, HOST.as_str()).is_some_and(super::host_is_loopback);
        if !ok {
            return rpc_error(StatusCode::FORBIDDEN, None, -32000, "Forbidden: Host is not a loopback name");
        }
    }
    match (req.method(), req.uri().path()) {
        (&Method::GET, "/metrics") => full(
            StatusCode::OK,
            Some("application/openmetrics-text; version=1.0.0; charset=utf-8"),
            shared.metrics.render(&shared.engine.stats(), &shared.engine.ledger()),
        ),
        (&Method::POST, "/mcp") => post(shared, req, request_id, access).await,
        (&Method::GET, "/mcp") => get_stream(shared, req),
        (&Method::DELETE, "/mcp") => {
            let Some(id) = header(&req, SESSION_HEADER) else {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    None,
                    -32000,
                    "Bad Request: Mcp-Session-Id header is required",
                );
            };
            let removed = shared.state.lock().map(|mut s| s.sessions.remove(id).is_some()).unwrap_or(false);
            if removed {
                let out = Out { line: String::new(), session: Some(id.to_string()), headers: passed(&req), end: true };
                let _ = shared.to_proxy.send(out).await;
            }
            // (Requests of the session still in flight are answered; nothing else is sent to it.)
            if removed {
                full(StatusCode::OK, None, Bytes::new())
            } else {
                rpc_error(StatusCode::NOT_FOUND, None, -32001, "Session not found")
            }
        }
        (_, "/mcp") => {
            let mut r = full(StatusCode::METHOD_NOT_ALLOWED, None, Bytes::new());
            r.headers_mut().insert("allow", HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
        _ => rpc_error(
            StatusCode::NOT_FOUND,
            None,
            -32000,
            "Not Found: the MCP endpoint is /mcp (and /metrics, /healthz, /readyz)",
        ),
    }
}

/// How long a readiness check may wait for the upstream or the store.
const READY_CHECK: Duration = Duration::from_secs(2);

/// `/readyz`: 200 when this process can serve (not draining; the stdio
/// server running, or the upstream accepting a TCP connection; the stash
/// store answering a read); otherwise 503 with the reason.
async fn readiness(shared: &Arc<Shared>) -> Response<Body> {
    let not_ready = |reason: String| {
        let body = serde_json::json!({"ready": false, "reason": reason}).to_string();
        full(StatusCode::SERVICE_UNAVAILABLE, Some("application/json"), body)
    };
    if shared.draining.load(Ordering::SeqCst) {
        return not_ready("draining".into());
    }
    if let Some(up) = &shared.options.upstream {
        let host = up.url.host().unwrap_or("").trim_start_matches('[').trim_end_matches(']').to_string();
        let https = up.url.scheme() == Some(&http::uri::Scheme::HTTPS);
        let port = up.url.port_u16().unwrap_or(if https { 443 } else { 80 });
        match tokio::time::timeout(READY_CHECK, tokio::net::TcpStream::connect((host.as_str(), port))).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return not_ready(format!("the upstream is unreachable: {e}")),
            Err(_) => return not_ready(format!("the upstream did not accept within {} s", READY_CHECK.as_secs())),
        }
    } else if !shared.server_alive.load(Ordering::SeqCst) {
        return not_ready("the MCP server exited".into());
    }
    let probe = shared.clone();
    let store = tokio::task::spawn_blocking(move || probe.engine.store_reachable());
    match tokio::time::timeout(READY_CHECK, store).await {
        Ok(Ok(Ok(()))) => full(StatusCode::OK, Some("application/json"), "{\"ready\":true}"),
        Ok(Ok(Err(e))) => not_ready(format!("the stash store is unreachable: {e}")),
        Ok(Err(_)) => not_ready("the stash store check failed".into()),
        Err(_) => not_ready(format!("the stash store did not answer within {} s", READY_CHECK.as_secs())),
    }
}

/// `GET /mcp`: the session's stream of notifications that belong to no request.
fn get_stream(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let accepts = header(&req, ACCEPT.as_str()).is_some_and(|a| a.contains("text/event-stream"));
    if !accepts {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            -32000,
            "Not Acceptable: Client must accept text/event-stream",
        );
    }
    let Some(id) = header(&req, SESSION_HEADER) else {
        let mut r = full(StatusCode::METHOD_NOT_ALLOWED, None, Bytes::new());
        r.headers_mut().insert("allow", HeaderValue::from_static("POST"));
        return r;
    };
    let (tx, rx) = mpsc::channel(64);
    {
        let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some((_, streams)) = state.sessions.get_mut(id) else {
            return rpc_error(StatusCode::NOT_FOUND, None, -32001, "Session not found");
        };
        streams.retain(|s| !s.is_closed());
        streams.push(tx);
    }
    sse_response(rx, None)
}

fn sse_response(rx: mpsc::Receiver<Bytes>, session: Option<&str>) -> Response<Body> {
    let mut r = Response::new(Either::Right(ChannelBody { rx }));
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r.headers_mut().insert("cache-control", HeaderValue::from_static("no-cache, no-transform"));
    if let Some(s) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        r.headers_mut().insert(SESSION_HEADER, s);
    }
    r
}

async fn post(shared: Arc<Shared>, req: Request<Incoming>, request_id: &str, access: &mut Access) -> Response<Body> {
    let accept = header(&req, ACCEPT.as_str()).unwrap_or("").to_ascii_lowercase();
    let wants_sse = accept.contains("text/event-stream");
    let session = header(&req, SESSION_HEADER).map(str::to_string);
    let method_header = header(&req, super::METHOD_HEADER).map(str::to_string);
    let name_header = header(&req, super::NAME_HEADER).map(str::to_string);
    let creds = if shared.options.upstream.is_some() {
        let mut creds = passed(&req);
        if let Ok(v) = HeaderValue::from_str(request_id) {
            creds.push((http::HeaderName::from_static(REQUEST_ID_HEADER), v));
        }
        creds
    } else {
        Vec::new()
    };
    let remote = shared.options.upstream.is_some();
    let engine_session = match &session {
        Some(s) => match shared.state.lock().ok().and_then(|st| st.sessions.get(s).map(|e| e.0.clone())) {
            Some(es) => es,
            None => return rpc_error(StatusCode::NOT_FOUND, None, -32001, "Session not found"),
        },
        None => shared.sessionless.clone(),
    };
    let max = shared.options.max_body;
    let body = match Limited::new(req.into_body(), max).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                let m = format!("Request body larger than {max} bytes");
                return rpc_error(StatusCode::PAYLOAD_TOO_LARGE, None, -32600, &m);
            }
            return rpc_error(StatusCode::BAD_REQUEST, None, -32700, "Parse error: the body could not be read");
        }
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return rpc_error(StatusCode::BAD_REQUEST, None, -32700, "Parse error: the body is not UTF-8");
    };
    if !text.trim_start().starts_with('{') {
        let code = if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() { -32600 } else { -32700 };
        let m = if code == -32600 {
            "Invalid Request: the body must be one JSON-RPC message object (no batches)"
        } else {
            "Parse error: the body is not JSON"
        };
        return rpc_error(StatusCode::BAD_REQUEST, None, code, m);
    }
    let Ok(msg) = serde_json::from_str::<Envelope>(text) else {
        return rpc_error(StatusCode::BAD_REQUEST, None, -32700, "Parse error: the body is not a JSON-RPC message");
    };
    access.rpc_method = msg.method.as_deref().map(str::to_string);
    if msg.is_notification() {
        let method = msg.method.as_deref().unwrap_or("");
        let forward = match method {
            "notifications/initialized" if !remote => {
                let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                !std::mem::replace(&mut state.initialized_sent, true)
            }
            "notifications/cancelled" => {
                cancel(&shared, session.as_deref(), msg.params, &creds).await;
                false
            }
            _ => true,
        };
        if forward {
            shared.send_line(text.trim().to_string(), session.as_deref(), &creds).await;
        }
        return full(StatusCode::ACCEPTED, None, Bytes::new());
    }
    if !msg.is_request() {
        // A client's response to a server request (those are not forwarded), or junk.
        if msg.id.is_some() && (msg.result.is_some() || msg.error.is_some()) {
            return full(StatusCode::ACCEPTED, None, Bytes::new());
        }
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            -32600,
            "Invalid Request: not a JSON-RPC request or notification",
        );
    }
    let method = msg.method.as_deref().unwrap_or("").to_string();
    let id = msg.id.map(|r| r.get().to_string()).unwrap_or_default();
    if !matches!(
        serde_json::from_str::<serde_json::Value>(&id),
        Ok(serde_json::Value::String(_) | serde_json::Value::Number(_))
    ) {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            -32600,
            "Invalid Request: the id must be a string or a number",
        );
    }
    if let Some(h) = &method_header {
        if h != &method {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                Some(&id),
                -32600,
                "Mcp-Method header does not match the body's method",
            );
        }
    }
    // The tool, for the metrics: the Mcp-Name header where present, else the body.
    let tool =
        if method == "tools/call" { name_header.or_else(|| crate::rewrite::tool_name(msg.params)) } else { None };
    access.tool.clone_from(&tool);

    let mut new_session = None;
    let _init_guard;
    if method == "initialize" {
        _init_guard = shared.init_lock.lock().await;
        // A remote server opens a session of its own for each HTTP session.
        let cached = if remote { None } else { shared.state.lock().ok().and_then(|s| s.init_result.clone()) };
        let sid = super::random_id();
        let es = Arc::new(Session::new());
        if let Ok(mut state) = shared.state.lock() {
            state.sessions.insert(sid.clone(), (es.clone(), Vec::new()));
        }
        if let Some(result) = cached {
            // The engine notes this client's identity; the child is not asked again.
            let _ = shared.engine.from_client(&es, text);
            let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}");
            return reply(Reply::Done(line), wants_sse, Some(&sid));
        }
        new_session = Some((sid, es));
    }
    let engine_session = match &new_session {
        Some((_, es)) => es.clone(),
        None => engine_session,
    };

    // The message under a fresh id (and progress token) of the proxy's own.
    let mut value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => return rpc_error(StatusCode::BAD_REQUEST, None, -32700, "Parse error"),
    };
    let (tx, mut rx) = mpsc::channel::<Reply>(64);
    let n = {
        let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.closed {
            return rpc_error(StatusCode::SERVICE_UNAVAILABLE, Some(&id), -32000, "stc mcp-proxy is shutting down");
        }
        state.next += 1;
        state.next
    };
    value["id"] = serde_json::Value::from(n);
    let token = value
        .get_mut("params")
        .and_then(|p| p.get_mut("_meta"))
        .and_then(|m| m.as_object_mut())
        .and_then(|m| m.get_mut("progressToken"))
        .map(|t| std::mem::replace(t, serde_json::Value::from(n)).to_string());
    if let Ok(mut state) = shared.state.lock() {
        let w = Waiting { id: id.clone(), token, session: session.clone(), engine_session: engine_session.clone(), tx };
        state.waiting.insert(n, w);
    }
    let started = Instant::now();
    let remapped = value.to_string();
    let step = shared.engine.from_client(&engine_session, &remapped);
    for key in &step.cancelled {
        shared.pending.cancel(key);
    }
    for ticket in step.tickets {
        shared.pending.insert(ticket);
    }
    if let Some(forward) = step.forward {
        let target = new_session.as_ref().map(|(s, _)| s.as_str()).or(session.as_deref());
        if !shared.send_line(forward.into_owned(), target, &creds).await {
            forget(&shared, n);
            return rpc_error(StatusCode::SERVICE_UNAVAILABLE, Some(&id), -32000, "the MCP server is gone");
        }
    }
    for local in step.local {
        // Answered by the proxy itself (the retrieve tool).
        let answer = local.run().await;
        route_one(&shared, &answer).await;
    }
    let timeout = shared.options.request_timeout;
    let sid = new_session.map(|(s, _)| s).or(session);
    if method == "initialize" || !wants_sse {
        // Wait for the response (notifications are dropped in JSON mode).
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut guard =
            CancelOnDrop { shared: shared.clone(), n, armed: true, session: sid.clone(), headers: creds.clone() };
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Some(Reply::Note(_)) => continue,
                    Some(Reply::Done(line)) => {
                        guard.armed = false;
                        if method == "initialize" {
                            cache_init(&shared, &line);
                        }
                        shared.metrics.record(tool.as_deref(), &line, started.elapsed());
                        return reply(Reply::Done(line), wants_sse, sid.as_deref());
                    }
                    None => {
                        guard.armed = false;
                        return rpc_error(StatusCode::BAD_GATEWAY, Some(&id), -32000, "the MCP server is gone");
                    }
                },
                _ = &mut deadline => {
                    let m = format!("no answer from the MCP server within {} s", timeout.as_secs());
                    return rpc_error(StatusCode::GATEWAY_TIMEOUT, Some(&id), -32001, &m);
                }
            }
        }
    }
    // SSE: notifications as they come, then the response.
    let (out, body_rx) = mpsc::channel::<Bytes>(64);
    let shared2 = shared.clone();
    let (sid2, creds2) = (sid.clone(), creds.clone());
    tokio::spawn(async move {
        let mut guard = CancelOnDrop { shared: shared2.clone(), n, armed: true, session: sid2, headers: creds2 };
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Some(Reply::Note(line)) => {
                        if out.send(sse_frame(&line)).await.is_err() {
                            return; // the client went away: the guard cancels
                        }
                    }
                    Some(Reply::Done(line)) => {
                        guard.armed = false;
                        shared2.metrics.record(tool.as_deref(), &line, started.elapsed());
                        let _ = out.send(sse_frame(&line)).await;
                        return;
                    }
                    None => {
                        guard.armed = false;
                        let _ = out.send(sse_frame(&jsonrpc_error(Some(&id), -32000, "the MCP server is gone"))).await;
                        return;
                    }
                },
                _ = out.closed() => return,
                _ = &mut deadline => {
                    let m = format!("no answer from the MCP server within {} s", timeout.as_secs());
                    let _ = out.send(sse_frame(&jsonrpc_error(Some(&id), -32001, &m))).await;
                    return;
                }
            }
        }
    });
    sse_response(body_rx, sid.as_deref())
}

fn reply(reply: Reply, sse: bool, session: Option<&str>) -> Response<Body> {
    let (Reply::Done(line) | Reply::Note(line)) = reply;
    let mut r = if sse {
        let (tx, rx) = mpsc::channel(1);
        let _ = tx.try_send(sse_frame(&line));
        sse_response(rx, None)
    } else {
        full(StatusCode::OK, Some("application/json"), line)
    };
    if let Some(s) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        r.headers_mut().insert(SESSION_HEADER, s);
    }
    r
}

/// Keeps the child's `initialize` result for later sessions.
fn cache_init(shared: &Shared, line: &str) {
    if let Ok(msg) = serde_json::from_str::<Envelope>(line) {
        if let Some(result) = msg.result {
            if let Ok(mut state) = shared.state.lock() {
                state.init_result = Some(result.get().to_string());
            }
        }
    }
}

/// Stops waiting for request `n`; when `armed`, tells the child it is cancelled.
struct CancelOnDrop {
    shared: Arc<Shared>,
    n: u64,
    armed: bool,
    session: Option<String>,
    headers: Headers,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let was_waiting = forget(&self.shared, self.n);
        self.shared.pending.cancel(&self.n.to_string());
        if self.armed && was_waiting {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{},\"reason\":\"the HTTP client went away\"}}}}",
                self.n
            );
            let out =
                Out { line, session: self.session.take(), headers: std::mem::take(&mut self.headers), end: false };
            let _ = self.shared.to_proxy.try_send(out);
        }
    }
}

fn forget(shared: &Shared, n: u64) -> bool {
    shared.state.lock().map(|mut s| s.waiting.remove(&n).is_some()).unwrap_or(false)
}

/// A client's `notifications/cancelled`: the request it names, under the proxy's id.
async fn cancel(shared: &Shared, session: Option<&str>, params: Option<&serde_json::value::RawValue>, creds: &Headers) {
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: Option<&'a serde_json::value::RawValue>,
    }
    let Some(id) = params.and_then(|p| serde_json::from_str::<Params>(p.get()).ok()).and_then(|p| p.request_id) else {
        return;
    };
    let key = crate::rewrite::id_key(id);
    let n = {
        let state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        state.waiting.iter().find(|(_, w)| w.session.as_deref() == session && id_key_str(&w.id) == key).map(|(n, _)| *n)
    };
    if let Some(n) = n {
        forget(shared, n);
        shared.pending.cancel(&n.to_string());
        let line =
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{n}}}}}");
        shared.send_line(line, session, creds).await;
    }
}

/// Reads the child's output and routes each message to whoever waits for it.
async fn route_from_child(shared: Arc<Shared>, input: impl tokio::io::AsyncRead + Unpin, cap: usize) {
    let mut reader = LineReader::new(input, cap);
    let mut skipping = false;
    loop {
        match reader.next().await {
            Ok(None) | Err(_) => break,
            Ok(Some(Piece::Line(line))) => {
                if std::mem::take(&mut skipping) {
                    continue; // the end of an oversize message
                }
                let Ok(text) = std::str::from_utf8(&line) else { continue };
                let text = text.trim_end_matches(['\r', '\n']);
                route_one(&shared, text).await;
            }
            Ok(Some(Piece::Part { bytes, .. })) => {
                // Larger than max_message_bytes: answer its request with an error, drop the rest.
                if !skipping {
                    if let Some(n) = super::upstream::leading_id(&bytes) {
                        answer(&shared, n, |w| {
                            let m =
                                format!("stc mcp-proxy: the response is larger than {cap} bytes (--max-message-bytes)");
                            jsonrpc_error(Some(&w.id), -32000, &m)
                        })
                        .await;
                    }
                }
                skipping = !bytes.ends_with(b"\n");
            }
        }
    }
    // The child's output ended (it is gone): whoever waits gets an error.
    shared.server_alive.store(false, Ordering::SeqCst);
    let waiting: Vec<Waiting> =
        shared.state.lock().map(|mut s| s.waiting.drain().map(|(_, w)| w).collect()).unwrap_or_default();
    let _ = shared.pending.drain();
    shared.orphaned.fetch_add(waiting.len(), std::sync::atomic::Ordering::SeqCst);
    for w in waiting {
        let raw = serde_json::value::RawValue::from_string(w.id.clone());
        if let Ok(raw) = raw {
            let _ = w.tx.send(Reply::Done(crate::engine::server_gone_error(&raw, "its output ended"))).await;
        }
    }
}

async fn answer(shared: &Shared, n: u64, make: impl FnOnce(&Waiting) -> String) {
    let waiting = shared.state.lock().ok().and_then(|mut s| s.waiting.remove(&n));
    if let Some(w) = waiting {
        let line = make(&w);
        // Never wait on one slow client here: this task routes for everyone.
        if let Err(mpsc::error::TrySendError::Full(reply)) = w.tx.try_send(Reply::Done(line)) {
            tokio::spawn(async move {
                let _ = w.tx.send(reply).await;
            });
        }
    }
}

/// A response (already rewritten) to the request that waits for it, under the client's own id.
async fn route_response(shared: &Shared, text: &str) {
    let Ok(msg) = serde_json::from_str::<Envelope>(text) else { return };
    let Some(n) = msg.id.and_then(|id| id.get().parse::<u64>().ok()) else { return };
    answer(shared, n, |w| {
        let offset = msg.id.map_or(0, |id| id.get().as_ptr() as usize - text.as_ptr() as usize);
        let len = msg.id.map_or(0, |id| id.get().len());
        format!("{}{}{}", &text[..offset], w.id, &text[offset + len..])
    })
    .await;
}

async fn route_one(shared: &Shared, text: &str) {
    if text.trim_start().starts_with('[') {
        if let Some(elements) = crate::rewrite::batch_elements(text) {
            for (_, element) in elements {
                Box::pin(route_one(shared, element)).await;
            }
        }
        return;
    }
    let Ok(msg) = serde_json::from_str::<Envelope>(text) else { return };
    if msg.method.is_none() {
        // A response: to one of ours, rewritten by the engine in its session.
        let n = msg.id.and_then(|id| id.get().parse::<u64>().ok());
        let es = n.and_then(|n| shared.state.lock().ok()?.waiting.get(&n).map(|w| w.engine_session.clone()));
        if let Some(es) = es {
            if let Some(new) = shared.engine.from_server(&es, &shared.pending, text) {
                return Box::pin(route_response(shared, &new)).await;
            }
        }
        return route_response(shared, text).await;
    }

    if msg.is_request() {
        // The child asks the client something: no HTTP client is asked on its behalf.
        let id = msg.id.map(|i| i.get()).unwrap_or("null");
        let line = jsonrpc_error(Some(id), -32601, "stc mcp-proxy --listen does not forward server-to-client requests");
        shared.send_line(line, None, &Vec::new()).await;
        return;
    }
    // A notification: about a request (progress) or for everyone.
    if msg.method.as_deref() == Some("notifications/progress") {
        #[derive(serde::Deserialize)]
        struct P<'a> {
            #[serde(rename = "progressToken", borrow)]
            token: Option<&'a serde_json::value::RawValue>,
        }
        let token = msg.params.and_then(|p| serde_json::from_str::<P>(p.get()).ok()).and_then(|p| p.token);
        if let Some(token) = token {
            let n = token.get().parse::<u64>().ok();
            let target = n.and_then(|n| {
                let state = shared.state.lock().ok()?;
                let w = state.waiting.get(&n)?;
                Some((w.tx.clone(), w.token.clone()?))
            });
            if let Some((tx, original)) = target {
                let offset = token.get().as_ptr() as usize - text.as_ptr() as usize;
                let line = format!("{}{}{}", &text[..offset], original, &text[offset + token.get().len()..]);
                // A client that does not keep up loses progress notifications, not the response.
                let _ = tx.try_send(Reply::Note(line));
            }
            return;
        }
    }
    let streams: Vec<mpsc::Sender<Bytes>> = shared
        .state
        .lock()
        .map(|s| s.sessions.values().flat_map(|(_, v)| v).filter(|t| !t.is_closed()).cloned().collect())
        .unwrap_or_default();
    for s in streams {
        let _ = s.try_send(sse_frame(text));
    }
}

/// [`crate::rewrite::id_key`] of an id kept as text.
fn id_key_str(id: &str) -> String {
    serde_json::from_str::<serde_json::Value>(id).map_or_else(|_| id.to_string(), |v| v.to_string())
}

//! The reverse proxy behind `stc proxy`: [`StcLayer`] (inside gzip/br
//! compression) in front of any HTTP/1.1 JSON API.
//!
//! Requests are forwarded with their method, headers (minus hop-by-hop ones)
//! and streamed bodies; responses come back through the layer. When the
//! client asked for STC, the upstream is asked for an uncompressed body
//! (`Accept-Encoding: identity`) so the layer can read it, and the proxy
//! compresses the result itself for clients that accept gzip or br.
//!
//! `https://` upstreams are reached with rustls, trusting the system's root
//! certificates and the optional [`ProxyConfig::upstream_ca`] file
//! ([`crate::tls`]); a certificate that is not trusted is a `502` whose
//! `error` is `upstream_tls`.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, ACCEPT_ENCODING, CONNECTION, CONTENT_TYPE, HOST};
use http::uri::{Authority, PathAndQuery, Scheme};
use http::{HeaderMap, Request, Response, StatusCode, Uri};
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::CompressionLayer;
use tower_layer::Layer;
use tower_service::Service;

use crate::body::BoxError;
use crate::layer::{StcConfig, StcOutcome};
use crate::negotiate::Preference;
use crate::StcLayer;

/// Settings of the proxy.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// Address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Base URL of the upstream API (`http[s]://host:port[/base/path]`).
    pub upstream: Uri,
    /// A PEM file of CA certificates trusted for an `https://` upstream, on
    /// top of the system's roots.
    pub upstream_ca: Option<PathBuf>,
    /// Accept a `listen` address that is not loopback.
    pub allow_remote: bool,
    /// Longest wait for a TCP connection to the upstream.
    pub connect_timeout: Duration,
    /// Longest wait for the upstream's response headers once the request is sent.
    pub response_timeout: Duration,
    /// Longest wait for the next chunk of an upstream response body.
    pub body_timeout: Duration,
    /// Longest wait for in-flight requests to finish after SIGTERM or Ctrl-C.
    pub shutdown_grace: Duration,
    /// Most client connections served at once (each may buffer up to
    /// `stc.max_body`); further ones wait in the listen backlog.
    pub max_connections: usize,
    /// What the STC layer does.
    pub stc: StcConfig,
}

impl ProxyConfig {
    /// Defaults (10 s connect, 60 s response headers, 60 s between body chunks,
    /// 30 s grace, 1024 connections) for these addresses.
    pub fn new(listen: SocketAddr, upstream: Uri) -> Self {
        ProxyConfig {
            listen,
            upstream,
            upstream_ca: None,
            allow_remote: false,
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(30),
            max_connections: 1024,
            stc: StcConfig::default(),
        }
    }
}

/// Why the proxy could not start or stopped.
#[derive(Debug)]
pub enum Error {
    /// A setting is unusable: what and why.
    Config(String),
    /// Binding the listener failed.
    Bind(SocketAddr, std::io::Error),
    /// Another I/O failure (runtime, signals).
    Io(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(m) => f.write_str(m),
            Error::Bind(addr, e) => write!(f, "cannot listen on {addr}: {e}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

/// The upstream's scheme, authority and base path, checked once.
#[derive(Debug)]
struct Upstream {
    scheme: Scheme,
    authority: Authority,
    /// Base path without a trailing `/` (empty for the root).
    base: String,
    /// The base URL as given, for error bodies.
    display: String,
}

impl Upstream {
    fn parse(uri: &Uri) -> Result<Upstream, Error> {
        let scheme = uri.scheme().cloned().ok_or_else(|| {
            Error::Config(format!("upstream {uri}: no scheme (use http://HOST:PORT or https://HOST)"))
        })?;
        if scheme != Scheme::HTTP && scheme != Scheme::HTTPS {
            return Err(Error::Config(format!("upstream {uri}: only http:// and https:// upstreams are supported")));
        }
        let authority = uri.authority().cloned().ok_or_else(|| Error::Config(format!("upstream {uri}: no host")))?;
        if uri.query().is_some() {
            return Err(Error::Config(format!("upstream {uri}: a base URL cannot have a query")));
        }
        let base = uri.path().trim_end_matches('/').to_string();
        Ok(Upstream { scheme, authority, base, display: uri.to_string() })
    }

    fn uri_for(&self, path_and_query: Option<&PathAndQuery>) -> Result<Uri, http::Error> {
        let pq = path_and_query.map_or("/", |p| p.as_str());
        let pq = if pq.starts_with('/') { pq.to_string() } else { format!("/{pq}") };
        Uri::builder()
            .scheme(self.scheme.clone())
            .authority(self.authority.clone())
            .path_and_query(format!("{}{}", self.base, pq))
            .build()
    }
}

/// Runs the proxy until SIGTERM or Ctrl-C, on a runtime of its own. Prints
/// `stc proxy: listening on http://ADDR` on stdout once it accepts connections.
pub fn run(config: ProxyConfig) -> Result<(), Error> {
    check(&config)?;
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_target(false).try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(Error::Io)?;
    runtime.block_on(async {
        let shutdown = shutdown_signal()?;
        let listener = TcpListener::bind(config.listen).await.map_err(|e| Error::Bind(config.listen, e))?;
        let addr = listener.local_addr().map_err(Error::Io)?;
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "stc proxy: listening on http://{addr} (upstream {})", config.upstream);
            let _ = out.flush();
        }
        serve(listener, config, shutdown).await
    })
}

fn check(config: &ProxyConfig) -> Result<(), Error> {
    if !config.listen.ip().is_loopback() && !config.allow_remote {
        return Err(Error::Config(format!(
            "refusing to listen on {}: not a loopback address (pass --allow-remote to serve other machines)",
            config.listen
        )));
    }
    Upstream::parse(&config.upstream).map(|_| ())?;
    if let Some(ca) = &config.upstream_ca {
        if config.upstream.scheme() != Some(&Scheme::HTTPS) {
            return Err(Error::Config(format!(
                "--upstream-ca {}: the upstream {} is not https://",
                ca.display(),
                config.upstream
            )));
        }
        // A bad CA file stops the proxy before it says it is listening.
        crate::tls::client_config(Some(ca)).map_err(Error::Config)?;
    }
    Ok(())
}

/// SIGTERM or Ctrl-C. The handlers are installed now, before the address is
/// printed, so a signal sent as soon as the proxy is up is never fatal.
fn shutdown_signal() -> Result<impl Future<Output = ()>, Error> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).map_err(Error::Io)?;
        let mut interrupt = signal(SignalKind::interrupt()).map_err(Error::Io)?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = interrupt.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Serves on `listener` until `shutdown` completes, then lets in-flight
/// requests finish (up to [`ProxyConfig::shutdown_grace`]).
pub async fn serve(
    listener: TcpListener,
    config: ProxyConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), Error> {
    check(&config)?;
    let upstream = Arc::new(Upstream::parse(&config.upstream)?);
    let tls = crate::tls::client_config(config.upstream_ca.as_deref()).map_err(Error::Config)?;
    let connector = crate::tls::connector(tls, config.connect_timeout);
    let client: Client<HttpsConnector<HttpConnector>, Incoming> = Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(30))
        .pool_timer(TokioTimer::new())
        .build(connector);
    let stack = CompressionLayer::new()
        .gzip(true)
        .br(true)
        .compress_when(DefaultPredicate::new().and(UpstreamAskedIdentity))
        .layer(StcLayer::with_config(config.stc).layer(Forwarder {
            client,
            upstream,
            response_timeout: config.response_timeout,
            body_timeout: config.body_timeout,
            peer: None,
        }));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(Duration::from_secs(30));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    let slots = Arc::new(tokio::sync::Semaphore::new(config.max_connections.max(1)));
    loop {
        tokio::select! {
            // At the limit, connections wait in the listen backlog until one closes.
            accepted = async {
                let slot = slots.clone().acquire_owned().await.expect("the semaphore is never closed");
                (slot, listener.accept().await)
            } => {
                let (slot, accepted) = accepted;
                let (stream, peer) = match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        // Out of descriptors and the like: wait a little, keep serving.
                        eprintln!("stc proxy: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let mut service = stack.clone();
                service.get_mut().get_mut().peer = Some(peer);
                let service = Logged { inner: service };
                let conn = http.serve_connection(TokioIo::new(stream), hyper_util::service::TowerToHyperService::new(service));
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!("connection from {peer}: {e}");
                    }
                    drop(slot);
                });
            }
            _ = &mut shutdown => break,
        }
    }
    drop(listener);
    eprintln!("stc proxy: shutting down, letting in-flight requests finish");
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(config.shutdown_grace) => {
            eprintln!("stc proxy: grace period over, closing remaining connections");
        }
    }
    Ok(())
}

/// Marks responses whose upstream was asked for `identity`: the proxy compresses those itself.
#[derive(Debug, Clone, Copy)]
struct AskedIdentity;

#[derive(Debug, Clone, Copy)]
struct UpstreamAskedIdentity;

impl Predicate for UpstreamAskedIdentity {
    fn should_compress<B: http_body::Body>(&self, response: &Response<B>) -> bool {
        response.extensions().get::<AskedIdentity>().is_some()
    }
}

type ProxyBody = Either<IdleTimeout, Full<Bytes>>;

/// An upstream body that fails when no chunk comes for a while, so a stalled
/// upstream cannot hold a client (or the layer's read-ahead) forever.
struct IdleTimeout {
    inner: Incoming,
    sleep: Pin<Box<tokio::time::Sleep>>,
    idle: Duration,
}

impl IdleTimeout {
    fn new(inner: Incoming, idle: Duration) -> Self {
        IdleTimeout { inner, sleep: Box::pin(tokio::time::sleep(idle)), idle }
    }
}

impl http_body::Body for IdleTimeout {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.sleep.as_mut().reset(tokio::time::Instant::now() + this.idle);
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => match this.sleep.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    let message = format!("upstream body stalled for {} ms", this.idle.as_millis());
                    Poll::Ready(Some(Err(message.into())))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Sends each request to the upstream; never fails (a failure is a 502).
#[derive(Clone)]
struct Forwarder {
    client: Client<HttpsConnector<HttpConnector>, Incoming>,
    upstream: Arc<Upstream>,
    response_timeout: Duration,
    body_timeout: Duration,
    peer: Option<SocketAddr>,
}

/// Hop-by-hop headers (RFC 9110 section 7.6.1), never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
];

fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|s| s.split(','))
        .filter_map(|n| HeaderName::from_bytes(n.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
    headers.remove(http::header::UPGRADE);
}

/// `Accept` without its `application/stc+json` ranges (the upstream serves
/// JSON); `application/json` when nothing else is left.
fn accept_for_upstream(headers: &HeaderMap) -> HeaderValue {
    let kept: Vec<&str> = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|item| {
            let media = item.split(';').next().unwrap_or("").trim();
            !media.is_empty() && !media.eq_ignore_ascii_case(crate::STC_MEDIA_TYPE)
        })
        .collect();
    if kept.is_empty() {
        HeaderValue::from_static("application/json")
    } else {
        HeaderValue::from_str(&kept.join(", ")).unwrap_or(HeaderValue::from_static("application/json"))
    }
}

fn error_response(status: StatusCode, kind: &str, message: &str, upstream: &str) -> Response<ProxyBody> {
    let body = format!(
        "{{\"error\":{},\"message\":{},\"upstream\":{}}}",
        json_string(kind),
        json_string(message),
        json_string(upstream)
    );
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The whole chain of causes of an error, for a message.
fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl Service<Request<Incoming>> for Forwarder {
    type Response = Response<ProxyBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<ProxyBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Incoming>) -> Self::Future {
        let (mut parts, body) = req.into_parts();
        let upstream = self.upstream.clone();
        let uri = match upstream.uri_for(parts.uri.path_and_query()) {
            Ok(u) => u,
            Err(e) => {
                let r =
                    error_response(StatusCode::BAD_REQUEST, "bad_request_target", &e.to_string(), &upstream.display);
                return Box::pin(async move { Ok(r) });
            }
        };
        let original_host = parts.headers.get(HOST).cloned();
        strip_hop_by_hop(&mut parts.headers);
        let asked_identity = parts.extensions.get::<Preference>().is_some_and(Preference::wants_stc);
        if asked_identity {
            parts.headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
            let accept = accept_for_upstream(&parts.headers);
            parts.headers.insert(ACCEPT, accept);
        }
        if let Ok(host) = HeaderValue::from_str(upstream.authority.as_str()) {
            parts.headers.insert(HOST, host);
        }
        if let Some(host) = original_host {
            parts.headers.insert("x-forwarded-host", host);
        }
        parts.headers.insert("x-forwarded-proto", HeaderValue::from_static("http"));
        if let Some(peer) = self.peer {
            let forwarded = match parts.headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()) {
                Some(prior) => format!("{prior}, {}", peer.ip()),
                None => peer.ip().to_string(),
            };
            if let Ok(v) = HeaderValue::from_str(&forwarded) {
                parts.headers.insert("x-forwarded-for", v);
            }
        }
        parts.uri = uri;
        parts.version = http::Version::HTTP_11;
        let request = Request::from_parts(parts, body);
        let client = self.client.clone();
        let timeout = self.response_timeout;
        let body_timeout = self.body_timeout;
        Box::pin(async move {
            let response = match tokio::time::timeout(timeout, client.request(request)).await {
                Err(_) => {
                    let message = format!("no response headers from the upstream within {} ms", timeout.as_millis());
                    return Ok(error_response(
                        StatusCode::BAD_GATEWAY,
                        "upstream_timeout",
                        &message,
                        &upstream.display,
                    ));
                }
                Ok(Err(e)) => {
                    if let Some(tls) = crate::tls::tls_failure(&e) {
                        let message = format!("TLS with the upstream failed: {tls}");
                        return Ok(error_response(
                            StatusCode::BAD_GATEWAY,
                            "upstream_tls",
                            &message,
                            &upstream.display,
                        ));
                    }
                    let message = format!("upstream request failed: {}", describe(&e));
                    return Ok(error_response(
                        StatusCode::BAD_GATEWAY,
                        "upstream_unavailable",
                        &message,
                        &upstream.display,
                    ));
                }
                Ok(Ok(r)) => r,
            };
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            // The client's connection is HTTP/1.1 whatever the upstream spoke.
            parts.version = http::Version::HTTP_11;
            if asked_identity {
                parts.extensions.insert(AskedIdentity);
            }
            Ok(Response::from_parts(parts, Either::Left(IdleTimeout::new(body, body_timeout))))
        })
    }
}

/// Logs one line per request on stderr: method, path, status, what the
/// layer did, bytes and tokens before and after, time added.
#[derive(Clone)]
struct Logged<S> {
    inner: S,
}

impl<S, B> Service<Request<Incoming>> for Logged<S>
where
    S: Service<Request<Incoming>, Response = Response<B>, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response<B>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<B>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Incoming>) -> Self::Future {
        let method = req.method().clone();
        let path = req.uri().path().to_string();
        let started = Instant::now();
        let future = self.inner.call(req);
        Box::pin(async move {
            let response = future.await?;
            let total = started.elapsed();
            let line = match response.extensions().get::<StcOutcome>() {
                Some(o) => {
                    let bytes = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
                    let tokens = o.tokens.map_or("-".to_string(), |(j, s)| {
                        let sent = if o.action == crate::Action::Encoded { s } else { j };
                        format!("{j}->{sent}")
                    });
                    // The STC version sent, between the tokens and the times.
                    let version = match (o.action, o.version) {
                        (crate::Action::Encoded, Some(v)) => format!(" version {v}"),
                        _ => String::new(),
                    };
                    format!(
                        "{method} {path} {} {} bytes {}->{} tokens {}{version} added {:.3}ms total {:.3}ms",
                        response.status().as_u16(),
                        o.action.name(),
                        bytes(o.bytes_in.or(o.bytes_out)),
                        bytes(o.bytes_out),
                        tokens,
                        o.elapsed.as_secs_f64() * 1e3,
                        total.as_secs_f64() * 1e3
                    )
                }
                None => {
                    format!("{method} {path} {} total {:.3}ms", response.status().as_u16(), total.as_secs_f64() * 1e3)
                }
            };
            eprintln!("stc proxy: {line}");
            Ok(response)
        })
    }
}

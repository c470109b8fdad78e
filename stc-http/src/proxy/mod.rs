//! The reverse proxy behind `stc proxy`: the STC layer's response path and
//! gzip/br compression in front of any HTTP/1.1 JSON API, with health probes
//! and a graceful drain.
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
//!
//! A library: [`Proxy::new`] checks the settings once, [`Proxy::serve`] serves
//! on the caller's listener until the caller's shutdown future completes.
//! The runtime, signals and log subscriber belong to the program (`stc proxy`).
//!
//! Modules: `upstream` (the base URL), `forward` (one request to the
//! upstream), `health` (the probes), `gateway` (one request through it all).

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http::uri::Scheme;
use http::Uri;
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;

use crate::layer::StcConfig;
use crate::StcLayer;

mod forward;
mod gateway;
mod health;
mod upstream;

use forward::Forwarder;
use gateway::{Gateway, RequestIds};
use health::Health;
use upstream::Upstream;

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
    /// Longest wait for in-flight requests to finish once the shutdown future completes.
    pub shutdown_grace: Duration,
    /// Most client connections served at once (each may buffer up to
    /// `stc.max_body`); further ones wait in the listen backlog.
    pub max_connections: usize,
    /// Where the health probes are: `PREFIX/healthz` and `PREFIX/readyz`
    /// (default empty: `/healthz`, `/readyz`). Empty, or a path starting
    /// with `/` and not ending with one.
    pub health_prefix: String,
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
            health_prefix: String::new(),
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
    /// Another I/O failure.
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

/// A proxy whose settings have been checked: [`Proxy::new`], then [`Proxy::serve`].
pub struct Proxy {
    config: ProxyConfig,
    upstream: Upstream,
    tls: rustls::ClientConfig,
    health: Health,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Proxy {
    /// Checks `config` (the listen address, the upstream URL, the CA file,
    /// the health prefix): the one place it is checked.
    pub fn new(config: ProxyConfig) -> Result<Proxy, Error> {
        if !config.listen.ip().is_loopback() && !config.allow_remote {
            return Err(Error::Config(format!(
                "refusing to listen on {}: not a loopback address (pass --allow-remote to serve other machines)",
                config.listen
            )));
        }
        let upstream = Upstream::parse(&config.upstream)?;
        if let Some(ca) = &config.upstream_ca {
            if upstream.scheme != Scheme::HTTPS {
                return Err(Error::Config(format!(
                    "--upstream-ca {}: the upstream {} is not https://",
                    ca.display(),
                    config.upstream
                )));
            }
        }
        // A bad CA file stops the proxy before it listens.
        let tls = crate::tls::client_config(config.upstream_ca.as_deref()).map_err(Error::Config)?;
        let health = Health::new(&config.health_prefix, &upstream, config.connect_timeout)?;
        Ok(Proxy { config, upstream, tls, health })
    }

    /// The settings.
    pub fn config(&self) -> &ProxyConfig {
        &self.config
    }

    /// Serves on `listener` until `shutdown` completes; then `/readyz`
    /// answers 503, the listener is closed, and requests in flight get up to
    /// [`ProxyConfig::shutdown_grace`] to finish.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()>) -> Result<(), Error> {
        let Proxy { config, upstream, tls, health } = self;
        let connector = crate::tls::connector(tls, config.connect_timeout);
        let client: Client<HttpsConnector<HttpConnector>, Incoming> = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .pool_timer(TokioTimer::new())
            .build(connector);
        let gateway = Arc::new(Gateway {
            forwarder: Forwarder {
                client,
                upstream: Arc::new(upstream),
                response_timeout: config.response_timeout,
                body_timeout: config.body_timeout,
            },
            stc: StcLayer::with_config(config.stc),
            compression: CompressionLayer::new().gzip(true).br(true),
            health,
            ids: RequestIds::new(),
        });
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
                            tracing::warn!("accept failed: {e}");
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let gateway = gateway.clone();
                    let service = hyper::service::service_fn(move |req| {
                        let gateway = gateway.clone();
                        async move { Ok::<_, std::convert::Infallible>(gateway.handle(req, peer).await) }
                    });
                    let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
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
        gateway.health.drain();
        drop(listener);
        tracing::info!("shutting down, letting in-flight requests finish");
        tokio::select! {
            _ = graceful.shutdown() => {}
            _ = tokio::time::sleep(config.shutdown_grace) => {
                tracing::warn!("grace period over, closing remaining connections");
            }
        }
        Ok(())
    }
}

/// [`Proxy::new`] then [`Proxy::serve`]: serves on `listener` until
/// `shutdown` completes, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    config: ProxyConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), Error> {
    Proxy::new(config)?.serve(listener, shutdown).await
}

//! One request through the proxy, in order: a health probe is answered here;
//! anything else gets a request id, is forwarded (asking the upstream for
//! identity when the client asked for STC), goes through the STC layer's
//! response path, is compressed by the proxy when it asked for identity, and
//! is logged once. Each step hands the next an explicit value (`RequestFacts`,
//! `Forward`, `StcOutcome`); nothing travels in request or response extensions.

use std::collections::hash_map::RandomState;
use std::convert::Infallible;
use std::future::{ready, Ready};
use std::hash::BuildHasher;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use http::header::{HeaderValue, ACCEPT_ENCODING, VARY};
use http::{HeaderMap, Request, Response};
use http_body_util::Either;
use hyper::body::Incoming;
use tower_http::compression::predicate::DefaultPredicate;
use tower_http::compression::{CompressionBody, CompressionLayer};
use tower_layer::Layer;
use tower_service::Service;

use super::forward::{Forward, Forwarder, ProxyBody, X_REQUEST_ID};
use super::health::Health;
use crate::layer::RequestFacts;
use crate::{Action, StcBody, StcLayer, StcOutcome};

/// The body the proxy sends: compressed by the proxy, or as the layer left it.
pub(crate) type GatewayBody = Either<CompressionBody<StcBody<ProxyBody>>, StcBody<ProxyBody>>;

/// Everything a request needs, shared by all connections.
pub(crate) struct Gateway {
    pub(crate) forwarder: Forwarder,
    pub(crate) stc: StcLayer,
    pub(crate) compression: CompressionLayer<DefaultPredicate>,
    pub(crate) health: Health,
    pub(crate) ids: RequestIds,
}

impl Gateway {
    /// Answers one request from `peer`.
    pub(crate) async fn handle(&self, req: Request<Incoming>, peer: SocketAddr) -> Response<GatewayBody> {
        if let Some(probe) = self.health.probe(req.uri().path()) {
            return self.health.answer(probe).await.map(|b| Either::Right(StcBody::full(b, None)));
        }
        let started = Instant::now();
        let request_id = self.ids.for_request(req.headers());
        let (method, path) = (req.method().clone(), req.uri().path().to_string());
        let mut facts = RequestFacts::of(&req);
        // The proxy reads the body only for a client that asked for STC, and
        // then compresses what it sends itself.
        let identity = facts.wants_stc();
        // HEAD gets the headers GET would get: the proxy asks for GET's body
        // and answers with its headers (hyper sends no body to a HEAD request).
        let head_as_get = identity && facts.head;
        facts.head &= !head_as_get;
        let accept_encoding: HeaderMap =
            req.headers().get_all(ACCEPT_ENCODING).iter().map(|v| (ACCEPT_ENCODING, v.clone())).collect();
        let forward = Forward { identity, head_as_get, request_id: request_id.clone(), peer };
        let response = self.forwarder.send(req, forward).await;
        let (response, outcome) = self.stc.respond(response, &facts).await;
        let response = if identity {
            compress(&self.compression, response, accept_encoding).await.map(Either::Left)
        } else {
            response.map(Either::Right)
        };
        let response = one_vary_star(response);
        log(&method, &path, &response, &outcome, &request_id, started);
        response
    }
}

/// Compresses `response` (gzip or br, tower-http) for a client with these `Accept-Encoding` lines.
async fn compress(
    layer: &CompressionLayer<DefaultPredicate>,
    response: Response<StcBody<ProxyBody>>,
    accept_encoding: HeaderMap,
) -> Response<CompressionBody<StcBody<ProxyBody>>> {
    let mut request = Request::new(());
    *request.headers_mut() = accept_encoding;
    let Ok(response) = layer.layer(Prepared(Some(response))).call(request).await;
    response
}

/// A service that answers its one call with a response made before.
struct Prepared<B>(Option<Response<B>>);

impl<B> Service<Request<()>> for Prepared<B> {
    type Response = Response<B>;
    type Error = Infallible;
    type Future = Ready<Result<Response<B>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _req: Request<()>) -> Self::Future {
        ready(Ok(self.0.take().expect("a prepared response is taken once")))
    }
}

/// `Vary: *` already varies on everything: one line of it, nothing added.
fn one_vary_star<B>(mut response: Response<B>) -> Response<B> {
    let headers = response.headers_mut();
    let star = headers.get_all(VARY).iter().any(|v| v.as_bytes().split(|&b| b == b',').any(|n| n.trim_ascii() == b"*"));
    if star {
        headers.insert(VARY, HeaderValue::from_static("*"));
    }
    response
}

/// The ids of requests that come without a usable `X-Request-Id`.
pub(crate) struct RequestIds {
    seed: RandomState,
    next: AtomicU64,
}

impl RequestIds {
    pub(crate) fn new() -> RequestIds {
        RequestIds { seed: RandomState::new(), next: AtomicU64::new(0) }
    }

    /// The client's `X-Request-Id` when it is 1 to 128 visible ASCII
    /// characters, else a new one (32 hex digits, unique to this process run).
    pub(crate) fn for_request(&self, headers: &HeaderMap) -> HeaderValue {
        if let Some(id) = headers.get(X_REQUEST_ID) {
            let bytes = id.as_bytes();
            if (1..=128).contains(&bytes.len()) && bytes.iter().all(u8::is_ascii_graphic) {
                return id.clone();
            }
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("{:016x}{:016x}", self.seed.hash_one(n), self.seed.hash_one(!n));
        HeaderValue::from_str(&id).expect("hex digits are a valid header value")
    }
}

/// One `tracing` event per request: the human line as its message, and the
/// same facts as fields for a JSON log.
fn log<B>(
    method: &http::Method,
    path: &str,
    response: &Response<B>,
    o: &StcOutcome,
    request_id: &HeaderValue,
    started: Instant,
) {
    let total = started.elapsed();
    let status = response.status().as_u16();
    let tokens_sent = o.tokens.map(|(j, s)| if o.action == Action::Encoded { s } else { j });
    let version = (o.action == Action::Encoded).then_some(o.version).flatten().map(|v| v.name());
    let count = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
    let tokens = o.tokens.map_or("-".to_string(), |(j, _)| format!("{j}->{}", count(tokens_sent)));
    let version_text = version.map_or(String::new(), |v| format!(" version {v}"));
    let line = format!(
        "{method} {path} {status} {} bytes {}->{} tokens {tokens}{version_text} added {:.3}ms total {:.3}ms",
        o.action.name(),
        count(o.bytes_in.or(o.bytes_out)),
        count(o.bytes_out),
        o.elapsed.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
    tracing::info!(
        request_id = request_id.to_str().unwrap_or("-"),
        method = %method,
        path,
        status,
        format = o.action.name(),
        version,
        bytes_in = o.bytes_in.or(o.bytes_out),
        bytes_out = o.bytes_out,
        tokens_json = o.tokens.map(|(j, _)| j),
        tokens_sent,
        added_ms = o.elapsed.as_secs_f64() * 1e3,
        duration_ms = total.as_secs_f64() * 1e3,
        "{line}"
    );
}

//! Forwarding one request to the upstream: the request rewritten for it
//! (hop-by-hop headers, `Host`, `X-Forwarded-*`, the request id, identity
//! when the proxy will read the body), and its response or a JSON error.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, ACCEPT_ENCODING, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;

use super::upstream::Upstream;
use crate::body::BoxError;

/// How one request is sent on: decided by the gateway, for the forwarder.
#[derive(Debug, Clone)]
pub(crate) struct Forward {
    /// Ask the upstream for `Accept-Encoding: identity` and drop
    /// `application/stc+json` from `Accept`: the proxy reads the body.
    pub(crate) identity: bool,
    /// Send a HEAD request as GET (the proxy needs the body GET would get to
    /// answer HEAD with GET's headers).
    pub(crate) head_as_get: bool,
    /// The request id, sent as `X-Request-Id`.
    pub(crate) request_id: HeaderValue,
    /// The client's address, appended to `X-Forwarded-For`.
    pub(crate) peer: SocketAddr,
}

/// Sends requests to the upstream; never fails (a failure is a 502 or 504 with a JSON body).
pub(crate) struct Forwarder {
    pub(crate) client: Client<HttpsConnector<HttpConnector>, Incoming>,
    pub(crate) upstream: Arc<Upstream>,
    pub(crate) response_timeout: Duration,
    pub(crate) body_timeout: Duration,
}

impl Forwarder {
    /// Sends `req` as `forward` says; the response, or a JSON error response.
    pub(crate) fn send(
        &self,
        req: Request<Incoming>,
        forward: Forward,
    ) -> impl Future<Output = Response<ProxyBody>> + Send + 'static {
        let prepared = self.prepare(req, &forward);
        let client = self.client.clone();
        let upstream = self.upstream.clone();
        let (timeout, body_timeout) = (self.response_timeout, self.body_timeout);
        async move {
            let request = match prepared {
                Ok(r) => r,
                Err(e) => {
                    return error_response(
                        StatusCode::BAD_REQUEST,
                        "bad_request_target",
                        &e.to_string(),
                        &upstream.display,
                    )
                }
            };
            let response = match tokio::time::timeout(timeout, client.request(request)).await {
                Err(_) => {
                    let message = format!("no response headers from the upstream within {} ms", timeout.as_millis());
                    return error_response(
                        StatusCode::GATEWAY_TIMEOUT,
                        "upstream_timeout",
                        &message,
                        &upstream.display,
                    );
                }
                Ok(Err(e)) => {
                    if let Some(tls) = crate::tls::tls_failure(&e) {
                        let message = format!("TLS with the upstream failed: {tls}");
                        return error_response(StatusCode::BAD_GATEWAY, "upstream_tls", &message, &upstream.display);
                    }
                    let message = format!("upstream request failed: {}", crate::tls::describe(&e));
                    return error_response(
                        StatusCode::BAD_GATEWAY,
                        "upstream_unavailable",
                        &message,
                        &upstream.display,
                    );
                }
                Ok(Ok(r)) => r,
            };
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            // The client's connection is HTTP/1.1 whatever the upstream spoke.
            parts.version = http::Version::HTTP_11;
            parts.headers.insert(X_REQUEST_ID, forward.request_id);
            Response::from_parts(parts, Either::Left(IdleTimeout::new(body, body_timeout)))
        }
    }

    /// The request as the upstream gets it.
    fn prepare(&self, req: Request<Incoming>, forward: &Forward) -> Result<Request<Incoming>, http::Error> {
        let (mut parts, body) = req.into_parts();
        parts.uri = self.upstream.uri_for(parts.uri.path_and_query())?;
        let original_host = parts.headers.get(HOST).cloned();
        strip_hop_by_hop(&mut parts.headers);
        if forward.identity {
            parts.headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
            let accept = accept_for_upstream(&parts.headers);
            parts.headers.insert(ACCEPT, accept);
        }
        if forward.head_as_get && parts.method == Method::HEAD {
            parts.method = Method::GET;
        }
        if let Ok(host) = HeaderValue::from_str(self.upstream.authority.as_str()) {
            parts.headers.insert(HOST, host);
        }
        if let Some(host) = original_host {
            parts.headers.insert("x-forwarded-host", host);
        }
        parts.headers.insert("x-forwarded-proto", HeaderValue::from_static("http"));
        let peer = forward.peer.ip();
        let forwarded = match parts.headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()) {
            Some(prior) => format!("{prior}, {peer}"),
            None => peer.to_string(),
        };
        if let Ok(v) = HeaderValue::from_str(&forwarded) {
            parts.headers.insert("x-forwarded-for", v);
        }
        parts.headers.insert(X_REQUEST_ID, forward.request_id.clone());
        parts.version = http::Version::HTTP_11;
        Ok(Request::from_parts(parts, body))
    }
}

/// `X-Request-Id`: the request's id, sent to the upstream and back to the client.
pub(crate) const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub(crate) type ProxyBody = Either<IdleTimeout, Full<Bytes>>;

/// An upstream body that fails when no chunk comes for a while, so a stalled
/// upstream cannot hold a client (or the layer's read-ahead) forever.
pub(crate) struct IdleTimeout {
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

pub(crate) fn error_response(status: StatusCode, kind: &str, message: &str, upstream: &str) -> Response<ProxyBody> {
    let body = format!(
        "{{\"error\":{},\"message\":{},\"upstream\":{}}}",
        json_string(kind),
        json_string(message),
        json_string(upstream)
    );
    let length = HeaderValue::from(body.len());
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // Stated, so that the log line counts the bytes sent.
    response.headers_mut().insert(CONTENT_LENGTH, length);
    response
}

pub(crate) fn json_string(s: &str) -> String {
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

//! The tower layer: negotiate per request, transform JSON responses that
//! pass the predicate, stream everything else through.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::header::{
    HeaderValue, ACCEPT_RANGES, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, TRANSFER_ENCODING,
    VARY,
};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::BodyExt;
use stc_core::{Chosen, EncodeOptions, GateOptions, Limits, Profile, Version};
use tower_layer::Layer;
use tower_service::Service;

use crate::body::{BoxError, StcBody};
use crate::negotiate::{Negotiated, Preference, Signal, STC_MEDIA_TYPE};

/// `X-STC-Version`: the STC version of the body (spec section 7), `1` or `2`.
pub const X_STC_VERSION: &str = "x-stc-version";
/// `X-STC-Ratio`: STC tokens / minified JSON tokens, two decimals (spec section 7).
pub const X_STC_RATIO: &str = "x-stc-ratio";
/// `X-STC-Tokenizer`: the tokenizer behind `X-STC-Ratio`.
pub const X_STC_TOKENIZER: &str = "x-stc-tokenizer";

/// Settings of [`StcLayer`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StcConfig {
    /// Largest JSON body transformed, in bytes (default 8 MiB). Up to this
    /// many bytes are buffered; a larger body is streamed through unchanged.
    pub max_body: usize,
    /// The do-no-harm gate: tokenizer and the saving STC must reach.
    pub gate: GateOptions,
    /// Whitespace profile of the STC sent (default compact).
    pub profile: Profile,
    /// Parser limits for upstream JSON (a body beyond them is passed through).
    pub limits: Limits,
    /// The newest STC version sent (default [`Version::LATEST`], version 2):
    /// a client that asks for `application/stc+json; version=2` gets version
    /// 2 unless this is [`Version::V1`]; then it gets version 1, which every
    /// version 2 reader reads. Clients that do not name a version get version 1.
    pub max_version: Version,
}

impl Default for StcConfig {
    fn default() -> Self {
        StcConfig {
            max_body: 8 << 20,
            gate: GateOptions::default(),
            profile: Profile::Compact,
            limits: Limits::default(),
            max_version: Version::LATEST,
        }
    }
}

/// What the layer did with one response; put in the response's extensions
/// so that a server can log it.
#[derive(Debug, Clone, PartialEq)]
pub struct StcOutcome {
    /// What happened.
    pub action: Action,
    /// How the client asked for STC (`None`: it did not, or not for this media type).
    pub signal: Option<Signal>,
    /// The STC version negotiated (`None` when `signal` is); the body is in
    /// it only when `action` is [`Action::Encoded`].
    pub version: Option<Version>,
    /// Bytes of the upstream body, when it was read whole.
    pub bytes_in: Option<usize>,
    /// Bytes of the body sent, when known.
    pub bytes_out: Option<usize>,
    /// Tokens of minified JSON and of STC (by the gate's tokenizer), when counted.
    pub tokens: Option<(usize, usize)>,
    /// Time spent parsing, encoding and counting.
    pub elapsed: Duration,
}

/// What the layer did with a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Action {
    /// Sent as STC.
    Encoded,
    /// The gate found STC would not save enough tokens: the original bytes were sent.
    GateKeptJson,
    /// The body was not valid JSON (or beyond the parser's limits): sent unchanged.
    InvalidJson,
    /// Longer than [`StcConfig::max_body`]: streamed unchanged.
    TooLarge,
    /// Not a candidate (not JSON, not asked for, HEAD, 204/206/304, already
    /// encoded, a range): streamed unchanged.
    Untouched,
}

impl Action {
    /// A short name for logs: `stc`, `gate-json`, `invalid-json`, `too-large`, `untouched`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Encoded => "stc",
            Action::GateKeptJson => "gate-json",
            Action::InvalidJson => "invalid-json",
            Action::TooLarge => "too-large",
            Action::Untouched => "untouched",
        }
    }
}

/// A tower [`Layer`] that sends JSON responses as STC to clients that ask
/// for it (spec section 7). Add it inside a compression layer.
///
/// ```no_run
/// # async fn doc() {
/// let app: axum::Router = axum::Router::new()
///     .route("/users", axum::routing::get(|| async { axum::Json(vec![1, 2, 3]) }))
///     .layer(stc_http::StcLayer::new());
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct StcLayer {
    shared: Arc<Shared>,
}

/// What every service of one layer shares.
#[derive(Debug)]
struct Shared {
    config: StcConfig,
    /// Large bodies encoded at once on the blocking pool: one per CPU, which
    /// bounds the memory of concurrent encodings (each holds the body, its
    /// parsed form and both texts).
    encoders: tokio::sync::Semaphore,
}

impl Default for StcLayer {
    fn default() -> Self {
        StcLayer::with_config(StcConfig::default())
    }
}

impl StcLayer {
    /// A layer with the default [`StcConfig`].
    pub fn new() -> Self {
        StcLayer::default()
    }

    /// A layer with these settings.
    pub fn with_config(config: StcConfig) -> Self {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        StcLayer { shared: Arc::new(Shared { config, encoders: tokio::sync::Semaphore::new(cpus) }) }
    }

    /// This layer with [`StcConfig::max_version`] set: the newest STC
    /// version it sends to clients that ask for it.
    ///
    /// ```
    /// use stc_core::Version;
    /// let layer = stc_http::StcLayer::new().max_version(Version::V1);
    /// assert_eq!(layer.config().max_version, Version::V1);
    /// ```
    #[must_use]
    pub fn max_version(self, version: Version) -> Self {
        StcLayer::with_config(StcConfig { max_version: version, ..self.shared.config })
    }

    /// The settings.
    pub fn config(&self) -> &StcConfig {
        &self.shared.config
    }
}

impl<S> Layer<S> for StcLayer {
    type Service = StcService<S>;

    fn layer(&self, inner: S) -> StcService<S> {
        StcService { inner, shared: self.shared.clone() }
    }
}

/// The service of [`StcLayer`].
#[derive(Debug, Clone)]
pub struct StcService<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> StcService<S> {
    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

/// The future of [`StcService`].
pub type ResponseFuture<B, E> = Pin<Box<dyn Future<Output = Result<Response<StcBody<B>>, E>> + Send>>;

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for StcService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
    S::Error: 'static,
    ResBody: Body<Data = Bytes> + Send + Unpin + 'static,
    ResBody::Error: Into<BoxError>,
{
    type Response = Response<StcBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<ResBody, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<ReqBody>) -> Self::Future {
        let pref = Preference::from_headers(req.headers());
        let head = req.method() == Method::HEAD;
        // Only for the log line of a body that turns out not to be JSON.
        let target = pref.wants_stc().then(|| format!("{} {}", req.method(), req.uri().path()));
        // Inner services (the proxy's forwarder) may read the parsed preference.
        req.extensions_mut().insert(pref.clone());
        let shared = self.shared.clone();
        let future = self.inner.call(req);
        Box::pin(async move {
            let response = future.await?;
            Ok(respond(response, &pref, head, &shared, target.as_deref().unwrap_or("-")).await)
        })
    }
}

/// The lowercase `type/subtype` of a `Content-Type`, and whether its charset (if any) is UTF-8.
fn media_type(headers: &HeaderMap) -> Option<(String, bool)> {
    let value = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    let mut parts = value.split(';');
    let essence = parts.next()?.trim().to_ascii_lowercase();
    let utf8 = parts.all(|p| match p.split_once('=') {
        Some((name, v)) if name.trim().eq_ignore_ascii_case("charset") => {
            let v = v.trim().trim_matches('"');
            v.eq_ignore_ascii_case("utf-8") || v.eq_ignore_ascii_case("utf8")
        }
        _ => true,
    });
    Some((essence, utf8))
}

/// `application/json` or any `*/*+json`, except STC itself.
pub(crate) fn is_json(essence: &str) -> bool {
    essence != STC_MEDIA_TYPE
        && match essence.split_once('/') {
            Some((kind, subtype)) => {
                !kind.is_empty() && (essence == "application/json" || subtype.ends_with("+json") && subtype.len() > 5)
            }
            None => false,
        }
}

/// Adds `Accept` and `Accept-Encoding` to `Vary`, keeping what is there and
/// not repeating a name; the result is one `Vary` line.
fn add_vary(headers: &mut HeaderMap) {
    let mut names: Vec<String> = Vec::new();
    for v in headers.get_all(VARY) {
        let Ok(s) = v.to_str() else { return };
        names.extend(s.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string));
    }
    if names.iter().any(|n| n == "*") {
        return;
    }
    let before = names.len();
    for wanted in ["Accept", "Accept-Encoding"] {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(wanted)) {
            names.push(wanted.to_string());
        }
    }
    if names.len() != before {
        if let Ok(v) = HeaderValue::from_str(&names.join(", ")) {
            headers.insert(VARY, v);
        }
    }
}

fn outcome(action: Action, negotiated: Option<Negotiated>) -> StcOutcome {
    StcOutcome {
        action,
        signal: negotiated.map(|n| n.signal),
        version: negotiated.map(|n| n.version),
        bytes_in: None,
        bytes_out: None,
        tokens: None,
        elapsed: Duration::ZERO,
    }
}

/// The `Content-Type` of an STC body of `version`: version 1 without a
/// parameter (as before versions were negotiated), later ones with
/// `; version=N`.
fn stc_content_type(version: Version) -> HeaderValue {
    match version {
        Version::V1 => HeaderValue::from_static(STC_MEDIA_TYPE),
        Version::V2 => HeaderValue::from_static("application/stc+json; version=2"),
        other => HeaderValue::from_str(&format!("{STC_MEDIA_TYPE}; version={other}"))
            .expect("a version number is a valid header value"),
    }
}

/// Bodies at least this large are parsed and encoded on tokio's blocking pool
/// (when the layer runs on a tokio runtime), smaller ones in place.
const OFFLOAD_BYTES: usize = 128 << 10;

/// Parses, encodes (in `version`) and gates one body; returns the answer and the time it took.
fn gate(body: &[u8], config: &StcConfig, version: Version) -> (Result<stc_core::Gated, stc_core::Error>, Duration) {
    let started = Instant::now();
    let options = EncodeOptions::default().profile(config.profile).limits(config.limits).version(version);
    let gated = stc_core::from_utf8(body).and_then(|text| stc_core::encode_gated(text, &options, &config.gate));
    (gated, started.elapsed())
}

async fn respond<B>(
    response: Response<B>,
    pref: &Preference,
    head: bool,
    shared: &Shared,
    target: &str,
) -> Response<StcBody<B>>
where
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<BoxError>,
{
    let config = &shared.config;
    let (mut parts, body) = response.into_parts();
    let media = media_type(&parts.headers);
    let json = media.as_ref().is_some_and(|(essence, _)| is_json(essence));
    if json || parts.status == StatusCode::NOT_MODIFIED {
        add_vary(&mut parts.headers);
    }
    let negotiated = match &media {
        Some((essence, utf8)) if json && *utf8 => pref.negotiate(essence, config.max_version),
        _ => None,
    };
    let signal = negotiated.map(|n| n.signal);
    let status = parts.status;
    let candidate = signal.is_some()
        && !head
        && !status.is_informational()
        && status != StatusCode::NO_CONTENT
        && status != StatusCode::PARTIAL_CONTENT
        && status != StatusCode::NOT_MODIFIED
        && parts.headers.get(CONTENT_RANGE).is_none()
        && parts.headers.get(CONTENT_ENCODING).is_none_or(|v| v.as_bytes().eq_ignore_ascii_case(b"identity"));
    let declared = parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let (Some(chosen), true) = (negotiated, candidate) else {
        parts
            .extensions
            .insert(StcOutcome { bytes_out: declared.map(|n| n as usize), ..outcome(Action::Untouched, negotiated) });
        return Response::from_parts(parts, StcBody::stream(Bytes::new(), body));
    };
    let Negotiated { signal, version } = chosen;
    if declared.is_some_and(|n| n > config.max_body as u64) {
        parts
            .extensions
            .insert(StcOutcome { bytes_out: declared.map(|n| n as usize), ..outcome(Action::TooLarge, negotiated) });
        return Response::from_parts(parts, StcBody::stream(Bytes::new(), body));
    }

    // Read ahead up to the limit.
    let mut body = body;
    // The declared length (at most `max_body` here) sizes the buffer once.
    let mut buffer = BytesMut::with_capacity(declared.unwrap_or(0) as usize);
    let mut trailers = None;
    loop {
        match body.frame().await {
            None => break,
            Some(Err(e)) => {
                parts.extensions.insert(outcome(Action::Untouched, negotiated));
                return Response::from_parts(parts, StcBody::failed(buffer.freeze(), e.into()));
            }
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => {
                    buffer.extend_from_slice(&data);
                    if buffer.len() > config.max_body {
                        parts.extensions.insert(outcome(Action::TooLarge, negotiated));
                        return Response::from_parts(parts, StcBody::stream(buffer.freeze(), body));
                    }
                }
                Err(frame) => {
                    trailers = frame.into_trailers().ok();
                    if trailers.is_some() {
                        break;
                    }
                }
            },
        }
    }
    let original = buffer.freeze();
    if original.is_empty() {
        // Nothing to encode (a 200 with an empty body is common for DELETE), and nothing to warn about.
        parts.extensions.insert(StcOutcome { bytes_out: Some(0), ..outcome(Action::Untouched, negotiated) });
        return Response::from_parts(parts, StcBody::full(original, trailers));
    }
    let (gated, elapsed) = if original.len() >= OFFLOAD_BYTES && tokio::runtime::Handle::try_current().is_ok() {
        // Large bodies take milliseconds of CPU: keep them off the async workers.
        let _slot = shared.encoders.acquire().await;
        let (body, config) = (original.clone(), *config);
        match tokio::task::spawn_blocking(move || gate(&body, &config, version)).await {
            Ok(done) => done,
            Err(_) => gate(&original, &config, version),
        }
    } else {
        gate(&original, config, version)
    };
    let mut result = StcOutcome {
        bytes_in: Some(original.len()),
        bytes_out: Some(original.len()),
        elapsed,
        ..outcome(Action::GateKeptJson, negotiated)
    };
    let gated = match gated {
        Ok(g) => g,
        Err(e) => {
            tracing::warn!(
                "stc-http: {target}: response body declared as JSON is not valid JSON ({}:{}: {}); sent unchanged",
                e.line().unwrap_or(0),
                e.column().unwrap_or(0),
                e.message()
            );
            result.action = Action::InvalidJson;
            parts.extensions.insert(result);
            return Response::from_parts(parts, StcBody::full(original, trailers));
        }
    };
    result.tokens = Some((gated.json_tokens, gated.stc_tokens));
    if gated.chosen == Chosen::Json || trailers.is_some() {
        // Do no harm: the original bytes, as they came (not re-minified).
        parts.extensions.insert(result);
        return Response::from_parts(parts, StcBody::full(original, trailers));
    }
    let encoded = Bytes::from(gated.text);
    let h = &mut parts.headers;
    h.insert(CONTENT_TYPE, stc_content_type(version));
    if signal == Signal::ContentCoding {
        h.insert(CONTENT_ENCODING, HeaderValue::from_static("stc"));
    }
    h.insert(CONTENT_LENGTH, HeaderValue::from(encoded.len()));
    h.remove(TRANSFER_ENCODING);
    h.insert(X_STC_VERSION, HeaderValue::from_static(version.name()));
    let ratio = gated.stc_tokens as f64 / gated.json_tokens.max(1) as f64;
    h.insert(X_STC_RATIO, HeaderValue::from_str(&format!("{ratio:.2}")).expect("a number is a valid value"));
    h.insert(X_STC_TOKENIZER, HeaderValue::from_static(config.gate.tokenizer.name()));
    // Validators and digests of the JSON bytes no longer describe these bytes.
    if let Some(etag) = h.get(ETAG) {
        if !etag.as_bytes().starts_with(b"W/") {
            let mut weak = b"W/".to_vec();
            weak.extend_from_slice(etag.as_bytes());
            match HeaderValue::from_bytes(&weak) {
                Ok(v) => h.insert(ETAG, v),
                Err(_) => h.remove(ETAG),
            };
        }
    }
    for name in ["content-md5", "content-digest", "repr-digest", "digest"] {
        h.remove(name);
    }
    h.remove(ACCEPT_RANGES);
    result.action = Action::Encoded;
    result.bytes_out = Some(encoded.len());
    parts.extensions.insert(result);
    Response::from_parts(parts, StcBody::full(encoded, None))
}

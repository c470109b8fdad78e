//! The tower layer: negotiate per request, transform JSON responses that
//! pass the predicate, stream everything else through.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::header::{
    HeaderValue, ACCEPT_RANGES, ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, IF_NONE_MATCH,
    TRANSFER_ENCODING, VARY,
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
/// The headers an STC response adds, as listed in `Access-Control-Expose-Headers`:
/// the layer appends them there itself when the response carries
/// `Access-Control-Allow-Origin`. A CORS layer placed *outside* [`StcLayer`]
/// adds its headers after the layer has run, so list these in its exposed
/// headers (tower-http: `CorsLayer::expose_headers`).
pub const EXPOSED_HEADERS: [&str; 3] = ["X-STC-Version", "X-STC-Ratio", "X-STC-Tokenizer"];

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
        // Only to tell, on a 304, which validator the client holds (see `not_modified`).
        let if_none_match: Vec<HeaderValue> =
            if pref.wants_stc() { req.headers().get_all(IF_NONE_MATCH).iter().cloned().collect() } else { Vec::new() };
        // Inner services (the proxy's forwarder) may read the parsed preference.
        req.extensions_mut().insert(pref.clone());
        let shared = self.shared.clone();
        let future = self.inner.call(req);
        Box::pin(async move {
            let response = future.await?;
            let request = RequestFacts { pref: &pref, head, if_none_match: &if_none_match };
            Ok(respond(response, request, &shared, target.as_deref().unwrap_or("-")).await)
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
/// not repeating a name; the result is one `Vary` line. A `Vary` line that is
/// not visible ASCII is kept as it is, and the names go on a line of their own.
fn add_vary(headers: &mut HeaderMap) {
    let mut names: Vec<String> = Vec::new();
    let mut unreadable = false;
    for v in headers.get_all(VARY) {
        match v.to_str() {
            Ok(s) => names.extend(s.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string)),
            Err(_) => unreadable = true,
        }
    }
    if names.iter().any(|n| n == "*") {
        return;
    }
    let missing: Vec<&str> = ["Accept", "Accept-Encoding"]
        .into_iter()
        .filter(|w| !names.iter().any(|n| n.eq_ignore_ascii_case(w)))
        .collect();
    if missing.is_empty() {
        return;
    }
    if unreadable {
        headers.append(VARY, HeaderValue::from_str(&missing.join(", ")).expect("header names are valid values"));
        return;
    }
    names.extend(missing.iter().map(|n| n.to_string()));
    if let Ok(v) = HeaderValue::from_str(&names.join(", ")) {
        headers.insert(VARY, v);
    }
}

/// Lists `added` in `Access-Control-Expose-Headers` when the response carries
/// `Access-Control-Allow-Origin` (the upstream's CORS policy; none is
/// invented), so that a script on another origin can read them. Merged into
/// the existing list without repeating a name. An existing `*` already
/// exposes every header, except to a request with credentials, where it is
/// the literal name `*`: the names are added only when the response allows
/// credentials (`Access-Control-Allow-Credentials: true`).
fn expose(headers: &mut HeaderMap, added: &[&str]) {
    if !headers.contains_key(ACCESS_CONTROL_ALLOW_ORIGIN) {
        return;
    }
    let credentials = headers
        .get(ACCESS_CONTROL_ALLOW_CREDENTIALS)
        .is_some_and(|v| v.as_bytes().trim_ascii().eq_ignore_ascii_case(b"true"));
    let mut names: Vec<String> = Vec::new();
    let mut unreadable = false;
    for v in headers.get_all(ACCESS_CONTROL_EXPOSE_HEADERS) {
        match v.to_str() {
            Ok(s) => names.extend(s.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string)),
            Err(_) => unreadable = true,
        }
    }
    if !credentials && names.iter().any(|n| n == "*") {
        return;
    }
    let missing: Vec<&str> =
        added.iter().copied().filter(|w| !names.iter().any(|n| n.eq_ignore_ascii_case(w))).collect();
    if missing.is_empty() {
        return;
    }
    if unreadable {
        let line = HeaderValue::from_str(&missing.join(", ")).expect("header names are valid values");
        headers.append(ACCESS_CONTROL_EXPOSE_HEADERS, line);
        return;
    }
    names.extend(missing.iter().map(|n| n.to_string()));
    if let Ok(v) = HeaderValue::from_str(&names.join(", ")) {
        headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, v);
    }
}

/// The entity-tags of `If-None-Match` lines (`W/"x"` or `"x"`, as sent);
/// `*` and anything malformed end the scan (the caller then knows less).
fn entity_tags(lines: &[HeaderValue]) -> Vec<&[u8]> {
    let mut tags = Vec::new();
    for line in lines {
        let mut rest = line.as_bytes();
        loop {
            rest = rest.trim_ascii_start();
            while let [b',', tail @ ..] = rest {
                rest = tail.trim_ascii_start();
            }
            if rest.is_empty() {
                break;
            }
            let start = rest;
            let body = rest.strip_prefix(b"W/").unwrap_or(rest);
            let Some(inner) = body.strip_prefix(b"\"") else { return tags };
            let Some(end) = inner.iter().position(|&b| b == b'"') else { return tags };
            let len = start.len() - inner.len() + end + 1;
            tags.push(&start[..len]);
            rest = &start[len..];
        }
    }
    tags
}

/// Whether a strong `ETag` of the upstream stays strong on a 304 answering a
/// request that may get STC: only when the client's `If-None-Match` names that
/// strong tag itself and not its weak form, so the client holds the JSON bytes
/// (the gate kept JSON). Otherwise the client holds the weakened tag of an STC
/// body, or we cannot tell: the weak tag then matches either stored form by
/// weak comparison, which is what a cache uses to pick the response a 304 updates.
fn client_holds_strong(if_none_match: &[HeaderValue], etag: &[u8]) -> bool {
    let tags = entity_tags(if_none_match);
    let weak: Vec<u8> = [b"W/".as_slice(), etag].concat();
    tags.contains(&etag) && !tags.contains(&weak.as_slice())
}

/// What the layer needs to know about the request when the response comes.
#[derive(Clone, Copy)]
struct RequestFacts<'a> {
    pref: &'a Preference,
    head: bool,
    /// The request's `If-None-Match` lines, kept only when it asked for STC.
    if_none_match: &'a [HeaderValue],
}

/// A 304 answering a request that may get STC gets the headers the 200 would
/// have had, where they do not depend on the body: the strong `ETag` made weak
/// (unless the client's `If-None-Match` shows it holds the JSON bytes, see
/// [`client_holds_strong`]), and none of the headers that describe the JSON
/// bytes (`Content-Type`, `Content-Length`, digests, `Accept-Ranges`), since a
/// cache copies a 304's headers onto the response it stored: a stored STC
/// response must not become `application/json`. No `X-STC-*` header: whether
/// the gate would have sent STC, and at what ratio, depends on the body; the
/// cache keeps those of the response it stored. (`Vary` is added by the caller.)
fn not_modified(h: &mut HeaderMap, if_none_match: &[HeaderValue]) {
    if let Some(etag) = h.get(ETAG) {
        if !etag.as_bytes().starts_with(b"W/") && !client_holds_strong(if_none_match, etag.as_bytes()) {
            weaken_etag(h);
        }
    }
    for name in [CONTENT_TYPE, CONTENT_LENGTH, ACCEPT_RANGES] {
        h.remove(name);
    }
    remove_digests(h);
}

/// `"v1"` becomes `W/"v1"` (a weak tag stays as it is).
fn weaken_etag(h: &mut HeaderMap) {
    if let Some(etag) = h.get(ETAG) {
        if !etag.as_bytes().starts_with(b"W/") {
            let weak = [b"W/".as_slice(), etag.as_bytes()].concat();
            match HeaderValue::from_bytes(&weak) {
                Ok(v) => h.insert(ETAG, v),
                Err(_) => h.remove(ETAG),
            };
        }
    }
}

/// Digests of the JSON bytes no longer describe the bytes sent.
fn remove_digests(h: &mut HeaderMap) {
    for name in ["content-md5", "content-digest", "repr-digest", "digest"] {
        h.remove(name);
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
    request: RequestFacts<'_>,
    shared: &Shared,
    target: &str,
) -> Response<StcBody<B>>
where
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<BoxError>,
{
    let config = &shared.config;
    let RequestFacts { pref, head, if_none_match } = request;
    let (mut parts, body) = response.into_parts();
    let media = media_type(&parts.headers);
    let json = media.as_ref().is_some_and(|(essence, _)| is_json(essence));
    if json || parts.status == StatusCode::NOT_MODIFIED {
        add_vary(&mut parts.headers);
    }
    let negotiated = match &media {
        Some((essence, utf8)) if json && *utf8 => pref.negotiate(essence, config.max_version),
        // A 304 need not say its media type: what a JSON response would have got.
        None if parts.status == StatusCode::NOT_MODIFIED => pref.negotiate("application/json", config.max_version),
        _ => None,
    };
    if parts.status == StatusCode::NOT_MODIFIED && negotiated.is_some() {
        not_modified(&mut parts.headers, if_none_match);
    }
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
    expose(h, &EXPOSED_HEADERS);
    // Validators and digests of the JSON bytes no longer describe these bytes.
    weaken_etag(h);
    remove_digests(h);
    h.remove(ACCEPT_RANGES);
    result.action = Action::Encoded;
    result.bytes_out = Some(encoded.len());
    parts.extensions.insert(result);
    Response::from_parts(parts, StcBody::full(encoded, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(values: &[&str]) -> Vec<HeaderValue> {
        values.iter().map(|v| HeaderValue::from_str(v).unwrap()).collect()
    }

    #[test]
    fn if_none_match_lists() {
        let tags = lines(&["\"a\", W/\"b,c\"", " ,W/\"d\" ,, \"\""]);
        assert_eq!(entity_tags(&tags), [&b"\"a\""[..], b"W/\"b,c\"", b"W/\"d\"", b"\"\""]);
        // `*` or a malformed item ends the scan.
        assert_eq!(entity_tags(&lines(&["\"a\", *, \"b\""])), [&b"\"a\""[..]]);
        assert_eq!(entity_tags(&lines(&["\"a\", W/x, \"b\""])), [&b"\"a\""[..]]);
        assert_eq!(entity_tags(&lines(&["\"unterminated"])), Vec::<&[u8]>::new());

        assert!(client_holds_strong(&lines(&["\"x\""]), b"\"x\""));
        assert!(client_holds_strong(&lines(&["\"y\"", "\"x\""]), b"\"x\""));
        assert!(!client_holds_strong(&lines(&["W/\"x\""]), b"\"x\""));
        assert!(!client_holds_strong(&lines(&["\"x\", W/\"x\""]), b"\"x\""));
        assert!(!client_holds_strong(&lines(&["*"]), b"\"x\""));
        assert!(!client_holds_strong(&[], b"\"x\""));
    }

    #[test]
    fn expose_merges_and_respects_the_wildcard() {
        let exposed = |pairs: &[(&str, &str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.append(http::HeaderName::from_bytes(k.as_bytes()).unwrap(), HeaderValue::from_str(v).unwrap());
            }
            expose(&mut h, &EXPOSED_HEADERS);
            h.get_all(ACCESS_CONTROL_EXPOSE_HEADERS).iter().map(|v| v.to_str().unwrap().to_string()).collect::<Vec<_>>()
        };
        assert!(exposed(&[]).is_empty(), "no CORS policy, none invented");
        let origin = ("access-control-allow-origin", "https://a.example");
        assert_eq!(exposed(&[origin]), ["X-STC-Version, X-STC-Ratio, X-STC-Tokenizer"]);
        let two = [origin, ("access-control-expose-headers", "ETag"), ("access-control-expose-headers", "X-STC-RATIO")];
        assert_eq!(exposed(&two), ["ETag, X-STC-RATIO, X-STC-Version, X-STC-Tokenizer"]);
        assert_eq!(exposed(&[origin, ("access-control-expose-headers", "*")]), ["*"]);
        let credentials =
            [origin, ("access-control-allow-credentials", "true"), ("access-control-expose-headers", "*")];
        assert_eq!(exposed(&credentials), ["*, X-STC-Version, X-STC-Ratio, X-STC-Tokenizer"]);
    }
}

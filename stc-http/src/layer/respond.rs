//! One response through the layer: negotiate against its media type, decide
//! whether it is a candidate, read it ahead, encode and gate, and write the
//! headers of what is sent.

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, IF_NONE_MATCH};
use http::response::Parts;
use http::{Method, Request, Response, StatusCode};
use http_body::Body;
use stc_core::Chosen;

use super::collect::{collect, Collected};
use super::encode::encode;
use super::headers::{add_vary, is_json, media_type, rewritten_body, stc_body};
use super::not_modified::not_modified;
use super::Shared;
use crate::body::{BoxError, StcBody};
use crate::negotiate::{Negotiated, Preference};
use crate::{Action, StcOutcome};

/// What the layer needs to know about the request when its response comes,
/// read from the request before it is passed on.
#[derive(Debug, Clone)]
pub(crate) struct RequestFacts {
    /// What the request said about STC.
    pub(crate) pref: Preference,
    /// A HEAD request: its response has no body to encode.
    pub(crate) head: bool,
    /// The request's `If-None-Match` lines, kept only when it asked for STC
    /// (to tell, on a 304, which validator the client holds).
    pub(crate) if_none_match: Vec<HeaderValue>,
    /// `METHOD /path`, kept only when it asked for STC (for the warning about a body that is not JSON).
    pub(crate) target: Option<String>,
}

impl RequestFacts {
    /// Reads the facts of `req`.
    pub(crate) fn of<B>(req: &Request<B>) -> RequestFacts {
        let pref = Preference::from_headers(req.headers());
        let wants = pref.wants_stc();
        RequestFacts {
            head: req.method() == Method::HEAD,
            if_none_match: if wants {
                req.headers().get_all(IF_NONE_MATCH).iter().cloned().collect()
            } else {
                Vec::new()
            },
            target: wants.then(|| format!("{} {}", req.method(), req.uri().path())),
            pref,
        }
    }

    /// Whether the request asked for STC at all (for some media type).
    pub(crate) fn wants_stc(&self) -> bool {
        self.pref.wants_stc()
    }
}

/// Negotiates against the response's media type and adds what every JSON
/// response (and every 304) gets, whether or not it is then encoded.
fn negotiate(parts: &mut Parts, request: &RequestFacts, shared: &Shared) -> Option<Negotiated> {
    let max_version = shared.config.max_version;
    let media = media_type(&parts.headers);
    let json = media.as_ref().is_some_and(|(essence, _)| is_json(essence));
    let not_modified_status = parts.status == StatusCode::NOT_MODIFIED;
    if json || not_modified_status {
        add_vary(&mut parts.headers);
    }
    let negotiated = match &media {
        Some((essence, utf8)) if json && *utf8 => request.pref.negotiate(essence, max_version),
        // A 304 need not say its media type: what a JSON response would have got.
        None if not_modified_status => request.pref.negotiate("application/json", max_version),
        _ => None,
    };
    if not_modified_status && negotiated.is_some() {
        not_modified(&mut parts.headers, &request.if_none_match);
    }
    negotiated
}

/// Whether a response negotiated as STC has a body the layer may replace.
fn is_candidate(parts: &Parts, head: bool) -> bool {
    let status = parts.status;
    !head
        && !status.is_informational()
        && status != StatusCode::NO_CONTENT
        && status != StatusCode::PARTIAL_CONTENT
        && status != StatusCode::NOT_MODIFIED
        && parts.headers.get(CONTENT_RANGE).is_none()
        && parts.headers.get(CONTENT_ENCODING).is_none_or(|v| v.as_bytes().eq_ignore_ascii_case(b"identity"))
}

/// Sends `response` on, as STC when the request asked for it and the gate
/// agrees; returns what was done.
pub(crate) async fn respond<B>(
    response: Response<B>,
    request: &RequestFacts,
    shared: &Shared,
) -> (Response<StcBody<B>>, StcOutcome)
where
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<BoxError>,
{
    let (mut parts, body) = response.into_parts();
    let negotiated = negotiate(&mut parts, request, shared);
    let declared = parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let untouched = |action| StcOutcome::new(action, negotiated).sent(declared.map(|n| n as usize));
    let chosen = match negotiated {
        Some(chosen) if is_candidate(&parts, request.head) => chosen,
        _ => return (Response::from_parts(parts, StcBody::stream(Bytes::new(), body)), untouched(Action::Untouched)),
    };
    let max_body = shared.config.max_body;
    if declared.is_some_and(|n| n > max_body as u64) {
        return (Response::from_parts(parts, StcBody::stream(Bytes::new(), body)), untouched(Action::TooLarge));
    }
    let (original, trailers) = match collect(body, declared, max_body).await {
        Collected::Whole(bytes, trailers) => (bytes, trailers),
        Collected::TooLarge(prefix, rest) => {
            let outcome = StcOutcome::new(Action::TooLarge, negotiated);
            return (Response::from_parts(parts, StcBody::stream(prefix, rest)), outcome);
        }
        Collected::Failed(prefix, error) => {
            let outcome = StcOutcome::new(Action::Untouched, negotiated);
            return (Response::from_parts(parts, StcBody::failed(prefix, error)), outcome);
        }
    };
    if original.is_empty() {
        // Nothing to encode (a 200 with an empty body is common for DELETE), and nothing to warn about.
        let outcome = StcOutcome::new(Action::Untouched, negotiated).sent(Some(0));
        return (Response::from_parts(parts, StcBody::full(original, trailers)), outcome);
    }
    let (gated, elapsed) = encode(&original, shared, chosen.version).await;
    let mut outcome = StcOutcome {
        bytes_in: Some(original.len()),
        bytes_out: Some(original.len()),
        elapsed,
        ..StcOutcome::new(Action::GateKeptJson, negotiated)
    };
    let gated = match gated {
        Ok(g) => g,
        Err(e) => {
            tracing::warn!(
                "{}: response body declared as JSON is not valid JSON ({}:{}: {}); sent unchanged",
                request.target.as_deref().unwrap_or("-"),
                e.line().unwrap_or(0),
                e.column().unwrap_or(0),
                e.message()
            );
            outcome.action = Action::InvalidJson;
            return (Response::from_parts(parts, StcBody::full(original, trailers)), outcome);
        }
    };
    outcome.tokens = Some((gated.json_tokens, gated.stc_tokens));
    if trailers.is_some() {
        // Trailers may describe the bytes (a digest): they go with the bytes as they came.
        return (Response::from_parts(parts, StcBody::full(original, trailers)), outcome);
    }
    if gated.chosen == Chosen::Json {
        // Do no harm: the gate compared STC with minified JSON, so the client
        // that asked for STC gets minified JSON (the original bytes when they
        // are minified already, with their validators intact).
        if gated.text.as_bytes() == original {
            return (Response::from_parts(parts, StcBody::full(original, None)), outcome);
        }
        let minified = Bytes::from(gated.text);
        rewritten_body(&mut parts.headers, minified.len());
        outcome.bytes_out = Some(minified.len());
        return (Response::from_parts(parts, StcBody::full(minified, None)), outcome);
    }
    let encoded = Bytes::from(gated.text);
    let ratio = gated.stc_tokens as f64 / gated.json_tokens.max(1) as f64;
    stc_body(&mut parts.headers, chosen, encoded.len(), ratio, shared.config.gate.tokenizer.name());
    outcome.action = Action::Encoded;
    outcome.bytes_out = Some(encoded.len());
    (Response::from_parts(parts, StcBody::full(encoded, None)), outcome)
}

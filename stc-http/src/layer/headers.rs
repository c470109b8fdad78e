//! The response headers the layer reads and writes: the media type, `Vary`,
//! CORS exposure, validators and digests, and the headers of an STC body.

use http::header::{
    HeaderValue, ACCEPT_RANGES, ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG, TRANSFER_ENCODING, VARY,
};
use http::HeaderMap;
use stc_core::Version;

use crate::negotiate::{Negotiated, Signal, STC_MEDIA_TYPE};

/// `X-STC-Version`: the STC version of the body (spec section 7), `1` or `2`.
pub const X_STC_VERSION: &str = "x-stc-version";
/// `X-STC-Ratio`: STC tokens / minified JSON tokens, two decimals (spec section 7).
pub const X_STC_RATIO: &str = "x-stc-ratio";
/// `X-STC-Tokenizer`: the tokenizer behind `X-STC-Ratio`.
pub const X_STC_TOKENIZER: &str = "x-stc-tokenizer";
/// The headers an STC response adds, as listed in `Access-Control-Expose-Headers`:
/// the layer appends them there itself when the response carries
/// `Access-Control-Allow-Origin`. A CORS layer placed *outside* [`StcLayer`](crate::StcLayer)
/// adds its headers after the layer has run, so list these in its exposed
/// headers (tower-http: `CorsLayer::expose_headers`).
pub const EXPOSED_HEADERS: [&str; 3] = ["X-STC-Version", "X-STC-Ratio", "X-STC-Tokenizer"];

/// The lowercase `type/subtype` of a `Content-Type`, and whether its charset (if any) is UTF-8.
pub(crate) fn media_type(headers: &HeaderMap) -> Option<(String, bool)> {
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
pub(crate) fn add_vary(headers: &mut HeaderMap) {
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

/// `"v1"` becomes `W/"v1"` (a weak tag stays as it is).
pub(crate) fn weaken_etag(h: &mut HeaderMap) {
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

/// Digests of the upstream's bytes no longer describe the bytes sent.
pub(crate) fn remove_digests(h: &mut HeaderMap) {
    for name in ["content-md5", "content-digest", "repr-digest", "digest"] {
        h.remove(name);
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

/// The headers of a body that is not the upstream's bytes but describes the
/// same document (`len` bytes): the length, and validators and digests of
/// those bytes made weak or removed.
pub(crate) fn rewritten_body(h: &mut HeaderMap, len: usize) {
    h.insert(CONTENT_LENGTH, HeaderValue::from(len));
    h.remove(TRANSFER_ENCODING);
    weaken_etag(h);
    remove_digests(h);
    h.remove(ACCEPT_RANGES);
}

/// The headers of an STC body of `len` bytes sent as `chosen`: its type (and
/// coding), version, token ratio and tokenizer, exposed to CORS scripts.
pub(crate) fn stc_body(h: &mut HeaderMap, chosen: Negotiated, len: usize, ratio: f64, tokenizer: &'static str) {
    h.insert(CONTENT_TYPE, stc_content_type(chosen.version));
    if chosen.signal == Signal::ContentCoding {
        h.insert(CONTENT_ENCODING, HeaderValue::from_static("stc"));
    }
    h.insert(X_STC_VERSION, HeaderValue::from_static(chosen.version.name()));
    h.insert(X_STC_RATIO, HeaderValue::from_str(&format!("{ratio:.2}")).expect("a number is a valid value"));
    h.insert(X_STC_TOKENIZER, HeaderValue::from_static(tokenizer));
    expose(h, &EXPOSED_HEADERS);
    rewritten_body(h, len);
}

#[cfg(test)]
mod tests {
    use super::*;

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

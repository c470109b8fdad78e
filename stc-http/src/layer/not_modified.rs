//! 304 Not Modified to a request that may get STC: the validator the client
//! stored, and none of the headers that describe the JSON bytes.

use http::header::{HeaderValue, ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_TYPE, ETAG};
use http::HeaderMap;

use super::headers::{remove_digests, weaken_etag};

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
/// strong tag itself and not its weak form, so the client holds the upstream's
/// own bytes (the gate kept JSON that was minified already). Otherwise the client holds the weakened tag of an STC
/// body, or we cannot tell: the weak tag then matches either stored form by
/// weak comparison, which is what a cache uses to pick the response a 304 updates.
fn client_holds_strong(if_none_match: &[HeaderValue], etag: &[u8]) -> bool {
    let tags = entity_tags(if_none_match);
    let weak: Vec<u8> = [b"W/".as_slice(), etag].concat();
    tags.contains(&etag) && !tags.contains(&weak.as_slice())
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
pub(crate) fn not_modified(h: &mut HeaderMap, if_none_match: &[HeaderValue]) {
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
}

//! Content negotiation: does this request want STC, and by which signal?
//!
//! The request's `Accept` and `Accept-Encoding` are parsed once, when the
//! request passes the layer (like tower-http's compression does); the choice
//! is made when the response's media type is known. The rules are those of
//! spec section 7:
//!
//! - Only an explicit `application/stc+json` in `Accept` (or an explicit `stc`
//!   coding in `Accept-Encoding`) asks for STC. Wildcards (`*/*`,
//!   `application/*`, `*`) never do: a client that did not name STC never gets it.
//! - `q=0` on either explicit entry refuses STC, whatever the other header says.
//! - With `application/stc+json;q=a` in `Accept`, STC is sent when `a` is at
//!   least the q-value `Accept` gives the response's own media type (most
//!   specific matching range, `0` when none matches); ties go to STC, since the
//!   client named it.
//! - `Accept-Encoding: stc` is used only when `Accept` does not mention
//!   `application/stc+json`; it is answered with `Content-Encoding: stc`.

use http::header::{ACCEPT, ACCEPT_ENCODING};
use http::HeaderMap;

/// The media type of STC.
pub const STC_MEDIA_TYPE: &str = "application/stc+json";

/// How a response is sent as STC, if at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    /// `Content-Type: application/stc+json` (asked for by `Accept`).
    MediaType,
    /// `Content-Type: application/stc+json` plus `Content-Encoding: stc`
    /// (asked for by `Accept-Encoding`, as ADR-066 describes).
    ContentCoding,
}

/// A q-value in thousandths (`q=0.5` is 500), as RFC 9110 section 12.4.2 allows three decimals.
type Q = u16;

/// One media range of `Accept` (parameters other than `q` are ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    /// Lowercased type, or `*`.
    kind: String,
    /// Lowercased subtype, or `*`.
    subtype: String,
    q: Q,
}

/// What a request said about STC, parsed once from its headers.
///
/// ```
/// use http::HeaderMap;
/// use stc_http::{Preference, Signal};
/// let mut h = HeaderMap::new();
/// h.insert("accept", "application/stc+json, application/json;q=0.9".parse().unwrap());
/// let p = Preference::from_headers(&h);
/// assert_eq!(p.choose("application/json"), Some(Signal::MediaType));
/// h.insert("accept", "*/*".parse().unwrap());
/// assert_eq!(Preference::from_headers(&h).choose("application/json"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preference {
    /// q of the explicit `application/stc+json` range of `Accept`, if present.
    accept_stc: Option<Q>,
    /// The other ranges of `Accept`, kept only when `accept_stc` is present.
    ranges: Vec<Range>,
    /// q of the explicit `stc` coding of `Accept-Encoding`, if present.
    encoding_stc: Option<Q>,
}

impl Preference {
    /// Parses `Accept` and `Accept-Encoding`. Costs a substring scan when
    /// neither mentions `stc` (the common case).
    pub fn from_headers(headers: &HeaderMap) -> Preference {
        let mut pref = Preference::default();
        for value in headers.get_all(ACCEPT) {
            let Ok(text) = value.to_str() else { continue };
            if !contains_ignore_case(text, "stc") && pref.accept_stc.is_none() {
                // Ranges are kept only when STC is named; a later Accept line may still name it.
                pref.ranges.extend(parse_ranges(text));
                continue;
            }
            for range in parse_ranges(text) {
                if range.kind == "application" && range.subtype == "stc+json" {
                    // A repeated range: the first one counts.
                    pref.accept_stc.get_or_insert(range.q);
                } else {
                    pref.ranges.push(range);
                }
            }
        }
        if pref.accept_stc.is_none() {
            pref.ranges = Vec::new();
        }
        for value in headers.get_all(ACCEPT_ENCODING) {
            let Ok(text) = value.to_str() else { continue };
            if !contains_ignore_case(text, "stc") {
                continue;
            }
            for item in text.split(',') {
                let mut parts = item.split(';');
                let coding = parts.next().unwrap_or("").trim();
                if coding.eq_ignore_ascii_case("stc") {
                    let q = parse_q(parts).unwrap_or(0);
                    pref.encoding_stc.get_or_insert(q);
                }
            }
        }
        pref
    }

    /// True when the request names STC with a non-zero q in either header,
    /// so that some JSON response might be sent as STC.
    pub fn wants_stc(&self) -> bool {
        match (self.accept_stc, self.encoding_stc) {
            (Some(0), _) | (_, Some(0)) => false,
            (Some(_), _) | (_, Some(_)) => true,
            _ => false,
        }
    }

    /// Decides for a response of media type `essence` (lowercase
    /// `type/subtype`, no parameters): `None` means send it as it is.
    pub fn choose(&self, essence: &str) -> Option<Signal> {
        if !self.wants_stc() {
            return None;
        }
        match self.accept_stc {
            Some(q) => (q >= self.q_of(essence)).then_some(Signal::MediaType),
            None => Some(Signal::ContentCoding),
        }
    }

    /// The q-value `Accept` gives `essence` by its most specific matching
    /// range (RFC 9110 section 12.5.1), 0 when none matches.
    fn q_of(&self, essence: &str) -> Q {
        let (kind, subtype) = essence.split_once('/').unwrap_or((essence, ""));
        let mut best: Option<(u8, Q)> = None;
        for r in &self.ranges {
            let specificity = if r.kind == kind && r.subtype == subtype {
                2
            } else if r.kind == kind && r.subtype == "*" {
                1
            } else if r.kind == "*" && r.subtype == "*" {
                0
            } else {
                continue;
            };
            if best.is_none_or(|(s, _)| specificity > s) {
                best = Some((specificity, r.q));
            }
        }
        best.map_or(0, |(_, q)| q)
    }
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Parses a comma-separated list of media ranges; malformed items are skipped.
fn parse_ranges(text: &str) -> impl Iterator<Item = Range> + '_ {
    text.split(',').filter_map(|item| {
        let mut parts = item.split(';');
        let media = parts.next()?.trim();
        let (kind, subtype) = media.split_once('/')?;
        let (kind, subtype) = (kind.trim(), subtype.trim());
        if kind.is_empty() || subtype.is_empty() || (kind == "*" && subtype != "*") {
            return None;
        }
        let q = parse_q(parts)?;
        Some(Range { kind: kind.to_ascii_lowercase(), subtype: subtype.to_ascii_lowercase(), q })
    })
}

/// Finds `q=` among parameters: 1000 when absent, `None` when malformed
/// (RFC 9110: `0[.ddd]` or `1[.000]`), so a malformed item is ignored.
fn parse_q<'a>(params: impl Iterator<Item = &'a str>) -> Option<Q> {
    for param in params {
        let Some((name, value)) = param.split_once('=') else { continue };
        if !name.trim().eq_ignore_ascii_case("q") {
            continue;
        }
        let value = value.trim();
        let (int, frac) = value.split_once('.').unwrap_or((value, ""));
        if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut thousandths: Q = 0;
        for (i, b) in frac.bytes().enumerate() {
            thousandths += Q::from(b - b'0') * [100, 10, 1][i];
        }
        return match int {
            "0" => Some(thousandths),
            "1" if thousandths == 0 => Some(1000),
            _ => None,
        };
    }
    Some(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pref(accept: Option<&str>, encoding: Option<&str>) -> Preference {
        let mut h = HeaderMap::new();
        if let Some(a) = accept {
            h.insert(ACCEPT, a.parse().unwrap());
        }
        if let Some(e) = encoding {
            h.insert(ACCEPT_ENCODING, e.parse().unwrap());
        }
        Preference::from_headers(&h)
    }

    #[test]
    fn q_values() {
        assert_eq!(parse_q(["q=0.5"].into_iter()), Some(500));
        assert_eq!(parse_q([" Q = 1 "].into_iter()), Some(1000));
        assert_eq!(parse_q(["q=1.000"].into_iter()), Some(1000));
        assert_eq!(parse_q(["q=0.001"].into_iter()), Some(1));
        assert_eq!(parse_q(["q=1.5", "x"].into_iter()), None);
        assert_eq!(parse_q(["q=0.0001"].into_iter()), None);
        assert_eq!(parse_q(["q=abc"].into_iter()), None);
        assert_eq!(parse_q(["charset=utf-8"].into_iter()), Some(1000));
    }

    type Case<'a> = (Option<&'a str>, Option<&'a str>, &'a str, Option<Signal>);

    #[test]
    fn choices() {
        let json = "application/json";
        let cases: &[Case] = &[
            (None, None, json, None),
            (Some("application/stc+json"), None, json, Some(Signal::MediaType)),
            (Some("Application/STC+JSON"), None, json, Some(Signal::MediaType)),
            (Some("application/stc+json, application/json;q=0.9"), None, json, Some(Signal::MediaType)),
            (Some("application/json, application/stc+json"), None, json, Some(Signal::MediaType)),
            (Some("application/stc+json;q=0.5, application/json"), None, json, None),
            (Some("application/stc+json;q=0.5, */*"), None, json, None),
            (Some("application/stc+json;q=0.5, application/*;q=0.4, */*"), None, json, Some(Signal::MediaType)),
            (Some("application/stc+json;q=0"), None, json, None),
            (Some("application/stc+json;q=0"), Some("stc"), json, None),
            (Some("*/*"), None, json, None),
            (Some("application/*"), None, json, None),
            (Some("*/*"), Some("gzip, *"), json, None),
            (None, Some("stc"), json, Some(Signal::ContentCoding)),
            (None, Some("gzip, STC;q=0.5"), json, Some(Signal::ContentCoding)),
            (None, Some("stc;q=0"), json, None),
            (Some("application/json"), Some("stc"), json, Some(Signal::ContentCoding)),
            (Some("application/stc+json"), Some("stc;q=0"), json, None),
            (Some("application/stc+json"), Some("stc"), json, Some(Signal::MediaType)),
            (Some("application/stc+json;q=0.2, application/json"), Some("stc"), json, None),
            (Some("application/stc+json;q=2"), None, json, None),
            (Some("application/stc+json;q=0.9, application/problem+json"), None, "application/problem+json", None),
            (
                Some("application/stc+json, application/problem+json;q=0.5"),
                None,
                "application/problem+json",
                Some(Signal::MediaType),
            ),
        ];
        for (accept, encoding, essence, expected) in cases {
            assert_eq!(pref(*accept, *encoding).choose(essence), *expected, "{accept:?} {encoding:?} {essence}");
        }
    }

    #[test]
    fn accept_over_several_lines() {
        let mut h = HeaderMap::new();
        h.append(ACCEPT, "application/json;q=0.9".parse().unwrap());
        h.append(ACCEPT, "application/stc+json".parse().unwrap());
        assert_eq!(Preference::from_headers(&h).choose("application/json"), Some(Signal::MediaType));
        let mut h = HeaderMap::new();
        h.append(ACCEPT, "application/json".parse().unwrap());
        h.append(ACCEPT, "application/stc+json;q=0.8".parse().unwrap());
        assert_eq!(Preference::from_headers(&h).choose("application/json"), None);
    }
}

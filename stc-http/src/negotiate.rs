//! Content negotiation: does this request want STC, in which version, and by which signal?
//!
//! The request's `Accept` and `Accept-Encoding` are parsed once, when the
//! request passes the layer (like tower-http's compression does); the choice
//! is made when the response's media type is known. The rules are those of
//! spec section 7:
//!
//! - Only an explicit `application/stc+json` in `Accept` (or an explicit `stc`
//!   coding in `Accept-Encoding`) asks for STC. Wildcards (`*/*`,
//!   `application/*`, `*`) never do: a client that did not name STC never gets it.
//! - `q=0` refuses: `stc;q=0` in `Accept-Encoding`, or `application/stc+json`
//!   ranges in `Accept` that all have `q=0`, mean no STC, whatever the other
//!   header says.
//! - Versions: an `application/stc+json` range asks for the version its
//!   `version` parameter names (`version=2`, also quoted); without the
//!   parameter it asks for version 1. A value that is not a version this
//!   crate knows (`version=3`, `version=x`, `version=`) makes the range ask
//!   for version 1, which every STC reader reads. A range for version *n*
//!   also accepts every older version at its q (a version 2 reader reads
//!   version 1), unless a range names that older version itself: then that
//!   range's q counts. The version sent is the acceptable one (q > 0, at most
//!   the server's maximum) with the highest q; ties go to the newer version.
//! - With `application/stc+json;q=a` in `Accept` (`a` the q of the version
//!   chosen), STC is sent when `a` is at least the q-value `Accept` gives the
//!   response's own media type (most specific matching range, `0` when none
//!   matches); ties go to STC, since the client named it.
//! - `Accept-Encoding: stc` is used only when `Accept` does not mention
//!   `application/stc+json`; it is answered with `Content-Encoding: stc` and
//!   always in version 1 (a content coding has no parameters).

use http::header::{ACCEPT, ACCEPT_ENCODING};
use http::HeaderMap;
use stc_core::Version;

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

/// What [`Preference::negotiate`] decided for one response: the signal and
/// the STC version to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Negotiated {
    /// How the response says it is STC.
    pub signal: Signal,
    /// The STC version of the body.
    pub version: Version,
}

/// A q-value in thousandths (`q=0.5` is 500), as RFC 9110 section 12.4.2 allows three decimals.
type Q = u16;

/// One media range of `Accept` other than STC (parameters other than `q` are ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    /// Lowercased type, or `*`.
    kind: String,
    /// Lowercased subtype, or `*`.
    subtype: String,
    q: Q,
}

/// One `application/stc+json` range of `Accept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StcRange {
    /// The version it asks for (1 when the parameter is absent, unknown or malformed).
    version: Version,
    q: Q,
}

/// What a request said about STC, parsed once from its headers.
///
/// ```
/// use http::HeaderMap;
/// use stc_core::Version;
/// use stc_http::{Negotiated, Preference, Signal};
/// let mut h = HeaderMap::new();
/// h.insert("accept", "application/stc+json, application/json;q=0.9".parse().unwrap());
/// let p = Preference::from_headers(&h);
/// assert_eq!(p.choose("application/json"), Some(Signal::MediaType));
/// h.insert("accept", "application/stc+json; version=2, application/json;q=0.9".parse().unwrap());
/// let p = Preference::from_headers(&h);
/// let v2 = Negotiated { signal: Signal::MediaType, version: Version::V2 };
/// assert_eq!(p.negotiate("application/json", Version::V2), Some(v2));
/// // A server that serves version 1 at most sends version 1, which a version 2 reader reads.
/// assert_eq!(p.negotiate("application/json", Version::V1).map(|n| n.version), Some(Version::V1));
/// h.insert("accept", "*/*".parse().unwrap());
/// assert_eq!(Preference::from_headers(&h).choose("application/json"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preference {
    /// The explicit `application/stc+json` ranges of `Accept`: the first one
    /// of each version (a repeated range: the first one counts), so at most
    /// one per version.
    accept_stc: Vec<StcRange>,
    /// The other ranges of `Accept`, kept only when `accept_stc` is not empty.
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
            if !contains_ignore_case(text, "stc") && pref.accept_stc.is_empty() {
                // Ranges are kept only when STC is named; a later Accept line may still name it.
                pref.ranges.extend(parse_ranges(text).map(|(range, _)| range));
                continue;
            }
            for (range, version) in parse_ranges(text) {
                if range.kind == "application" && range.subtype == "stc+json" {
                    if !pref.accept_stc.iter().any(|r| r.version == version) {
                        pref.accept_stc.push(StcRange { version, q: range.q });
                    }
                } else {
                    pref.ranges.push(range);
                }
            }
        }
        if pref.accept_stc.is_empty() {
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
        if self.encoding_stc == Some(0) {
            return false;
        }
        if !self.accept_stc.is_empty() {
            return self.accept_stc.iter().any(|r| r.q > 0);
        }
        self.encoding_stc.is_some()
    }

    /// The q `Accept` gives STC version `v`: the (first) range naming `v`
    /// decides; without one, the highest q of the ranges that name a newer
    /// version (their readers read `v` too); `None` when nothing accepts `v`.
    fn q_of_version(&self, v: Version) -> Option<Q> {
        if let Some(r) = self.accept_stc.iter().find(|r| r.version == v) {
            return Some(r.q);
        }
        self.accept_stc.iter().filter(|r| r.version > v && r.q > 0).map(|r| r.q).max()
    }

    /// Decides for a response of media type `essence` (lowercase
    /// `type/subtype`, no parameters), for a server that sends STC versions
    /// up to `max_version`: `None` means send it as it is.
    pub fn negotiate(&self, essence: &str, max_version: Version) -> Option<Negotiated> {
        if !self.wants_stc() {
            return None;
        }
        if self.accept_stc.is_empty() {
            return Some(Negotiated { signal: Signal::ContentCoding, version: Version::V1 });
        }
        let mut best: Option<(Q, Version)> = None;
        for v in [Version::V1, Version::V2] {
            if v > max_version {
                continue;
            }
            match self.q_of_version(v) {
                Some(q) if q > 0 && best.is_none_or(|(b, _)| q >= b) => best = Some((q, v)),
                _ => {}
            }
        }
        let (q, version) = best?;
        (q >= self.q_of(essence)).then_some(Negotiated { signal: Signal::MediaType, version })
    }

    /// Decides for a response of media type `essence` (lowercase
    /// `type/subtype`, no parameters) as a version 1 server would:
    /// [`negotiate`](Preference::negotiate) with `Version::V1`, without the version.
    pub fn choose(&self, essence: &str) -> Option<Signal> {
        self.negotiate(essence, Version::V1).map(|n| n.signal)
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

/// Parses a comma-separated list of media ranges, each with the STC version
/// its `version` parameter names; malformed items are skipped.
fn parse_ranges(text: &str) -> impl Iterator<Item = (Range, Version)> + '_ {
    text.split(',').filter_map(|item| {
        let mut parts = item.split(';');
        let media = parts.next()?.trim();
        let (kind, subtype) = media.split_once('/')?;
        let (kind, subtype) = (kind.trim(), subtype.trim());
        if kind.is_empty() || subtype.is_empty() || (kind == "*" && subtype != "*") {
            return None;
        }
        let q = parse_q(parts.clone())?;
        let range = Range { kind: kind.to_ascii_lowercase(), subtype: subtype.to_ascii_lowercase(), q };
        Some((range, parse_version(parts)))
    })
}

/// The STC version the first `version` parameter names (its value may be
/// quoted); version 1 when there is none, or when its value is not a
/// version [`Version`]'s `FromStr` accepts.
fn parse_version<'a>(params: impl Iterator<Item = &'a str>) -> Version {
    for param in params {
        let Some((name, value)) = param.split_once('=') else { continue };
        if !name.trim().eq_ignore_ascii_case("version") {
            continue;
        }
        let value = value.trim();
        let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
        return value.parse().unwrap_or(Version::V1);
    }
    Version::V1
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
    fn version_parameters() {
        let v = |params: &[&str]| parse_version(params.iter().copied());
        assert_eq!(v(&[]), Version::V1);
        assert_eq!(v(&[" version=2"]), Version::V2);
        assert_eq!(v(&[" Version = \"2\" "]), Version::V2);
        assert_eq!(v(&["q=0.5", "version=2"]), Version::V2);
        assert_eq!(v(&["version=1"]), Version::V1);
        // Unknown or malformed: version 1.
        for bad in ["version=3", "version=", "version=x", "version=02", "version=2.0", "version=\"2", "version"] {
            assert_eq!(v(&[bad]), Version::V1, "{bad}");
        }
        // The first parameter counts.
        assert_eq!(v(&["version=2", "version=1"]), Version::V2);
        assert_eq!(v(&["charset=utf-8", "version=2"]), Version::V2);
    }

    type VersionCase<'a> = (&'a str, Option<&'a str>, Version, Option<(Signal, Version)>);

    #[test]
    fn versions() {
        use Signal::*;
        use Version::*;
        let json = "application/json";
        let cases: &[VersionCase] = &[
            ("application/stc+json", None, V2, Some((MediaType, V1))),
            ("application/stc+json; version=1", None, V2, Some((MediaType, V1))),
            ("application/stc+json; version=2", None, V2, Some((MediaType, V2))),
            ("application/stc+json;version=\"2\"", None, V2, Some((MediaType, V2))),
            // A server capped at version 1 sends version 1 to a version 2 client (v2 reads v1).
            ("application/stc+json; version=2", None, V1, Some((MediaType, V1))),
            // Unknown and malformed versions ask for version 1.
            ("application/stc+json; version=3", None, V2, Some((MediaType, V1))),
            ("application/stc+json; version=two", None, V2, Some((MediaType, V1))),
            ("application/stc+json; version=", None, V2, Some((MediaType, V1))),
            // Both named: the higher q wins, ties go to the newer version.
            ("application/stc+json; version=2, application/stc+json", None, V2, Some((MediaType, V2))),
            ("application/stc+json, application/stc+json; version=2", None, V2, Some((MediaType, V2))),
            ("application/stc+json; version=2; q=0.5, application/stc+json", None, V2, Some((MediaType, V1))),
            ("application/stc+json; version=2, application/stc+json; q=0.5", None, V2, Some((MediaType, V2))),
            ("application/stc+json; version=2, application/stc+json; q=0.5", None, V1, Some((MediaType, V1))),
            // q=0 on one version refuses that version only.
            ("application/stc+json; q=0, application/stc+json; version=2", None, V2, Some((MediaType, V2))),
            ("application/stc+json; q=0, application/stc+json; version=2", None, V1, None),
            ("application/stc+json; version=2; q=0, application/stc+json", None, V2, Some((MediaType, V1))),
            ("application/stc+json; version=2; q=0", None, V2, None),
            ("application/stc+json; version=2; q=0", Some("stc"), V2, None),
            // The chosen version's q is what is compared with JSON's.
            (
                "application/stc+json; version=2; q=0.8, application/stc+json; q=0.5, application/json; q=0.7",
                None,
                V2,
                Some((MediaType, V2)),
            ),
            (
                "application/stc+json; version=2; q=0.8, application/stc+json; q=0.5, application/json; q=0.7",
                None,
                V1,
                None,
            ),
            ("application/json, application/stc+json; version=2; q=0.9", None, V2, None),
            // A malformed q drops the range, whatever its version.
            ("application/stc+json; version=2; q=2, application/stc+json", None, V2, Some((MediaType, V1))),
            // The coding is version 1.
            ("application/json", Some("stc"), V2, Some((ContentCoding, V1))),
            ("*/*; version=2", Some("stc"), V2, Some((ContentCoding, V1))),
            ("*/*; version=2", None, V2, None),
        ];
        for (accept, encoding, max, expected) in cases {
            let got = pref(Some(accept), *encoding).negotiate(json, *max).map(|n| (n.signal, n.version));
            assert_eq!(got, *expected, "{accept:?} {encoding:?} max {max}");
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

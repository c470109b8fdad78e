//! Version negotiation (spec section 7): `Accept: application/stc+json; version=2`
//! over real TCP on loopback, against StcLayer in an axum app and against the
//! proxy in front of an axum upstream, with reqwest as the client. Every STC
//! body is decoded with the version its response states and compared with
//! the upstream's JSON.

use std::net::SocketAddr;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use stc_core::{DecodeOptions, ErrorKind, Version};
use stc_http::{StcConfig, StcLayer};
use tower_http::compression::CompressionLayer;

use super::common::*;
use super::samples::optional_records;

/// A real document of the corpus, when it is there.
fn corpus(name: &str) -> Option<String> {
    std::fs::read_to_string(format!("/work/shared/corpus/{name}")).ok()
}

fn router() -> Router {
    Router::new()
        .route(
            "/table",
            get(|| async {
                let mut r = json(table_json());
                r.headers_mut().insert(header::ETAG, HeaderValue::from_static("\"t1\""));
                r
            }),
        )
        .route("/optional", get(|| async { json(optional_records(40)) }))
        .route("/events", get(|| async { json(corpus("github_events.json").unwrap_or_else(table_json)) }))
        .route("/notmodified", get(|| async { (StatusCode::NOT_MODIFIED, [(header::ETAG, "\"t1\"")]).into_response() }))
}

/// The proxy in front of `upstream`; it stops when the returned sender is dropped.
async fn proxy_capped(upstream: SocketAddr, max_version: Version) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    proxy(&format!("http://{upstream}"), |c| c.stc = StcConfig { max_version, ..StcConfig::default() }).await
}

/// What a client does (design A): the version an STC response states, from
/// the `version` parameter of its `Content-Type` (absent = 1), checked
/// against `X-STC-Version`; an unknown version is an error, not a guess.
fn stated_version(h: &HeaderMap) -> Result<Version, String> {
    let content_type = header(h, "content-type").ok_or("no Content-Type")?;
    let mut parts = content_type.split(';');
    let essence = parts.next().unwrap().trim();
    if !essence.eq_ignore_ascii_case("application/stc+json") {
        return Err(format!("not STC: {content_type}"));
    }
    let mut version = Version::V1;
    for p in parts {
        if let Some((name, value)) = p.split_once('=') {
            if name.trim().eq_ignore_ascii_case("version") {
                version = value.trim().trim_matches('"').parse().map_err(|e| format!("{e}"))?;
            }
        }
    }
    let header_version: Version =
        header(h, "x-stc-version").ok_or("no X-STC-Version")?.parse().map_err(|e| format!("{e}"))?;
    if header_version != version {
        return Err(format!("Content-Type says {version}, X-STC-Version says {header_version}"));
    }
    Ok(version)
}

/// Asserts an STC response of `version`, whose body decodes (with the
/// version it states) to `original`; returns the STC text.
fn assert_stc(h: &HeaderMap, body: &[u8], version: Version, original: &str, case: &str) -> String {
    let expected_type = if version == Version::V1 { "application/stc+json" } else { "application/stc+json; version=2" };
    assert_eq!(header(h, "content-type"), Some(expected_type), "{case}");
    assert_eq!(header(h, "x-stc-version"), Some(version.name()), "{case}");
    assert_eq!(stated_version(h), Ok(version), "{case}");
    assert_eq!(header(h, "content-length"), Some(body.len().to_string().as_str()), "{case}");
    assert!(header(h, "x-stc-ratio").is_some(), "{case}");
    let text = std::str::from_utf8(body).unwrap();
    let decoded = stc_core::decode_with(text, &DecodeOptions::default().version(version)).unwrap();
    assert_eq!(decoded, minified(original), "{case}: the body decodes to the upstream's JSON");
    text.to_string()
}

fn assert_varies(h: &HeaderMap, case: &str) {
    let names: Vec<String> = h
        .get_all(header::VARY)
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(',').map(|s| s.trim().to_ascii_lowercase()).collect::<Vec<_>>())
        .collect();
    for wanted in ["accept", "accept-encoding"] {
        assert_eq!(names.iter().filter(|n| *n == wanted).count(), 1, "{case}: Vary {names:?} must list {wanted} once");
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Json,
    Stc(Version),
    Coding,
}

/// One negotiation table for the layer (capped at `max`) over real TCP.
async fn run_table(addr: SocketAddr, max: Version, cases: &[(&str, Option<&str>, Expect)]) {
    let table = table_json();
    for (accept, encoding, expect) in cases {
        let mut headers = vec![("accept", *accept)];
        if let Some(e) = encoding {
            headers.push(("accept-encoding", *e));
        }
        let (status, h, body) = get_with(addr, "/table", &headers).await;
        let case = format!("max {max}, Accept {accept:?}, Accept-Encoding {encoding:?}");
        assert_eq!(status, StatusCode::OK, "{case}");
        assert_varies(&h, &case);
        match expect {
            Expect::Json => {
                assert_eq!(body, table.as_bytes(), "{case}: the upstream's bytes");
                assert_eq!(header(&h, "content-type"), Some("application/json"), "{case}");
                assert!(h.get("x-stc-version").is_none(), "{case}");
                assert_eq!(header(&h, "etag"), Some("\"t1\""), "{case}");
            }
            Expect::Stc(v) => {
                assert_stc(&h, &body, *v, &table, &case);
                assert!(h.get("content-encoding").is_none(), "{case}");
                assert_eq!(header(&h, "etag"), Some("W/\"t1\""), "{case}: the strong ETag is weakened");
            }
            Expect::Coding => {
                assert_stc(&h, &body, Version::V1, &table, &case);
                assert_eq!(header(&h, "content-encoding"), Some("stc"), "{case}");
            }
        }
    }
}

#[tokio::test]
async fn negotiation_with_versions() {
    use Expect::*;
    use Version::*;
    let addr = serve(router().layer(StcLayer::new())).await;
    assert_eq!(StcLayer::new().config().max_version, Version::V2, "default: serve version 2 when asked");
    let cases: &[(&str, Option<&str>, Expect)] = &[
        // v1 clients, as before versions existed.
        ("application/stc+json", None, Stc(V1)),
        ("application/stc+json, application/json;q=0.9", None, Stc(V1)),
        ("application/stc+json;version=1", None, Stc(V1)),
        // v2 clients.
        ("application/stc+json; version=2", None, Stc(V2)),
        ("application/stc+json;version=\"2\", application/json;q=0.9", None, Stc(V2)),
        ("Application/STC+JSON; VERSION=2", None, Stc(V2)),
        ("application/stc+json; version=2, application/stc+json;q=0.9, application/json;q=0.8", None, Stc(V2)),
        // Malformed or unknown version parameters: version 1, never an error.
        ("application/stc+json; version=3", None, Stc(V1)),
        ("application/stc+json; version=", None, Stc(V1)),
        ("application/stc+json; version=2.0", None, Stc(V1)),
        ("application/stc+json; version=\"2", None, Stc(V1)),
        ("application/stc+json; version=%32", None, Stc(V1)),
        ("application/stc+json; version", None, Stc(V1)),
        // q-values choose between versions, and between STC and JSON.
        ("application/stc+json; version=2; q=0.5, application/stc+json", None, Stc(V1)),
        ("application/stc+json; version=2, application/stc+json; q=0.5", None, Stc(V2)),
        ("application/stc+json;q=0, application/stc+json; version=2", None, Stc(V2)),
        ("application/stc+json; version=2;q=0, application/stc+json", None, Stc(V1)),
        ("application/stc+json; version=2;q=0", None, Json),
        ("application/stc+json; version=2;q=0", Some("stc"), Json),
        ("application/json, application/stc+json; version=2;q=0.5", None, Json),
        ("application/stc+json; version=2;q=0.5, */*", None, Json),
        ("application/stc+json; version=2;q=0.5, application/*;q=0.4, */*", None, Stc(V2)),
        ("application/stc+json; version=2;q=1.5", None, Json),
        ("*/*; version=2", None, Json),
        // The content coding is version 1 whatever Accept says about versions elsewhere.
        ("application/json; version=2", Some("stc"), Coding),
        ("*/*", Some("gzip, stc"), Coding),
    ];
    run_table(addr, V2, cases).await;
}

#[tokio::test]
async fn a_server_capped_at_version_1_sends_version_1() {
    use Expect::*;
    use Version::*;
    let addr = serve(router().layer(StcLayer::new().max_version(V1))).await;
    let cases: &[(&str, Option<&str>, Expect)] = &[
        ("application/stc+json", None, Stc(V1)),
        // A version 2 reader reads version 1: the capped server sends that.
        ("application/stc+json; version=2", None, Stc(V1)),
        ("application/stc+json; version=2, application/stc+json; q=0.5", None, Stc(V1)),
        // ...unless the client refused version 1 outright.
        ("application/stc+json;q=0, application/stc+json; version=2", None, Json),
        // The q compared with JSON's is version 1's.
        ("application/stc+json; version=2, application/stc+json;q=0.5, application/json;q=0.8", None, Json),
    ];
    run_table(addr, V1, cases).await;
}

#[tokio::test]
async fn cache_headers_and_validators_per_version() {
    let addr = serve(router().layer(StcLayer::new())).await;
    for accept in ["application/stc+json", "application/stc+json; version=2"] {
        let (_, h, _) = get_with(addr, "/table", &[("accept", accept)]).await;
        assert_varies(&h, accept);
        assert_eq!(header(&h, "etag"), Some("W/\"t1\""), "{accept}");
        let (status, h, body) = get_with(addr, "/notmodified", &[("accept", accept)]).await;
        assert_eq!((status, body.len()), (StatusCode::NOT_MODIFIED, 0), "{accept}");
        assert_varies(&h, accept);
        assert!(h.get("x-stc-version").is_none(), "{accept}: a 304 has no body and no version");
    }
}

#[tokio::test]
async fn bodies_decode_with_the_stated_version_and_equal_the_upstream() {
    let addr = serve(router().layer(StcLayer::new()).layer(CompressionLayer::new())).await;
    let events = corpus("github_events.json").unwrap_or_else(table_json);
    let client = reqwest::Client::new(); // decompresses gzip and br
    for (path, original) in [("/table", table_json()), ("/optional", optional_records(40)), ("/events", events)] {
        for (accept, version) in [
            ("application/stc+json, application/json;q=0.9", Version::V1),
            ("application/stc+json; version=2, application/json;q=0.9", Version::V2),
        ] {
            for coding in ["identity", "gzip", "br"] {
                let resp = client
                    .get(format!("http://{addr}{path}"))
                    .header("accept", accept)
                    .header("accept-encoding", coding)
                    .send()
                    .await
                    .unwrap();
                let h = resp.headers().clone();
                let body = resp.bytes().await.unwrap();
                let case = format!("{path} {accept} {coding}");
                if header(&h, "content-type") == Some("application/json") {
                    // The gate kept JSON: minified, as the gate compared it.
                    assert_eq!(body, minified(&original).as_bytes(), "{case}");
                    continue;
                }
                let stated = stated_version(&h).unwrap();
                assert_eq!(stated, version, "{case}");
                let decoded = stc_core::decode_bytes_with(&body, &DecodeOptions::default().version(stated)).unwrap();
                assert_eq!(decoded, minified(&original), "{case}");
            }
        }
    }
}

#[tokio::test]
async fn the_proxy_negotiates_versions_and_can_be_capped() {
    let upstream = serve(router()).await;
    let table = table_json();
    let (addr, _stop) = proxy_capped(upstream, Version::V2).await;
    let (_, h, body) = get_with(addr, "/table", &[("accept", "application/stc+json; version=2")]).await;
    assert_stc(&h, &body, Version::V2, &table, "proxy v2");
    assert_eq!(header(&h, "vary"), Some("Accept, Accept-Encoding"));
    let (_, h, body) = get_with(addr, "/table", &[("accept", "application/stc+json")]).await;
    assert_stc(&h, &body, Version::V1, &table, "proxy v1");
    let (_, h, body) = get_with(addr, "/table", &[("accept", "application/stc+json; version=x")]).await;
    assert_stc(&h, &body, Version::V1, &table, "proxy malformed");
    let (_, h, body) = get_with(addr, "/table", &[("accept-encoding", "stc")]).await;
    assert_stc(&h, &body, Version::V1, &table, "proxy coding");

    let (capped, _stop2) = proxy_capped(upstream, Version::V1).await;
    let (_, h, body) = get_with(capped, "/table", &[("accept", "application/stc+json; version=2")]).await;
    assert_stc(&h, &body, Version::V1, &table, "capped proxy");
}

/// The v2 encoder (stc-core 431ba80) uses a version 2 construct where it pays.
#[tokio::test]
async fn version_2_bodies_use_version_2_constructs_where_they_pay() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let original = optional_records(40);
    let (_, h1, v1) = get_with(addr, "/optional", &[("accept", "application/stc+json")]).await;
    let (_, h2, v2) = get_with(addr, "/optional", &[("accept", "application/stc+json; version=2")]).await;
    let text = assert_stc(&h2, &v2, Version::V2, &original, "v2 optional");
    assert!(text.contains('~'), "no absent cell in the v2 body: {text:.200}");
    // A version 1 reader refuses it at the first v2 construct, never a wrong value.
    let err = stc_core::decode_with(&text, &DecodeOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NewerVersion, "{err}");
    // And it is smaller than the version 1 answer (STC or the gate's JSON).
    let ratio = |h: &HeaderMap| header(h, "x-stc-ratio").map(|r| r.parse::<f64>().unwrap()).unwrap_or(1.0);
    assert!(ratio(&h2) < ratio(&h1), "v2 {} vs v1 {}", ratio(&h2), ratio(&h1));
    assert!(v2.len() < v1.len());
}

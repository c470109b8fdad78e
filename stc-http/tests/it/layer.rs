//! StcLayer in an axum app, served over real TCP on loopback, hit with reqwest.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use stc_http::{StcConfig, StcLayer};
use tower_http::compression::CompressionLayer;

use super::common::*;

const NUMBERS: &str = "[\n  1,\n  2,\n  3.0\n]\n";

fn router() -> Router {
    Router::new()
        .route(
            "/table",
            get(|| async {
                let mut r = json(table_json());
                r.headers_mut().insert(header::ETAG, HeaderValue::from_static("\"t1\""));
                r.headers_mut().insert(header::VARY, HeaderValue::from_static("Origin, accept"));
                r
            }),
        )
        .route("/numbers", get(|| async { json(NUMBERS.to_string()) }))
        .route(
            "/oddvary",
            get(|| async {
                let mut r = json(table_json());
                // obs-text in a Vary line (not visible ASCII): kept, and the names still listed.
                r.headers_mut().insert(header::VARY, HeaderValue::from_bytes(b"Origin, X-Caf\xe9").unwrap());
                r
            }),
        )
        .route("/garbage", get(|| async { json("{\"a\": [1, 2".to_string()) }))
        .route("/nothing", get(|| async { json(String::new()) }))
        .route(
            "/latin1",
            get(|| async { ([(header::CONTENT_TYPE, "application/json; charset=iso-8859-1")], table_json()) }),
        )
        .route("/vendor", get(|| async { ([(header::CONTENT_TYPE, "application/vnd.example+json")], table_json()) }))
        .route("/text", get(|| async { ([(header::CONTENT_TYPE, "text/plain")], table_json()) }))
        .route("/stc", get(|| async { ([(header::CONTENT_TYPE, "application/stc+json")], "([1]{a}:1)") }))
        .route("/empty", get(|| async { StatusCode::NO_CONTENT }))
        .route("/notmodified", get(|| async { (StatusCode::NOT_MODIFIED, [(header::ETAG, "\"t1\"")]).into_response() }))
        .route(
            "/partial",
            get(|| async {
                let t = table_json();
                let range = format!("bytes 0-9/{}", t.len());
                (
                    StatusCode::PARTIAL_CONTENT,
                    [(header::CONTENT_TYPE, "application/json".to_string()), (header::CONTENT_RANGE, range)],
                    t[..10].to_string(),
                )
                    .into_response()
            }),
        )
        .route(
            "/range200",
            get(|| async {
                let t = table_json();
                let range = format!("bytes 0-{}/{}", t.len() - 1, t.len());
                ([(header::CONTENT_TYPE, "application/json".to_string()), (header::CONTENT_RANGE, range)], t)
                    .into_response()
            }),
        )
        .route(
            "/encoded",
            get(|| async {
                ([(header::CONTENT_TYPE, "application/json"), (header::CONTENT_ENCODING, "x-custom")], table_json())
                    .into_response()
            }),
        )
        .route(
            "/chunked",
            get(|| async {
                // No Content-Length: the layer only learns the size by reading.
                let t = table_json().into_bytes();
                let body = Body::new(Chunks(t.chunks(100).map(bytes::Bytes::copy_from_slice).collect()));
                ([(header::CONTENT_TYPE, "application/json")], body).into_response()
            }),
        )
}

/// A body of several frames with no known length (sent chunked).
struct Chunks(std::collections::VecDeque<bytes::Bytes>);

impl http_body::Body for Chunks {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
        std::task::Poll::Ready(self.0.pop_front().map(|b| Ok(http_body::Frame::data(b))))
    }
}

/// The names listed in `Vary`, in order, as sent.
fn vary(h: &HeaderMap) -> Vec<String> {
    h.get_all(header::VARY)
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(',').map(|s| s.trim().to_string()).collect::<Vec<_>>())
        .collect()
}

fn assert_varies(h: &HeaderMap) {
    let names: Vec<String> = vary(h).iter().map(|s| s.to_ascii_lowercase()).collect();
    for wanted in ["accept", "accept-encoding"] {
        assert_eq!(names.iter().filter(|n| *n == wanted).count(), 1, "Vary {names:?} must list {wanted} once");
    }
}

fn assert_stc_of(body: &[u8], original: &str) {
    let text = std::str::from_utf8(body).unwrap();
    assert_ne!(text, original);
    assert!(text.starts_with("([40]{id,name,active}:"), "not columnar STC: {text:.60}");
    assert_eq!(stc_core::decode(text).unwrap(), minified(original));
}

fn assert_untouched(h: &HeaderMap, body: &[u8], original: &[u8]) {
    assert_eq!(body, original, "body must be the upstream bytes");
    for name in ["x-stc-version", "x-stc-ratio", "x-stc-tokenizer"] {
        assert!(h.get(name).is_none(), "{name} on an untouched response");
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Json,
    MediaType,
    ContentCoding,
}

#[tokio::test]
async fn negotiation_table() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let table = table_json();
    use Expect::*;
    let cases: &[(Option<&str>, Option<&str>, Expect)] = &[
        (None, None, Json),
        (Some("application/json"), None, Json),
        (Some("application/stc+json"), None, MediaType),
        (Some("application/stc+json, application/json;q=0.9"), None, MediaType),
        (Some("application/json, application/stc+json"), None, MediaType),
        (Some("application/json, application/stc+json;q=0.5"), None, Json),
        (Some("application/stc+json;q=0.5, */*"), None, Json),
        (Some("text/html, application/stc+json;q=0.2, */*;q=0.1"), None, MediaType),
        (Some("*/*"), None, Json),
        (Some("application/*"), None, Json),
        (Some("application/stc+json;q=0"), None, Json),
        (Some("application/stc+json;q=0"), Some("stc"), Json),
        (Some("application/stc+json;q=1.5"), None, Json),
        (None, Some("stc"), ContentCoding),
        (None, Some("gzip, stc;q=0.8"), ContentCoding),
        (Some("application/json"), Some("stc"), ContentCoding),
        (None, Some("stc;q=0"), Json),
        (None, Some("*"), Json),
        (None, Some("gzip, br"), Json),
        (Some("application/stc+json"), Some("stc"), MediaType),
        (Some("application/stc+json"), Some("stc;q=0"), Json),
        (Some("application/json, application/stc+json;q=0.1"), Some("stc"), Json),
    ];
    for (accept, encoding, expect) in cases {
        let mut headers = Vec::new();
        if let Some(a) = accept {
            headers.push(("accept", *a));
        }
        if let Some(e) = encoding {
            headers.push(("accept-encoding", *e));
        }
        let (status, h, body) = get_with(addr, "/table", &headers).await;
        let case = format!("Accept {accept:?}, Accept-Encoding {encoding:?}");
        assert_eq!(status, StatusCode::OK, "{case}");
        assert_varies(&h);
        match expect {
            Json => {
                assert_untouched(&h, &body, table.as_bytes());
                assert_eq!(header(&h, "content-type"), Some("application/json"), "{case}");
                assert_eq!(header(&h, "etag"), Some("\"t1\""), "{case}: a strong ETag stays on the original bytes");
            }
            MediaType | ContentCoding => {
                assert_eq!(header(&h, "content-type"), Some("application/stc+json"), "{case}");
                let coding = if *expect == ContentCoding { Some("stc") } else { None };
                assert_eq!(header(&h, "content-encoding"), coding, "{case}");
                assert_eq!(header(&h, "x-stc-version"), Some("1"), "{case}");
                assert_eq!(header(&h, "x-stc-tokenizer"), Some("estimate"), "{case}");
                let ratio: f64 = header(&h, "x-stc-ratio").unwrap().parse().unwrap();
                assert!(ratio > 0.0 && ratio < 0.95, "{case}: ratio {ratio}");
                assert_eq!(header(&h, "content-length"), Some(body.len().to_string().as_str()), "{case}");
                assert_eq!(header(&h, "etag"), Some("W/\"t1\""), "{case}: the strong ETag is weakened");
                assert_stc_of(&body, &table);
            }
        }
    }
}

#[tokio::test]
async fn vary_is_merged_without_duplicates() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let (_, h, _) = get_with(addr, "/table", &[("accept", "application/stc+json")]).await;
    assert_eq!(vary(&h), ["Origin", "accept", "Accept-Encoding"]);
    // Also on a response that is not transformed and had no Vary.
    let (_, h, _) = get_with(addr, "/numbers", &[]).await;
    assert_eq!(vary(&h), ["Accept", "Accept-Encoding"]);
    // Not on responses that could never be transformed.
    let (_, h, _) = get_with(addr, "/text", &[("accept", "application/stc+json")]).await;
    assert!(vary(&h).is_empty());
    // A Vary line that is not visible ASCII does not make the layer forget Accept (asked or not).
    for ask in [&[("accept", "application/stc+json")][..], &[]] {
        let (_, h, _) = get_with(addr, "/oddvary", ask).await;
        let lines: Vec<&[u8]> = h.get_all(header::VARY).iter().map(|v| v.as_bytes()).collect();
        assert_eq!(lines, [&b"Origin, X-Caf\xe9"[..], b"Accept, Accept-Encoding"], "{ask:?}");
    }
}

#[tokio::test]
async fn gate_sends_minified_json_when_stc_does_not_save() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let (status, h, body) = get_with(addr, "/numbers", &[("accept", "application/stc+json")]).await;
    assert_eq!(status, StatusCode::OK);
    // The gate compared STC with minified JSON: a client that asked for STC gets that.
    let small = minified(NUMBERS);
    assert_ne!(small, NUMBERS, "the upstream's bytes are pretty-printed");
    assert_untouched(&h, &body, small.as_bytes());
    assert_eq!(header(&h, "content-type"), Some("application/json"));
    assert_eq!(header(&h, "content-length"), Some(small.len().to_string().as_str()));
    assert_varies(&h);
    // A client that did not ask gets the upstream's bytes as they were.
    let (_, h, body) = get_with(addr, "/numbers", &[]).await;
    assert_untouched(&h, &body, NUMBERS.as_bytes());
}

#[tokio::test]
async fn gate_margin_and_tokenizer_are_configurable() {
    // Demanding a 99% saving makes even the table go out as JSON.
    let config = StcConfig { gate: stc_core::GateOptions::default().min_saving(0.99), ..StcConfig::default() };
    let addr = serve(router().layer(StcLayer::with_config(config))).await;
    let (_, h, body) = get_with(addr, "/table", &[("accept", "application/stc+json")]).await;
    assert_untouched(&h, &body, minified(&table_json()).as_bytes());
}

#[tokio::test]
async fn invalid_json_passes_through_unchanged() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let (status, h, body) = get_with(addr, "/garbage", &[("accept", "application/stc+json")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_untouched(&h, &body, b"{\"a\": [1, 2");
    assert_eq!(header(&h, "content-type"), Some("application/json"));
    let (status, h, body) = get_with(addr, "/nothing", &[("accept", "application/stc+json")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_untouched(&h, &body, b"");
    assert_eq!(header(&h, "content-length"), Some("0"));
    assert_varies(&h);
}

#[tokio::test]
async fn only_json_types_are_transformed() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let table = table_json();
    let ask = [("accept", "application/stc+json"), ("accept-encoding", "stc")];
    // A +json vendor type is JSON.
    let (_, h, body) = get_with(addr, "/vendor", &ask[..1]).await;
    assert_eq!(header(&h, "content-type"), Some("application/stc+json"));
    assert_stc_of(&body, &table);
    // Others are not: text, STC itself, a non-UTF-8 charset.
    for (path, original) in [("/text", table.as_str()), ("/stc", "([1]{a}:1)"), ("/latin1", table.as_str())] {
        let (status, h, body) = get_with(addr, path, &ask).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_untouched(&h, &body, original.as_bytes());
        assert!(h.get("content-encoding").is_none(), "{path}");
        assert_ne!(header(&h, "content-type"), Some("application/stc+json").filter(|_| path != "/stc"), "{path}");
    }
}

#[tokio::test]
async fn statuses_methods_ranges_and_encodings_are_left_alone() {
    let addr = serve(router().layer(StcLayer::new())).await;
    let table = table_json();
    let ask = [("accept", "application/stc+json")];
    let (status, h, body) = get_with(addr, "/empty", &ask).await;
    assert_eq!((status, body.len()), (StatusCode::NO_CONTENT, 0));
    assert!(h.get("x-stc-version").is_none());

    // A 304 gets the validator the 200 would have had (the client could hold the STC body's weak tag).
    let (status, h, body) = get_with(addr, "/notmodified", &ask).await;
    assert_eq!((status, body.len()), (StatusCode::NOT_MODIFIED, 0));
    assert_eq!(header(&h, "etag"), Some("W/\"t1\""));
    assert_varies(&h);
    assert!(h.get("x-stc-version").is_none());
    let (status, h, _) = get_with(addr, "/notmodified", &[]).await;
    assert_eq!((status, header(&h, "etag")), (StatusCode::NOT_MODIFIED, Some("\"t1\"")));
    assert_varies(&h);

    let (status, h, body) = get_with(addr, "/partial", &ask).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert_untouched(&h, &body, &table.as_bytes()[..10]);
    assert_varies(&h);

    let (status, h, body) = get_with(addr, "/range200", &ask).await;
    assert_eq!(status, StatusCode::OK);
    assert_untouched(&h, &body, table.as_bytes());

    let (_, h, body) = get_with(addr, "/encoded", &ask).await;
    assert_eq!(header(&h, "content-encoding"), Some("x-custom"));
    assert_untouched(&h, &body, table.as_bytes());
    assert_varies(&h);

    let resp = raw_client()
        .head(format!("http://{addr}/table"))
        .header("accept", "application/stc+json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(header(resp.headers(), "content-type"), Some("application/json"));
    assert!(resp.headers().get("x-stc-version").is_none());
    assert_varies(resp.headers());
    assert!(resp.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn bodies_over_the_limit_stream_through() {
    let table = table_json();
    let config = StcConfig { max_body: 1000, ..StcConfig::default() };
    assert!(table.len() > 1000);
    let addr = serve(router().layer(StcLayer::with_config(config))).await;
    let ask = [("accept", "application/stc+json")];
    // Declared length over the limit, and a chunked body that grows past it.
    for path in ["/table", "/chunked"] {
        let (status, h, body) = get_with(addr, path, &ask).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_untouched(&h, &body, table.as_bytes());
        assert_varies(&h);
    }
    // Within a larger limit the chunked body is read whole and encoded.
    let config = StcConfig { max_body: table.len(), ..StcConfig::default() };
    let addr = serve(router().layer(StcLayer::with_config(config))).await;
    let (_, h, body) = get_with(addr, "/chunked", &ask).await;
    assert_eq!(header(&h, "content-length"), Some(body.len().to_string().as_str()));
    assert_stc_of(&body, &table);
}

#[tokio::test]
async fn composes_inside_compression() {
    // STC inside, gzip/br outside: axum applies the last `.layer` outermost.
    let app = router().layer(StcLayer::new()).layer(CompressionLayer::new());
    let addr = serve(app).await;
    let table = table_json();

    // On the wire: gzip of STC.
    let (_, h, body) =
        get_with(addr, "/table", &[("accept", "application/stc+json"), ("accept-encoding", "gzip")]).await;
    assert_eq!(header(&h, "content-encoding"), Some("gzip"));
    assert_eq!(header(&h, "content-type"), Some("application/stc+json"));
    assert_eq!(&body[..2], &[0x1f, 0x8b], "gzip magic");
    assert_varies(&h);

    // A real client that decompresses gets the STC text.
    let client = reqwest::Client::builder().build().unwrap();
    for accept_encoding in ["gzip", "br"] {
        let resp = client
            .get(format!("http://{addr}/table"))
            .header("accept", "application/stc+json")
            .header("accept-encoding", accept_encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(header(resp.headers(), "content-type"), Some("application/stc+json"));
        let body = resp.bytes().await.unwrap();
        assert_stc_of(&body, &table);
    }
    let resp = client.get(format!("http://{addr}/table")).send().await.unwrap();
    assert_eq!(header(resp.headers(), "content-type"), Some("application/json"));
    assert_eq!(resp.bytes().await.unwrap(), table.as_bytes());

    // `Content-Encoding: stc` is already an encoding: compression leaves it alone.
    let (_, h, body) = get_with(addr, "/table", &[("accept-encoding", "gzip, stc")]).await;
    assert_eq!(header(&h, "content-encoding"), Some("stc"));
    assert_stc_of(&body, &table);
}

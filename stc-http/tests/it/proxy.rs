//! The proxy (`stc_http::proxy::serve`, the code behind `stc proxy`) in front
//! of a separate upstream process (`tests/upstream.py`), hit with reqwest
//! over loopback. The spawned `stc proxy` binary is tested in stc-cli.

use std::net::SocketAddr;
use std::time::Duration;

use http::StatusCode;
use stc_http::proxy::{serve, ProxyConfig};
use stc_http::StcConfig;

use super::common::*;

fn raw() -> reqwest::Client {
    reqwest::Client::builder().no_gzip().no_brotli().build().unwrap()
}

fn table() -> serde_json::Value {
    let rows: Vec<serde_json::Value> = (0..40)
        .map(|i| serde_json::json!({"id": i, "name": format!("user{i}"), "active": i % 2 == 0, "email": format!("user{i}@example.com")}))
        .collect();
    serde_json::Value::Array(rows)
}

fn decode(body: &[u8]) -> serde_json::Value {
    serde_json::from_str(&stc_core::decode_bytes_with(body, &stc_core::Limits::default()).unwrap()).unwrap()
}

const ASK: (&str, &str) = ("accept", "application/stc+json, application/json;q=0.9");

#[tokio::test]
async fn encodes_for_clients_that_ask_and_forwards_everyone_else() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    let r = raw().get(format!("http://{addr}/table")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    assert_eq!(r.headers()["x-stc-version"], "1");
    assert_eq!(r.headers()["etag"], "W/\"v1\"");
    assert_eq!(r.headers()["vary"], "Origin, Accept, Accept-Encoding");
    let body = r.bytes().await.unwrap();
    assert!(body.starts_with(b"([40]{id,name,active,email}:"));
    assert_eq!(decode(&body), table());

    let r = raw().get(format!("http://{addr}/table")).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/json");
    assert!(r.headers().get("x-stc-version").is_none());
    let plain = r.bytes().await.unwrap();
    assert!(plain.starts_with(b"[\n  {\n"), "the upstream's pretty bytes, unchanged");
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&plain).unwrap(), table());

    // A large body (encoded off the async workers).
    let r = raw().get(format!("http://{addr}/big?n=60")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    let big = decode(&r.bytes().await.unwrap());
    assert_eq!(big.as_array().unwrap().len(), 40 * 60);
    assert_eq!(big[40 * 59 + 7], table()[7]);

    // A JSON error status is a JSON body like any other.
    let r = raw().get(format!("http://{addr}/problem")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    assert_eq!(decode(&r.bytes().await.unwrap())[3]["detail"], "missing item 3");
}

#[tokio::test]
async fn forwards_method_headers_and_body_without_hop_by_hop_headers() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    let payload = "x".repeat(100_000);
    let r = raw()
        .put(format!("http://{addr}/echo?a=1&b=%20"))
        .header("x-keep", "yes")
        .header("connection", "keep-alive, x-private")
        .header("x-private", "hop")
        .header("te", "trailers")
        .header("accept-encoding", "gzip")
        .body(payload.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let echo: serde_json::Value = r.json().await.unwrap();
    assert_eq!(echo["method"], "PUT");
    assert_eq!(echo["path"], "/echo?a=1&b=%20");
    assert_eq!(echo["body"].as_str().unwrap().len(), payload.len());
    let h = &echo["headers"];
    assert_eq!(h["x-keep"], "yes");
    assert_eq!(h["host"], format!("127.0.0.1:{}", up.port));
    assert_eq!(h["x-forwarded-for"], "127.0.0.1");
    assert_eq!(h["x-forwarded-host"], addr.to_string());
    assert_eq!(h["accept-encoding"], "gzip", "not asking for STC: the client's own Accept-Encoding");
    for hop in ["x-private", "te", "keep-alive"] {
        assert!(h.get(hop).is_none(), "{hop} was forwarded: {h}");
    }

    // Asking for STC: the upstream is asked for identity, and for JSON.
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/echo"))
        .header("accept", "application/stc+json")
        .header("accept-encoding", "gzip, br")
        .body("{}")
        .send()
        .await
        .unwrap();
    let echo = decode(&r.bytes().await.unwrap());
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["headers"]["accept-encoding"], "identity");
    assert_eq!(echo["headers"]["accept"], "application/json");
}

#[tokio::test]
async fn compresses_stc_for_clients_that_accept_gzip_or_br() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    // This upstream gzips when allowed: the proxy must ask it for identity to read the JSON.
    let r = raw()
        .get(format!("http://{addr}/identity-or-gzip"))
        .header(ASK.0, ASK.1)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    let client = reqwest::Client::new();
    for coding in ["gzip", "br"] {
        let r = client
            .get(format!("http://{addr}/identity-or-gzip"))
            .header(ASK.0, ASK.1)
            .header("accept-encoding", coding)
            .send()
            .await
            .unwrap();
        assert_eq!(r.headers()["content-type"], "application/stc+json");
        assert_eq!(decode(&r.bytes().await.unwrap()), table(), "{coding}");
    }
    // Without STC the upstream's own compression passes through untouched.
    let r =
        raw().get(format!("http://{addr}/identity-or-gzip")).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(r.headers()["content-type"], "application/json");
    // An upstream that always gzips cannot be read: passed through as it is.
    let r = raw().get(format!("http://{addr}/gzip")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(r.headers()["content-type"], "application/json");
    assert_eq!(&r.bytes().await.unwrap()[..2], &[0x1f, 0x8b]);
}

#[tokio::test]
async fn upstream_garbage_and_odd_responses_pass_through() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    let r = raw().get(format!("http://{addr}/garbage")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/json; charset=utf-8");
    assert_eq!(r.bytes().await.unwrap(), &b"{\"id\": 1, \"name\": \"trunc"[..]);

    let r = raw().get(format!("http://{addr}/nocontent")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = raw().get(format!("http://{addr}/notmodified")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    // The validator a 200 would have had: this client may hold an STC body (not_modified_carries_the_validator_of_the_200).
    assert_eq!(r.headers()["etag"], "W/\"v1\"");
    assert_eq!(r.headers()["vary"], "Accept, Accept-Encoding");
    let r = raw().get(format!("http://{addr}/range")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(r.bytes().await.unwrap().len(), 100);
    // HEAD gets the headers GET gets (head_answers_with_the_headers_of_get).
    let r = raw().head(format!("http://{addr}/table")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    assert_eq!(r.headers()["x-stc-version"], "1");
    let r = raw().get(format!("http://{addr}/text")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "text/plain");
    assert_eq!(r.bytes().await.unwrap(), &b"[{\"id\":1},{\"id\":2}]"[..]);
}

#[tokio::test]
async fn chunked_upstream_bodies_within_and_over_the_limit() {
    let up = Upstream::start();
    let limit = 20_000;
    let (addr, _stop) = proxy(&up.url(), |c| c.stc = StcConfig { max_body: limit, ..StcConfig::default() }).await;
    // n=1: about 3 kB in 1000-byte chunks, read whole and encoded.
    let r = raw().get(format!("http://{addr}/chunked?n=1")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    assert_eq!(decode(&r.bytes().await.unwrap()), table());
    // n=50: over the limit: the buffered prefix and the rest, unchanged.
    let direct = raw().get(format!("{}/chunked?n=50", up.url())).send().await.unwrap().bytes().await.unwrap();
    assert!(direct.len() > limit);
    let r = raw().get(format!("http://{addr}/chunked?n=50")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/json");
    assert!(r.headers().get("x-stc-version").is_none());
    assert_eq!(r.bytes().await.unwrap(), direct);
    // A declared length over the limit.
    let direct = raw().get(format!("{}/big?n=10", up.url())).send().await.unwrap().bytes().await.unwrap();
    let r = raw().get(format!("http://{addr}/big?n=10")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.headers()["content-length"], direct.len().to_string().as_str());
    assert_eq!(r.bytes().await.unwrap(), direct);
}

fn assert_502(body: &serde_json::Value, kind: &str) {
    assert_eq!(body["error"], kind, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

#[tokio::test]
async fn slow_upstreams_time_out_with_504_and_slow_enough_ones_work() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |c| c.response_timeout = Duration::from_millis(3000)).await;
    let r = raw().get(format!("http://{addr}/slow?ms=200")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(decode(&r.bytes().await.unwrap()), table());

    let r = raw().get(format!("http://{addr}/slow?ms=8000")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(r.headers()["content-type"], "application/json");
    let body: serde_json::Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    assert_502(&body, "upstream_timeout");
    assert_eq!(body["upstream"], format!("{}/", up.url()));
    // The proxy keeps serving.
    let r = raw().get(format!("http://{addr}/table")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_stalled_upstream_body_ends_the_response_and_the_proxy_keeps_serving() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |c| c.body_timeout = Duration::from_millis(500)).await;
    for accept in ["application/json", "application/stc+json"] {
        // Headers came, then the body stops for longer than the client's
        // own 60 s timeout: the proxy's body timeout ends it first.
        let client = reqwest::Client::builder().no_gzip().no_brotli().timeout(Duration::from_secs(60)).build().unwrap();
        let outcome = async {
            let r = client.get(format!("http://{addr}/stall?ms=600000")).header("accept", accept).send().await?;
            r.bytes().await
        };
        let err = outcome.await.expect_err(accept);
        assert!(!err.is_timeout(), "{accept}: the client timed out first: {err}");
    }
    let r = raw().get(format!("http://{addr}/table")).header(ASK.0, ASK.1).send().await.unwrap();
    assert_eq!(decode(&r.bytes().await.unwrap()), table());
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_until_one_closes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |c| c.max_connections = 1).await;
    let request = b"GET /table HTTP/1.1\r\nhost: x\r\naccept: application/stc+json\r\n\r\n";
    // A: one request answered, then the connection stays open (keep-alive).
    let mut a = tokio::net::TcpStream::connect(addr).await.unwrap();
    a.write_all(request).await.unwrap();
    let mut buf = vec![0u8; 65536];
    let n = a.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200 OK"));
    // B: its request is not served while A holds the only slot...
    let mut b = tokio::net::TcpStream::connect(addr).await.unwrap();
    b.write_all(request).await.unwrap();
    let early = tokio::time::timeout(Duration::from_millis(300), b.read(&mut buf)).await;
    assert!(early.is_err(), "served beyond the connection limit");
    // ...and is once A closes.
    drop(a);
    let n = tokio::time::timeout(Duration::from_secs(30), b.read(&mut buf)).await.unwrap().unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200 OK"), "{}", String::from_utf8_lossy(&buf[..n]));
}

#[tokio::test]
async fn refused_upstream_is_a_502_with_a_json_body() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (addr, _stop) = proxy(&format!("http://127.0.0.1:{port}"), |_| {}).await;
    for accept in ["application/json", "application/stc+json"] {
        let r = raw().get(format!("http://{addr}/table")).header("accept", accept).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
        // The error body itself is small JSON; the gate keeps it as JSON.
        assert_eq!(r.headers()["content-type"], "application/json");
        let body: serde_json::Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        assert_502(&body, "upstream_unavailable");
    }
}

#[tokio::test]
async fn upstream_base_path_is_kept() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&format!("{}/echo", up.url()), |_| {}).await;
    let echo: serde_json::Value =
        raw().get(format!("http://{addr}/x/y?z=1")).send().await.unwrap().json().await.unwrap();
    assert_eq!(echo["path"], "/echo/x/y?z=1");
}

#[tokio::test]
async fn shutdown_lets_in_flight_requests_finish() {
    let up = Upstream::start();
    let (addr, stop) = proxy(&up.url(), |_| {}).await;
    let request = tokio::spawn(async move {
        raw().get(format!("http://{addr}/slow?ms=800")).header(ASK.0, ASK.1).send().await.unwrap()
    });
    // Wait until the upstream holds the request, then stop the proxy.
    let seen = tokio::task::spawn_blocking(move || up.seen.recv_timeout(Duration::from_secs(30)).map(|l| (l, up)));
    let (line, _up) = seen.await.unwrap().unwrap();
    assert_eq!(line, "got GET /slow");
    drop(stop);
    let r = request.await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(decode(&r.bytes().await.unwrap()), table());
    // New connections are refused once it has stopped.
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused, "the proxy still accepts connections after shutdown");
}

#[tokio::test]
async fn refuses_a_non_loopback_listen_address_unless_allowed() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut config = ProxyConfig::new("0.0.0.0:0".parse().unwrap(), "http://127.0.0.1:1".parse().unwrap());
    let err = serve(listener, config.clone(), async {}).await.unwrap_err();
    assert!(err.to_string().contains("--allow-remote"), "{err}");
    config.allow_remote = true;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve(listener, config, async {}).await.unwrap();
    // Only http:// and https:// upstreams (tests/tls.rs tests https://).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = ProxyConfig::new("127.0.0.1:0".parse().unwrap(), "ws://example.com".parse().unwrap());
    assert!(serve(listener, config, async {}).await.unwrap_err().to_string().contains("only http:// and https://"));
}

/// A request to the proxy with these headers: status, headers.
async fn head_of(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (StatusCode, http::HeaderMap) {
    let mut req = raw().get(format!("http://{addr}{path}"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.unwrap();
    (r.status(), r.headers().clone())
}

fn text<'a>(h: &'a http::HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).map(|v| v.to_str().unwrap())
}

fn assert_no_stc_headers(h: &http::HeaderMap, case: &str) {
    for name in ["x-stc-version", "x-stc-ratio", "x-stc-tokenizer"] {
        assert!(h.get(name).is_none(), "{case}: {name} on a response without an STC body");
    }
}

/// A client revalidating what it stored gets a 304 with the validator it
/// stored: the weakened ETag after an STC 200, the upstream's strong one after
/// a JSON 200; and no header that would relabel a cached STC body as JSON.
#[tokio::test]
async fn not_modified_carries_the_validator_of_the_200() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;

    // An STC client stores W/"e1" ...
    let (status, h) = head_of(addr, "/etag", &[ASK]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(text(&h, "content-type"), Some("application/stc+json"));
    assert_eq!(text(&h, "etag"), Some("W/\"e1\""));
    // ... and revalidates with it: the 304 repeats it, with the 200's Vary.
    let ask_with = |inm: &'static str| [ASK, ("if-none-match", inm)];
    for inm in ["W/\"e1\"", "\"zz\", W/\"e1\"", "W/\"zz\",W/\"e1\""] {
        let (status, h) = head_of(addr, "/etag", &ask_with(inm)).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{inm}");
        assert_eq!(text(&h, "etag"), Some("W/\"e1\""), "{inm}: the validator the client stored");
        assert_eq!(text(&h, "vary"), Some("Origin, Accept, Accept-Encoding"), "{inm}");
        assert_eq!(text(&h, "cache-control"), Some("max-age=60"), "{inm}");
        // The upstream's 304 says application/json; a cache would copy that onto the stored STC response.
        assert!(h.get("content-type").is_none(), "{inm}: {:?}", h.get("content-type"));
        assert_no_stc_headers(&h, inm);
    }
    // Asked by Accept-Encoding: the same.
    let (status, h) = head_of(addr, "/etag", &[("accept-encoding", "stc"), ("if-none-match", "W/\"e1\"")]).await;
    assert_eq!((status, text(&h, "etag")), (StatusCode::NOT_MODIFIED, Some("W/\"e1\"")));
    assert!(h.get("content-type").is_none());
    // `If-None-Match: *` does not say which form the client holds: the weak tag, which matches
    // either stored form by weak comparison (what a cache uses to pick the response a 304 updates).
    let (status, h) = head_of(addr, "/etag", &ask_with("*")).await;
    assert_eq!((status, text(&h, "etag")), (StatusCode::NOT_MODIFIED, Some("W/\"e1\"")));

    // A client that stored the JSON bytes (it did not ask, or the gate kept JSON) holds the strong tag.
    let (status, h) = head_of(addr, "/etag", &[]).await;
    assert_eq!((status, text(&h, "etag")), (StatusCode::OK, Some("\"e1\"")));
    assert_eq!(text(&h, "content-type"), Some("application/json"));
    let (status, h) = head_of(addr, "/etag", &[("if-none-match", "\"e1\"")]).await;
    assert_eq!((status, text(&h, "etag")), (StatusCode::NOT_MODIFIED, Some("\"e1\"")));
    assert_eq!(text(&h, "content-type"), Some("application/json"), "not asked for STC: the upstream's 304 as it is");
    assert_eq!(text(&h, "vary"), Some("Origin, Accept, Accept-Encoding"));
    let (status, h) = head_of(addr, "/etag", &ask_with("\"e1\"")).await;
    assert_eq!((status, text(&h, "etag")), (StatusCode::NOT_MODIFIED, Some("\"e1\"")));
    assert_no_stc_headers(&h, "strong");
}

/// When the upstream's CORS policy allows another origin, a script there can
/// read the X-STC-* headers: they are listed in Access-Control-Expose-Headers.
#[tokio::test]
async fn cors_responses_expose_the_stc_headers() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    let all = "X-STC-Version, X-STC-Ratio, X-STC-Tokenizer";
    let cases: &[(&str, Option<&str>)] = &[
        ("/cors?origin=https://app.example", Some(all)),
        ("/cors?origin=*", Some(all)),
        ("/cors?expose=ETag,%20X-Request-Id", Some("ETag, X-Request-Id, X-STC-Version, X-STC-Ratio, X-STC-Tokenizer")),
        ("/cors?expose=x-stc-ratio", Some("x-stc-ratio, X-STC-Version, X-STC-Tokenizer")),
        // `*` exposes every header to requests without credentials (and with ACAO `*` there are none) ...
        ("/cors?expose=*", Some("*")),
        ("/cors?origin=https://app.example&expose=*", Some("*")),
        // ... but to a request with credentials it is the name `*`.
        (
            "/cors?origin=https://app.example&credentials=1&expose=*",
            Some("*, X-STC-Version, X-STC-Ratio, X-STC-Tokenizer"),
        ),
        // No Access-Control-Allow-Origin: the proxy invents no CORS policy.
        ("/table", None),
    ];
    for (path, want) in cases {
        let (status, h) = head_of(addr, path, &[ASK, ("origin", "https://app.example")]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(text(&h, "content-type"), Some("application/stc+json"), "{path}");
        assert_eq!(text(&h, "access-control-expose-headers"), *want, "{path}");
        assert!(text(&h, "vary").unwrap().contains("Accept, Accept-Encoding"), "{path}");
    }
    // Without an STC body there are no X-STC-* headers to expose: the upstream's list as it is.
    for (path, ask) in [("/cors?expose=ETag", false), ("/cors?small=1&expose=ETag", true)] {
        let headers: &[(&str, &str)] = if ask { &[ASK] } else { &[] };
        let (_, h) = head_of(addr, path, headers).await;
        assert_eq!(text(&h, "content-type"), Some("application/json"), "{path}");
        assert_eq!(text(&h, "access-control-expose-headers"), Some("ETag"), "{path}");
        assert!(text(&h, "vary").unwrap().contains("Accept, Accept-Encoding"), "{path}");
    }
}

/// The issue 28 findings, one test each (the upstream is `tests/upstream.py`).
#[tokio::test]
async fn gate_json_for_a_client_that_asked_is_minified_with_a_weak_validator() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    let pretty = raw().get(format!("{}/numbers?etag=1", up.url())).send().await.unwrap().bytes().await.unwrap();
    let small = stc_core::decode(std::str::from_utf8(&pretty).unwrap()).unwrap();
    assert_ne!(pretty, small.as_bytes(), "the upstream pretty-prints");
    for coding in ["identity", "gzip"] {
        let client = reqwest::Client::new();
        let r = client
            .get(format!("http://{addr}/numbers?etag=1"))
            .header(ASK.0, ASK.1)
            .header("accept-encoding", coding)
            .send()
            .await
            .unwrap();
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(r.headers()["etag"], "W/\"n1\"", "{coding}");
        assert!(r.headers().get("x-stc-version").is_none());
        assert_eq!(r.bytes().await.unwrap(), small.as_bytes(), "{coding}");
    }
    // A client that did not ask: the upstream's bytes and validator.
    let r = raw().get(format!("http://{addr}/numbers?etag=1")).send().await.unwrap();
    assert_eq!(r.headers()["etag"], "\"n1\"");
    assert_eq!(r.bytes().await.unwrap(), pretty);
}

#[tokio::test]
async fn an_upstream_body_shorter_than_declared_fails_at_once_for_every_client() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |c| c.body_timeout = Duration::from_secs(30)).await;
    let cases = [(None, "/short"), (Some(ASK), "/short"), (None, "/short?silent=1"), (Some(ASK), "/short?silent=1")];
    for (ask, path) in cases {
        let started = std::time::Instant::now();
        let mut request = reqwest::Client::new().get(format!("http://{addr}{path}"));
        if let Some((name, value)) = ask {
            request = request.header(name, value);
        }
        let outcome = match request.send().await {
            Ok(r) => r.bytes().await.map(|b| b.len()),
            Err(e) => Err(e),
        };
        assert!(outcome.is_err(), "{ask:?} {path}: a cut body must not look complete: {outcome:?}");
        assert!(started.elapsed() < Duration::from_secs(5), "{ask:?} {path}: took {:?}", started.elapsed());
    }
}

#[tokio::test]
async fn head_answers_with_the_headers_of_get() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    for accept in ["application/stc+json", "application/stc+json; version=2", "application/json"] {
        let get = raw().get(format!("http://{addr}/table")).header("accept", accept).send().await.unwrap();
        let head = raw().head(format!("http://{addr}/table")).header("accept", accept).send().await.unwrap();
        for name in ["content-type", "content-length", "etag", "vary", "x-stc-version", "x-stc-ratio"] {
            assert_eq!(head.headers().get(name), get.headers().get(name), "{accept}: {name}");
        }
        assert!(head.bytes().await.unwrap().is_empty());
    }
    // The upstream saw a GET for the STC clients and a HEAD for the plain one: six requests in all.
    // Its lines reach this process through a reader thread, which may not have run yet under load.
    let mut seen: Vec<String> = Vec::new();
    while seen.len() < 6 {
        match up.seen.recv_timeout(Duration::from_secs(10)) {
            Ok(line) => seen.push(line),
            Err(_) => break,
        }
    }
    seen.extend(up.seen.try_iter());
    assert_eq!(seen.iter().filter(|l| *l == "got HEAD /table").count(), 1, "{seen:?}");
    assert_eq!(seen.iter().filter(|l| *l == "got GET /table").count(), 5, "{seen:?}");
}

#[tokio::test]
async fn an_upstream_vary_star_stays_one_line() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    for (accept, coding) in [(ASK.1, "gzip"), (ASK.1, "identity"), ("application/json", "gzip")] {
        let r = raw()
            .get(format!("http://{addr}/varystar"))
            .header("accept", accept)
            .header("accept-encoding", coding)
            .send()
            .await
            .unwrap();
        let vary: Vec<_> = r.headers().get_all("vary").iter().collect();
        assert_eq!(vary, ["*"], "{accept} {coding}");
    }
}

#[tokio::test]
async fn the_request_id_goes_upstream_and_back() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    let r = raw().get(format!("http://{addr}/echo")).header("x-request-id", "abc-123").send().await.unwrap();
    assert_eq!(r.headers()["x-request-id"], "abc-123");
    let echo: serde_json::Value = r.json().await.unwrap();
    assert_eq!(echo["headers"]["x-request-id"], "abc-123");
    // None (or an unusable one) given: one is made, the same both ways, new per request.
    let mut ids = Vec::new();
    for given in [None, Some("bad id with spaces")] {
        let mut request = raw().get(format!("http://{addr}/echo")).header(ASK.0, ASK.1);
        if let Some(id) = given {
            request = request.header("x-request-id", id);
        }
        let r = request.send().await.unwrap();
        let id = r.headers()["x-request-id"].to_str().unwrap().to_string();
        let body = r.bytes().await.unwrap();
        let echo: serde_json::Value =
            serde_json::from_str(&stc_core::decode_bytes_with(&body, &stc_core::Limits::default()).unwrap()).unwrap();
        assert_eq!(echo["headers"]["x-request-id"], id.as_str());
        assert_eq!(id.len(), 32, "{id}");
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn health_probes_are_answered_by_the_proxy() {
    let up = Upstream::start();
    let (addr, _stop) = proxy(&up.url(), |_| {}).await;
    for path in ["/healthz", "/readyz"] {
        let r = raw().get(format!("http://{addr}{path}")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(r.headers()["cache-control"], "no-store");
    }
    // Moved by a prefix: the old paths are the upstream's again.
    let (moved, _stop2) = proxy(&up.url(), |c| c.health_prefix = "/_stc".into()).await;
    let r = raw().get(format!("http://{moved}/_stc/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = raw().get(format!("http://{moved}/healthz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND, "forwarded to the upstream");
    // Probes are never forwarded: up to a marker request, the upstream saw only the forwarded
    // /healthz (its lines come in order, through a reader thread that may lag under load).
    raw().get(format!("http://{moved}/table")).send().await.unwrap();
    let mut seen = Vec::new();
    while seen.last().map(String::as_str) != Some("got GET /table") {
        match up.seen.recv_timeout(Duration::from_secs(10)) {
            Ok(line) => seen.push(line),
            Err(e) => panic!("the upstream's lines stopped at {seen:?}: {e}"),
        }
    }
    assert_eq!(seen, ["got GET /healthz", "got GET /table"], "probes are never forwarded");
    // The upstream gone: not ready (after the cached answer expires), still alive.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (down, _stop3) = proxy(&format!("http://127.0.0.1:{port}"), |_| {}).await;
    let r = raw().get(format!("http://{down}/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["status"], "not_ready");
    assert!(body["reason"].as_str().unwrap().contains("unreachable"), "{body}");
    assert_eq!(raw().get(format!("http://{down}/healthz")).send().await.unwrap().status(), StatusCode::OK);
    // Bad prefixes stop the proxy before it serves.
    for prefix in ["healthz", "/x/", "/a b", "/q?x"] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut config = ProxyConfig::new(listener.local_addr().unwrap(), up.url().parse().unwrap());
        config.health_prefix = prefix.into();
        let e = serve(listener, config, async {}).await.unwrap_err();
        assert!(e.to_string().contains("health prefix"), "{prefix}: {e}");
    }
}

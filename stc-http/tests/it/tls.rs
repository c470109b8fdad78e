//! `https://` upstreams: the proxy in front of a real HTTPS server process
//! (`tests/upstream.py --tls`) whose certificate this test makes with the
//! system's `openssl` (a CA of its own, a server certificate it signs for
//! 127.0.0.1). Trusted through `upstream_ca`, refused with a clear 502 without it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use http::StatusCode;
use stc_http::proxy::{serve, Error, ProxyConfig};

use super::certs::make_certificates;
use super::common::*;

fn start_tls_upstream(cert: &Path, key: &Path) -> Upstream {
    Upstream::start_with(&["--tls".as_ref(), cert.as_os_str(), key.as_os_str()])
}

async fn proxy(config: ProxyConfig) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind(config.listen).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        serve(listener, config, async {
            let _ = stopped.await;
        })
        .await
        .unwrap()
    });
    (addr, stop)
}

fn config(upstream: &str, ca: Option<PathBuf>) -> ProxyConfig {
    let mut c = ProxyConfig::new("127.0.0.1:0".parse().unwrap(), upstream.parse().unwrap());
    c.upstream_ca = ca;
    c
}

#[tokio::test]
async fn https_upstream_trusted_through_the_ca_flag_and_refused_without_it() {
    let dir = make_certificates("trust");
    let up = start_tls_upstream(&dir.join("server.pem"), &dir.join("server.key"));
    let url = format!("https://127.0.0.1:{}", up.port);
    let client = reqwest::Client::new();

    // Trusted through the extra CA: STC for a client that asks, JSON otherwise.
    let (addr, _stop) = proxy(config(&url, Some(dir.join("ca.pem")))).await;
    let r = client
        .get(format!("http://{addr}/table"))
        .header("accept", "application/stc+json, application/json;q=0.9")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/stc+json");
    let body = r.bytes().await.unwrap();
    assert!(body.starts_with(b"([40]{id,name,active,email}:"), "{}", String::from_utf8_lossy(&body));
    let r = client.post(format!("http://{addr}/echo")).body("hello").send().await.unwrap();
    let echo: serde_json::Value = r.json().await.unwrap();
    assert_eq!(echo["body"], "hello");
    assert_eq!(echo["headers"]["host"], format!("127.0.0.1:{}", up.port));

    // The system's roots alone do not trust this CA: a 502 that says why, and
    // the proxy keeps serving.
    let (addr, _stop2) = proxy(config(&url, None)).await;
    for _ in 0..2 {
        let r = client.get(format!("http://{addr}/table")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!(body["error"], "upstream_tls", "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("invalid peer certificate") && message.contains("UnknownIssuer"), "{message}");
    }

    // A certificate for another name, signed by the trusted CA: refused too.
    let other = format!("https://localhost:{}", up.port);
    let (addr, _stop3) = proxy(config(&other, Some(dir.join("ca.pem")))).await;
    let r = client.get(format!("http://{addr}/table")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["error"], "upstream_tls", "{body}");
    assert!(body["message"].as_str().unwrap().contains("not valid for name"), "{body}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_bad_ca_file_or_a_ca_for_plain_http_is_refused_at_start() {
    let dir = std::env::temp_dir().join(format!("stc-http-tls-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let e = serve(listener, config("https://127.0.0.1:1", Some(junk.clone())), async {}).await.unwrap_err();
    assert!(matches!(&e, Error::Config(m) if m.contains("no certificate in the file")), "{e}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let missing = dir.join("missing.pem");
    let e = serve(listener, config("https://127.0.0.1:1", Some(missing)), async {}).await.unwrap_err();
    assert!(matches!(&e, Error::Config(m) if m.contains("cannot read")), "{e}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let e = serve(listener, config("http://127.0.0.1:1", Some(junk)), async {}).await.unwrap_err();
    assert!(matches!(&e, Error::Config(m) if m.contains("is not https://")), "{e}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let e = serve(listener, config("ftp://127.0.0.1:1", None), async {}).await.unwrap_err();
    assert!(matches!(&e, Error::Config(m) if m.contains("only http:// and https://")), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! Helpers the test modules share: the Python upstream process, the proxy
//! in this process, an axum app over real TCP, and reqwest clients.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;

use axum::response::{IntoResponse, Response};
use axum::Router;
use http::{header, HeaderMap, StatusCode};
use stc_http::proxy::{serve as serve_proxy, ProxyConfig};

/// The upstream process (`tests/upstream.py`); killed on drop.
pub struct Upstream {
    child: Child,
    _stdin: ChildStdin,
    pub port: u16,
    /// `got METHOD PATH` lines, as the upstream reads requests.
    pub seen: mpsc::Receiver<String>,
}

impl Upstream {
    /// A plain HTTP upstream.
    pub fn start() -> Upstream {
        Upstream::start_with(&[])
    }

    /// The upstream with these arguments (`--tls CERT KEY`).
    pub fn start_with(args: &[&std::ffi::OsStr]) -> Upstream {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/upstream.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs the test upstream");
        let stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = lines.next().unwrap().unwrap().trim().parse().unwrap();
        let (tx, seen) = mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Upstream { child, _stdin: stdin, port, seen }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the proxy in this process; it stops when the returned sender is dropped.
pub async fn proxy(
    upstream: &str,
    tweak: impl FnOnce(&mut ProxyConfig),
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = ProxyConfig::new(addr, upstream.parse().unwrap());
    tweak(&mut config);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        serve_proxy(listener, config, async {
            let _ = stopped.await;
        })
        .await
        .unwrap()
    });
    (addr, stop)
}

pub async fn get_with(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut req = raw_client().get(format!("http://{addr}{path}"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    (status, headers, resp.bytes().await.unwrap().to_vec())
}

pub async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

pub fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).map(|v| v.to_str().unwrap())
}

/// A uniform table of 40 records, pretty-printed: STC saves in every version.
pub fn table_json() -> String {
    let rows: Vec<String> = (0..40)
        .map(|i| format!("  {{\n    \"id\": {i},\n    \"name\": \"user{i}\",\n    \"active\": {}\n  }}", i % 2 == 0))
        .collect();
    format!("[\n{}\n]\n", rows.join(",\n"))
}

pub fn json(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

pub fn minified(json: &str) -> String {
    stc_core::decode(json).unwrap()
}

/// A client that sends exactly the headers it is given and decompresses nothing.
pub fn raw_client() -> reqwest::Client {
    reqwest::Client::builder().no_gzip().no_brotli().build().unwrap()
}

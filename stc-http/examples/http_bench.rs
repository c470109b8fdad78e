//! Helpers of `bench/services/http-proxy.sh` (loopback only, bounded):
//!
//! ```text
//! http_bench upstream DIR             serve DIR/*.json as application/json, and /gen/1mib; prints the port
//! http_bench load URL N C [HEADER]    N GETs of URL, C at a time (stops after N or 120 s); prints one JSON line
//! http_bench corpus PROXY DIR         each DIR/*.json through PROXY with Accept: application/stc+json;
//!                                     prints one JSON line per document (bytes and o200k_base tokens, both ways)
//! ```
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};

type Fail = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Fail> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["upstream", dir] => rt.block_on(upstream(dir)),
        ["load", url, n, c, rest @ ..] => rt.block_on(load(url, n.parse()?, c.parse()?, rest.first().copied())),
        ["corpus", proxy, dir] => rt.block_on(corpus(proxy, dir)),
        _ => Err("usage: http_bench upstream DIR | load URL N C [HEADER] | corpus PROXY DIR".into()),
    }
}

fn json_files(dir: &str) -> Result<Vec<(String, Bytes)>, Fail> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.push((name, Bytes::from(std::fs::read(&path)?)));
        }
    }
    files.sort();
    Ok(files)
}

/// About 1 MiB of JSON records (a table: the proxy encodes it).
fn one_mib() -> Bytes {
    let mut out = String::from("[");
    let mut i = 0;
    while out.len() < (1 << 20) - 200 {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"id":{i},"name":"user{i}","email":"user{i}@example.com","active":{},"score":{}.5}}"#,
            i % 3 == 0,
            i % 1000
        ));
        i += 1;
    }
    out.push(']');
    Bytes::from(out)
}

async fn upstream(dir: &str) -> Result<(), Fail> {
    let mut docs: HashMap<String, Bytes> = json_files(dir)?.into_iter().map(|(n, b)| (format!("/{n}"), b)).collect();
    docs.insert("/gen/1mib".to_string(), one_mib());
    let docs = Arc::new(docs);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("{}", listener.local_addr()?.port());
    loop {
        let (stream, _) = listener.accept().await?;
        let docs = docs.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let docs = docs.clone();
                async move {
                    let response = match docs.get(req.uri().path()) {
                        Some(body) => Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(body.clone()))
                            .unwrap(),
                        None => {
                            Response::builder().status(StatusCode::NOT_FOUND).body(Full::new(Bytes::new())).unwrap()
                        }
                    };
                    Ok::<_, Infallible>(response)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

fn client() -> Client<HttpConnector, Empty<Bytes>> {
    Client::builder(TokioExecutor::new()).pool_max_idle_per_host(256).build(HttpConnector::new())
}

async fn load(url: &str, n: usize, c: usize, header: Option<&str>) -> Result<(), Fail> {
    let client = client();
    let uri: http::Uri = url.parse()?;
    let header = header.map(|h| {
        let (k, v) = h.split_once(':').expect("HEADER is Name: value");
        (k.trim().to_string(), v.trim().to_string())
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..c {
        let (client, uri, header, next) = (client.clone(), uri.clone(), header.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let (mut errors, mut bytes) = (0usize, 0usize);
            while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < n && Instant::now() < deadline {
                let mut req = Request::get(uri.clone());
                if let Some((k, v)) = &header {
                    req = req.header(k.as_str(), v.as_str());
                }
                let t = Instant::now();
                match client.request(req.body(Empty::new()).unwrap()).await {
                    Ok(r) if r.status().is_success() => match r.into_body().collect().await {
                        Ok(b) => {
                            bytes += b.to_bytes().len();
                            latencies.push(t.elapsed());
                        }
                        Err(_) => errors += 1,
                    },
                    _ => errors += 1,
                }
            }
            (latencies, errors, bytes)
        }));
    }
    let (mut all, mut errors, mut bytes) = (Vec::new(), 0, 0);
    for t in tasks {
        let (l, e, b) = t.await?;
        all.extend(l);
        errors += e;
        bytes += b;
    }
    let wall = started.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "{{\"requests\":{},\"errors\":{errors},\"seconds\":{wall:.3},\"rps\":{:.1},\"p50_ms\":{:.3},\"p99_ms\":{:.3},\"bytes\":{bytes}}}",
        all.len(),
        all.len() as f64 / wall,
        pct(0.50),
        pct(0.99)
    );
    Ok(())
}

async fn corpus(proxy: &str, dir: &str) -> Result<(), Fail> {
    let client = client();
    let tokenizer = "o200k_base".parse::<stc_core::Tokenizer>()?;
    for (name, original) in json_files(dir)? {
        let req = Request::get(format!("{proxy}/{name}"))
            .header("accept", "application/stc+json, application/json;q=0.9")
            .body(Empty::new())?;
        let response = client.request(req).await?;
        let stc = response.headers().get("content-type").is_some_and(|v| v == "application/stc+json");
        let body = response.into_body().collect().await?.to_bytes();
        let tokens_in = tokenizer.count(&String::from_utf8_lossy(&original));
        let tokens_out = tokenizer.count(&String::from_utf8_lossy(&body));
        println!(
            "{{\"name\":\"{name}\",\"stc\":{stc},\"bytes_in\":{},\"bytes_out\":{},\"tokens_in\":{tokens_in},\"tokens_out\":{tokens_out}}}",
            original.len(),
            body.len()
        );
    }
    Ok(())
}

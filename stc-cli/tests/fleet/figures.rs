//! The fleet's figures for bench/REPORT.md (not a check): throughput and
//! latency of one and two gateways behind HAProxy against a gateway alone
//! and the upstream alone. Run by `bash bench/fleet.sh` (release build).

use std::sync::Arc;
use std::time::Duration;

use crate::harness::{self, Backend, Check, Outcome, Request, TempDir};

const REQUESTS: usize = 2_000;
const WORKERS: usize = 8;

fn ok_check() -> Check {
    Arc::new(
        |status, _, body| {
            if status == 200 {
                Ok(())
            } else {
                Err(format!("{status} {}", String::from_utf8_lossy(body)))
            }
        },
    )
}

/// req/s, p50 ms, p99 ms of a run of [`REQUESTS`] requests.
fn measure(request: Request) -> (f64, f64, f64) {
    let started = std::time::Instant::now();
    let outcomes: Vec<Outcome> =
        harness::load_with(request, WORKERS, Duration::from_secs(120), REQUESTS, ok_check(), |_| {});
    let elapsed = started.elapsed().as_secs_f64();
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    assert_eq!(failed, 0, "{:?}", outcomes.iter().find(|o| o.result.is_err()));
    let mut ms: Vec<f64> = outcomes.iter().map(|o| (o.ended - o.started).as_secs_f64() * 1e3).collect();
    let (p50, p99) = (harness::percentile(&mut ms, 50.0), harness::percentile(&mut ms, 99.0));
    (outcomes.len() as f64 / elapsed, p50, p99)
}

/// A minimal keep-alive HTTP/1.1 server on its own threads answering every
/// request with the same JSON document (the 40-record table upstream.py
/// serves): an upstream fast enough that the figures measure the gateway.
fn fast_upstream() -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rows: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "  {{\n    \"id\": {i},\n    \"name\": \"user{i}\",\n    \"active\": {},\n    \"email\": \"user{i}@example.com\"\n  }}",
                i % 2 == 0
            )
        })
        .collect();
    let body = format!("[\n{}\n]", rows.join(",\n"));
    let response =
        format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let response = std::sync::Arc::new(response.into_bytes());
            loop {
                let Ok((mut socket, _)) = listener.accept().await else { continue };
                let response = response.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::with_capacity(4096);
                    let mut chunk = [0u8; 4096];
                    loop {
                        let Ok(n) = socket.read(&mut chunk).await else { return };
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        // Requests without bodies: one answer per header block.
                        while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            buf.drain(..end + 4);
                            if socket.write_all(&response).await.is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
    });
    port
}

fn get(url: String, accept: &'static str) -> Request {
    Arc::new(move |c: &reqwest::Client| c.get(&url).header("accept", accept))
}

fn row(name: &str, (rps, p50, p99): (f64, f64, f64)) {
    println!("| {name} | {rps:.0} | {p50:.2} | {p99:.2} |");
}

#[test]
#[ignore = "figures for bench/REPORT.md, not a check; run by bench/fleet.sh with a release build"]
fn figures() {
    let dir = TempDir::new("figures");
    let upstream_port = fast_upstream();
    let stc = "application/stc+json; version=2";
    let backends: Vec<Backend> =
        ["a", "b"].iter().map(|n| Backend { name: n.to_string(), port: harness::free_port() }).collect();
    let _proxies: Vec<_> = backends
        .iter()
        .map(|b| {
            let args: Vec<String> = ["proxy", "--listen", &format!("127.0.0.1:{}", b.port), "--upstream"]
                .iter()
                .map(|s| s.to_string())
                .chain([format!("http://127.0.0.1:{upstream_port}")])
                .collect();
            harness::spawn_stc(&format!("proxy {}", b.name), &args)
        })
        .collect();
    let (_one, one_port) = harness::haproxy(&dir.0, &backends[..1]);
    let two_dir = TempDir::new("figures-two");
    let (_two, two_port) = harness::haproxy(&two_dir.0, &backends);
    for b in &backends {
        harness::wait_served_by(two_port, "/healthz", &b.name, Duration::from_secs(10));
    }
    println!(
        "`stc proxy`, GET /table (40 records, 3,952 B of JSON) as STC v2; {REQUESTS} requests from {WORKERS} clients"
    );
    println!();
    println!("| path | requests/s | p50 ms | p99 ms |");
    println!("| --- | ---: | ---: | ---: |");
    row("upstream alone (JSON)", measure(get(format!("http://127.0.0.1:{upstream_port}/table"), "application/json")));
    row("one stc proxy, no balancer", measure(get(format!("http://127.0.0.1:{}/table", backends[0].port), stc)));
    row("HAProxy → one stc proxy", measure(get(format!("http://127.0.0.1:{one_port}/table"), stc)));
    row("HAProxy → two stc proxy", measure(get(format!("http://127.0.0.1:{two_port}/table"), stc)));
}

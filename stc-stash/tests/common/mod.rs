//! Helpers shared by the integration tests: a real `redis-server` per test,
//! a real Redis Cluster (`cluster`), generated records, restoring an output.
#![allow(dead_code)]

pub mod cluster;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` started for one test on a free loopback port, in a
/// temporary directory, without persistence; stopped on drop.
pub struct RedisServer {
    child: Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    /// Starts a server. Panics (the test fails, it is not skipped) when
    /// `redis-server` is not installed.
    pub fn start() -> RedisServer {
        let status = Command::new("redis-server").arg("--version").stdout(Stdio::null()).status();
        if !matches!(status, Ok(s) if s.success()) {
            panic!(
                "redis-server is not installed: run `bash scripts/prereqs/20-redis.sh` (Debian package redis-server)"
            );
        }
        let mut last_error = String::new();
        for _ in 0..5 {
            // Ask the OS for a free port, release it, and hand it to Redis;
            // if another process takes it in between, try again.
            let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let dir = tempfile::tempdir().unwrap();
            let mut child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .args(["--dir", dir.path().to_str().unwrap(), "--protected-mode", "yes"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn redis-server");
            let url = format!("redis://127.0.0.1:{port}/");
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    last_error = format!("redis-server exited with {status}");
                    break;
                }
                let ping = redis::Client::open(url.as_str())
                    .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(200)))
                    .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c));
                if ping.is_ok() {
                    return RedisServer { child, url, _dir: dir };
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    last_error = "redis-server did not answer PING within 10 s".into();
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        panic!("could not start redis-server: {last_error}");
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A record array of `n` objects, with a few errors, anomalies and outliers.
pub fn records(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| match i {
            _ if i == n / 3 => format!(r#"{{"id":{i},"name":"user{i}","status":"error","latency_ms":12}}"#),
            _ if i == n / 2 => format!(r#"{{"id":{i},"name":"user{i}","status":"ok","latency_ms":98000}}"#),
            _ if i == 2 * n / 3 => {
                format!(r#"{{"id":{i},"name":"user{i}","status":"ok","latency_ms":11,"extra":true}}"#)
            }
            _ => format!(r#"{{"id":{i},"name":"user{i}","status":"ok","latency_ms":{}}}"#, 10 + i % 5),
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// The original, rebuilt from the output JSON and the stashed payloads.
pub fn resolve(store: &dyn stc_stash::StashStore, output_json: &str) -> String {
    let output = stc_stash::Value::parse_json(output_json, &Default::default()).unwrap();
    stc_stash::restore(&output, &mut |k| match store.retrieve(k).unwrap() {
        stc_stash::Lookup::Found(p) => Some(String::from_utf8(p).unwrap()),
        _ => None,
    })
    .unwrap()
}

//! Two `stc proxy` processes behind HAProxy.

use std::sync::Arc;
use std::time::Duration;

use crate::harness::{self, Backend, Check, Outcome, Proc, TempDir};

const STC: &str = "application/stc+json";

/// Two proxies of one upstream behind HAProxy; the frontend port.
struct Fleet {
    _dir: TempDir,
    _upstream: Proc,
    upstream_port: u16,
    proxies: Vec<(Backend, Option<Proc>)>,
    _haproxy: Proc,
    port: u16,
}

impl Fleet {
    fn new() -> Fleet {
        let dir = TempDir::new("http");
        let (upstream, upstream_port) = harness::upstream();
        let mut proxies = Vec::new();
        for name in ["a", "b"] {
            let backend = Backend { name: name.into(), port: harness::free_port() };
            let proc = start_proxy(&backend, upstream_port);
            proxies.push((backend, Some(proc)));
        }
        let backends: Vec<Backend> = proxies.iter().map(|(b, _)| b.clone()).collect();
        let (haproxy, port) = harness::haproxy(&dir.0, &backends);
        for b in &backends {
            harness::wait_served_by(port, "/table", &b.name, Duration::from_secs(10));
        }
        Fleet { _dir: dir, _upstream: upstream, upstream_port, proxies, _haproxy: haproxy, port }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn restart(&mut self, i: usize) {
        let (backend, proc) = &mut self.proxies[i];
        assert!(proc.as_mut().is_none_or(|p| p.wait_exit(Duration::ZERO).is_some()), "{} still runs", backend.name);
        *proc = Some(start_proxy(backend, self.upstream_port));
    }

    fn proc(&mut self, i: usize) -> &mut Proc {
        self.proxies[i].1.as_mut().unwrap()
    }
}

fn start_proxy(backend: &Backend, upstream: u16) -> Proc {
    let args: Vec<String> = [
        "proxy",
        "--listen",
        &format!("127.0.0.1:{}", backend.port),
        "--upstream",
        &format!("http://127.0.0.1:{upstream}"),
        "--shutdown-grace",
        "5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    harness::spawn_stc(&format!("proxy {}", backend.name), &args)
}

/// Every answer is the upstream's table as STC, decoded exactly.
fn stc_table_check() -> Check {
    let expected: serde_json::Value =
        serde_json::from_slice(&std::process::Command::new("python3").arg("-c").arg(TABLE_PY).output().unwrap().stdout)
            .unwrap();
    Arc::new(move |status, headers, body| {
        if status != 200 {
            return Err(format!("status {status}: {}", String::from_utf8_lossy(body)));
        }
        let media = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
        if !media.starts_with(STC) {
            return Err(format!("content-type {media}"));
        }
        let text = std::str::from_utf8(body).map_err(|e| e.to_string())?;
        let json = stc_core::decode_with(text, &stc_core::DecodeOptions::default().version(stc_core::Version::V2))
            .map_err(|e| e.to_string())?;
        let value: serde_json::Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        if value != expected {
            return Err("the decoded answer differs from the upstream's JSON".into());
        }
        Ok(())
    })
}

/// The upstream's `/table` document, as upstream.py builds it.
const TABLE_PY: &str = "import json; print(json.dumps([{'id': i, 'name': f'user{i}', 'active': i % 2 == 0, \
                        'email': f'user{i}@example.com'} for i in range(40)]))";

fn failures(outcomes: &[Outcome]) -> Vec<&Outcome> {
    outcomes.iter().filter(|o| o.result.is_err()).collect()
}

fn served_by(outcomes: &[Outcome], backend: &str) -> usize {
    outcomes.iter().filter(|o| o.result.as_deref() == Ok(backend)).count()
}

#[test]
fn requests_spread_a_killed_proxy_fails_only_requests_in_flight_and_a_rolling_restart_fails_none() {
    let mut fleet = Fleet::new();
    let url = fleet.url("/table");
    let accept = format!("{STC}; version=2, application/json; q=0.5");
    let check = stc_table_check();

    // Spread: both processes answer, every answer decodes to the upstream's JSON.
    let warm = harness::load(&url, &accept, 4, Duration::from_secs(15), 200, check.clone(), |_| {});
    assert!(failures(&warm).is_empty(), "{:?}", failures(&warm));
    assert_eq!(warm.len(), 200, "the run was cut short");
    let (a, b) = (served_by(&warm, "a"), served_by(&warm, "b"));
    assert!(a >= 50 && b >= 50, "round robin over a and b, got a={a} b={b}");

    // kill -9 of `a` under load: only requests in flight at the kill may
    // fail; none that started after the health check could see it.
    let workers = 6;
    let mut killed_at = Duration::ZERO;
    let run = harness::load(&url, &accept, workers, Duration::from_secs(3), 20_000, check.clone(), |start| {
        std::thread::sleep(Duration::from_millis(800));
        fleet.proc(0).signal("-KILL");
        killed_at = start.elapsed();
    });
    assert!(fleet.proc(0).wait_exit(Duration::from_secs(5)).is_some());
    let failed = failures(&run);
    assert!(failed.len() <= workers, "more failures than requests in flight: {failed:?}");
    for f in &failed {
        assert!(f.started <= killed_at, "a request that started after the kill failed: {f:?} (kill at {killed_at:?})");
    }
    let after: Vec<&Outcome> = run.iter().filter(|o| o.started > killed_at + Duration::from_millis(500)).collect();
    assert!(after.len() > 20, "too little load after the kill to judge: {}", after.len());
    assert!(after.iter().all(|o| o.result.as_deref() == Ok("b")), "after the health check only b answers");

    // Back: `a` restarted on its port is taken back by the health check.
    fleet.restart(0);
    harness::wait_served_by(fleet.port, "/table", "a", Duration::from_secs(10));

    // A rolling restart with SIGTERM under load (some requests slow, so some
    // are in flight at each SIGTERM): no request fails.
    let slow_url = fleet.url("/slow?ms=300");
    let slow_check = check.clone();
    let slow = std::thread::spawn(move || {
        harness::load(&slow_url, &format!("{STC}; version=2"), 2, Duration::from_secs(6), 2_000, slow_check, |_| {})
    });
    let rolling = harness::load(&url, &accept, 4, Duration::from_secs(6), 20_000, check, |_| {
        for i in 0..2 {
            std::thread::sleep(Duration::from_millis(700));
            fleet.proc(i).signal("-TERM");
            let code = fleet.proc(i).wait_exit(Duration::from_secs(8));
            assert_eq!(code, Some(0), "a draining proxy exits 0 within its grace");
            fleet.restart(i);
            let name = fleet.proxies[i].0.name.clone();
            harness::wait_served_by(fleet.port, "/table", &name, Duration::from_secs(10));
        }
    });
    let slow = slow.join().unwrap();
    assert!(failures(&rolling).is_empty(), "{:?}", failures(&rolling));
    assert!(failures(&slow).is_empty(), "{:?}", failures(&slow));
    assert!(rolling.len() > 50 && slow.len() > 10, "too little load: {} and {}", rolling.len(), slow.len());
}

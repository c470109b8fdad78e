//! Two `stc mcp-proxy --listen` processes behind HAProxy, sharing one Redis
//! stash and one marker secret, each wrapping its own stdio server (the
//! Python SDK 2.x fixture). Requests use the 2026-07-28 revision (no
//! sessions), so any gateway can serve any request.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::{self, Backend, Check, Outcome, Proc, Request, TempDir};

fn python2() -> PathBuf {
    let python = harness::root().join("target/mcp2-venv/bin/python");
    assert!(python.exists(), "{} is missing: run `bash scripts/prereqs/30-mcp.sh`", python.display());
    python
}

struct Fleet {
    _dir: TempDir,
    _redis: Proc,
    redis_port: u16,
    secret: PathBuf,
    gateways: Vec<(Backend, Option<Proc>)>,
    _haproxy: Proc,
    port: u16,
}

impl Fleet {
    fn new() -> Fleet {
        let dir = TempDir::new("mcp");
        let (redis, redis_port) = harness::redis(&dir.0);
        let secret = dir.0.join("marker-secret");
        std::fs::write(&secret, "the marker secret this fleet's gateways share").unwrap();
        let mut fleet_gateways = Vec::new();
        for name in ["a", "b"] {
            let backend = Backend { name: name.into(), port: harness::free_port() };
            let proc = start_gateway(&backend, redis_port, &secret);
            fleet_gateways.push((backend, Some(proc)));
        }
        let backends: Vec<Backend> = fleet_gateways.iter().map(|(b, _)| b.clone()).collect();
        let (haproxy, port) = harness::haproxy(&dir.0, &backends);
        for b in &backends {
            harness::wait_served_by(port, "/healthz", &b.name, Duration::from_secs(20));
        }
        Fleet { _dir: dir, _redis: redis, redis_port, secret, gateways: fleet_gateways, _haproxy: haproxy, port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn direct(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}/mcp", self.gateways[i].0.port)
    }

    fn proc(&mut self, i: usize) -> &mut Proc {
        self.gateways[i].1.as_mut().unwrap()
    }

    fn restart(&mut self, i: usize) {
        let (backend, proc) = &mut self.gateways[i];
        assert!(proc.as_mut().is_none_or(|p| p.wait_exit(Duration::ZERO).is_some()), "{} still runs", backend.name);
        *proc = Some(start_gateway(backend, self.redis_port, &self.secret));
    }
}

fn start_gateway(backend: &Backend, redis_port: u16, secret: &std::path::Path) -> Proc {
    let args: Vec<String> = vec![
        "mcp-proxy".into(),
        "--listen".into(),
        format!("127.0.0.1:{}", backend.port),
        "--store".into(),
        "redis".into(),
        "--redis-url".into(),
        format!("redis://127.0.0.1:{redis_port}/"),
        "--budget".into(),
        "600".into(),
        "--marker-secret-file".into(),
        secret.display().to_string(),
        "--shutdown-grace".into(),
        "5".into(),
        "--".into(),
        python2().display().to_string(),
        harness::root().join("stc-mcp/tests/fixtures/fixture_server2.py").display().to_string(),
    ];
    harness::spawn_stc(&format!("mcp-proxy {}", backend.name), &args)
}

/// A 2026-07-28 `tools/call` from client `name`: no session, the client's
/// identity in the request's `_meta`.
fn call(id: u64, client: &str, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

fn post(client: &reqwest::Client, url: &str, body: String) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .body(body)
}

/// The `result` of a JSON-RPC answer that is a successful tool result.
fn tool_result(status: u16, body: &[u8]) -> Result<Value, String> {
    if status != 200 {
        return Err(format!("status {status}: {}", String::from_utf8_lossy(body)));
    }
    let answer: Value = serde_json::from_slice(body).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(body)))?;
    let result = answer.get("result").ok_or_else(|| format!("no result: {answer}"))?;
    if result["isError"] == true {
        return Err(format!("tool error: {result}"));
    }
    Ok(result.clone())
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// The sealed key of a marker's retrieve instruction.
fn marker_key(text: &str) -> String {
    let at = text.find("with key=").unwrap_or_else(|| panic!("no marker in {text:.300}")) + "with key=".len();
    text[at..].chars().take_while(|c| c.is_ascii_hexdigit() || *c == '.').collect()
}

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

async fn exchange(client: &reqwest::Client, url: &str, body: String) -> (u16, Vec<u8>) {
    let r = post(client, url, body).send().await.unwrap();
    (r.status().as_u16(), r.bytes().await.unwrap().to_vec())
}

#[test]
fn a_marker_shown_by_one_gateway_is_retrieved_through_the_other_and_through_the_balancer() {
    let fleet = Fleet::new();
    let client = reqwest::Client::new();
    run(async {
        // Gateway a shows alpha a marker; gateway b answers alpha's retrieve from the shared store.
        let (status, body) = exchange(&client, &fleet.direct(0), call(1, "alpha", "obj", json!({"n": 300}))).await;
        let shown = tool_result(status, &body).unwrap();
        assert!(text(&shown).starts_with("{count:300,items:{stc_stash:"), "{:.300}", text(&shown));
        let key = marker_key(text(&shown));
        let (status, body) =
            exchange(&client, &fleet.direct(1), call(2, "alpha", "stc_retrieve", json!({"key": key}))).await;
        let got = tool_result(status, &body).unwrap();
        let items: Value = serde_json::from_str(text(&got)).unwrap();
        assert_eq!(items.as_array().map(Vec::len), Some(300));
        assert_eq!(items[299]["email"], "user299@example.com");
        // The seal holds across processes: another client is refused by either gateway.
        for i in 0..2 {
            let (status, body) =
                exchange(&client, &fleet.direct(i), call(3, "mallory", "stc_retrieve", json!({"key": key}))).await;
            assert_eq!(status, 200);
            let answer: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(answer["result"]["isError"], true, "{answer}");
            assert!(text(&answer["result"]).contains("was not shown to this client"), "{answer}");
        }
        // Through the load balancer: every show-then-retrieve pair works, whichever gateways serve it.
        for n in 0..10u64 {
            let (status, body) =
                exchange(&client, &fleet.url(), call(10 + n, "beta", "obj", json!({"n": 200 + n}))).await;
            let key = marker_key(text(&tool_result(status, &body).unwrap()));
            let (status, body) =
                exchange(&client, &fleet.url(), call(50 + n, "beta", "stc_retrieve", json!({"key": key}))).await;
            let items: Value = serde_json::from_str(text(&tool_result(status, &body).unwrap())).unwrap();
            assert_eq!(items.as_array().map(Vec::len), Some(200 + n as usize));
        }
    });
    // A real MCP client (the official Python SDK 2.x, auto mode) through the balancer.
    let sdk = |steps: Value| -> Value {
        let spec = json!({"url": fleet.url(), "mode": "auto", "name": "gamma", "steps": steps});
        let out = std::process::Command::new(python2())
            .arg(harness::root().join("stc-mcp/tests/fixtures/sdk_client.py"))
            .arg(spec.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let shown = sdk(json!([["call", "obj", {"n": 400}]]));
    assert_eq!(shown["protocol"], "2026-07-28", "{shown}");
    let key = marker_key(shown["steps"][0]["texts"][0].as_str().unwrap());
    let got = sdk(json!([["call", "stc_retrieve", {"key": key}]]));
    assert_eq!(got["steps"][0]["isError"], false, "{got}");
    let items: Value = serde_json::from_str(got["steps"][0]["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(items.as_array().map(Vec::len), Some(400));
}

fn small_call_check() -> Check {
    Arc::new(|status, _headers, body| {
        let result = tool_result(status, body)?;
        let text = text(&result);
        // 20 records under the budget: STC v2, whole.
        if !text.starts_with("{count:20,items[20]{") {
            return Err(format!("unexpected text {text:.200}"));
        }
        Ok(())
    })
}

fn failures(outcomes: &[Outcome]) -> Vec<&Outcome> {
    outcomes.iter().filter(|o| o.result.is_err()).collect()
}

#[test]
fn a_killed_gateway_fails_only_calls_in_flight_and_a_rolling_restart_fails_none() {
    let mut fleet = Fleet::new();
    let url = fleet.url();
    let request: Request =
        Arc::new(move |client: &reqwest::Client| post(client, &url, call(1, "loadgen", "obj", json!({"n": 20}))));
    let check = small_call_check();

    let warm = harness::load_with(request.clone(), 4, Duration::from_secs(20), 100, check.clone(), |_| {});
    assert!(failures(&warm).is_empty(), "{:?}", failures(&warm));
    assert_eq!(warm.len(), 100);
    for name in ["a", "b"] {
        assert!(warm.iter().filter(|o| o.result.as_deref() == Ok(name)).count() >= 25, "{name} served too few");
    }

    let workers = 4;
    let mut killed_at = Duration::ZERO;
    let run = harness::load_with(request.clone(), workers, Duration::from_secs(3), 20_000, check.clone(), |start| {
        std::thread::sleep(Duration::from_millis(800));
        fleet.proc(0).signal("-KILL");
        killed_at = start.elapsed();
    });
    let failed = failures(&run);
    assert!(failed.len() <= workers, "more failures than calls in flight: {failed:?}");
    for f in &failed {
        assert!(f.started <= killed_at, "a call that started after the kill failed: {f:?} (kill at {killed_at:?})");
    }
    let after: Vec<&Outcome> = run.iter().filter(|o| o.started > killed_at + Duration::from_millis(500)).collect();
    assert!(after.len() > 10, "too little load after the kill to judge: {}", after.len());
    assert!(after.iter().all(|o| o.result.as_deref() == Ok("b")), "after the health check only b answers");
    assert!(fleet.proc(0).wait_exit(Duration::from_secs(5)).is_some());
    fleet.restart(0);
    harness::wait_served_by(fleet.port, "/healthz", "a", Duration::from_secs(20));

    let rolling = harness::load_with(request, 4, Duration::from_secs(10), 20_000, check, |_| {
        for i in 0..2 {
            std::thread::sleep(Duration::from_millis(700));
            fleet.proc(i).signal("-TERM");
            let code = fleet.proc(i).wait_exit(Duration::from_secs(15));
            assert_eq!(code, Some(0), "a draining gateway exits 0");
            fleet.restart(i);
            let name = fleet.gateways[i].0.name.clone();
            harness::wait_served_by(fleet.port, "/healthz", &name, Duration::from_secs(20));
        }
    });
    assert!(failures(&rolling).is_empty(), "{:?}", failures(&rolling));
    assert!(rolling.len() > 30, "too little load: {}", rolling.len());
}

//! `stc mcp-proxy` over Streamable HTTP as a process: what the binary adds
//! to the library (tested in-process in stc-mcp/tests/it): the flags and
//! their environment variables, the stdio bridge of `--upstream` (a child
//! process), `https://` with `--upstream-ca`, the drain on SIGTERM, the
//! JSON access log. Real processes only: the spawned `stc` binary, a real
//! MCP server of the official Python SDK 2.x
//! (`stc-mcp/tests/fixtures/http_server.py`, over stdio or served with
//! uvicorn), real SDK clients (`http_client.py`) or raw HTTP (reqwest).
//! Needs target/mcp2-venv (scripts/prereqs/30-mcp.sh).

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::peers::*;

/// `stc mcp-proxy --listen 127.0.0.1:0 ARGS -- <the 2.x server over stdio>`; its URL.
fn listen(args: &[&str]) -> (Proc, String) {
    let mut all: Vec<String> = strings(args);
    all.push("--".into());
    all.push(python2().to_string_lossy().into_owned());
    all.push(fixture("http_server.py").to_string_lossy().into_owned());
    listen_with(&all)
}

/// `stc mcp-proxy --listen 127.0.0.1:0 ARGS`; its URL.
fn listen_with(args: &[String]) -> (Proc, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stc"));
    cmd.args(["mcp-proxy", "--listen", "127.0.0.1:0"]).args(args).stderr(Stdio::inherit());
    started(cmd)
}

/// Starts `cmd` (an `stc mcp-proxy` that listens); the process and its URL
/// from the line it prints once it accepts connections.
fn started(mut cmd: Command) -> (Proc, String) {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{line}");
    (Proc(child), url)
}

#[test]
fn listen_refuses_a_non_loopback_address_without_allow_remote() {
    let out = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["mcp-proxy", "--listen", "0.0.0.0:0", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    let out = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["mcp-proxy", "--upstream", "ftp://127.0.0.1:1/mcp"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("only http:// and https://"));
}

#[test]
fn upstream_wraps_a_remote_sdk2_server_for_stdio_clients() {
    let (_server, url) = http_server();
    let stc = env!("CARGO_BIN_EXE_stc");
    let secret = "Bearer s3cret-token-not-for-logs";
    for mode in ["legacy", "auto"] {
        let mut args =
            strings(&["sdk2-stdio", mode, "table", "slow", "auth", "--", stc, "mcp-proxy", "--upstream", &url]);
        args.extend(strings(&["--upstream-header", &format!("Authorization: {secret}")]));
        let (steps, err) = client(python2(), &args);
        assert!(!steps.contains_key("session"), "{mode}: {steps:?} {err}");
        assert_stc_table(&steps["table"], 30);
        assert_stc_table(&steps["slow"], 20);
        assert_eq!(steps["slow"]["progress"], serde_json::json!([1.0, 2.0, 3.0]), "{mode}");
        assert_eq!(steps["auth"]["text"], secret, "the header reaches the server");
        assert!(!err.contains("s3cret"), "the secret was logged: {err}");
        if mode == "legacy" {
            assert!(steps["connect"]["instructions"].as_str().unwrap().contains("written in STC"));
        }
    }
}

#[test]
fn upstream_failures_are_json_rpc_errors_and_never_hangs() {
    let (server, url) = http_server();
    let stc = env!("CARGO_BIN_EXE_stc");
    let started = Instant::now();
    let args = strings(&[
        "sdk2-stdio",
        "legacy",
        "table",
        "big",
        "stall",
        "die",
        "again",
        "--",
        stc,
        "mcp-proxy",
        "--max-message-bytes",
        "200000",
        "--upstream-timeout",
        "1",
        "--upstream",
        &url,
    ]);
    let (steps, err) = client(python2(), &args);
    drop(server);
    assert_stc_table(&steps["table"], 30);
    let error =
        |step: &str| steps[step]["error"].as_str().unwrap_or_else(|| panic!("{step}: {steps:?} {err}")).to_string();
    assert!(error("big").contains("larger than 200000 bytes"), "{}", error("big"));
    assert!(error("stall").contains("stalled for 1 s"), "{}", error("stall"));
    // The server killed mid-stream (after a progress event).
    assert!(error("die").contains("broke before the response"), "{}", error("die"));
    // And gone for good afterwards.
    assert!(error("again").contains("the upstream is unreachable"), "{}", error("again"));
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn upstream_over_https_trusts_the_ca_flag_and_refuses_an_unknown_issuer() {
    // A CA and a certificate for 127.0.0.1 that it signs, made with openssl.
    let dir = crate::certs::make_certificates("mcp-proxy");
    let (cert, key) = (dir.join("server.pem"), dir.join("server.key"));
    let (_server, url) = served(&["--https", cert.to_str().unwrap(), key.to_str().unwrap()], "https");
    let stc = env!("CARGO_BIN_EXE_stc");
    let ca = dir.join("ca.pem");
    let args = strings(&[
        "sdk2-stdio",
        "legacy",
        "table",
        "--",
        stc,
        "mcp-proxy",
        "--upstream",
        &url,
        "--upstream-ca",
        ca.to_str().unwrap(),
    ]);
    let (steps, err) = client(python2(), &args);
    assert!(!steps.contains_key("session"), "{steps:?} {err}");
    assert_stc_table(&steps["table"], 30);
    // Without the CA: the handshake fails with a JSON-RPC error that says why.
    let (steps, _) =
        client(python2(), &strings(&["sdk2-stdio", "legacy", "table", "--", stc, "mcp-proxy", "--upstream", &url]));
    let error = steps["session"]["error"].as_str().unwrap_or_else(|| panic!("{steps:?}"));
    assert!(error.contains("TLS with the upstream failed: invalid peer certificate: UnknownIssuer"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `/healthz` and `/readyz` for a load balancer; on SIGTERM a slow tool call
/// in flight (an SSE answer) completes, new connections are refused, and the
/// process exits 0 within the grace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_drains_on_sigterm_a_slow_call_in_flight_completes() {
    let (mut proxy, url) = listen(&["--shutdown-grace", "20", "--budget", "100000", "--store", "memory"]);
    let base = url.trim_end_matches("/mcp").to_string();
    assert_eq!(get(&format!("{base}/healthz")).await, (200, serde_json::json!({"status": "alive"})));
    // Ready: the child runs and the (memory) stash store answers.
    assert_eq!(get(&format!("{base}/readyz")).await, (200, serde_json::json!({"ready": true})));
    // Load balancers send any Host: the health paths answer them.
    let r = reqwest::Client::new().get(format!("{base}/readyz")).header("host", "lb.internal").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);

    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let (s, h, b) = post(&url, &[("accept", "application/json")], init).await;
    assert_eq!(s, 200, "{b}");
    let session = h["mcp-session-id"].to_str().unwrap().to_string();
    let with = [("accept", "application/json, text/event-stream"), ("mcp-session-id", session.as_str())];
    let (s, _, _) = post(&url, &with, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(s, 202);
    // A call of about 3 s, answered as SSE (progress, then the result).
    let call = r#"{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{"steps":6,"delay":0.5},"_meta":{"progressToken":"p"}}}"#;
    let mut req = reqwest::Client::new().post(&url).header("content-type", "application/json");
    for (n, v) in with {
        req = req.header(n, v);
    }
    let mut r = req.body(call).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    // The first progress frame: the call is in flight at the child.
    let mut body = String::new();
    while !body.contains("notifications/progress") {
        let chunk = tokio::time::timeout(Duration::from_secs(20), r.chunk()).await.expect("no progress").unwrap();
        body.push_str(&String::from_utf8_lossy(&chunk.expect("the stream ended early")));
    }
    let signalled = Instant::now();
    let status = Command::new("kill").arg("-TERM").arg(proxy.0.id().to_string()).status().unwrap();
    assert!(status.success());
    // New connections are refused once the listener is closed.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let addr = base.trim_start_matches("http://").to_string();
    assert!(std::net::TcpStream::connect(&addr).is_err(), "still accepting while draining");
    // The call in flight completes with its result, as STC.
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(20), r.chunk()).await.expect("stalled").unwrap() {
        body.push_str(&String::from_utf8_lossy(&chunk));
    }
    let last = body.lines().rev().find_map(|l| l.strip_prefix("data: ")).unwrap();
    let v: Value = serde_json::from_str(last).unwrap();
    assert_eq!(v["id"], "slow-1", "{body}");
    let text = v["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{body}"));
    assert!(text.starts_with("([20]{id,name,price,status}:"), "{body}");
    // Then the process exits 0, well within the grace.
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(s) = proxy.0.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "still running 20 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit}");
    assert!(signalled.elapsed() < Duration::from_secs(15), "{:?}", signalled.elapsed());
}

/// One JSON access-log line per request on stderr (`--log-format json`),
/// with the client's X-Request-Id (or a generated one), which reaches the
/// upstream and comes back; never the credentials.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_logs_one_json_line_per_request_with_its_request_id() {
    let (_server, upstream) = http_server();
    let mut child = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["mcp-proxy", "--listen", "127.0.0.1:0", "--log-format", "json", "--upstream", &upstream])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    let mut stderr = child.stderr.take().unwrap();
    let proxy = Proc(child);
    let errs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });

    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let auth = ("authorization", "Bearer never-logged-secret");
    let (s, h, b) = post(&url, &[("accept", "application/json"), auth, ("x-request-id", "init-7")], init).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(h["x-request-id"], "init-7");
    let session = h["mcp-session-id"].to_str().unwrap().to_string();
    let with = [("accept", "application/json"), auth, ("mcp-session-id", session.as_str())];
    let (s, h, _) = post(&url, &with, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(s, 202);
    let generated = h["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(generated.len(), 32, "a generated id");
    // The id reaches the upstream with the call.
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_request_id","arguments":{}}}"#;
    let (s, _, b) = post(&url, &[with[0], with[1], with[2], ("x-request-id", "call-42")], call).await;
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "call-42", "{b}");
    // An id that could forge a log line is replaced.
    let (_, h, _) = post(&url, &[with[0], with[2], ("x-request-id", "a b\"c")], call).await;
    assert_ne!(h["x-request-id"], "a b\"c");
    let (s, _, _) = post(&url, &[("accept", "application/json"), ("origin", "http://evil.example")], init).await;
    assert_eq!(s, 403);
    drop(proxy); // SIGTERM: the process exits and its stderr ends

    let stderr = errs.join().unwrap();
    assert!(!stderr.contains("never-logged-secret"), "{stderr}");
    let lines: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    let requests: Vec<&Value> = lines.iter().filter(|l| l["message"] == "request").collect();
    assert_eq!(requests.len(), 5, "{stderr}");
    let by_id = |id: &str| *requests.iter().find(|l| l["request_id"] == id).unwrap_or_else(|| panic!("{id}: {stderr}"));
    let init_line = by_id("init-7");
    assert_eq!((init_line["method"].as_str(), init_line["path"].as_str()), (Some("POST"), Some("/mcp")));
    assert_eq!((init_line["rpc_method"].as_str(), init_line["status"].as_u64()), (Some("initialize"), Some(200)));
    assert!(init_line["duration_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(by_id(&generated)["status"], 202);
    let call_line = by_id("call-42");
    assert_eq!(
        (call_line["rpc_method"].as_str(), call_line["tool"].as_str()),
        (Some("tools/call"), Some("echo_request_id"))
    );
    assert!(requests.iter().any(|l| l["status"] == 403 && l["rpc_method"] == ""), "{stderr}");
}

/// Every `stc mcp-proxy` option also comes from an environment variable,
/// parsed and checked as the flag is.
#[test]
fn mcp_proxy_options_from_the_environment_are_checked_like_the_flags() {
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stc"));
        cmd.arg("mcp-proxy").args(args).stdin(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    for (var, value, flag) in [
        ("STC_MCP_PROXY_MIN_SAVING", "2", "--min-saving"),
        ("STC_MCP_PROXY_MAX_BODY", "lots", "--max-body"),
        ("STC_MCP_PROXY_SHUTDOWN_GRACE", "1e99", "--shutdown-grace"),
        ("STC_MCP_PROXY_STC_VERSION", "9", "--stc-version"),
        ("STC_MCP_PROXY_UPSTREAM", "ftp://x/mcp", "--upstream"),
    ] {
        let by_flag = run(&[], &[flag, value, "--", "true"]);
        let by_var = run(&[(var, value)], &["--", "true"]);
        assert_ne!(by_flag.status.code(), Some(0), "{flag}");
        assert_eq!(by_var.status.code(), by_flag.status.code(), "{var}");
        assert_eq!(String::from_utf8_lossy(&by_var.stderr), String::from_utf8_lossy(&by_flag.stderr), "{var}");
    }
    // A non-loopback address from the environment needs --allow-remote as from the flag.
    let out = run(&[("STC_MCP_PROXY_LISTEN", "0.0.0.0:0")], &["--", "true"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    let out = run(&[("STC_MCP_PROXY_ALLOW_REMOTE", "perhaps")], &["--", "true"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--listen` and its settings from the environment alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_configured_by_the_environment() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stc"));
    cmd.args(["mcp-proxy", "--"]).arg(python2()).arg(fixture("http_server.py")).stderr(Stdio::null());
    cmd.env("STC_MCP_PROXY_LISTEN", "127.0.0.1:0")
        .env("STC_MCP_PROXY_MAX_BODY", "1000")
        .env("STC_MCP_PROXY_EXCLUDE_TOOLS", "slow,table");
    let (_proxy, url) = started(cmd);
    let (s, _, _) = post(&url, &[("accept", "application/json")], "x".repeat(2000)).await;
    assert_eq!(s, 413, "STC_MCP_PROXY_MAX_BODY");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let (s, h, b) = post(&url, &[("accept", "application/json")], init).await;
    assert_eq!(s, 200, "{b}");
    let with = [("accept", "application/json"), ("mcp-session-id", h["mcp-session-id"].to_str().unwrap())];
    let (s, _, _) = post(&url, &with, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(s, 202);
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"table","arguments":{}}}"#;
    let (s, _, b) = post(&url, &with, call).await;
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    let text = v["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{b}"));
    assert!(text.trim_start().starts_with('['), "an excluded tool keeps its JSON: {text}");
}

/// With a stash in Redis, `/readyz` follows the store: 200 while it
/// answers, 503 with the reason once it is gone (within the 2 s check).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_readyz_follows_the_stash_store() {
    let redis = crate::support::Redis::start();
    let (_proxy, url) = listen(&["--truncate-arrays-at", "4", "--store", "redis", "--redis-url", &redis.url]);
    let base = url.trim_end_matches("/mcp").to_string();
    assert_eq!(get(&format!("{base}/readyz")).await, (200, serde_json::json!({"ready": true})));
    drop(redis); // killed
    let started = Instant::now();
    let (s, v) = get(&format!("{base}/readyz")).await;
    assert_eq!(s, 503, "{v}");
    assert!(v["reason"].as_str().unwrap().starts_with("the stash store"), "{v}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // Alive all the same: the process serves, it is the store that is not ready.
    assert_eq!(get(&format!("{base}/healthz")).await.0, 200);
}

/// `--config FILE`'s `[mcp-proxy]` table reaches the options through their
/// environment variables: the same checks and messages as the flags.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_configured_by_a_config_file() {
    let dir = std::env::temp_dir().join(format!("stc-mcp-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[mcp-proxy]\nmin-saving = 3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["mcp-proxy", "--config", bad.to_str().unwrap(), "--", "true"])
        .output()
        .unwrap();
    let by_flag = Command::new(env!("CARGO_BIN_EXE_stc"))
        .args(["mcp-proxy", "--min-saving", "3", "--", "true"])
        .output()
        .unwrap();
    assert_eq!((out.status.code(), out.stderr), (by_flag.status.code(), by_flag.stderr));

    let good = dir.join("good.toml");
    std::fs::write(&good, "[mcp-proxy]\nlisten = \"127.0.0.1:0\"\nmax-body = 1000\nshutdown-grace = 3\n").unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stc"));
    cmd.args(["mcp-proxy", "--config", good.to_str().unwrap(), "--"]).arg(python2()).arg(fixture("http_server.py"));
    cmd.stderr(Stdio::null());
    let (_proxy, url) = started(cmd);
    let (s, _, _) = post(&url, &[("accept", "application/json")], "x".repeat(2000)).await;
    assert_eq!(s, 413, "max-body from the file");
    std::fs::remove_dir_all(&dir).unwrap();
}

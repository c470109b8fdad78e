//! `stc proxy` as a user runs it: the real binary in front of a separate
//! upstream process (stc-http/tests/upstream.py), hit with curl.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::support::{proxy, upstream, Proc};

/// Runs curl; returns (status, headers lowercased, body).
fn curl(args: &[&str]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("stc-proxy-test-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&dir).unwrap();
    let headers_file = dir.join("headers");
    let out: Output = Command::new("curl")
        .args(["-sS", "--max-time", "60", "-D"])
        .arg(&headers_file)
        .args(args)
        .output()
        .expect("curl runs");
    assert!(out.status.success(), "curl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let raw = std::fs::read_to_string(&headers_file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let mut lines = raw.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, out.stdout)
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn get<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn table() -> serde_json::Value {
    (0..40)
        .map(|i| serde_json::json!({"id": i, "name": format!("user{i}"), "active": i % 2 == 0, "email": format!("user{i}@example.com")}))
        .collect()
}

/// Decodes an STC body with the stc binary itself.
fn stc_decode(body: &[u8]) -> serde_json::Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stc"))
        .arg("decode")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let body = body.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &body));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Stops the proxy with SIGTERM; returns its exit success and its stderr.
fn terminate(mut p: Proc) -> (bool, String) {
    let pid = p.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = p.child.wait().unwrap();
    let mut err = String::new();
    p.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (status.success(), err)
}

#[test]
fn curl_gets_stc_when_it_asks_and_json_otherwise() {
    let (_up, port) = upstream();
    let (px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &[]);
    let url = format!("http://{addr}/table");

    let (status, h, body) = curl(&["-H", "Accept: application/stc+json, application/json;q=0.9", &url]);
    assert_eq!(status, 200);
    assert_eq!(get(&h, "content-type"), Some("application/stc+json"));
    assert_eq!(get(&h, "x-stc-version"), Some("1"));
    assert_eq!(get(&h, "content-length"), Some(body.len().to_string().as_str()));
    assert_eq!(get(&h, "vary"), Some("Origin, Accept, Accept-Encoding"));
    let ratio: f64 = get(&h, "x-stc-ratio").unwrap().parse().unwrap();
    assert!(ratio > 0.3 && ratio < 0.95, "{ratio}");
    assert_eq!(stc_decode(&body), table());

    // ADR-066's signal.
    let (_, h, body) = curl(&["-H", "Accept-Encoding: stc", &url]);
    assert_eq!(get(&h, "content-encoding"), Some("stc"));
    assert_eq!(get(&h, "content-type"), Some("application/stc+json"));
    assert_eq!(stc_decode(&body), table());

    // curl decompressing gzip/br of STC.
    let (_, h, body) = curl(&["--compressed", "-H", "Accept: application/stc+json", &url]);
    assert!(matches!(get(&h, "content-encoding"), Some("gzip" | "br" | "deflate" | "zstd")), "{h:?}");
    assert_eq!(stc_decode(&body), table());

    // No opt-in: the upstream's bytes.
    let (_, h, body) = curl(&["-H", "Accept: */*", &url]);
    assert_eq!(get(&h, "content-type"), Some("application/json"));
    assert!(get(&h, "x-stc-version").is_none());
    assert!(body.starts_with(b"[\n  {\n"));

    // Invalid upstream JSON: unchanged, 200, and one warning line.
    let (status, _, body) = curl(&["-H", "Accept: application/stc+json", &format!("http://{addr}/garbage")]);
    assert_eq!(status, 200);
    assert_eq!(body, b"{\"id\": 1, \"name\": \"trunc");

    let (ok, log) = terminate(px);
    assert!(ok, "exit status after SIGTERM; stderr: {log}");
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("is not valid JSON")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(warnings[0].contains("GET /garbage: response body declared as JSON is not valid JSON (1:"), "{log}");
    assert!(log.contains("GET /garbage 200 invalid-json "), "{log}");
    // One line per request: method, path, status, action, bytes and tokens before -> after, time added.
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("GET /table")).collect();
    assert_eq!(lines.len(), 4, "{log}");
    let first = lines[0];
    assert!(first.contains(" INFO GET /table 200 stc bytes "), "{first}");
    assert!(first.contains(&format!("->{} tokens ", table_stc_len(&lines))), "{first}");
    assert!(first.contains(" added ") && first.contains("ms request_id="), "{first}");
    assert!(lines[3].contains(" untouched "), "{}", lines[3]);
}

/// The STC byte count the first log line should report (its own figure, checked for consistency).
fn table_stc_len(lines: &[&str]) -> String {
    let bytes = lines[0].split(" bytes ").nth(1).unwrap().split(' ').next().unwrap();
    let (before, after) = bytes.split_once("->").unwrap();
    assert!(after.parse::<usize>().unwrap() < before.parse::<usize>().unwrap(), "{bytes}");
    after.to_string()
}

#[tokio::test]
async fn a_rust_client_reads_stc_through_the_binary() {
    let (_up, port) = upstream();
    let (_px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &[]);
    // reqwest decompresses gzip/br; the body is STC, decoded with stc-core.
    let client = reqwest::Client::new();
    for (accept, stc) in [("application/stc+json, application/json;q=0.9", true), ("application/json", false)] {
        let r = client.get(format!("http://{addr}/table")).header("accept", accept).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let content_type = r.headers()["content-type"].to_str().unwrap().to_string();
        assert_eq!(content_type == "application/stc+json", stc, "{accept}");
        assert_eq!(r.headers().get("x-stc-version").is_some(), stc, "{accept}");
        let body = r.bytes().await.unwrap();
        let json = stc_core::decode_bytes_with(&body, &stc_core::Limits::default()).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), table());
    }
    // A POST body goes through, streamed, and the upstream's JSON echo comes back as STC-or-JSON.
    let r = client
        .post(format!("http://{addr}/echo"))
        .header("accept", "application/stc+json")
        .body(vec![b'a'; 300_000])
        .send()
        .await
        .unwrap();
    let echo: serde_json::Value = serde_json::from_str(
        &stc_core::decode_bytes_with(&r.bytes().await.unwrap(), &stc_core::Limits::default()).unwrap(),
    )
    .unwrap();
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["body"].as_str().unwrap().len(), 300_000);
}

#[test]
fn upstream_failures_are_json_502_or_504() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (_px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &["--connect-timeout", "2"]);
    let (status, h, body) = curl(&[&format!("http://{addr}/anything")]);
    assert_eq!(status, 502);
    assert_eq!(get(&h, "content-type"), Some("application/json"));
    assert_eq!(get(&h, "content-length"), Some(body.len().to_string().as_str()));
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"], "upstream_unavailable");

    let (_up, port) = upstream();
    let (_px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &["--response-timeout", "3"]);
    let (status, _, body) = curl(&["-H", "Accept: application/stc+json", &format!("http://{addr}/slow?ms=8000")]);
    assert_eq!(status, 504);
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["error"], "upstream_timeout");
    let (status, h, _) = curl(&["-H", "Accept: application/stc+json", &format!("http://{addr}/slow?ms=100")]);
    assert_eq!(status, 200);
    assert_eq!(get(&h, "content-type"), Some("application/stc+json"));
}

#[test]
fn sigterm_lets_the_in_flight_request_finish() {
    let (up, port) = upstream();
    let (px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &[]);
    let url = format!("http://{addr}/slow?ms=1000");
    let request = std::thread::spawn(move || curl(&["-H", "Accept: application/stc+json", &url]));
    assert_eq!(up.line(), "got GET /slow", "the upstream holds the request");
    let (ok, log) = terminate(px);
    let (status, h, body) = request.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(get(&h, "content-type"), Some("application/stc+json"));
    assert_eq!(stc_decode(&body), table());
    assert!(ok, "{log}");
    assert!(log.contains("shutting down"), "{log}");
}

#[test]
fn sigterm_right_after_start_is_a_clean_exit() {
    let (px, _addr) = proxy("http://127.0.0.1:9", &[]);
    let (ok, log) = terminate(px);
    assert!(ok, "{log}");
}

#[test]
fn refuses_bad_settings_with_a_message() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_stc")).arg("proxy").args(args).stdin(Stdio::null()).output().unwrap()
    };
    let cases: &[(&[&str], &str)] = &[
        (&["--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:9"], "--allow-remote"),
        (&["--upstream", "ws://example.com"], "only http:// and https://"),
        (
            &["--listen", "127.0.0.1:0", "--upstream", "https://127.0.0.1:9", "--upstream-ca", "/nonexistent.pem"],
            "cannot read",
        ),
        (&["--upstream", "not a url"], "--upstream"),
        (&["--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--min-saving", "2"], "--min-saving"),
        (&["--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--tokenizer", "p50k"], "unknown tokenizer"),
        (&["--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--response-timeout", "0"], "seconds"),
    ];
    for (args, message) in cases {
        let out = run(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
    // A port already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let out = run(&["--listen", &taken.local_addr().unwrap().to_string(), "--upstream", "http://127.0.0.1:9"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on"));
}

/// Runs curl and returns its exit code and how long it took (failures allowed).
fn curl_timed(args: &[&str]) -> (i32, Duration) {
    let started = std::time::Instant::now();
    let status = Command::new("curl")
        .args(["-sS", "-o", "/dev/null", "--max-time", "60"])
        .args(args)
        .stderr(Stdio::null())
        .status()
        .expect("curl runs");
    (status.code().unwrap_or(-1), started.elapsed())
}

#[test]
fn a_body_shorter_than_declared_fails_at_once_for_every_client() {
    let (_up, port) = upstream();
    let (px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &["--body-timeout", "30"]);
    for path in ["/short", "/short?silent=1"] {
        for extra in
            [&[][..], &["-H", "Accept: application/stc+json"], &["--compressed", "-H", "Accept: application/stc+json"]]
        {
            let url = format!("http://{addr}{path}");
            let (code, took) = curl_timed(&[extra, &[url.as_str()]].concat());
            assert_ne!(code, 0, "{path} {extra:?}: a cut body must fail");
            assert!(took < Duration::from_secs(5), "{path} {extra:?}: took {took:?}");
        }
    }
    let (ok, log) = terminate(px);
    assert!(ok, "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

/// Sends SIGTERM without waiting for the exit.
fn signal_term(p: &Proc) {
    assert!(Command::new("kill").args(["-TERM", &p.child.id().to_string()]).status().unwrap().success());
}

/// Waits for the process to exit, at most `limit`; its exit success and how long it took.
fn wait_exit(p: &mut Proc, limit: Duration) -> (bool, Duration) {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = p.child.try_wait().unwrap() {
            return (status.success(), started.elapsed());
        }
        assert!(started.elapsed() < limit, "still running after {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn readyz_follows_the_upstream() {
    // A port with nothing listening: not ready, but alive.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (_px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &[]);
    let (status, h, body) = curl(&[&format!("http://{addr}/readyz")]);
    assert_eq!(status, 503);
    assert_eq!(get(&h, "content-type"), Some("application/json"));
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["status"], "not_ready");
    assert!(body["reason"].as_str().unwrap().contains("unreachable"), "{body}");
    assert_eq!(curl(&[&format!("http://{addr}/healthz")]).0, 200);
    // The upstream comes up on that port: ready once the cached answer (1 s) expires.
    let _listening = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(curl(&[&format!("http://{addr}/readyz")]).0, 200);
    // Moved with --health-prefix.
    let (_up, up_port) = upstream();
    let (_px2, addr2) = proxy(&format!("http://127.0.0.1:{up_port}"), &["--health-prefix", "/_stc"]);
    assert_eq!(curl(&[&format!("http://{addr2}/_stc/readyz")]).0, 200);
    assert_eq!(curl(&[&format!("http://{addr2}/readyz")]).0, 404, "forwarded to the upstream");
}

#[test]
fn sigterm_finishes_the_request_in_flight_refuses_new_ones_and_exits_within_the_grace() {
    let (up, port) = upstream();
    let (mut px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &["--shutdown-grace", "10"]);
    let url = format!("http://{addr}/slow?ms=2000");
    let request = std::thread::spawn(move || curl(&["-H", "Accept: application/stc+json", &url]));
    assert_eq!(up.line(), "got GET /slow", "the upstream holds the request");
    signal_term(&px);
    std::thread::sleep(Duration::from_millis(300));
    let refused = std::net::TcpStream::connect(&addr);
    assert!(refused.is_err(), "the listener is closed once SIGTERM arrives");
    let (status, h, body) = request.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(get(&h, "content-type"), Some("application/stc+json"));
    assert_eq!(stc_decode(&body), table());
    let (ok, took) = wait_exit(&mut px, Duration::from_secs(10));
    assert!(ok && took < Duration::from_secs(3), "exit {ok} after {took:?}");

    // A request longer than the grace: the process exits at the grace, the request is cut.
    let (up, port) = upstream();
    let (mut px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &["--shutdown-grace", "1"]);
    let url = format!("http://{addr}/slow?ms=8000");
    let request = std::thread::spawn(move || curl_timed(&[url.as_str()]));
    assert_eq!(up.line(), "got GET /slow");
    signal_term(&px);
    let (ok, took) = wait_exit(&mut px, Duration::from_secs(5));
    assert!(ok, "exit status 0 after the grace");
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(3), "{took:?}");
    assert_ne!(request.join().unwrap().0, 0, "the cut request fails");
}

#[test]
fn json_logs_carry_the_request_id_the_upstream_saw() {
    let (_up, port) = upstream();
    let (px, addr) = proxy(&format!("http://127.0.0.1:{port}"), &["--log-format", "json"]);
    let (status, h, body) = curl(&["-H", "X-Request-Id: req-42", &format!("http://{addr}/echo")]);
    assert_eq!(status, 200);
    assert_eq!(get(&h, "x-request-id"), Some("req-42"));
    let echo: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(echo["headers"]["x-request-id"], "req-42");
    // Without one, the proxy makes one and sends it both ways.
    let (_, h, body) = curl(&[&format!("http://{addr}/echo")]);
    let made = get(&h, "x-request-id").unwrap().to_string();
    let echo: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(echo["headers"]["x-request-id"], made.as_str());
    let (status, _, _) = curl(&["-H", "Accept: application/stc+json", &format!("http://{addr}/table")]);
    assert_eq!(status, 200);
    let (ok, log) = terminate(px);
    assert!(ok, "{log}");
    let events: Vec<serde_json::Value> =
        log.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    let requests: Vec<&serde_json::Value> = events.iter().filter(|e| e.get("request_id").is_some()).collect();
    assert_eq!(requests.len(), 3, "one event per request: {log}");
    assert_eq!(requests[0]["request_id"], "req-42");
    assert_eq!(requests[0]["method"], "GET");
    assert_eq!(requests[0]["path"], "/echo");
    assert_eq!(requests[0]["status"], 200);
    assert_eq!(requests[1]["request_id"], made.as_str());
    assert_eq!(requests[2]["format"], "stc");
    assert!(requests[2]["bytes_out"].as_u64().unwrap() < requests[2]["bytes_in"].as_u64().unwrap());
    assert!(requests[2]["duration_ms"].as_f64().is_some());
}

#[test]
fn every_option_also_comes_from_the_environment() {
    let (_up, port) = upstream();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stc"));
    cmd.arg("proxy")
        .env("STC_PROXY_LISTEN", "127.0.0.1:0")
        .env("STC_PROXY_UPSTREAM", format!("http://127.0.0.1:{port}"))
        .env("STC_PROXY_MAX_STC_VERSION", "1")
        .env("STC_PROXY_HEALTH_PREFIX", "/ops")
        .stderr(Stdio::piped());
    let p = Proc::spawn(&mut cmd);
    let addr = p.line().split(' ').nth(4).unwrap().trim_start_matches("http://").to_string();
    assert_eq!(curl(&[&format!("http://{addr}/ops/healthz")]).0, 200);
    let (_, h, _) = curl(&["-H", "Accept: application/stc+json; version=2", &format!("http://{addr}/table")]);
    assert_eq!(get(&h, "x-stc-version"), Some("1"), "capped by STC_PROXY_MAX_STC_VERSION");
    // The same checks as the flags, naming the flag.
    for (name, value, message) in [
        ("STC_PROXY_MIN_SAVING", "2", "--min-saving"),
        ("STC_PROXY_RESPONSE_TIMEOUT", "0", "seconds"),
        ("STC_PROXY_HEALTH_PREFIX", "nope", "health prefix"),
        ("STC_LOG_FORMAT", "xml", "--log-format"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_stc"))
            .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9"])
            .env(name, value)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{name}={value}");
        assert!(out.stdout.is_empty(), "{name}={value}: nothing served half-configured");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{name}={value}: {err}");
    }
}

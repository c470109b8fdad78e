//! The stash through `stc mcp-proxy` with real processes: the official Python
//! MCP SDK client (`stc-mcp/tests/fixtures/stash_client.py`), the proxy, and
//! the SDK's server (`fixture_server.py`), several proxy processes sharing one
//! SQLite store.
//!
//! - Issue 24, point 5: a retrieve in one session used to turn truncation off
//!   for the same content in every other session (for 7 days); now only the
//!   retrieve's own result is exempt.
//! - Retrieve without sessions: markers carry sealed keys (`KEY.TAG`, a keyed
//!   BLAKE3 MAC bound to the client's identity); proxies sharing a store and a
//!   secret answer each other's markers; bare keys, other clients' markers,
//!   other secrets and forged seals are refused before the store is read.

use crate::support::{python, root, stc, TempDir};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// One MCP session: the SDK client named `client` starts `stc mcp-proxy
/// PROXY_ARGS -- fixture` (its own process, the data dir's SQLite store) and
/// runs `steps`; the results, one per step.
fn session(dir: &TempDir, client: &str, proxy_args: &[&str], steps: &[&str]) -> Vec<Value> {
    let fixture = root().join("stc-mcp/tests/fixtures/fixture_server.py");
    let out = Command::new(python())
        .arg(root().join("stc-mcp/tests/fixtures/stash_client.py"))
        .arg(client)
        .args(steps)
        .arg("--")
        .arg(stc())
        .arg("mcp-proxy")
        .args(proxy_args)
        .arg("--")
        .arg(python())
        .arg(&fixture)
        .env("STC_DATA_DIR", &dir.0)
        .env_remove("STC_MARKER_SECRET")
        .output()
        .expect("the SDK client");
    assert!(out.status.success(), "client {client}: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), steps.len());
    lines
}

/// Decodes STC of any version the proxy writes (version 2 by default).
fn decode(text: &str) -> String {
    stc_core::decode_with(text, &stc_core::DecodeOptions::default().version(stc_core::Version::LATEST)).unwrap()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn text(v: &Value) -> &str {
    v["text"].as_str().unwrap()
}

/// The key a marker writes, from its retrieve instruction.
fn written_key(text: &str) -> String {
    let at = text.find("with key=").expect("a retrieve instruction") + "with key=".len();
    text[at..].chars().take_while(|c| c.is_ascii_hexdigit() || *c == '.').collect()
}

/// The fixture's table as the stash holds it (canonical minified JSON).
fn original(rows: usize) -> String {
    let lines: Vec<String> = (0..rows)
        .map(|i| {
            let status = if i % 7 == 3 { "error" } else { "ok" };
            format!(r#"{{"id":{i},"name":"item-{i}","price":{i}.50,"weight":1e3,"status":"{status}"}}"#)
        })
        .collect();
    format!("[{}]", lines.join(","))
}

#[test]
fn a_retrieve_in_one_session_leaves_the_next_sessions_read_cut() {
    let dir = TempDir::new("exempt");
    let proxy = ["--budget", "500"];
    // Session 1: read (cut), retrieve (the whole original, exempt), read again (cut again).
    let one = session(&dir, "alpha", &proxy, &["read:500", "retrieve-last", "read:500"]);
    let cut = text(&one[0]);
    assert!(cut.starts_with("{stc_stash:{"), "{cut:.200}");
    assert!(stc_core::Tokenizer::O200kBase.count(cut) <= 500);
    assert_eq!(one[1]["isError"], false, "{}", one[1]);
    assert_eq!(text(&one[1]), original(500));
    assert_eq!(one[1]["meta"]["stc/retrieved"].as_str(), Some(&written_key(cut)[..24]));
    assert_eq!(text(&one[2]), cut, "the same session's next read is cut as before");
    // Session 2, another proxy process on the same store: cut as before too.
    let two = session(&dir, "beta", &proxy, &["read:500"]);
    let cut2 = text(&two[0]);
    assert!(cut2.starts_with("{stc_stash:{"), "{cut2:.200}");
    assert!(cut2.len() * 10 < original(500).len());
    assert_eq!(stc_stash::references_in(cut2), stc_stash::references_in(cut));
}

#[test]
fn sealed_markers_are_answered_across_proxy_processes_sharing_a_store_and_a_secret() {
    let dir = TempDir::new("sealed");
    let shared = dir.file("shared", "a secret shared by the proxies of this test\n");
    let other = dir.file("other", "another deployment's secret, 32 bytes");
    let with = |secret: &Path| {
        vec!["--budget".to_string(), "500".into(), "--marker-secret-file".into(), secret.display().to_string()]
    };
    let (shared_args, other_args) = (with(&shared), with(&other));

    // Process A shows client "alpha" a marker.
    let a = session(&dir, "alpha", &args(&shared_args), &["read:300"]);
    let sealed = written_key(text(&a[0]));
    let (key, tag) = sealed.split_once('.').unwrap();
    assert_eq!((key.len(), tag.len()), (24, 16));
    let forged = format!("{key}.{}", if tag.starts_with('0') { "1".repeat(16) } else { "0".repeat(16) });
    let retrieve = format!("retrieve:{sealed}");

    // Process B (same secret, same store) answers alpha's retrieve of that marker.
    let b = session(
        &dir,
        "alpha",
        &args(&shared_args),
        &[&retrieve, &format!("retrieve:{key}"), &format!("retrieve:{forged}")],
    );
    assert_eq!(b[0]["isError"], false, "{}", b[0]);
    assert_eq!(text(&b[0]), original(300));
    // A bare key (old-style marker), a forged seal: tool errors.
    assert_eq!(b[1]["isError"], true);
    assert!(text(&b[1]).contains("has no seal"), "{}", b[1]);
    assert_eq!(b[2]["isError"], true);
    assert!(text(&b[2]).contains("was not shown to this client"), "{}", b[2]);
    // Another client with the same secret, and the same client under another secret: refused.
    let c = session(&dir, "gamma", &args(&shared_args), &[&retrieve]);
    assert_eq!(c[0]["isError"], true);
    assert!(text(&c[0]).contains("was not shown to this client"), "{}", c[0]);
    let d = session(&dir, "alpha", &args(&other_args), &[&retrieve]);
    assert_eq!(d[0]["isError"], true);
    assert!(text(&d[0]).contains("was not shown to this client"), "{}", d[0]);
    // Without a secret, each process draws its own: another process cannot answer.
    let e = session(&dir, "alpha", &["--budget", "500"], &[&retrieve]);
    assert_eq!(e[0]["isError"], true, "{}", e[0]);
    // The refusals come before the store is read: a sealed key of an entry the
    // store does not hold is refused for its seal, not as missing.
    let absent = format!("retrieve:{}.{}", "0".repeat(24), tag);
    let f = session(&dir, "alpha", &args(&shared_args), &[&absent]);
    assert!(text(&f[0]).contains("was not shown to this client"), "{}", f[0]);
}

#[test]
fn a_secret_that_is_too_short_or_unreadable_stops_the_proxy() {
    let dir = TempDir::new("badsecret");
    let short = dir.file("short", "tiny");
    for (args, want) in [
        (vec!["--budget", "100", "--marker-secret-file", short.to_str().unwrap()], "at least 16 bytes"),
        (vec!["--budget", "100", "--marker-secret-file", "/nonexistent/secret"], "cannot read the marker secret file"),
    ] {
        let out = Command::new(stc()).arg("mcp-proxy").args(&args).args(["--", "cat"]).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{err}");
    }
    let out = Command::new(stc())
        .args(["mcp-proxy", "--budget", "100", "--", "cat"])
        .env("STC_MARKER_SECRET", "short")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("$STC_MARKER_SECRET"));
}

/// A proxy around `cat`: the test writes the server's responses itself (cat
/// echoes each line: a request comes back first, then the response written).
struct Raw {
    child: std::process::Child,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Raw {
    fn spawn(args: &[&str]) -> Raw {
        let mut child = Command::new(stc())
            .arg("mcp-proxy")
            .args(args)
            .args(["--", "cat"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        Raw { child, lines: std::io::BufRead::lines(std::io::BufReader::new(out)) }
    }

    fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        serde_json::from_str(&self.lines.next().unwrap().unwrap()).unwrap()
    }

    /// Sends a request, drops its echo, answers it with `result`; the proxy's version of the answer.
    fn exchange(&mut self, request: Value, result: Value) -> Value {
        let id = request["id"].clone();
        self.send(&request.to_string());
        self.recv();
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string());
        self.recv()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `--budget auto`: Claude Code's cap (90% of 25,000 tokens), a tool's
/// `anthropic/maxResultSizeChars` (at 5 characters a token), and no cut for a
/// host whose limit is unknown (here named in a request's 2026-07-28 `_meta`).
#[test]
fn budget_auto_follows_the_hosts_limit() {
    let mut raw = Raw::spawn(&["--budget", "auto", "--store", "memory"]);
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2.1"}}});
    raw.exchange(init, serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "cat", "version": "1"}}));
    let tools = serde_json::json!({"tools": [
        {"name": "capped", "inputSchema": {"type": "object"}, "_meta": {"anthropic/maxResultSizeChars": 4000}},
        {"name": "plain", "inputSchema": {"type": "object"}}]});
    let list = raw.exchange(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), tools);
    assert_eq!(list["result"]["tools"][2]["name"], "stc_retrieve");
    let table = original(4000); // over 22,500 o200k tokens as STC
    let o200k = stc_core::Tokenizer::O200kBase;
    let call = |id: u64, tool: &str, meta: Value| serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}, "_meta": meta}});
    let result = serde_json::json!({"content": [{"type": "text", "text": table}]});
    let sent = |v: &Value| v["result"]["content"][0]["text"].as_str().unwrap().to_string();
    // The tool's cap: 4,000 characters, 800 tokens (5 characters a token), within 4,000 characters.
    let capped = sent(&raw.exchange(call(2, "capped", serde_json::json!({})), result.clone()));
    assert!(o200k.count(&capped) <= 800 && capped.starts_with("{stc_stash:"), "{}", o200k.count(&capped));
    assert!(capped.chars().count() <= 4000);
    // Claude Code's default cap: 22,500 o200k tokens; a result that fits it whole is not cut.
    let plain = sent(&raw.exchange(call(3, "plain", serde_json::json!({})), result.clone()));
    let tokens = o200k.count(&plain);
    assert!(tokens <= 22_500 && plain.starts_with("{stc_stash:"), "{tokens}");
    let fits = original(1000);
    let small = serde_json::json!({"content": [{"type": "text", "text": fits}]});
    let whole = sent(&raw.exchange(call(5, "plain", serde_json::json!({})), small));
    assert!(!whole.contains("stc_stash") && o200k.count(&whole) > 10_000);
    assert_eq!(decode(&whole), fits);
    // Another host (identity in the request's _meta): no known limit, no cut.
    let other = serde_json::json!({"io.modelcontextprotocol/clientInfo": {"name": "some-host", "version": "1"}});
    let whole = sent(&raw.exchange(call(4, "plain", other), result));
    assert!(!whole.contains("stc_stash"));
    assert_eq!(decode(&whole), table);
}

/// The Python SDK 2.3.0 client in `auto` mode speaks the revision 2026-07-28
/// to the SDK 2.x server through the proxy: no `initialize`, the client's
/// identity in every request's `_meta`. A marker shown through proxy process
/// A is answered by process B (same store, same secret) for the same client
/// name, and refused for another name.
#[test]
fn the_sessionless_revision_retrieves_across_processes_by_seal() {
    let python2 = root().join("target/mcp2-venv/bin/python");
    assert!(python2.exists(), "{} is missing: run `bash scripts/prereqs/30-mcp.sh`", python2.display());
    let dir = TempDir::new("modern");
    let secret = dir.file("secret", "the secret of this test's proxies");
    let fixture = root().join("stc-mcp/tests/fixtures/fixture_server2.py");
    let run = |name: &str, steps: Value| -> Value {
        let command = serde_json::json!([
            stc(),
            "mcp-proxy",
            "--budget",
            "600",
            "--marker-secret-file",
            secret,
            "--",
            python2,
            fixture
        ]);
        let spec = serde_json::json!({"command": command, "mode": "auto", "name": name,
            "env": {"STC_DATA_DIR": dir.0, "PATH": std::env::var("PATH").unwrap_or_default()}, "steps": steps});
        let out = Command::new(&python2)
            .arg(root().join("stc-mcp/tests/fixtures/sdk_client.py"))
            .arg(spec.to_string())
            .output()
            .expect("the SDK 2.x client");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let a = run("alpha", serde_json::json!([["list"], ["call", "obj", {"n": 500}]]));
    assert_eq!(a["protocol"], "2026-07-28", "{a}");
    let text = a["steps"][1]["texts"][0].as_str().unwrap();
    assert!(text.starts_with("{count:500,items:{stc_stash:"), "{text:.300}");
    let sealed = written_key(text);
    let b = run("alpha", serde_json::json!([["list"], ["call", "stc_retrieve", {"key": sealed}]]));
    let got = &b["steps"][1];
    assert_eq!(got["isError"], false, "{got}");
    let items: Value = serde_json::from_str(got["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(items.as_array().unwrap().len(), 500);
    assert_eq!(items[499]["email"], "user499@example.com");
    let c = run("mallory", serde_json::json!([["list"], ["call", "stc_retrieve", {"key": sealed}]]));
    assert_eq!(c["steps"][1]["isError"], true);
    assert!(c["steps"][1]["texts"][0].as_str().unwrap().contains("was not shown to this client"), "{c}");
}

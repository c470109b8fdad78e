//! `stc mcp` and `stc mcp-proxy` driven from the outside: the real `stc`
//! binary, spawned per test, talked to by a real MCP client (rmcp's) or by raw
//! JSON-RPC lines over pipes. The proxy wraps a real MCP server written with
//! the official Python SDK (`stc-mcp/tests/fixtures/fixture_server.py`, run
//! from the venv that `scripts/prereqs/30-mcp.sh` makes), or `cat`/`sleep`
//! for framing and shutdown cases. Every wait has a limit, so a hang fails the
//! test instead of stalling it.

use super::peers::{table_json, tool_response};
use crate::support::{call, connect, fixture, only_text, python, stc, texts, within, Client, Redis, TempDir, LIMIT};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use serde_json::{json, Value};

async fn stc_mcp(dir: &TempDir) -> Client {
    let mut cmd = tokio::process::Command::new(stc());
    // The default SQLite store is opened on first use only; a data dir of the
    // test's own keeps the user's real one out of the tests all the same.
    cmd.arg("mcp").env("STC_DATA_DIR", &dir.0);
    connect(cmd).await
}

async fn fixture_direct() -> Client {
    let mut cmd = tokio::process::Command::new(python());
    cmd.arg(fixture());
    connect(cmd).await
}

async fn fixture_proxied(options: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(stc());
    cmd.arg("mcp-proxy").args(options).arg("--").arg(python()).arg(fixture());
    connect(cmd).await
}

/// Minified JSON of a JSON (or STC, version 1 or 2) text, with its exact number lexemes.
fn canonical(text: &str) -> String {
    stc_core::decode_with(text, &stc_core::DecodeOptions::default().version(stc_core::Version::V2))
        .unwrap_or_else(|e| panic!("not STC: {e}: {text:.200}"))
}

// ---------------------------------------------------------------- stc mcp

#[tokio::test]
async fn server_lists_four_tools_with_input_and_output_schemas_and_explains_stc() {
    let dir = TempDir::new("tools");
    let client = stc_mcp(&dir).await;
    let info = client.peer_info().expect("server info");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("stc_encode") && instructions.contains(stc_mcp::STC_PRIMER), "{instructions}");

    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(names, ["stc_decode", "stc_encode", "stc_estimate", "stc_retrieve"]);
    for tool in &tools {
        let input = Value::Object((*tool.input_schema).clone());
        let output = Value::Object((**tool.output_schema.as_ref().expect("output schema")).clone());
        assert_eq!(input["type"], "object", "{}", tool.name);
        assert_eq!(output["type"], "object", "{}", tool.name);
        assert!(tool.description.as_deref().is_some_and(|d| d.len() > 40), "{}", tool.name);
        let required = input["required"].as_array().unwrap();
        let wanted = match tool.name.as_ref() {
            "stc_decode" => "stc",
            "stc_retrieve" => "key",
            _ => "json",
        };
        assert_eq!(required, &vec![json!(wanted)], "{}", tool.name);
    }
    let encode = tools.iter().find(|t| t.name == "stc_encode").unwrap();
    let props = &encode.input_schema["properties"];
    for p in ["profile", "gate", "min_saving", "tokenizer", "budget", "truncate_arrays_at"] {
        assert!(props.get(p).is_some(), "stc_encode lacks {p}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn server_tools_return_structured_content_and_a_text_block() {
    let dir = TempDir::new("structured");
    let client = stc_mcp(&dir).await;
    let rows: Vec<String> =
        (0..30).map(|i| format!(r#"{{"id": {i}, "name": "user{i}", "score": {i}.50, "big": 1e3}}"#)).collect();
    let table = format!("[{}]", rows.join(",\n"));

    // Encode: STC in the text block, the same text and the counts in structured content.
    let r = call(&client, "stc_encode", json!({"json": table})).await;
    assert_eq!(r.is_error, Some(false));
    let stc = only_text(&r);
    assert!(stc.starts_with("([30]{id,name,score,big}:0,"), "{stc}");
    let s = r.structured_content.clone().expect("structured");
    assert_eq!(s["text"], stc.as_str());
    assert_eq!(s["chosen"], "stc");
    assert!(s["stc_tokens"].as_u64().unwrap() < s["json_tokens"].as_u64().unwrap());
    assert_eq!(s["tokenizer"], "estimate");
    assert_eq!(canonical(&stc), canonical(&table));

    // The gate: numbers gain nothing, so minified JSON comes back; without the gate STC does.
    let numbers = format!("[{}]", (0..100).map(|i| (i * 3).to_string()).collect::<Vec<_>>().join(", "));
    let r = call(&client, "stc_encode", json!({"json": numbers, "tokenizer": "o200k_base"})).await;
    assert_eq!(r.structured_content.as_ref().unwrap()["chosen"], "json");
    assert_eq!(only_text(&r), canonical(&numbers));
    let r = call(&client, "stc_encode", json!({"json": "{\"a\": [1, 2]}", "gate": false, "profile": "readable"})).await;
    assert_eq!(only_text(&r), "{a: [1, 2]}");

    // Decode: the exact JSON back.
    let r = call(&client, "stc_decode", json!({"stc": stc})).await;
    assert_eq!(r.is_error, Some(false));
    let decoded = only_text(&r);
    assert_eq!(decoded, canonical(&table));
    assert_eq!(r.structured_content.unwrap()["json"], decoded.as_str());

    // Estimate: three forms, two tokenizers; the text block is the structured result as JSON.
    let r = call(&client, "stc_estimate", json!({"json": table})).await;
    let s = r.structured_content.clone().unwrap();
    assert_eq!(serde_json::from_str::<Value>(&only_text(&r)).unwrap(), s);
    for form in ["pretty_json", "minified_json", "stc"] {
        assert!(s[form]["o200k_base"].as_u64().unwrap() > 0, "{form}");
        assert!(s[form]["estimate"].as_u64().unwrap() > 0, "{form}");
    }
    assert_eq!(s["minified_json"]["bytes"], canonical(&table).len());
    assert_eq!(s["stc"]["bytes"], stc.len());
    assert!(s["pretty_json"]["o200k_base"].as_u64() > s["minified_json"]["o200k_base"].as_u64());
    assert!(s["stc_vs_minified"].as_f64().unwrap() < 1.0);
    assert_eq!(s["gate_choice"], "stc");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn server_bad_input_is_a_tool_error_and_a_bad_request_a_protocol_error() {
    let dir = TempDir::new("errors");
    let client = stc_mcp(&dir).await;
    let r = call(&client, "stc_decode", json!({"stc": "{a: 1,\n b 2}"})).await;
    assert_eq!(r.is_error, Some(true));
    let text = only_text(&r);
    assert!(text.contains("line 2, column 4") && text.contains("kind unexpected_char"), "{text}");

    let r = call(&client, "stc_encode", json!({"json": "[1, 2"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(only_text(&r).contains("invalid JSON at line 1, column 6"), "{r:?}");

    let r = call(&client, "stc_encode", json!({"json": "[1]", "min_saving": 2.0})).await;
    assert_eq!(r.is_error, Some(true));

    // Arguments that do not fit the schema: a tool error the model can correct.
    let r = call(&client, "stc_encode", json!({"text": "[1]"})).await;
    assert_eq!(r.is_error, Some(true), "{r:?}");

    // An unknown tool is a JSON-RPC error, not a result.
    let params = CallToolRequestParams::new("stc_nope");
    let e = within("unknown tool", client.call_tool(params)).await.expect_err("unknown tool must fail");
    assert!(e.to_string().contains("-32602") || e.to_string().contains("not found"), "{e}");
    client.cancel().await.unwrap();
}

/// A process spoken to in raw JSON-RPC lines, with limits on every wait.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Raw {
    fn spawn(args: &[&std::ffi::OsStr], envs: &[(&str, &Path)]) -> Raw {
        let mut cmd = Command::new(stc());
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn stc");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Raw { stdin: child.stdin.take(), child, lines, stderr: Some(stderr) }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line, or `None` at the end of the output.
    fn recv(&self) -> Option<String> {
        match self.lines.recv_timeout(LIMIT) {
            Ok(line) => Some(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("hang: no output line within {LIMIT:?}"),
        }
    }

    /// Reads lines up to the response with this id.
    fn response(&self, id: Value) -> Value {
        loop {
            let line = self.recv().unwrap_or_else(|| panic!("output ended before the response to {id}"));
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if v.get("id") == Some(&id) && v.get("method").is_none() {
                return v;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        self.send(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        );
        let r = self.response(json!(0));
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    fn close_stdin(&mut self) {
        self.stdin.take();
    }

    fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + LIMIT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("hang: the process did not exit within {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stderr(&mut self) -> String {
        self.stderr.take().map(|h| h.join().unwrap()).unwrap_or_default()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn server_answers_lines_that_are_not_requests_with_protocol_errors_and_keeps_serving() {
    let mut raw = Raw::spawn(&["mcp".as_ref(), "--max-message-bytes".as_ref(), "2000".as_ref()], &[]);
    raw.initialize();
    raw.send("this is not JSON");
    let e: Value = serde_json::from_str(&raw.recv().unwrap()).unwrap();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert_eq!(e["id"], Value::Null);
    raw.send(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{}}}"#);
    let e = raw.response(json!("x"));
    assert!(e["error"]["code"].as_i64().is_some(), "{e}");
    // Longer than --max-message-bytes: refused without being parsed.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{{"name":"stc_decode","arguments":{{"stc":"{}"}}}}}}"#,
        "x".repeat(5000)
    );
    raw.send(&big);
    let e: Value = serde_json::from_str(&raw.recv().unwrap()).unwrap();
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("longer than 2000 bytes"), "{e}");
    raw.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let r = raw.response(json!(5));
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 4);
    raw.close_stdin();
    assert!(raw.wait().success());
}

// ---------------------------------------------------------------- stc mcp-proxy

#[tokio::test]
async fn proxy_gives_stc_that_decodes_to_the_original_and_leaves_everything_else_alone() {
    let direct = fixture_direct().await;
    let proxied = fixture_proxied(&[]).await;

    // The primer is appended to the server's own instructions.
    let own = direct.peer_info().unwrap().instructions.clone().unwrap();
    let via = proxied.peer_info().unwrap().instructions.clone().unwrap();
    // Version 2 by default: its primer.
    assert_eq!(via, format!("{own}\n\n{}", stc_mcp::STC_PRIMER_V2));
    // The tool list passes through unchanged.
    let tools_direct = within("tools/list", direct.list_all_tools()).await.unwrap();
    let tools_via = within("tools/list", proxied.list_all_tools()).await.unwrap();
    assert_eq!(tools_direct, tools_via);

    // A JSON table: the client receives STC that decodes to the server's JSON exactly.
    for rows in [40, 3000] {
        let a = call(&direct, "table", json!({"rows": rows})).await;
        let b = call(&proxied, "table", json!({"rows": rows})).await;
        let (original, stc) = (only_text(&a), only_text(&b));
        assert!(stc.starts_with(&format!("([{rows}]{{id,name,price,weight,status}}:")), "{stc:.100}");
        assert!(stc.len() < original.len());
        assert_eq!(canonical(&stc), canonical(&original));
        assert!(canonical(&stc).contains(r#""price":1.50,"weight":1e3"#));
        // structuredContent (FastMCP's {"result": text}) is untouched.
        assert_eq!(a.structured_content, b.structured_content);
        assert_eq!(b.is_error, a.is_error);
    }

    // Not JSON, images and tool errors come through unchanged.
    for (tool, args) in [("words", json!({})), ("image", json!({})), ("fail", json!({}))] {
        let a = call(&direct, tool, args.clone()).await;
        let b = call(&proxied, tool, args).await;
        assert_eq!(a, b, "{tool}");
    }
    // JSON the gate keeps as JSON arrives as the gate's output: minified, the same values and lexemes.
    let a = call(&direct, "numbers", json!({"count": 300})).await;
    let b = call(&proxied, "numbers", json!({"count": 300})).await;
    assert!(only_text(&a).starts_with("[0, 7, 14,"), "{a:?}");
    assert_eq!(only_text(&b), canonical(&only_text(&a)));
    assert!(only_text(&b).starts_with("[0,7,14,"));
    assert_eq!(a.structured_content, b.structured_content);
    let failed = call(&proxied, "fail", json!({})).await;
    assert_eq!(failed.is_error, Some(true));

    // A dict result: structured content identical; its JSON text block re-encoded losslessly.
    let a = call(&direct, "structured", json!({"rows": 20})).await;
    let b = call(&proxied, "structured", json!({"rows": 20})).await;
    assert_eq!(a.structured_content, b.structured_content);
    assert_eq!(canonical(&only_text(&b)), canonical(&only_text(&a)));

    // Several blocks: only the JSON text changes.
    let a = call(&direct, "mixed", json!({"rows": 30})).await;
    let b = call(&proxied, "mixed", json!({"rows": 30})).await;
    assert_eq!(a.content.len(), 3);
    assert_eq!(b.content.len(), 3);
    let (ta, tb) = (texts(&a), texts(&b));
    assert!(tb[0].starts_with("([30]{"), "{}", tb[0]);
    assert_eq!(canonical(&tb[0]), canonical(&ta[0]));
    assert_eq!(tb[1], "done");
    assert!(matches!(b.content[1], ContentBlock::Image(_)));
    assert_eq!(a.content[1], b.content[1]);

    direct.cancel().await.unwrap();
    proxied.cancel().await.unwrap();
}

#[tokio::test]
async fn proxy_matches_interleaved_concurrent_calls_to_their_requests() {
    let client = fixture_proxied(&[]).await;
    let mut tasks = Vec::new();
    for i in 0..24usize {
        let peer = client.peer().clone();
        let rows = 20 + i;
        let (tool, args) = if i % 3 == 0 { ("words", json!({})) } else { ("table", json!({"rows": rows})) };
        tasks.push(tokio::spawn(async move {
            let Value::Object(args) = args else { unreachable!() };
            let r = peer.call_tool(CallToolRequestParams::new(tool).with_arguments(args)).await.unwrap();
            (i, rows, only_text(&r))
        }));
    }
    for task in tasks {
        let (i, rows, text) = within("concurrent call", task).await.unwrap();
        if i % 3 == 0 {
            assert!(text.starts_with("The quick brown fox"), "{text}");
        } else {
            assert!(text.starts_with(&format!("([{rows}]{{")), "call {i}: {text:.60}");
            assert_eq!(canonical(&text).matches("\"id\":").count(), rows);
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn proxy_include_and_exclude_choose_the_tools_it_re_encodes() {
    let is_stc = |r: &CallToolResult| texts(r)[0].starts_with("([30]{");

    let excluding = fixture_proxied(&["--exclude-tool", "table"]).await;
    assert!(!is_stc(&call(&excluding, "table", json!({"rows": 30})).await));
    assert!(is_stc(&call(&excluding, "mixed", json!({"rows": 30})).await));
    excluding.cancel().await.unwrap();

    let including = fixture_proxied(&["--include-tool", "mixed", "--include-tool", "structured"]).await;
    assert!(!is_stc(&call(&including, "table", json!({"rows": 30})).await));
    assert!(is_stc(&call(&including, "mixed", json!({"rows": 30})).await));
    including.cancel().await.unwrap();

    // --keep-json-text: where the gate keeps JSON (numbers), the server's text passes byte for byte;
    // where STC wins, STC is sent all the same.
    let keeping = fixture_proxied(&["--keep-json-text"]).await;
    let numbers = only_text(&call(&keeping, "numbers", json!({"count": 300})).await);
    assert!(numbers.starts_with("[0, 7, 14, "), "{numbers:.40}");
    assert!(is_stc(&call(&keeping, "table", json!({"rows": 30})).await));
    keeping.cancel().await.unwrap();

    // Size bounds: a table above --max-bytes stays JSON.
    let bounded = fixture_proxied(&["--max-bytes", "1000"]).await;
    assert!(!is_stc(&call(&bounded, "table", json!({"rows": 30})).await));
    bounded.cancel().await.unwrap();
}

fn proxy_args<'a>(options: &[&'a str], command: &[&'a std::ffi::OsStr]) -> Vec<&'a std::ffi::OsStr> {
    let mut args: Vec<&std::ffi::OsStr> = vec!["mcp-proxy".as_ref()];
    args.extend(options.iter().map(|o| std::ffi::OsStr::new(*o)));
    args.push("--".as_ref());
    args.extend_from_slice(command);
    args
}

#[test]
fn proxy_answers_pending_requests_when_the_server_crashes_and_exits() {
    let (py, fx) = (python(), fixture());
    let mut raw = Raw::spawn(&proxy_args(&[], &[py.as_os_str(), fx.as_os_str()]), &[]);
    raw.initialize();
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crash","arguments":{}}}"#);
    let r = raw.response(json!(1));
    assert_eq!(r["error"]["code"], -32000, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("exited (exit status: 3)"), "{r}");
    // Then the proxy closes its output and exits, with the child's stderr passed through.
    assert_eq!(raw.recv(), None);
    assert!(!raw.wait().success());
    let stderr = raw.stderr();
    assert!(stderr.contains("fixture: crashing on purpose"), "{stderr}");
    assert!(stderr.contains("stc mcp-proxy: the MCP server exited"), "{stderr}");
}

#[test]
fn proxy_shuts_the_server_down_when_the_client_closes_stdin() {
    let dir = TempDir::new("shutdown");
    let pid_file = dir.0.join("fixture.pid");
    let (py, fx) = (python(), fixture());
    let mut raw = Raw::spawn(&proxy_args(&[], &[py.as_os_str(), fx.as_os_str()]), &[("FIXTURE_PID_FILE", &pid_file)]);
    raw.initialize();
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    raw.close_stdin();
    assert!(raw.wait().success());
    // The proxy reaped its child before exiting.
    assert!(!Path::new(&format!("/proc/{pid}")).exists(), "fixture {pid} still runs");
}

#[test]
fn proxy_reports_a_server_that_cannot_start() {
    let mut raw = Raw::spawn(&proxy_args(&[], &["/nonexistent/mcp-server".as_ref()]), &[]);
    assert!(!raw.wait().success());
    assert_eq!(raw.recv(), None);
    let stderr = raw.stderr();
    assert!(stderr.contains("cannot start /nonexistent/mcp-server"), "{stderr}");
}

// ---------------------------------------------------------------- the stash

/// A key that is in `dir`'s SQLite stash but that no MCP session showed:
/// `stc encode --budget` in a separate process stashes it.
fn foreign_key(dir: &TempDir) -> String {
    let file = dir.0.join("other.json");
    std::fs::write(&file, table_json(300)).unwrap();
    let out = Command::new(stc())
        .args(["encode", "--budget", "200"])
        .arg(&file)
        .env("STC_DATA_DIR", &dir.0)
        .output()
        .expect("stc encode");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let keys = stc_stash::references_in(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(keys.len(), 1);
    keys[0].to_string()
}

fn estimate(text: &str) -> usize {
    stc_core::Tokenizer::Estimate.count(text)
}

/// The key a marker writes (`KEY.TAG` where the proxy sealed it), from its retrieve instruction.
fn written_key(text: &str) -> String {
    let at = text.find("with key=").expect("a retrieve instruction") + "with key=".len();
    text[at..].chars().take_while(|c| c.is_ascii_hexdigit() || *c == '.').collect()
}

fn meta_retrieved(result: &CallToolResult) -> Option<String> {
    let meta = serde_json::to_value(result).unwrap();
    meta["_meta"]["stc/retrieved"].as_str().map(str::to_string)
}

/// The fixture's 500-row table as the server writes it (pretty, 1.50, 1e3, every 7th row an error).
async fn original_table(rows: usize) -> String {
    let direct = fixture_direct().await;
    let text = only_text(&call(&direct, "table", json!({"rows": rows})).await);
    direct.cancel().await.unwrap();
    text
}

#[tokio::test]
async fn server_encode_with_budget_then_retrieve_gives_the_original_and_refuses_foreign_keys() {
    let dir = TempDir::new("server");
    let mut cmd = tokio::process::Command::new(stc());
    cmd.arg("mcp").env("STC_DATA_DIR", &dir.0);
    let client = connect(cmd).await;
    let original = original_table(500).await;

    // A budget: a budget-sized STC rendering with one marker that names stc_retrieve.
    let r = call(&client, "stc_encode", json!({"json": original, "budget": 400})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let text = only_text(&r);
    let s = r.structured_content.clone().unwrap();
    assert_eq!(s["truncated"], true);
    assert_eq!(s["chosen"], "stc");
    let keys = stc_stash::references_in(&text);
    assert_eq!(keys.len(), 1, "{text}");
    let key = keys[0].to_string();
    assert_eq!(s["stash_keys"], json!([key]));
    assert!(estimate(&text) <= 400, "{} tokens: {text}", estimate(&text));
    assert!(estimate(&text) * 10 < estimate(&canonical(&original)));
    assert!(text.contains(&format!("call tool stc_retrieve with key={key}")), "{text}");
    assert!(text.contains("omitted:") && text.contains("of:500"), "{text}");
    // The SQLite file of the data directory holds it.
    assert!(dir.0.join("stash.db").exists());

    // Retrieve: the exact original (minified, lexemes and order kept), not re-encoded.
    let back = call(&client, "stc_retrieve", json!({"key": key})).await;
    assert_eq!(back.is_error, Some(false), "{back:?}");
    assert_eq!(only_text(&back), canonical(&original));
    assert_eq!(back.structured_content.as_ref().unwrap()["json"], canonical(&original).as_str());
    assert_eq!(meta_retrieved(&back).as_deref(), Some(key.as_str()));

    // Only the retrieve output is exempt: encoding the same content again with a
    // budget cuts it as before (issue 24: a retrieve used to turn cutting off).
    let again = call(&client, "stc_encode", json!({"json": only_text(&back), "budget": 400})).await;
    assert_eq!(again.structured_content.as_ref().unwrap()["truncated"], true);
    assert_eq!(stc_stash::references_in(&only_text(&again)), keys);

    // A key that is in the same store but that this session never showed: refused.
    let foreign = foreign_key(&dir);
    let r = call(&client, "stc_retrieve", json!({"key": foreign})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(only_text(&r).contains("was not shown in this session"), "{r:?}");
    // Malformed keys: refused before the store is read.
    for bad in ["", "ABCDEF0123456789abcdef01", "../../etc/passwd", &format!("{key} ")] {
        let r = call(&client, "stc_retrieve", json!({"key": bad})).await;
        assert_eq!(r.is_error, Some(true), "{bad:?}");
        assert!(only_text(&r).contains("invalid key"), "{r:?}");
    }
    // Nothing to cut: no truncation, no marker.
    let small = call(&client, "stc_encode", json!({"json": table_json(5), "budget": 10})).await;
    assert_eq!(small.structured_content.unwrap()["truncated"], false);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn server_budget_with_the_memory_store_and_truncate_arrays_at() {
    let mut cmd = tokio::process::Command::new(stc());
    cmd.args(["mcp", "--store", "memory"]);
    let client = connect(cmd).await;
    let json = table_json(100);
    let r = call(&client, "stc_encode", json!({"json": json, "truncate_arrays_at": 8})).await;
    let text = only_text(&r);
    assert!(text.contains("items[8]{id,name,v}:"), "{text}");
    let key = stc_stash::references_in(&text)[0].to_string();
    let back = call(&client, "stc_retrieve", json!({"key": key})).await;
    assert_eq!(only_text(&back), json);
    client.cancel().await.unwrap();
}

async fn proxied_with_stash(dir: &TempDir, options: &[&str], child: &[&std::ffi::OsStr]) -> Client {
    let mut cmd = tokio::process::Command::new(stc());
    cmd.arg("mcp-proxy").args(options).arg("--").args(child).env("STC_DATA_DIR", &dir.0);
    connect(cmd).await
}

#[tokio::test]
async fn proxy_budget_truncates_with_a_marker_and_its_retrieve_tool_gives_the_exact_original() {
    let dir = TempDir::new("proxy");
    let (py, fx) = (python(), fixture());
    let client = proxied_with_stash(&dir, &["--budget", "500"], &[py.as_os_str(), fx.as_os_str()]).await;
    let original = original_table(500).await;

    // The retrieve tool is added to the server's tools.
    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    let retrieve = tools.iter().find(|t| t.name == "stc_retrieve").expect("stc_retrieve listed");
    assert_eq!(retrieve.input_schema["required"], json!(["key"]));
    assert!(tools.iter().any(|t| t.name == "table"));

    // 500 rows through the proxy: a budget-sized STC rendering with a marker naming the tool call.
    let r = call(&client, "table", json!({"rows": 500})).await;
    let text = only_text(&r);
    assert!(text.starts_with("{stc_stash:{omitted:"), "{text:.200}");
    assert!(estimate(&text) <= 500, "{} tokens", estimate(&text));
    assert!(estimate(&text) * 10 < estimate(&canonical(&original)));
    let keys = stc_stash::references_in(&text);
    assert_eq!(keys.len(), 1);
    // The marker's key is sealed for this client: KEY.TAG.
    let sealed = written_key(&text);
    let key = keys[0].to_string();
    assert_eq!(sealed.len(), 24 + 1 + 16);
    assert!(sealed.starts_with(&format!("{key}.")), "{sealed}");
    assert!(text.contains(&format!("If needed, call tool stc_retrieve with key={sealed}")), "{text:.400}");
    // The kept rows decode to exactly the original's rows (first and last kept, lexemes intact).
    let shown: Value = serde_json::from_str(&canonical(&text)).unwrap();
    let all: Value = serde_json::from_str(&canonical(&original)).unwrap();
    let items = shown["items"].as_array().unwrap();
    assert_eq!(items.first(), all.as_array().unwrap().first());
    assert_eq!(items.last(), all.as_array().unwrap().last());
    assert!(canonical(&text).contains(r#""price":0.50,"weight":1e3"#));

    // The added tool, answered by the proxy itself: the exact original, not re-encoded, not truncated.
    let back = call(&client, "stc_retrieve", json!({"key": sealed})).await;
    assert_eq!(back.is_error, Some(false), "{back:?}");
    assert_eq!(only_text(&back), canonical(&original));
    assert_eq!(meta_retrieved(&back).as_deref(), Some(key.as_str()));
    // Retrieving twice works (no one-shot entries); the store is the data dir's SQLite file.
    assert_eq!(only_text(&call(&client, "stc_retrieve", json!({"key": sealed})).await), canonical(&original));
    assert!(dir.0.join("stash.db").exists());

    // A bare key (even this marker's), a key in the same store that this proxy never showed,
    // a forged seal, a malformed key, bad arguments: tool errors.
    let r = call(&client, "stc_retrieve", json!({"key": key})).await;
    assert!(r.is_error == Some(true) && only_text(&r).contains("has no seal"), "{r:?}");
    let foreign = foreign_key(&dir);
    let r = call(&client, "stc_retrieve", json!({"key": format!("{foreign}.0123456789abcdef")})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(only_text(&r).contains("was not shown to this client"), "{r:?}");
    let r = call(&client, "stc_retrieve", json!({"key": "'; DROP TABLE stash; --"})).await;
    assert!(r.is_error == Some(true) && only_text(&r).contains("invalid key"), "{r:?}");
    let r = call(&client, "stc_retrieve", json!({"id": key})).await;
    assert!(r.is_error == Some(true) && only_text(&r).contains("arguments must be"), "{r:?}");

    // Small results are not cut, and what is not JSON is untouched.
    let small = only_text(&call(&client, "table", json!({"rows": 3})).await);
    assert!(stc_stash::references_in(&small).is_empty());
    assert_eq!(
        only_text(&call(&client, "words", json!({})).await),
        "The quick brown fox jumps over the lazy dog; {this is not JSON} [nor this]."
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn proxy_adds_no_retrieve_tool_and_cuts_nothing_without_truncation() {
    let dir = TempDir::new("off");
    let (py, fx) = (python(), fixture());
    let client = proxied_with_stash(&dir, &[], &[py.as_os_str(), fx.as_os_str()]).await;
    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "stc_retrieve"));
    let text = only_text(&call(&client, "table", json!({"rows": 500})).await);
    assert!(text.starts_with("([500]{"), "{text:.100}");
    assert!(stc_stash::references_in(&text).is_empty());
    // stc_retrieve is the server's business here: the fixture has no such tool.
    let params = CallToolRequestParams::new("stc_retrieve")
        .with_arguments(json!({"key": "0123456789abcdef01234567"}).as_object().unwrap().clone());
    let r = within("stc_retrieve", client.call_tool(params)).await;
    assert!(r.is_err() || r.unwrap().is_error == Some(true));
    assert!(!dir.0.join("stash.db").exists(), "no store is opened without truncation");
    client.cancel().await.unwrap();
}

/// The proxy wraps `stc mcp`, whose own `stc_retrieve` collides with the
/// proxy's: the server's tool wins, calls go to it, truncation is off, and
/// the server's retrieved original (marked in `_meta`) is not re-encoded.
#[test]
fn proxy_retrieve_tool_name_collision_leaves_the_servers_tool_and_its_retrieved_results_alone() {
    let dir = TempDir::new("collide");
    let args = proxy_args(&["--budget", "300"], &[stc().as_ref(), "mcp".as_ref()]);
    let mut raw = Raw::spawn(&args, &[("STC_DATA_DIR", &dir.0)]);
    raw.initialize();
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let list = raw.response(json!(1));
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.iter().filter(|n| **n == "stc_retrieve").count(), 1, "{names:?}");
    assert_eq!(names.len(), 4);

    // stc_encode with a budget: the inner server cuts; the proxy does not cut its STC again.
    let table = table_json(300);
    let encode = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stc_encode","arguments":{"json": table, "budget": 200}}});
    raw.send(&encode.to_string());
    let r = raw.response(json!(2));
    let text = r["result"]["content"][0]["text"].as_str().unwrap().to_string();
    let key = stc_stash::references_in(&text)[0].to_string();
    // stc_retrieve goes to the server (the proxy never showed this key, yet the call succeeds),
    // and its JSON result is the original, not turned into STC by the proxy.
    let call =
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stc_retrieve","arguments":{"key": key}}});
    raw.send(&call.to_string());
    let r = raw.response(json!(3));
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], table.as_str());
    assert_eq!(r["result"]["_meta"]["stc/retrieved"], key.as_str());
    raw.close_stdin();
    assert!(raw.wait().success());
    let stderr = raw.stderr();
    assert!(stderr.contains("the server has a tool named stc_retrieve"), "{stderr}");
}

#[test]
fn proxy_refuses_an_invalid_retrieve_tool_name_and_a_stash_db_outside_the_policy() {
    let mut raw = Raw::spawn(&proxy_args(&["--budget", "100", "--retrieve-tool", "rm -rf"], &["cat".as_ref()]), &[]);
    assert!(!raw.wait().success());
    assert!(raw.stderr().contains("invalid tool name"));
    let mut raw = Raw::spawn(&proxy_args(&["--budget", "100", "--stash-db", "relative.db"], &["cat".as_ref()]), &[]);
    assert!(!raw.wait().success());
    assert!(raw.stderr().contains("absolute"));
}

#[test]
fn proxy_stashes_in_redis_and_another_process_reads_the_payload_there() {
    let redis = Redis::start();
    let dir = TempDir::new("redis-proxy");
    let args =
        proxy_args(&["--truncate-arrays-at", "4", "--store", "redis", "--redis-url", &redis.url], &["cat".as_ref()]);
    let mut raw = Raw::spawn(&args, &[("STC_DATA_DIR", &dir.0)]);
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    raw.recv().unwrap();
    raw.send(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
    let list: Value = serde_json::from_str(&raw.recv().unwrap()).unwrap();
    assert_eq!(list["result"]["tools"][0]["name"], "stc_retrieve");
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#);
    raw.recv().unwrap();
    let table = table_json(60);
    raw.send(&tool_response("2", &table));
    let back: Value = serde_json::from_str(&raw.recv().unwrap()).unwrap();
    let text = back["result"]["content"][0]["text"].as_str().unwrap();
    let key = stc_stash::references_in(text)[0].to_string();
    let sealed = written_key(text);
    // The proxy's tool answers from Redis...
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"stc_retrieve","arguments":{{"key":"{sealed}"}}}}}}"#
    ));
    assert_eq!(raw.response(json!(3))["result"]["content"][0]["text"], table.as_str());
    // ...and the entry really is in Redis: `stc retrieve` in another process reads it there, not in SQLite.
    let out =
        Command::new(stc()).args(["retrieve", &key, "--store", "redis", "--redis-url", &redis.url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), table);
    assert!(!dir.0.join("stash.db").exists());
    raw.close_stdin();
    assert!(raw.wait().success());
}

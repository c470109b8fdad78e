//! The real peers of the Streamable HTTP tests, shared by stc-mcp's
//! in-process tests (tests/it) and stc-cli's process tests
//! (stc-cli/tests/it/mcp/mod.rs includes this file): the official Python SDK's
//! fixture server (over stdio or under uvicorn), its SDK clients, raw HTTP,
//! the raw messages a server sends over stdio.
//! Each user needs only some of them.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

pub fn python2() -> PathBuf {
    root().join("target/mcp2-venv/bin/python")
}

pub fn python1() -> PathBuf {
    root().join("target/mcp-venv/bin/python")
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("stc-mcp/tests/fixtures").join(name)
}

/// A process killed (SIGTERM, then SIGKILL) on drop.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(Some(_)) = self.0.try_wait() {
            return;
        }
        let _ = Command::new("kill").arg("-TERM").arg(self.0.id().to_string()).stderr(Stdio::null()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The 2.x server served with Streamable HTTP (uvicorn); its endpoint.
pub fn http_server() -> (Proc, String) {
    served(&["--http"], "http")
}

/// The fixture server started with `args`, its endpoint with `scheme`.
pub fn served(args: &[&str], scheme: &str) -> (Proc, String) {
    let mut child = Command::new(python2())
        .arg(fixture("http_server.py"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port: u16 = line.trim().parse().unwrap();
    // Wait until uvicorn accepts connections.
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    (Proc(child), format!("{scheme}://127.0.0.1:{port}/mcp"))
}

/// Runs `http_client.py ARGS` (bounded to 60 s); its steps by name, and its stderr.
pub fn client(python: PathBuf, args: &[String]) -> (std::collections::HashMap<String, Value>, String) {
    client_as(python, args, None)
}

/// [`client`], with `HTTP_CLIENT_NAME` (the clientInfo name the SDK 2.x client sends) when given.
pub fn client_as(
    python: PathBuf,
    args: &[String],
    name: Option<&str>,
) -> (std::collections::HashMap<String, Value>, String) {
    let mut command = Command::new(python);
    if let Some(name) = name {
        command.env("HTTP_CLIENT_NAME", name);
    }
    let mut child = command
        .arg(fixture("http_client.py"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let errs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut stdout = child.stdout.take().unwrap();
    let outs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let child = Proc(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut child = child;
    loop {
        if child.0.try_wait().unwrap().is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "the client did not finish within 60 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = outs.join().unwrap();
    let err = errs.join().unwrap();
    let steps = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| (v["step"].as_str().unwrap_or("").to_string(), v))
        .collect();
    (steps, err)
}

pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

pub fn assert_stc_table(step: &Value, rows: usize) {
    let text = step["text"].as_str().unwrap_or_else(|| panic!("{step}"));
    assert!(text.starts_with(&format!("([{rows}]{{id,name,price,status}}:0,")), "not STC: {step}");
}

pub async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<String>,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut req = reqwest::Client::new().post(url).header("content-type", "application/json");
    for (n, v) in headers {
        req = req.header(*n, *v);
    }
    let r = req.body(body.into()).send().await.unwrap();
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.text().await.unwrap())
}

pub fn code(body: &str) -> i64 {
    serde_json::from_str::<Value>(body).unwrap()["error"]["code"].as_i64().unwrap()
}

pub async fn get(url: &str) -> (u16, Value) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    (status, serde_json::from_str(&r.text().await.unwrap()).unwrap())
}

/// A JSON array of `rows` uniform records (a table: STC pays).
pub fn table_json(rows: usize) -> String {
    let rows: Vec<String> = (0..rows).map(|i| format!(r#"{{"id":{i},"name":"n{i}","v":{i}.0}}"#)).collect();
    format!("[{}]", rows.join(","))
}

/// A server's `tools/call` answer to request `id` (raw JSON) with one text block.
pub fn tool_response(id: &str, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{}}}]}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

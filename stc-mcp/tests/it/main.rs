//! stc-mcp's integration tests, one binary. The library runs in-process:
//! [`listen`] serves `http::listen::serve` on a loopback listener, on a
//! runtime of its own, around a real MCP server (the official Python SDK's,
//! `tests/fixtures/http_server.py`, over stdio or under uvicorn), with real
//! SDK clients (`tests/fixtures/http_client.py`: 2.x `Client` in legacy and
//! auto modes, 1.x `ClientSession`) or raw HTTP (reqwest).
//! Needs target/mcp2-venv and target/mcp-venv (scripts/prereqs/30-mcp.sh).
//! The `stc` binary's own flags, exit codes, signals and log format are
//! tested in stc-cli.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use stc_mcp::http::listen::{self, ListenOptions};
use stc_mcp::http::upstream::UpstreamOptions;
use stc_mcp::ProxyOptions;

mod http;

/// `http::listen::serve` running in-process on 127.0.0.1 (any free port);
/// stopped (its shutdown future completed) and joined on drop.
struct Listening {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serves `proxy` with `options` (whose address is replaced by 127.0.0.1:0).
fn listen_in_process(proxy: ProxyOptions, mut options: ListenOptions) -> Listening {
    options.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    options.drain_grace = Duration::from_secs(5);
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = listen::bind(&options).await.unwrap();
            let shutdown = async {
                let _ = stopped.await;
            };
            let announce = |addr| {
                let _ = addr_tx.send(addr);
            };
            listen::serve(listener, proxy, options, shutdown, announce).await.unwrap();
        });
        runtime.shutdown_timeout(Duration::from_secs(5));
    });
    let addr = addr_rx.recv_timeout(Duration::from_secs(60)).expect("the service did not start");
    Listening { url: format!("http://{addr}/mcp"), stop: Some(stop), thread: Some(thread) }
}

/// The 2.x fixture server over stdio, behind the in-process service.
fn listen_around_the_fixture(configure: impl FnOnce(&mut ProxyOptions, &mut ListenOptions)) -> Listening {
    let mut proxy = ProxyOptions::new(python2(), vec![fixture("http_server.py").into()]);
    let mut options = ListenOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
    configure(&mut proxy, &mut options);
    listen_in_process(proxy, options)
}

/// The in-process service in front of a remote server at `url`.
fn listen_upstream(url: &str) -> Listening {
    let mut options = ListenOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
    options.upstream = Some(UpstreamOptions::new(url.parse().unwrap()));
    // No child with an upstream: the command is not run.
    listen_in_process(ProxyOptions::new("unused", Vec::new()), options)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python2() -> PathBuf {
    root().join("target/mcp2-venv/bin/python")
}

fn python1() -> PathBuf {
    root().join("target/mcp-venv/bin/python")
}

fn fixture(name: &str) -> PathBuf {
    root().join("stc-mcp/tests/fixtures").join(name)
}

/// A process killed (SIGTERM, then SIGKILL) on drop.
struct Proc(Child);

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
fn http_server() -> (Proc, String) {
    served(&["--http"], "http")
}

/// The fixture server started with `args`, its endpoint with `scheme`.
fn served(args: &[&str], scheme: &str) -> (Proc, String) {
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
fn client(python: PathBuf, args: &[String]) -> (std::collections::HashMap<String, Value>, String) {
    client_as(python, args, None)
}

/// [`client`], with `HTTP_CLIENT_NAME` (the clientInfo name the SDK 2.x client sends) when given.
fn client_as(
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

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn assert_stc_table(step: &Value, rows: usize) {
    let text = step["text"].as_str().unwrap_or_else(|| panic!("{step}"));
    assert!(text.starts_with(&format!("([{rows}]{{id,name,price,status}}:0,")), "not STC: {step}");
}

async fn post(
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

fn code(body: &str) -> i64 {
    serde_json::from_str::<Value>(body).unwrap()["error"]["code"].as_i64().unwrap()
}

async fn get(url: &str) -> (u16, Value) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    (status, serde_json::from_str(&r.text().await.unwrap()).unwrap())
}

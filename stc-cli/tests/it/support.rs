//! Helpers of more than one module: the binary under test, the workspace
//! root, the MCP SDK's Python, child processes killed on drop, stc-http's
//! test upstream and `stc proxy` in front of it, an MCP client (rmcp).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use std::io::{BufRead, BufReader};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::Value;

/// The `stc` binary under test.
pub fn stc() -> &'static str {
    env!("CARGO_BIN_EXE_stc")
}

/// The workspace root.
pub fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The Python of the venv with the `mcp` SDK 1.x (`STC_MCP_PYTHON` overrides).
pub fn python() -> std::path::PathBuf {
    let p = match std::env::var_os("STC_MCP_PYTHON") {
        Some(p) => std::path::PathBuf::from(p),
        None => root().join("target/mcp-venv/bin/python"),
    };
    assert!(p.exists(), "{} is missing: run `bash scripts/prereqs/30-mcp.sh` first", p.display());
    p
}

/// stc-http's test upstream (a Python process; its port is its first line).
const UPSTREAM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../stc-http/tests/upstream.py");

/// A child process killed on drop, its stdout lines on a channel.
pub struct Proc {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: mpsc::Receiver<String>,
}

impl Proc {
    pub fn spawn(cmd: &mut Command) -> Proc {
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("spawn");
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Proc { child, stdin, lines }
    }

    pub fn line(&self) -> String {
        self.lines.recv_timeout(Duration::from_secs(60)).expect("a line on stdout")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn upstream() -> (Proc, u16) {
    let p = Proc::spawn(Command::new("python3").arg(UPSTREAM));
    let port = p.line().trim().parse().unwrap();
    (p, port)
}

/// Starts `stc proxy` on a free port in front of `upstream`; returns it and
/// its address (read from stdout). Its stderr is piped, for the caller to read.
pub fn proxy(upstream: &str, extra: &[&str]) -> (Proc, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stc"));
    cmd.args(["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream]).args(extra).stderr(Stdio::piped());
    let p = Proc::spawn(&mut cmd);
    let line = p.line();
    let addr = line
        .strip_prefix("stc proxy: listening on http://")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (p, addr)
}

/// A directory of one test, removed on drop: fresh, unique in this process,
/// canonical (the stash's path policy accepts it as `STC_DATA_DIR`).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("stc-cli-it-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir.canonicalize().unwrap())
    }

    /// The path of `name` in the directory, as a string for an argument.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }

    /// Writes `contents` to `name` in the directory; its path.
    pub fn file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `cmd` with `stdin` written on a thread of its own (the child may
/// stream its output while it still reads) and stdout and stderr captured.
pub fn run(cmd: &mut Command, stdin: &[u8]) -> std::process::Output {
    let mut child =
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run the command");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Output bytes as text (lossy: the assertions say what was expected).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A document of the shared corpus (/work/shared/corpus).
pub fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus").join(name)
}

/// The corpus documents with the extension `ext`, sorted; at least `least` of them.
pub fn corpus_files(ext: &str, least: usize) -> Vec<PathBuf> {
    let dir = corpus("");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    assert!(files.len() >= least, "fewer than {least} *.{ext} in {}", dir.display());
    files
}

/// A `redis-server` of one test on a free loopback port (no persistence),
/// answering PING, killed on drop.
pub struct Redis {
    child: Child,
    pub url: String,
    _dir: TempDir,
}

impl Redis {
    pub fn start() -> Redis {
        let ok = Command::new("redis-server").arg("--version").stdout(Stdio::null()).status();
        assert!(
            matches!(ok, Ok(s) if s.success()),
            "redis-server is not installed: run `bash scripts/prereqs/20-redis.sh`"
        );
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let dir = TempDir::new("stash");
            let mut child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .args(["--dir", dir.0.to_str().unwrap()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && child.try_wait().unwrap().is_none() {
                if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                    let mut buf = [0u8; 7];
                    s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
                    if s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n" {
                        return Redis { child, url: format!("redis://127.0.0.1:{port}/"), _dir: dir };
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("could not start redis-server");
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ------------------------------------------------------ an MCP client (rmcp)

/// Longest any single step may take before a test calls it a hang.
pub const LIMIT: Duration = Duration::from_secs(60);

/// The FastMCP fixture server (run with [`python`]).
pub fn fixture() -> std::path::PathBuf {
    root().join("stc-mcp/tests/fixtures/fixture_server.py")
}

/// `f`, or a panic that names `what` after [`LIMIT`].
pub async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(LIMIT, f).await {
        Ok(v) => v,
        Err(_) => panic!("hang: {what} took longer than {LIMIT:?}"),
    }
}

pub type Client = RunningService<RoleClient, ()>;

/// rmcp's client over the stdio of `cmd`, initialized.
pub async fn connect(cmd: tokio::process::Command) -> Client {
    // The servers' logs (FastMCP's "Processing request ...") are not the test's output.
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn");
    within("initialize", ().serve(transport)).await.expect("initialize")
}

/// `tools/call` of `tool` with the object `args`.
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    within(tool, client.call_tool(params)).await.unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The text blocks of a result.
pub fn texts(result: &CallToolResult) -> Vec<String> {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

/// The one text block of a result.
pub fn only_text(result: &CallToolResult) -> String {
    let t = texts(result);
    assert_eq!(t.len(), 1, "{result:?}");
    t[0].clone()
}

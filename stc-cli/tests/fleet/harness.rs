//! The processes of a fleet and a bounded load generator.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

pub fn stc() -> &'static str {
    env!("CARGO_BIN_EXE_stc")
}

/// A child process: SIGTERM, then SIGKILL after 5 s, on drop.
pub struct Proc {
    pub child: Child,
    pub name: String,
}

impl Proc {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`-TERM`, `-KILL`).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill").arg(signal).arg(self.pid().to_string()).status().unwrap();
        assert!(status.success(), "kill {signal} {}", self.name);
    }

    /// Waits up to `limit` for the process to exit; its status code.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status.code().unwrap_or(-1));
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        let _ = Command::new("kill").arg("-TERM").arg(self.pid().to_string()).stderr(Stdio::null()).status();
        if self.wait_exit(Duration::from_secs(5)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A loopback port nobody listens on now, and one this process has not
/// handed out before: the tests of this binary run side by side and restart
/// their gateways on the ports they were given, so a port freed by a killed
/// gateway must not go to another test's Redis or balancer meanwhile.
pub fn free_port() -> u16 {
    static GIVEN: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// Waits until something accepts TCP connections on `port`.
pub fn wait_listening(port: u16, limit: Duration) {
    let deadline = Instant::now() + limit;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("stc-fleet-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The JSON upstream of the proxy tests (stc-http/tests/upstream.py); its port.
pub fn upstream() -> (Proc, u16) {
    let mut child = Command::new("python3")
        .arg(root().join("stc-http/tests/upstream.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let port: u16 = line.trim().parse().unwrap();
    // The upstream prints a line per request: drain them so it never blocks.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (Proc { child, name: "upstream".into() }, port)
}

/// `redis-server` on a free port, with no persistence; its port. Another
/// process may take the port between [`free_port`] and Redis's bind: then
/// Redis exits (or something else answers) and a new port is tried.
pub fn redis(dir: &Path) -> (Proc, u16) {
    let mut last_error = String::new();
    for _ in 0..5 {
        let port = free_port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("redis-server (scripts/prereqs/20-redis.sh installs it)");
        let mut proc = Proc { child, name: "redis".into() };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(code) = proc.wait_exit(Duration::ZERO) {
                last_error = format!("redis-server on port {port} exited with {code}");
                break;
            }
            if redis_pong(port) {
                return (proc, port);
            }
            if Instant::now() > deadline {
                last_error = format!("redis-server on port {port} did not answer PING within 10 s");
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
    panic!("could not start redis-server: {last_error}");
}

/// Whether a Redis server answers `PING` on `port`.
fn redis_pong(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut answer = [0u8; 7];
    stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
}

/// A backend of the load balancer: a name and a port.
#[derive(Clone)]
pub struct Backend {
    pub name: String,
    pub port: u16,
}

/// HAProxy in front of `backends`, health-checking `GET /readyz` every
/// 100 ms (down after three failures in a row, up after one success), retrying a request
/// whose connection failed on another backend, and naming the backend that
/// answered in `X-Served-By`. Its frontend port.
pub fn haproxy(dir: &Path, backends: &[Backend]) -> (Proc, u16) {
    let port = free_port();
    let servers: String =
        backends.iter().map(|b| format!("  server {} 127.0.0.1:{} check\n", b.name, b.port)).collect();
    let config = format!(
        "global\n  maxconn 2000\n\
         defaults\n  mode http\n  timeout connect 1s\n  timeout client 30s\n  timeout server 30s\n  \
         timeout check 2s\n  retries 3\n  option redispatch 1\n  retry-on conn-failure empty-response\n\
         frontend fleet\n  bind 127.0.0.1:{port}\n  default_backend gateways\n\
         backend gateways\n  balance roundrobin\n  option httpchk GET /readyz\n  http-check expect status 200\n  \
         default-server inter 100ms fall 3 rise 1\n  http-response set-header X-Served-By %s\n{servers}"
    );
    let file = dir.join("haproxy.cfg");
    std::fs::write(&file, config).unwrap();
    let check = Command::new("haproxy")
        .arg("-c")
        .arg("-q")
        .arg("-f")
        .arg(&file)
        .status()
        .expect("haproxy (scripts/prereqs/70-fleet.sh installs it)");
    assert!(check.success(), "haproxy rejects its configuration");
    let child = Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let proc = Proc { child, name: "haproxy".into() };
    wait_listening(port, Duration::from_secs(10));
    (proc, port)
}

/// Spawns `stc ARGS` and waits for its "listening on" line on stdout.
pub fn spawn_stc(name: &str, args: &[String]) -> Proc {
    let mut child = Command::new(stc())
        .args(args)
        // Warnings and errors only: a line per request would drown the test's output.
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("listening on"), "{name}: {line}");
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Proc { child, name: name.into() }
}

/// One request of a load run.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub started: Duration,
    pub ended: Duration,
    /// `Ok(backend)` (from `X-Served-By`) or `Err(what failed)`.
    pub result: Result<String, String>,
}

/// What every request of a load run must return to count as a success.
pub type Check = Arc<dyn Fn(u16, &reqwest::header::HeaderMap, &[u8]) -> Result<(), String> + Send + Sync>;

/// Sends requests from `workers` concurrent clients until `run` is over
/// (each client one request at a time, at most `max_requests` in all);
/// `during` runs on this thread meanwhile, given the time the run started.
pub fn load(
    url: &str,
    accept: &str,
    workers: usize,
    run: Duration,
    max_requests: usize,
    check: Check,
    during: impl FnOnce(Instant),
) -> Vec<Outcome> {
    let (url, accept) = (url.to_string(), accept.to_string());
    let request: Request = Arc::new(move |client: &reqwest::Client| client.get(&url).header("accept", &accept));
    load_with(request, workers, run, max_requests, check, during)
}

/// How each request of a load run is made.
pub type Request = Arc<dyn Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync>;

/// [`load`] with requests made by `request`.
pub fn load_with(
    request: Request,
    workers: usize,
    run: Duration,
    max_requests: usize,
    check: Check,
    during: impl FnOnce(Instant),
) -> Vec<Outcome> {
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let (client, request, outcomes, check, sent) =
            (client.clone(), request.clone(), outcomes.clone(), check.clone(), sent.clone());
        tasks.push(runtime.spawn(async move {
            while start.elapsed() < run && sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < max_requests {
                let started = start.elapsed();
                let result = match request(&client).send().await {
                    Err(e) => Err(format!("request: {e}")),
                    Ok(r) => {
                        let status = r.status().as_u16();
                        let headers = r.headers().clone();
                        match r.bytes().await {
                            Err(e) => Err(format!("body: {e}")),
                            Ok(body) => check(status, &headers, &body).map(|()| {
                                headers.get("x-served-by").and_then(|v| v.to_str().ok()).unwrap_or("?").to_string()
                            }),
                        }
                    }
                };
                outcomes.lock().unwrap().push(Outcome { started, ended: start.elapsed(), result });
            }
        }));
    }
    during(start);
    runtime.block_on(async {
        for t in tasks {
            t.await.unwrap();
        }
    });
    let mut all = outcomes.lock().unwrap().clone();
    all.sort_by_key(|o| o.started);
    all
}

/// Waits until a request through the load balancer at `port` is answered by `backend`.
pub fn wait_served_by(port: u16, path: &str, backend: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    while served_by(port, path).as_deref() != Some(backend) {
        assert!(Instant::now() < deadline, "{backend} never answered through the load balancer");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `GET path` on 127.0.0.1:`port` over a plain socket (no runtime): the
/// answer's `X-Served-By` when the status is 200.
pub fn served_by(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = Vec::new();
    s.read_to_end(&mut text).ok()?;
    let text = String::from_utf8_lossy(&text);
    let head = text.split("\r\n\r\n").next()?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("x-served-by").then(|| value.trim().to_string())
    })
}

/// Percentile `p` (0..=100) of `values` in milliseconds.
pub fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if values.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (values.len() - 1) as f64).round() as usize;
    values[i]
}

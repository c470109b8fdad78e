//! `stc serve` and `stc native-host` as real processes: crash and restart,
//! graceful stop, refused starts, and the browser bridge end to end.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use stc_serve::base54;

const STC: &str = env!("CARGO_BIN_EXE_stc");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stc-cli-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running `stc serve`, killed when dropped.
struct Service {
    child: Child,
    addr: String,
    _stdout: BufReader<ChildStdout>,
}

impl Service {
    fn start(args: &[&str]) -> Service {
        let mut child = Command::new(STC)
            .args(["serve", "--tcp", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let addr =
            line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected {line:?}")).to_owned();
        Service { child, addr, _stdout: stdout }
    }

    fn client(&self) -> Client {
        Client::connect(&self.addr)
    }

    fn signal(&self, name: &str) {
        // The shell's built-in kill: no dependency on procps.
        let script = format!("kill -s {name} {}", self.child.id());
        let status = Command::new("sh").args(["-c", &script]).status().unwrap();
        assert!(status.success());
    }

    fn wait(&mut self) -> ExitStatus {
        self.child.wait().unwrap()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Client {
    read: BufReader<TcpStream>,
    write: TcpStream,
}

impl Client {
    fn connect(addr: &str) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Client { read: BufReader::new(stream.try_clone().unwrap()), write: stream }
    }

    fn call(&mut self, request: Value) -> Value {
        let mut line = serde_json::to_vec(&request).unwrap();
        line.push(b'\n');
        self.write.write_all(&line).unwrap();
        let mut reply = String::new();
        self.read.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply:?}"))
    }

    fn ok(&mut self, request: Value) -> Value {
        let reply = self.call(request.clone());
        assert_eq!(reply["ok"], true, "{request} -> {reply}");
        reply["result"].clone()
    }
}

/// One exchange of a conversation: prompt, then a base54 response.
fn exchange(c: &mut Client, id: &str, prompt: &str, answer: &str) {
    c.ok(json!({"action": "prompt", "conversation_id": id, "text": prompt}));
    let r =
        c.ok(json!({"action": "response", "conversation_id": id, "payload_b54": base54::encode(answer.as_bytes())}));
    assert_eq!(r["decoded_text"], answer);
}

fn file_has(path: &Path, needle: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|s| s.contains(needle))
}

#[test]
fn kill_9_loses_at_most_the_last_interval_and_restart_has_the_context() {
    let dir = temp_dir("kill9");
    let file = dir.join("ctx.json");
    let file_arg = file.to_str().unwrap();
    let mut service = Service::start(&["--context-file", file_arg, "--save-interval", "0.05"]);
    // A large context makes every save take a while, so kills land inside saves too.
    let mut c = service.client();
    for i in 0..4 {
        exchange(&mut c, "large", &format!("{i}{}", "lorem ipsum ".repeat(9000)), "noted");
    }
    for cycle in 0..3 {
        let mut c = service.client();
        for i in 0..10 {
            exchange(
                &mut c,
                &format!("conv-{}", i % 3),
                &format!("question {cycle}.{i}"),
                &format!("answer {cycle}.{i}"),
            );
        }
        let before = c.ok(json!({"action": "context_get"}));
        // Wait (bounded) until a periodic save holds the last change: from then on nothing may be lost.
        let last = format!("answer {cycle}.9");
        let mut saved = false;
        for _ in 0..600 {
            if file_has(&file, &last) {
                saved = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(saved, "the periodic save never wrote {last}");
        // Keep changing the context while killing, so saves are in flight.
        let addr = service.addr.clone();
        let writer = std::thread::spawn(move || {
            let mut c = Client::connect(&addr);
            for i in 0..100_000 {
                let line =
                    format!("{{\"action\":\"prompt\",\"conversation_id\":\"busy-{cycle}\",\"text\":\"t{i}\"}}\n");
                if c.write.write_all(line.as_bytes()).is_err() {
                    break;
                }
                let mut reply = String::new();
                if c.read.read_line(&mut reply).unwrap_or(0) == 0 {
                    break;
                }
            }
        });
        std::thread::sleep(Duration::from_millis(100 + 70 * cycle));
        service.child.kill().unwrap(); // SIGKILL
        service.wait();
        writer.join().unwrap();

        // The file is whole (the service starts on it) and holds every conversation as saved.
        service = Service::start(&["--context-file", file_arg, "--save-interval", "0.05"]);
        let mut c = service.client();
        for conv in before["conversations"].as_array().unwrap() {
            let id = conv["conversation_id"].as_str().unwrap();
            let now = c.ok(json!({"action": "context_get", "conversation_id": id}));
            assert_eq!(now, *conv, "conversation {id} changed across kill -9 (cycle {cycle})");
        }
    }
    drop(service);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_saves_everything_acknowledged() {
    let dir = temp_dir("term");
    let file = dir.join("nested").join("ctx.json");
    let file_arg = file.to_str().unwrap();
    // No periodic save within the test: only the graceful stop can write.
    let mut service = Service::start(&["--context-file", file_arg, "--save-interval", "3600"]);
    let mut c = service.client();
    exchange(&mut c, "kept", "keep this", "kept it");
    let before = c.ok(json!({"action": "context_get", "conversation_id": "kept"}));
    assert!(!file.exists());
    service.signal("TERM");
    assert!(service.wait().success());
    assert!(file_has(&file, "kept it"));

    // A signal right after the address is printed is handled too.
    let mut service = Service::start(&["--context-file", file_arg, "--save-interval", "3600"]);
    service.signal("TERM");
    assert!(service.wait().success());

    // SIGHUP (the terminal closed) stops gracefully too.
    let mut service = Service::start(&["--context-file", file_arg, "--save-interval", "3600"]);
    exchange(&mut service.client(), "hup", "after restart", "still here");
    service.signal("HUP");
    assert!(service.wait().success());
    assert!(file_has(&file, "still here") && file_has(&file, "kept it"));

    let restarted = Service::start(&["--context-file", file_arg]);
    let after = restarted.client().ok(json!({"action": "context_get", "conversation_id": "kept"}));
    assert_eq!(after, before);
    drop(restarted);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_file_and_remote_address_stop_the_start() {
    let dir = temp_dir("refuse");
    let file = dir.join("ctx.json");
    std::fs::write(&file, "not json").unwrap();
    let out = Command::new(STC)
        .args(["serve", "--tcp", "127.0.0.1:0", "--context-file", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ctx.json") && err.contains("move it aside"), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not json");

    let out = Command::new(STC).args(["serve", "--tcp", "0.0.0.0:0", "--no-persist"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every `stc serve` option also comes from an environment variable, parsed
/// and checked as the flag is; a flag given too wins.
#[test]
fn options_from_the_environment_are_checked_like_the_flags() {
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut cmd = Command::new(STC);
        cmd.arg("serve").args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    // The same refusal, the same message, from the flag and from the variable.
    let flag = run(&[], &["--max-connections", "0"]);
    let var = run(&[("STC_SERVE_MAX_CONNECTIONS", "0")], &[]);
    assert_eq!(flag.status.code(), Some(2));
    assert_eq!((var.status.code(), var.stderr.clone()), (flag.status.code(), flag.stderr));
    let flag = run(&[], &["--idle-timeout=-1"]);
    let var = run(&[("STC_SERVE_IDLE_TIMEOUT", "-1")], &[]);
    assert!(String::from_utf8_lossy(&var.stderr).contains("invalid seconds -1 (expected a number of seconds"));
    assert_eq!((var.status.code(), var.stderr), (flag.status.code(), flag.stderr));
    let var = run(&[("STC_SERVE_NO_PERSIST", "maybe")], &[]);
    assert_eq!(var.status.code(), Some(2));
    // A remote address from the environment is refused as from the flag.
    let var = run(&[("STC_SERVE_ADDR", "0.0.0.0:0"), ("STC_SERVE_NO_PERSIST", "1")], &[]);
    assert_eq!(var.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&var.stderr).contains("--allow-remote"));

    // A service configured by its environment only: address, no file.
    let dir = temp_dir("env");
    let mut child = Command::new(STC)
        .arg("serve")
        .current_dir(&dir)
        .env("STC_SERVE_ADDR", "127.0.0.1:0")
        .env("STC_SERVE_NO_PERSIST", "true")
        .env("STC_SERVE_MAX_CONNECTIONS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on ").unwrap().to_owned();
    let mut first = Client::connect(&addr);
    assert_eq!(first.ok(json!({"action": "ping"}))["message"], "pong");
    // One connection at most: the second is told so.
    let mut second = BufReader::new(TcpStream::connect(&addr).unwrap());
    let mut refused = String::new();
    second.read_line(&mut refused).unwrap();
    assert!(refused.contains("too_many_connections"), "{refused}");
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    assert!(child.wait().unwrap().success());
    // Nothing was written to the working directory (no context file).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn write_frame(w: &mut impl Write, body: &[u8]) {
    w.write_all(&(body.len() as u32).to_ne_bytes()).unwrap();
    w.write_all(body).unwrap();
    w.flush().unwrap();
}

fn read_frame(r: &mut impl Read) -> Value {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).unwrap();
    let len = u32::from_ne_bytes(len) as usize;
    assert!(len <= 1024 * 1024, "frame of {len} bytes breaks the browsers' limit");
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn native_host_round_trip() {
    let service = Service::start(&["--no-persist"]);
    // Browsers append their own arguments (Chrome: the origin; Firefox: manifest path and id).
    let mut host = Command::new(STC)
        .args(["native-host", "--service", &service.addr, "chrome-extension://abcdefghijklmnop/"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_host = host.stdin.take().unwrap();
    let mut from_host = host.stdout.take().unwrap();

    write_frame(&mut to_host, br#"{"action":"ping"}"#);
    assert_eq!(read_frame(&mut from_host), json!({"ok": true, "result": {"message": "pong"}}));
    // Pretty JSON with newlines from the browser still makes one line.
    write_frame(&mut to_host, b"{\n  \"action\": \"prompt\",\n  \"text\": \"Hello **show savings**\"\n}");
    let p = read_frame(&mut from_host);
    let id = p["result"]["conversation_id"].as_str().unwrap().to_owned();
    assert_eq!(p["result"]["encoded_prompt_b64"], "SGVsbG8=");
    let request = json!({"action": "response", "conversation_id": id, "payload_b54": base54::encode(b"Hi there")});
    write_frame(&mut to_host, request.to_string().as_bytes());
    let r = read_frame(&mut from_host);
    assert_eq!(r["result"]["decoded_text"], "Hi there");
    assert!(r["result"]["tagline"].as_str().unwrap().starts_with("Token savings"));
    write_frame(
        &mut to_host,
        json!({"action": "encode", "json": "[{\"a\":1},{\"a\":2},{\"a\":3}]"}).to_string().as_bytes(),
    );
    let e = read_frame(&mut from_host);
    let stc = e["result"]["stc"].as_str().unwrap().to_owned();
    write_frame(&mut to_host, json!({"action": "decode", "stc": stc}).to_string().as_bytes());
    assert_eq!(read_frame(&mut from_host)["result"]["json"], "[{\"a\":1},{\"a\":2},{\"a\":3}]");
    // Errors come back as envelopes, and the host keeps going.
    write_frame(&mut to_host, b"{not json");
    assert_eq!(read_frame(&mut from_host)["error"], "invalid_json");
    write_frame(&mut to_host, br#"{"action":"teleport"}"#);
    assert_eq!(read_frame(&mut from_host)["error"], "unknown_action");
    // A reply above 1 MiB cannot go to the browser: replaced by an error envelope.
    // (A small columnar STC text that decodes to 1.4 MB of JSON.)
    let key = "k".repeat(40);
    let rows = vec!["1"; 30_000].join("/");
    write_frame(
        &mut to_host,
        json!({"action": "decode", "stc": format!("([30000]{{{key}}}:{rows})")}).to_string().as_bytes(),
    );
    let too_large = read_frame(&mut from_host);
    assert_eq!(too_large["error"], "response_too_large", "{too_large}");
    // A message above the host's limit is skipped without being buffered.
    let oversize = vec![b' '; 1024 * 1024 + 1];
    write_frame(&mut to_host, &oversize);
    assert_eq!(read_frame(&mut from_host)["error"], "message_too_large");
    write_frame(&mut to_host, br#"{"action":"ping"}"#);
    assert_eq!(read_frame(&mut from_host)["ok"], true);
    // The browser closes stdin: the host exits cleanly.
    drop(to_host);
    assert!(host.wait().unwrap().success());

    // With the service down, every message gets `service_unavailable`.
    let addr = service.addr.clone();
    drop(service);
    let mut host = Command::new(STC)
        .args(["native-host", "--service", &addr])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_host = host.stdin.take().unwrap();
    let mut from_host = host.stdout.take().unwrap();
    write_frame(&mut to_host, br#"{"action":"ping"}"#);
    let down = read_frame(&mut from_host);
    assert_eq!(down["error"], "service_unavailable");
    assert!(down["detail"].as_str().unwrap().contains(&addr));
    // A message cut short by the browser is an error exit, with a reason on stderr.
    to_host.write_all(&100u32.to_ne_bytes()).unwrap();
    to_host.write_all(b"{\"act").unwrap();
    drop(to_host);
    assert_eq!(host.wait().unwrap().code(), Some(1));
}

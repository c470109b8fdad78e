//! stc-serve's integration tests, one binary: the service over real
//! loopback sockets ([`tcp`]) and the `version` field of `encode` and
//! `decode` ([`version`]).

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use stc_serve::Config;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

#[path = "../../../stc-http/tests/support/samples.rs"]
mod samples;
mod tcp;
mod version;

/// Loopback, any free port, no context file.
fn config() -> Config {
    Config { addr: "127.0.0.1:0".parse().unwrap(), context_file: None, ..Config::default() }
}

/// A line-protocol client on one connection.
struct Client {
    read: BufReader<OwnedReadHalf>,
    write: OwnedWriteHalf,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Client {
        let (read, write) = TcpStream::connect(addr).await.unwrap().into_split();
        Client { read: BufReader::new(read), write }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.unwrap();
    }

    /// The next reply line, or `None` at end of stream.
    async fn recv_opt(&mut self) -> Option<Value> {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(60), self.read.read_line(&mut line))
            .await
            .expect("no reply within 60 s")
            .unwrap();
        if n == 0 {
            return None;
        }
        assert!(line.ends_with('\n'), "reply without newline: {line:?}");
        Some(serde_json::from_str(&line).unwrap())
    }

    async fn recv(&mut self) -> Value {
        self.recv_opt().await.expect("connection closed before a reply")
    }

    async fn call(&mut self, request: Value) -> Value {
        let mut line = serde_json::to_vec(&request).unwrap();
        line.push(b'\n');
        self.send(&line).await;
        self.recv().await
    }

    async fn ok(&mut self, request: Value) -> Value {
        let reply = self.call(request.clone()).await;
        assert_eq!(reply["ok"], true, "{request} -> {reply}");
        reply["result"].clone()
    }

    async fn assert_eof(&mut self) {
        let mut rest = Vec::new();
        tokio::time::timeout(Duration::from_secs(60), self.read.read_to_end(&mut rest)).await.unwrap().unwrap();
        assert!(rest.is_empty(), "unexpected data: {}", String::from_utf8_lossy(&rest));
    }

    async fn error(&mut self, request: Value) -> (String, Value) {
        let reply = self.call(request.clone()).await;
        assert_eq!(reply["ok"], false, "{request} -> {reply}");
        (reply["error"].as_str().unwrap().to_string(), reply["detail"].clone())
    }
}

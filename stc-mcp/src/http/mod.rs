//! MCP's Streamable HTTP transport for `stc mcp-proxy`, both ways.
//!
//! - [`listen`]: `stc mcp-proxy --listen ADDR -- CMD…` serves HTTP clients at
//!   `/mcp` around one stdio server (the stdio proxy of [`crate::proxy`] runs
//!   in-process between the HTTP side and the child, so every rewrite is the
//!   stdio proxy's own).
//! - [`upstream`]: `stc mcp-proxy --upstream URL` wraps a remote server
//!   (`http://` or `https://`, the rustls setup of `stc proxy`) for a stdio
//!   client: a bridge (stdio lines ↔ HTTP POSTs) runs as the stdio proxy's
//!   child, so again the rewrites are the stdio proxy's.
//!
//! Wire details follow the official Python SDK 2.3.0 (`mcp/server/streamable_http.py`,
//! `_streamable_http_modern.py`, `client/streamable_http.py`): one JSON-RPC
//! message per POST; a request is answered with `application/json` or with a
//! per-request `text/event-stream` whose `event: message` frames carry the
//! notifications about it and finally its response; notifications and
//! responses are answered `202 Accepted`; `Mcp-Session-Id` is issued with the
//! `initialize` result (2025-11-25) and absent in the sessionless 2026-07-28
//! revision; `MCP-Protocol-Version` is sent on every request after the handshake.

pub mod listen;
pub mod metrics;
pub mod upstream;

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;

/// Why an HTTP service could not start or stopped.
#[derive(Debug)]
pub struct Error(String);

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// `Mcp-Session-Id`.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// `MCP-Protocol-Version`.
pub const VERSION_HEADER: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28 routing header: the body's method).
pub const METHOD_HEADER: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28 routing header: the tool, prompt or resource name).
pub const NAME_HEADER: &str = "mcp-name";

/// The parts of a JSON-RPC message the HTTP side looks at: the proxy's one
/// envelope type.
pub(crate) use crate::rewrite::Envelope;

/// A JSON-RPC error message (id `null` when unknown).
pub(crate) fn jsonrpc_error(id: Option<&str>, code: i64, message: &str) -> String {
    let message = serde_json::to_string(message).unwrap_or_else(|_| "\"error\"".into());
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":{code},\"message\":{message}}}}}",
        id.unwrap_or("null")
    )
}

/// One SSE `event: message` frame carrying `json` (which holds no line break:
/// serde_json writes none, and a line from the stdio side ends at the first).
pub(crate) fn sse_frame(json: &str) -> Bytes {
    let mut out = String::with_capacity(json.len() + 24);
    out.push_str("event: message\ndata: ");
    out.push_str(json.trim_end_matches(['\r', '\n']));
    out.push_str("\n\n");
    Bytes::from(out)
}

/// Whether an `Origin` is one of `allowed` (exact, case-insensitive) or a
/// loopback origin (`http(s)://localhost|127.0.0.1|[::1][:port]`).
pub(crate) fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        return false;
    };
    host_is_loopback(rest)
}

/// Whether a `Host` (or an origin's host[:port]) names a loopback host.
pub(crate) fn host_is_loopback(host_port: &str) -> bool {
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, after)) if after.is_empty() || after.starts_with(':') => h,
            _ => return false,
        }
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A response body fed from a channel (per-request SSE streams).
pub(crate) struct ChannelBody {
    pub rx: tokio::sync::mpsc::Receiver<Bytes>,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        self.rx.poll_recv(cx).map(|o| o.map(|b| Ok(http_body::Frame::data(b))))
    }
}

/// An incremental reader of `text/event-stream`: feed bytes, take the data
/// of complete events (multi-line `data:` joined with `\n`; comments, `id:`,
/// `retry:` and events of other types than `message` are skipped).
#[derive(Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    data: Option<String>,
    event: Option<String>,
}

impl SseParser {
    /// Bytes waiting for the end of their line (bounded by the caller).
    pub fn pending(&self) -> usize {
        self.buf.len() + self.data.as_ref().map_or(0, String::len)
    }

    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<String>) {
        self.buf.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(nl) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + nl;
            let mut line = &self.buf[start..end];
            if line.ends_with(b"\r") {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            start = end + 1;
            self.line(&line, out);
        }
        self.buf.drain(..start);
    }

    fn line(&mut self, line: &str, out: &mut Vec<String>) {
        if line.is_empty() {
            let data = self.data.take();
            let event = self.event.take();
            if let Some(data) = data {
                if event.as_deref().is_none_or(|e| e == "message") {
                    out.push(data);
                }
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
    }
}

/// 128 random bits as 32 hex characters (session ids).
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: still unique per process, but say so.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        bytes.copy_from_slice(&nanos.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_hosts() {
        assert!(origin_allowed("http://localhost:3000", &[]));
        assert!(origin_allowed("http://127.0.0.1", &[]));
        assert!(origin_allowed("https://[::1]:8443", &[]));
        assert!(!origin_allowed("http://evil.example", &[]));
        assert!(!origin_allowed("http://localhost.evil.example", &[]));
        assert!(!origin_allowed("null", &[]));
        assert!(origin_allowed("https://app.example", &["https://app.example".into()]));
        assert!(host_is_loopback("127.0.0.1:8080"));
        assert!(!host_is_loopback("10.0.0.1:8080"));
        assert!(!host_is_loopback("[::1"));
    }

    #[test]
    fn sse_events_across_chunks() {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        p.feed(b": ping\r\n\r\nevent: message\r\ndata: {\"a\":", &mut out);
        assert!(out.is_empty());
        p.feed(b"1}\r\n\r\nid: 7\ndata: x\ndata: y\n\nevent: other\ndata: z\n\n", &mut out);
        assert_eq!(out, vec!["{\"a\":1}".to_string(), "x\ny".to_string()]);
        assert_eq!(p.pending(), 0);
    }
}

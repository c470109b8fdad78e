//! The bridge behind `stc mcp-proxy --upstream URL`: MCP over stdio lines on
//! one side, Streamable HTTP POSTs to a remote server on the other.
//!
//! `stc mcp-proxy --upstream URL` runs the stdio proxy with this bridge as
//! its child (the same `stc` binary, hidden flag `--bridge`), so every
//! rewrite is the stdio proxy's and the bridge only moves messages:
//! - each line from stdin is POSTed (`Accept: application/json,
//!   text/event-stream`), requests concurrently; `Mcp-Session-Id` from the
//!   `initialize` response is sent on every later POST (and a `DELETE` ends
//!   the session when stdin closes); `MCP-Protocol-Version` is the request's
//!   own `_meta` version (2026-07-28) or the version `initialize` agreed;
//!   `Mcp-Method` and `Mcp-Name` mirror the body (the 2026-07-28 routing
//!   headers, base64-wrapped as the SDK does when not printable ASCII);
//! - an `application/json` answer is written as one line; a
//!   `text/event-stream` answer is written event by event as it arrives
//!   (progress notifications reach the client before the result);
//! - failures become a JSON-RPC error for the request, never silence: the
//!   upstream unreachable, TLS refused, an HTTP error status, a body that is
//!   not JSON, a stream that ends (the server killed mid-stream) or stalls
//!   for `body_timeout` before the response, a message over `max_message_bytes`;
//! - extra headers (`--upstream-header`, e.g. `Authorization`) are sent on
//!   every request and never written to any log or error message.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use super::{jsonrpc_error, Envelope, Error, SseParser, METHOD_HEADER, NAME_HEADER, SESSION_HEADER, VERSION_HEADER};
use crate::frame::{LineReader, Piece};

/// The `_meta` key of the 2026-07-28 protocol version.
const VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";

/// Settings of the bridge.
#[derive(Debug, Clone)]
pub struct UpstreamOptions {
    /// The server's MCP endpoint (`http[s]://host[:port]/path`).
    pub url: Uri,
    /// A PEM file of CA certificates trusted besides the system's roots.
    pub ca: Option<PathBuf>,
    /// Headers sent with every request (authorization and the like).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub connect_timeout: Duration,
    /// Longest wait for response headers, and between two chunks of a body.
    pub body_timeout: Duration,
    /// Largest message, either way.
    pub max_message_bytes: usize,
}

impl UpstreamOptions {
    pub fn new(url: Uri) -> UpstreamOptions {
        UpstreamOptions {
            url,
            ca: None,
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(300),
            max_message_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Checks the URL's scheme and the CA file, before anything starts.
pub fn check(options: &UpstreamOptions) -> Result<rustls::ClientConfig, Error> {
    match options.url.scheme_str() {
        Some("http") | Some("https") => {}
        _ => {
            return Err(Error::new(format!("--upstream {}: only http:// and https:// URLs are supported", options.url)))
        }
    }
    if options.url.authority().is_none() {
        return Err(Error::new(format!("--upstream {}: no host", options.url)));
    }
    stc_http::tls::client_config(options.ca.as_deref()).map_err(Error::new)
}

pub(crate) struct Bridge {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    options: UpstreamOptions,
    session: Mutex<Option<HeaderValue>>,
    version: Mutex<Option<HeaderValue>>,
    out: mpsc::Sender<Vec<u8>>,
}

/// Runs the bridge on this process's stdin and stdout until stdin closes.
/// Call it inside a tokio runtime (stdin is read on a blocking thread).
pub async fn run(options: UpstreamOptions) -> Result<(), Error> {
    let tls = check(&options)?;
    let (input, output) = rmcp::transport::io::stdio_pipes();
    bridge(options, tls, input, output).await;
    Ok(())
}

async fn bridge(
    options: UpstreamOptions,
    tls: rustls::ClientConfig,
    input: impl tokio::io::AsyncRead + Unpin,
    mut output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) {
    let connector = stc_http::tls::connector(tls, options.connect_timeout);
    let client = Client::builder(TokioExecutor::new()).build(connector);
    let (out, mut outbox) = mpsc::channel::<Vec<u8>>(256);
    let writer = tokio::spawn(async move {
        while let Some(line) = outbox.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let cap = options.max_message_bytes;
    let bridge = Bridge::new(client, options, out);
    let mut reader = LineReader::new(input, cap);
    let mut tasks = tokio::task::JoinSet::new();
    // `initialize` and the first messages go in order; requests then run concurrently.
    loop {
        match reader.next().await {
            Ok(None) | Err(_) => break,
            Ok(Some(Piece::Line(line))) => {
                let Ok(text) = String::from_utf8(line) else { continue };
                let text = text.trim_end_matches(['\r', '\n']).to_string();
                if text.trim().is_empty() {
                    continue;
                }
                let handshake = text.contains("\"initialize\"");
                let b = bridge.clone();
                if handshake {
                    b.post(text, &[]).await;
                } else {
                    tasks.spawn(async move { b.post(text, &[]).await });
                }
                while tasks.try_join_next().is_some() {}
            }
            Ok(Some(Piece::Part { bytes, .. })) => {
                if let Some(id) = leading_id_text(&bytes) {
                    let m = format!("stc mcp-proxy: the request is larger than {cap} bytes");
                    bridge.emit(&jsonrpc_error(Some(&id), -32600, &m)).await;
                }
            }
        }
    }
    while tasks.join_next().await.is_some() {}
    bridge.end_session(&[]).await;
    let out = bridge.out.clone();
    drop(bridge);
    drop(out);
    let _ = writer.await;
}

/// The HTTP client of a bridge: this TLS setup, HTTP/1.1.
pub(crate) fn http_client(
    tls: rustls::ClientConfig,
    connect_timeout: Duration,
) -> Client<HttpsConnector<HttpConnector>, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build(stc_http::tls::connector(tls, connect_timeout))
}

impl Bridge {
    /// A bridge (one upstream session) writing what comes back, as lines, to `out`.
    pub(crate) fn new(
        client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
        options: UpstreamOptions,
        out: mpsc::Sender<Vec<u8>>,
    ) -> Arc<Bridge> {
        Arc::new(Bridge { client, options, session: Mutex::new(None), version: Mutex::new(None), out })
    }

    /// Ends the upstream session, if one was opened (`DELETE`, best effort, 2 s).
    pub(crate) async fn end_session(&self, extra: &[(HeaderName, HeaderValue)]) {
        let session = self.session.lock().ok().and_then(|s| s.clone());
        if let Some(session) = session {
            let mut req = Request::builder().method(Method::DELETE).uri(self.options.url.clone());
            for (n, v) in self.options.headers.iter().chain(extra) {
                req = req.header(n, v);
            }
            if let Ok(req) = req.header(SESSION_HEADER, session).body(Full::new(Bytes::new())) {
                let _ = tokio::time::timeout(Duration::from_secs(2), self.client.request(req)).await;
            }
        }
    }

    async fn emit(&self, json: &str) {
        let mut line = if json.contains('\n') {
            // Pretty JSON from the server: one line for the stdio side.
            serde_json::from_str::<serde_json::Value>(json).map_or_else(|_| json.replace('\n', " "), |v| v.to_string())
        } else {
            json.to_string()
        };
        line.push('\n');
        let _ = self.out.send(line.into_bytes()).await;
    }

    async fn fail(&self, id: Option<&str>, message: &str) {
        if let Some(id) = id {
            self.emit(&jsonrpc_error(Some(id), -32000, &format!("stc mcp-proxy: {message}"))).await;
        } else {
            tracing::warn!("{message}");
        }
    }

    /// POSTs one message (with `extra` headers besides the configured ones) and writes what comes back.
    pub(crate) async fn post(&self, text: String, extra: &[(HeaderName, HeaderValue)]) {
        let Ok(msg) = serde_json::from_str::<Envelope>(&text) else {
            tracing::warn!("a line from the client is not a JSON-RPC message; not sent upstream");
            return;
        };
        let id = if msg.is_request() { msg.id.map(|i| i.get().to_string()) } else { None };
        let method = msg.method.as_deref().map(str::to_string);
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(self.options.url.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        for (n, v) in self.options.headers.iter().chain(extra) {
            req = req.header(n, v);
        }
        if let Some(s) = self.session.lock().ok().and_then(|s| s.clone()) {
            req = req.header(SESSION_HEADER, s);
        }
        let own_version = msg.params.and_then(meta_version);
        match own_version.and_then(|v| HeaderValue::from_str(&v).ok()) {
            Some(v) => req = req.header(VERSION_HEADER, v),
            None => {
                if let Some(v) = self.version.lock().ok().and_then(|v| v.clone()) {
                    req = req.header(VERSION_HEADER, v);
                }
            }
        }
        if let Some(m) = method.as_deref().and_then(|m| HeaderValue::from_str(m).ok()) {
            req = req.header(METHOD_HEADER, m);
        }
        if let Some(name) = method.as_deref().and_then(|m| name_of(m, msg.params)) {
            if let Ok(v) = HeaderValue::from_str(&encode_header_value(&name)) {
                req = req.header(NAME_HEADER, v);
            }
        }
        let is_initialize = method.as_deref() == Some("initialize");
        let Ok(req) = req.body(Full::new(Bytes::from(text.clone()))) else {
            self.fail(id.as_deref(), "the request could not be built").await;
            return;
        };
        let timeout = self.options.body_timeout;
        let response = match tokio::time::timeout(timeout, self.client.request(req)).await {
            Err(_) => {
                let m = format!("no answer from the upstream within {} s", timeout.as_secs());
                return self.fail(id.as_deref(), &m).await;
            }
            Ok(Err(e)) => {
                let m = match stc_http::tls::tls_failure(&e) {
                    Some(t) => format!("TLS with the upstream failed: {t}"),
                    None => format!("the upstream is unreachable: {}", stc_http::tls::describe(&e)),
                };
                return self.fail(id.as_deref(), &m).await;
            }
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        if is_initialize {
            if let Some(s) = response.headers().get(SESSION_HEADER) {
                if let Ok(mut slot) = self.session.lock() {
                    *slot = Some(s.clone());
                }
            }
        }
        if status == http::StatusCode::ACCEPTED {
            return;
        }
        let content_type =
            response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
        let mut body = response.into_body();
        let cap = self.options.max_message_bytes;
        let mut answered = false;
        if content_type.starts_with("text/event-stream") && status.is_success() {
            let mut parser = SseParser::default();
            let mut events = Vec::new();
            loop {
                let frame = match tokio::time::timeout(timeout, body.frame()).await {
                    Err(_) => {
                        let m = format!("the upstream's event stream stalled for {} s", timeout.as_secs());
                        if !answered {
                            self.fail(id.as_deref(), &m).await;
                        }
                        return;
                    }
                    Ok(None) => break,
                    Ok(Some(Err(e))) => {
                        if !answered {
                            let m = format!("the upstream's event stream broke before the response: {e}");
                            self.fail(id.as_deref(), &m).await;
                        }
                        return;
                    }
                    Ok(Some(Ok(f))) => f,
                };
                let Ok(data) = frame.into_data() else { continue };
                parser.feed(&data, &mut events);
                if parser.pending() > cap {
                    if !answered {
                        let m = format!("an event from the upstream is larger than {cap} bytes");
                        self.fail(id.as_deref(), &m).await;
                    }
                    return;
                }
                for event in events.drain(..) {
                    if event.trim().is_empty() {
                        continue;
                    }
                    answered |= self.note_answer(&event, id.as_deref(), is_initialize);
                    self.emit(&event).await;
                }
                if answered && id.is_some() {
                    // The response came: the stream is done for this request.
                    return;
                }
            }
            if !answered {
                self.fail(id.as_deref(), "the upstream closed the event stream before the response").await;
            }
            return;
        }
        // A JSON body (or an error status).
        let collected = match tokio::time::timeout(timeout, http_body_util::Limited::new(body, cap).collect()).await {
            Err(_) => return self.fail(id.as_deref(), "the upstream's response body stalled").await,
            Ok(Err(e)) => {
                let m = if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                    format!("the upstream's response is larger than {cap} bytes")
                } else {
                    format!("the upstream's response broke: {e}")
                };
                return self.fail(id.as_deref(), &m).await;
            }
            Ok(Ok(c)) => c.to_bytes(),
        };
        let text = String::from_utf8_lossy(&collected);
        let jsonrpc = serde_json::from_str::<Envelope>(&text).ok().filter(|m| m.result.is_some() || m.error.is_some());
        match jsonrpc {
            Some(m) if m.id.is_some_and(|i| i.get() != "null") => {
                self.note_answer(&text, id.as_deref(), is_initialize);
                self.emit(&text).await;
            }
            Some(m) => {
                // An error with id null (a rejection before the id was read): give it this id.
                let error = m.error.map_or("{\"code\":-32000,\"message\":\"error\"}", |e| e.get());
                if let Some(id) = &id {
                    self.emit(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{error}}}")).await;
                }
            }
            None => {
                let snippet: String = text.chars().take(200).collect();
                let m = format!("the upstream answered HTTP {} ({content_type}): {snippet}", status.as_u16());
                self.fail(id.as_deref(), &m).await;
            }
        }
    }

    /// Whether `event` is the response to `id`; keeps the protocol version an `initialize` agreed.
    fn note_answer(&self, event: &str, id: Option<&str>, is_initialize: bool) -> bool {
        let Ok(m) = serde_json::from_str::<Envelope>(event) else { return false };
        let is_answer = m.method.is_none() && m.id.is_some_and(|i| Some(i.get()) == id);
        if is_answer && is_initialize {
            #[derive(serde::Deserialize)]
            struct Init {
                #[serde(rename = "protocolVersion")]
                version: Option<String>,
            }
            let v = m.result.and_then(|r| serde_json::from_str::<Init>(r.get()).ok()).and_then(|i| i.version);
            if let (Some(v), Ok(mut slot)) = (v.and_then(|v| HeaderValue::from_str(&v).ok()), self.version.lock()) {
                *slot = Some(v);
            }
        }
        is_answer
    }
}

/// `params._meta["io.modelcontextprotocol/protocolVersion"]`.
fn meta_version(params: &serde_json::value::RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "_meta")]
        meta: Option<serde_json::Map<String, serde_json::Value>>,
    }
    let p: P = serde_json::from_str(params.get()).ok()?;
    p.meta?.get(VERSION_META)?.as_str().map(str::to_string)
}

/// The value the `Mcp-Name` header mirrors: `name` of `tools/call` and
/// `prompts/get`, `uri` of `resources/read`.
fn name_of(method: &str, params: Option<&serde_json::value::RawValue>) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    let v: serde_json::Value = serde_json::from_str(params?.get()).ok()?;
    v.get(key)?.as_str().map(str::to_string)
}

/// As the SDK: printable ASCII without outer spaces verbatim, anything else
/// as `=?base64?…?=`.
fn encode_header_value(value: &str) -> String {
    let safe = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && value == value.trim()
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if safe {
        return value.to_string();
    }
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::from("=?base64?");
    for chunk in value.as_bytes().chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push_str("?=");
    out
}

/// The top-level `"id"` of the start of a JSON object, as its raw text,
/// when it is a number or a simple string (for answering a message too
/// large to parse).
pub(crate) fn leading_id_text(bytes: &[u8]) -> Option<String> {
    let mut depth = 0usize;
    let mut i = 0;
    let n = bytes.len().min(1 << 20);
    while i < n {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < n && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && &bytes[start..i.min(n)] == b"id" {
                    let mut j = i + 1;
                    while j < n && (bytes[j] == b' ' || bytes[j] == b':') {
                        j += 1;
                    }
                    let k = bytes[j..n].iter().position(|&b| b == b',' || b == b'}').map(|p| j + p)?;
                    let raw = std::str::from_utf8(&bytes[j..k]).ok()?.trim();
                    return serde_json::from_str::<serde_json::Value>(raw)
                        .ok()
                        .filter(|v| v.is_number() || v.is_string())
                        .map(|_| raw.to_string());
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// [`leading_id_text`] as the integer ids of `--listen`.
pub(crate) fn leading_id(bytes: &[u8]) -> Option<u64> {
    leading_id_text(bytes)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_and_leading_ids() {
        assert_eq!(encode_header_value("table"), "table");
        assert_eq!(encode_header_value("héllo"), "=?base64?aMOpbGxv?=");
        assert_eq!(encode_header_value(" a"), "=?base64?IGE=?=");
        assert_eq!(leading_id(br#"{"jsonrpc":"2.0","id":17,"result":{"content":[{"id":3"#), Some(17));
        assert_eq!(leading_id(br#"{"result":{"id":3,"x":"#), None);
        assert_eq!(leading_id_text(br#"{"id" : "a\"b","#).as_deref(), Some(r#""a\"b""#));
    }
}
